/* SPDX-License-Identifier: MIT */
/*
 * sg_eval: a unit's candidates judged by the engine. Each trial copies the unit's facts, writes
 * the candidate and its companions over them (as statements at the end of the unit would), and
 * runs defaults, normalization and every rule of the target. Errors the unit has with graphs off
 * are the unit's own and do not count against a candidate; an error a candidate brings whose
 * rule names the setting that lifts it (an autofix, or sg_table's companions) takes that setting
 * and the trial runs again.
 */
#include "suggest/sg_int.h"

#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "base/value.h"
#include "config/engine.h"
#include "config/fact.h"
#include "config/judge.h"
#include "config/pack.h"
#include "config/target.h"

#define MAX_SETS 24
#define MAX_ROUNDS 4
#define MAX_LIST 32

/* The settings of one trial, over the unit's facts. */
struct trial {
	struct sg_set sets[MAX_SETS];
	size_t n;
};

/* One engine run over a copy: its facts and diagnostics live in 'ta'. */
struct run {
	struct arena *ta;
	struct facts f;
	struct diag_list l;
};

static void put_if(struct trial *t, const char *key, struct value v, bool companion, const char *only_if)
{
	for (size_t k = 0; k < t->n; k++)
		if (!strcmp(t->sets[k].key, key)) {
			t->sets[k].val = v;
			t->sets[k].only_if = only_if;
			return;
		}
	if (t->n < MAX_SETS)
		t->sets[t->n++] = (struct sg_set){.key = key, .val = v, .companion = companion, .only_if = only_if};
}

static void put(struct trial *t, const char *key, struct value v, bool companion)
{
	put_if(t, key, v, companion, NULL);
}

static void run_open(struct sgx *x, struct run *r, const struct facts *base, const struct trial *t)
{
	r->ta = arena_new();
	facts_init(&r->f, r->ta);
	facts_copy(&r->f, base);
	for (size_t k = 0; t && k < t->n; k++)
		facts_set(&r->f, t->sets[k].key, t->sets[k].val, (struct loc){x->path, x->line, 1}, "suggest");
	diag_init(&r->l, r->ta, NULL, NULL);
	struct engine e = {.pack = x->pack,
			   .unit = {.target = x->tg, .facts = &r->f, .diags = &r->l, .arena = r->ta,
				    .unit_path = x->path, .unit_line = x->line}};
	engine_run(&e);
}

static void run_close(struct run *r)
{
	diag_release(&r->l);
	facts_release(&r->f);
	arena_free(r->ta);
}

/* The rule ids of a run's findings at 'sev' (open checks when 'open'), as one string. */
static bool listed(const char *const *ids, size_t n, const char *id)
{
	for (size_t k = 0; k < n; k++)
		if (!strcmp(ids[k], id))
			return true;
	return false;
}

static size_t ids_of(const struct run *r, bool open, enum sev lo, const char **out)
{
	size_t n = 0;
	for (size_t k = 0; k < r->l.n; k++) {
		const struct diag *d = &r->l.items[k];
		bool is_open = d->supp == DIAG_OPEN;
		enum sev s = is_open ? d->rule->head.sev : d->sev;
		if (is_open != open || s < lo || listed(out, n, d->rule->head.id) || n == MAX_LIST)
			continue;
		out[n++] = d->rule->head.id;
	}
	return n;
}

static struct value str_list(struct arena *a, const char *const *s, size_t n)
{
	struct value v = {.kind = V_LIST, .n = n, .items = arena_alloc(a, (n ? n : 1) * sizeof(struct value))};
	for (size_t k = 0; k < n; k++)
		v.items[k] = value_str(arena_strdup(a, s[k]));
	return v;
}

/* The candidate as the unit's language spells it: full-iteration graphs as an impl of their own
 * where the target takes one, Megatron-LM 0.18+ and Bridge 0.6 (utils/cuda_graph.py L125 at
 * v0.6.0; MCore 0.18+ calls local + ["full_iteration"] deprecated, CG133), and wherever the unit
 * already writes them so. */
static void spell(const struct sgx *x, const struct sgt_cand *c, const char **impl, struct value *scope)
{
	*impl = c->impl;
	*scope = str_list(x->a, c->scope, c->n);
	struct value own = facts_value(x->pre, sgt_impl_key(x->lang));
	bool own_fi = own.kind == V_STR && !strcmp(own.s, "full_iteration");
	bool fi_impl = x->tg->mcore >= 180 && (x->lang == SG_MLM || (x->lang != SG_HARNESS && x->tg->bridge >= 60));
	if (c->full_iteration && (fi_impl || own_fi)) {
		*impl = "full_iteration";       /* Megatron-LM 0.18+: an impl of its own, no scope flag */
		*scope = str_list(x->a, NULL, 0);
	}
}

static void candidate_sets(const struct sgx *x, const struct sgt_cand *c, struct trial *t)
{
	const char *impl;
	struct value scope;
	spell(x, c, &impl, &scope);
	t->n = 0;
	const char *sk = sgt_scope_key(x->lang, x->tg, x->pre);
	put(t, sgt_impl_key(x->lang), value_str(impl), false);
	put(t, sk, scope, false);
	/* MCore 0.18+ takes a scope only beside modules "full", None or [] (transformer_config.py,
	 * core_v0.19.0 L2383-2387): with the scope, the modules are empty, whatever a recipe the unit
	 * calls (or that recipe's own patch) sets them to */
	if (x->tg->mcore >= 180 && !strcmp(sk, "model.cuda_graph_scope") && x->lang != SG_MLM)
		put(t, "model.cuda_graph_modules", (struct value){.kind = V_LIST, .n = 0}, true);
	for (const char *const *p = sgt_always(x->lang, x->tg, c->full_iteration); *p; p += 2)
		put(t, p[0], value_from_plain(x->a, p[1]), true);
}

/* A companion written into the trial; false when it cannot be or is there already. One whose
 * guard is unknown is written in Python under an if on the guard: right whichever it is. */
static bool companion(struct sgx *x, const struct run *r, const struct sgt_companion *cp, struct trial *t)
{
	if (!sgt_writable(x->lang, cp->key))
		return false;
	const char *only_if = NULL;
	if (cp->guard) {
		struct value g = facts_value(&r->f, cp->guard);
		if (g.kind == V_NULL || (g.kind == V_UNKNOWN && x->lang != SG_PY))
			return false;
		only_if = g.kind == V_UNKNOWN ? cp->guard : NULL;
	}
	struct value v = value_from_plain(x->a, cp->value);
	if (!strncmp(cp->key, "env.", 4))
		v = value_str(cp->value);       /* the environment is text */
	struct value now = facts_value(&r->f, cp->key);
	if (value_equal(&now, &v) && now.kind == v.kind)
		return false;
	put_if(t, cp->key, v, true, only_if);
	return true;
}

/* The companions that settle the winner's undecided error checks (sg_table: packed sequences). */
static bool settle(struct sgx *x, const struct run *r, struct trial *t)
{
	bool changed = false;
	for (size_t k = 0; k < r->l.n; k++) {
		const struct diag *d = &r->l.items[k];
		const struct sgt_companion *cp = d->supp == DIAG_OPEN && d->rule->head.sev == SEV_ERROR
							 ? sgt_companion(d->rule->head.id) : NULL;
		if (cp && cp->guard && companion(x, r, cp, t))
			changed = true;
	}
	return changed;
}

/* The settings that lift the errors of 'r' not in 'own'; false when one has none. */
static bool lift(struct sgx *x, const struct run *r, const char *const *own, size_t n_own, struct trial *t,
		 const char **stuck)
{
	bool changed = false;
	*stuck = NULL;
	for (size_t k = 0; k < r->l.n; k++) {
		const struct diag *d = &r->l.items[k];
		if (d->supp != DIAG_SUPP_NONE || d->sev != SEV_ERROR || listed(own, n_own, d->rule->head.id))
			continue;
		const struct rule *rule = d->rule;
		bool some = false;
		for (size_t i = 0; i < rule->n_autofix; i++) {
			if (!sgt_writable(x->lang, rule->autofix_keys[i]))
				continue;
			struct value v = value_from_plain(x->a, rule->autofix_values[i]);
			struct value now = facts_value(&r->f, rule->autofix_keys[i]);
			if (value_equal(&now, &v) && now.kind == v.kind)
				continue;
			put(t, arena_strdup(x->a, rule->autofix_keys[i]), v, true);
			some = changed = true;
		}
		for (const struct sgt_companion *cp = NULL; !some && (cp = sgt_companion_next(cp));)
			if (!strcmp(cp->rule, rule->head.id) && companion(x, r, cp, t))
				some = changed = true;
		if (!some && !*stuck)
			*stuck = arena_printf(x->a, "%s (%s): %s%s%s", rule->head.id, rule->head.name, d->message,
					      rule->head.fix ? "; lift: " : "", rule->head.fix ? rule->head.fix : "");
	}
	return changed && !*stuck;
}

static const char *scope_text(struct arena *a, const struct value *v)
{
	if (v->kind != V_LIST)
		return value_string(a, v, true);
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t k = 0; k < v->n; k++)
		sbuf_printf(&sb, "%s%s", k ? ", " : "", value_string(a, &v->items[k], true));
	const char *s = arena_strdup(a, sb.buf);
	sbuf_release(&sb);
	return s;
}

/* "local [attn, mlp]", or "local (no modules named)" */
static const char *setting_text(struct arena *a, const char *impl, const struct value *scope)
{
	if (scope->kind == V_NULL || scope->kind == V_UNKNOWN)
		return arena_printf(a, "%s (%s)", impl, scope->kind == V_NULL ? "no modules named" : "modules not known");
	return arena_printf(a, "%s [%s]", impl, scope_text(a, scope));
}

static const char *version(struct arena *a, const struct target *tg)
{
	char m[16], b[16];
	if (tg->bridge == TARGET_NO_BRIDGE)
		return arena_printf(a, "MCore %s (Megatron-LM)", target_version_str(tg->mcore, m));
	return arena_printf(a, "MCore %s, Bridge %s", target_version_str(tg->mcore, m), target_version_str(tg->bridge, b));
}

/* A guarded companion the unit writes already (it or its dict), under a condition cglint cannot
 * decide: the Python patch's own if, as a second run of suggest reads it. Left as it is. */
static bool written_unseen(struct sgx *x, const char *key)
{
	const struct sgt_companion *cp = NULL;
	while ((cp = sgt_companion_next(cp)) && !(cp->guard && !strcmp(cp->key, key)))
		;
	if (!cp)
		return false;
	char *k = arena_strdup(x->a, key);
	for (char *dot;;) {
		const struct fact *f = facts_get(x->pre, k);
		if (f && f->val.kind == V_UNKNOWN && f->loc.path)
			return true;
		if (!(dot = strrchr(k, '.')) || dot - k <= (ptrdiff_t)strcspn(k, "."))
			return false;
		*dot = '\0';
	}
}

/* The differences between the winner's settings and what the unit writes now. */
static void diff_sets(struct sgx *x, const struct trial *t, struct sg_choice *c)
{
	c->sets = arena_alloc(x->a, (t->n + 1) * sizeof(*c->sets));  /* + respell()'s */
	for (size_t k = 0; k < t->n; k++) {
		const struct sg_set *s = &t->sets[k];
		struct value now = facts_value(x->pre, s->key);
		bool same = strstr(s->key, "cuda_graph_scope") || strstr(s->key, "cuda_graph_modules")
				    ? sgt_same_scope(&now, &s->val)
				    : value_equal(&now, &s->val) && (now.kind == s->val.kind || (s->val.kind == V_STR && now.kind != V_NULL &&
											 !strncmp(s->key, "env.", 4)));
		/* empty modules (beside the scope, or for full-iteration graphs): None and "full", the
		 * 0.18+ default, are the same to MCore */
		same |= (s->companion || (s->val.kind == V_LIST && !s->val.n)) && !strcmp(s->key, "model.cuda_graph_modules") &&
			(now.kind == V_NULL || (now.kind == V_LIST && !now.n) || (now.kind == V_STR && !strcmp(now.s, "full")));
		if (same || (s->companion && written_unseen(x, s->key)))
			continue;
		const struct fact *f = facts_get(x->pre, s->key);
		c->sets[c->n_sets] = *s;
		c->sets[c->n_sets].key = arena_strdup(x->a, s->key);
		c->sets[c->n_sets].at = f ? f->loc : (struct loc){0};
		if (c->sets[c->n_sets].at.path)
			c->sets[c->n_sets].at.path = arena_strdup(x->a, c->sets[c->n_sets].at.path);
		c->n_sets++;
	}
}

static const char **copy_list(struct arena *a, const char *const *s, size_t n)
{
	const char **v = arena_alloc(a, (n ? n : 1) * sizeof(*v));
	for (size_t k = 0; k < n; k++)
		v[k] = arena_strdup(a, s[k]);
	return v;
}

/* The open error checks and the new warnings of the winner's run, as lines. */
static void collect(struct sgx *x, const struct run *r, const struct run *off, struct sg_choice *c)
{
	const char *lines[MAX_LIST];
	const char *seen[MAX_LIST];
	size_t n = 0, n_seen = ids_of(off, false, SEV_NOTE, seen);
	/* the trial writes the unit's own keys; the patch renames them as the target spells them */
	bool respelled = x->tg->mcore >= 180 && (x->lang == SG_MLM || x->lang == SG_PY || x->lang == SG_YAML);
	for (size_t k = 0; k < r->l.n && n < MAX_LIST; k++) {
		const struct diag *d = &r->l.items[k];
		if (d->supp != DIAG_SUPP_NONE || d->sev == SEV_ERROR || listed(seen, n_seen, d->rule->head.id) ||
		    (respelled && (!strcmp(d->rule->head.id, "CG132") || !strcmp(d->rule->head.id, "CG133"))))
			continue;
		lines[n++] = arena_printf(x->a, "%s %s: %s", d->rule->head.id, diag_sev_name(d->sev), d->message);
		seen[n_seen < MAX_LIST ? n_seen++ : n_seen - 1] = d->rule->head.id;
	}
	c->notes = copy_list(x->a, lines, c->n_notes = n);
	n = 0;
	n_seen = ids_of(off, true, SEV_ERROR, seen);
	for (size_t k = 0; k < r->l.n && n < MAX_LIST; k++) {
		const struct diag *d = &r->l.items[k];
		if (d->supp != DIAG_OPEN || d->rule->head.sev != SEV_ERROR || listed(seen, n_seen, d->rule->head.id))
			continue;
		const char *fix = d->rule->head.fix;
		lines[n++] = arena_printf(x->a, "%s (%s) %s%s%s", d->rule->head.id, d->rule->head.name,
					  d->message + (strncmp(d->message, "check ", 6) ? 0 : 6), fix ? "; if it fails: " : "",
					  fix ? fix : "");
		seen[n_seen < MAX_LIST ? n_seen++ : n_seen - 1] = d->rule->head.id;
	}
	c->undecided = copy_list(x->a, lines, c->n_undecided = n);
}

/* Megatron Core 0.18+ names the graphed modules cuda_graph_modules (Megatron-LM
 * --cuda-graph-modules); the deprecated scope only moves into them, with a deprecation warning
 * (transformer_config.py core_v0.19.0 L2389-2393, arguments.py L615-621; CG132). A launch script,
 * a recipe or a Bridge YAML that writes the scope gets it renamed where it is written, its names
 * changed or not: the winner's modules under the key the target spells them with (sg_patch: a
 * recipe sets the old key to None, as a helper it called may have set it too; where a YAML or a
 * script cannot rename it in place, the old key keeps the value, since a second key beside it
 * would fail MCore's assert that both are not set, CG131). */
static void respell(struct sgx *x, struct sg_choice *c)
{
	if (x->tg->mcore < 180 || (x->lang != SG_MLM && x->lang != SG_PY && x->lang != SG_YAML))
		return;
	const struct fact *f = sgt_scope_written(x->pre);
	if (!f || !f->loc.path)
		return;
	struct sg_set *s = NULL;
	for (size_t k = 0; k < c->n_sets && !s; k++)
		if (!strcmp(c->sets[k].key, "model.cuda_graph_scope"))
			s = &c->sets[k];
	if (!s) {
		s = &c->sets[c->n_sets++];
		*s = (struct sg_set){.val = c->scope};
	}
	s->key = "model.cuda_graph_modules";
	s->renames = "model.cuda_graph_scope";
	s->at = f->loc;
	s->at.path = arena_strdup(x->a, f->loc.path);
	/* the modules' clearing that went with the old key ([] beside the scope) is this set now */
	size_t keep = 0;
	for (size_t k = 0; k < c->n_sets; k++)
		if (&c->sets[k] == s || strcmp(c->sets[k].key, "model.cuda_graph_modules"))
			c->sets[keep++] = c->sets[k];
	c->n_sets = keep;
}

/* The errors a trial leaves: fresh ones (not the unit's own) and open (undecided) ones. */
static void trial_errors(struct sgx *x, const struct facts *base, const struct trial *t, const char *const *own,
			 size_t n_own, size_t *fresh, size_t *open)
{
	struct run r;
	run_open(x, &r, base, t);
	const char *errs[MAX_LIST];
	size_t ne = ids_of(&r, false, SEV_ERROR, errs);
	*fresh = 0;
	for (size_t i = 0; i < ne; i++)
		*fresh += !listed(own, n_own, errs[i]);
	*open = ids_of(&r, true, SEV_ERROR, errs);
	run_close(&r);
}

/* The winner less the RNG-tracker companion it does not need. Bridge ORs rng.te_rng_tracker and
 * model.use_te_rng_tracker (config.py L1270-1272 at v0.6.0; the same from 0.2), and CG101 says
 * exactly where one of them is not enough (GPTModelConfig asserts before the OR): each of the
 * pair whose absence leaves no error and no more undecided checks goes. The other companions
 * stay: some stand for failures no rule reads (a NaN check inside a full-iteration capture). */
static void prune(struct sgx *x, const struct facts *base, const char *const *own, size_t n_own, struct trial *t,
		  size_t open0)
{
	size_t fresh, open;
	for (size_t k = 0; k < t->n;) {         /* model's first: rng's is the fix CG101 names */
		const char *key = t->sets[k].key;
		if (!t->sets[k].companion || t->sets[k].only_if ||
		    (strcmp(key, "model.use_te_rng_tracker") && strcmp(key, "rng.te_rng_tracker"))) {
			k++;
			continue;
		}
		struct trial less = *t;
		memmove(&less.sets[k], &less.sets[k + 1], (less.n - k - 1) * sizeof(less.sets[0]));
		less.n--;
		trial_errors(x, base, &less, own, n_own, &fresh, &open);
		if (!fresh && open <= open0)
			*t = less;
		else
			k++;
	}
}

/* A warning of rules/failures.yaml (a run-time failure no check stops: Megatron-FSDP's hooks
 * captured in the wrong phase, a hang at shutdown) that the trial brings and the unit as written
 * does not have: the candidate is blocked as by an error, "rule (name): message". */
static const char *fresh_failure(struct sgx *x, const struct run *r, const struct run *now)
{
	for (size_t k = 0; k < r->l.n; k++) {
		const struct diag *d = &r->l.items[k];
		const struct rule *rule = d->rule;
		const char *path = rule->defined.path;
		size_t n = path ? strlen(path) : 0;
		if (d->supp != DIAG_SUPP_NONE || d->sev != SEV_WARNING || n < 13 || strcmp(path + n - 13, "failures.yaml"))
			continue;
		bool had = false;
		for (size_t i = 0; i < now->l.n && !had; i++)
			had = now->l.items[i].rule == rule && now->l.items[i].supp == DIAG_SUPP_NONE;
		if (!had)
			return arena_printf(x->a, "%s (%s): %s", rule->head.id, rule->head.name, d->message);
	}
	return NULL;
}

/* The unit's own setting is full-iteration graphs: the impl of MCore 0.18+, or local with the
 * full_iteration scope of earlier releases. */
static bool chose_full_iteration(const struct sg_unit *u)
{
	if (u->impl && !strcmp(u->impl, "full_iteration"))
		return true;
	if (!u->impl || strcmp(u->impl, "local"))
		return false;
	if (u->scope.kind == V_STR)
		return !strcmp(u->scope.s, "full_iteration");
	for (size_t k = 0; u->scope.kind == V_LIST && k < u->scope.n; k++)
		if (u->scope.items[k].kind == V_STR && !strcmp(u->scope.items[k].s, "full_iteration"))
			return true;
	return false;
}

/* The unit (with the branch's assumptions in 'base') judged: the leaf of the branch tree. */
static void decide(struct sgx *x, const struct facts *base, const struct sgt_class *cls, const struct run *off,
		   const struct run *now, struct sg_unit *u, struct sg_choice *c)
{
	/* Megatron-LM's inference programs (examples/inference/, args_run_kind) take the training
	 * flags but capture decode steps: the training candidates do not apply to them */
	struct value kind = facts_value(x->pre, "args._run");
	if (x->lang == SG_MLM && kind.kind == V_STR && !strcmp(kind.s, "inference")) {
		c->row = cls->row;
		c->status = SG_KEEP;
		c->why = arena_printf(x->a, "an inference program: suggest ranks training graphs, so its own %s stays",
				      setting_text(x->a, u->impl, &u->scope));
		return;
	}
	/* the unit's own errors: those it has both with graphs off and as written. One that only
	 * graphs off brings (an inference scope that needs local graphs) depends on the setting. */
	const char *own[MAX_LIST], *off_errs[MAX_LIST], *now_errs[MAX_LIST];
	size_t n_own = 0, n_off = ids_of(off, false, SEV_ERROR, off_errs), n_now = ids_of(now, false, SEV_ERROR, now_errs);
	for (size_t i = 0; i < n_off; i++)
		if (listed(now_errs, n_now, off_errs[i]))
			own[n_own++] = off_errs[i];
	/* a unit that chose full-iteration graphs keeps them where a rule allows them, with the
	 * companions they need; --allow full-iteration is for the units that did not choose */
	bool chose_fi = chose_full_iteration(u), fi = x->allow_fi || chose_fi;
	struct sgt_cand cands[SGT_MAX_CANDS];
	size_t n = sgt_candidates(cls, fi, cands);
	const char *blocked[SGT_MAX_CANDS];
	size_t n_blocked = 0;
	struct sbuf path;
	sbuf_init(&path);
	sbuf_printf(&path, "%s (%s) on %s", cls->row, cls->because, version(x->a, x->tg));
	if (!fi)
		sbuf_adds(&path, "; local full_iteration not asked for");
	else if (!x->allow_fi)
		sbuf_adds(&path, "; the unit chose full_iteration");
	c->row = cls->row;
	for (size_t k = 0; k < n; k++) {
		struct trial t;
		candidate_sets(x, &cands[k], &t);
		const char *impl;
		struct value scope;
		spell(x, &cands[k], &impl, &scope);
		const char *stuck = NULL;
		struct trial passed;            /* the last trial that passed before settle() added to it */
		bool have_passed = false;
		for (unsigned round = 0; round <= MAX_ROUNDS; round++) {
			if (round == MAX_ROUNDS) {      /* what settle() added broke it: without */
				if (!have_passed)
					break;
				t = passed;
				have_passed = false;
			}
			struct run r;
			run_open(x, &r, base, &t);
			const char *errs[MAX_LIST];
			size_t ne = ids_of(&r, false, SEV_ERROR, errs), fresh = 0;
			for (size_t i = 0; i < ne; i++)
				fresh += !listed(own, n_own, errs[i]);
			const char *failure = fresh ? NULL : fresh_failure(x, &r, now);
			if (failure) {  /* no setting lifts it: the candidate itself is the failure */
				stuck = failure;
				run_close(&r);
				break;
			}
			if (!fresh) {
				struct trial before = t;
				if (!have_passed && round + 1 < MAX_ROUNDS && settle(x, &r, &t)) {
					passed = before;
					have_passed = true;
					run_close(&r);
					continue;
				}
				c->impl = impl;
				c->scope = scope;
				prune(x, base, own, n_own, &t, ids_of(&r, true, SEV_ERROR, errs));
				diff_sets(x, &t, c);
				if (c->n_sets)  /* a unit that has its setting gets the spelling apart (own_spelling) */
					respell(x, c);
				collect(x, &r, off, c);
				run_close(&r);
				break;
			}
			bool again = lift(x, &r, own, n_own, &t, &stuck);
			run_close(&r);
			if (!again && !have_passed)
				break;
			if (!again)
				round = MAX_ROUNDS - 1;
		}
		if (c->impl)
			break;
		blocked[n_blocked++] = arena_printf(x->a, "%s [%s]: %s", impl, scope_text(x->a, &scope),
						    stuck ? stuck : "its companions do not settle");
		sbuf_printf(&path, "; %s [%s] fails %.*s", impl, scope_text(x->a, &scope),
			    stuck ? (int)strcspn(stuck, " ") : 5, stuck ? stuck : "rules");
	}
	c->blocked = copy_list(x->a, blocked, c->n_blocked = n_blocked);
	size_t now_fresh = 0;
	for (size_t i = 0; i < n_now; i++)
		now_fresh += !listed(own, n_own, now_errs[i]);
	int now_rank = u->impl ? sgt_rank(u->impl, &u->scope) : 0;
	if (!c->impl && now_rank > 0 && !now_fresh) {   /* no candidate passes, its own setting does */
		c->status = SG_KEEP;
		sbuf_printf(&path, ": keeps its own %s, which passes", setting_text(x->a, u->impl, &u->scope));
	} else if (!c->impl) {
		c->status = SG_NONE_FITS;
		sbuf_adds(&path, ": no candidate passes");
		/* graphs on and failing: turning them off is the setting that passes */
		if (now_rank > 0 && now_fresh) {
			struct trial t = {0};
			put(&t, sgt_impl_key(x->lang), value_str("none"), false);
			diff_sets(x, &t, c);
		}
	} else if (!now_fresh && now_rank > sgt_rank(c->impl, &c->scope)) {
		c->status = SG_KEEP;
		c->n_sets = 0;
		sbuf_printf(&path, ": keeps its own %s, which passes and captures more",
			    setting_text(x->a, u->impl, &u->scope));
	} else {
		c->status = c->n_sets ? SG_SUGGEST : SG_ALREADY;
		sbuf_printf(&path, ": %s [%s]%s", c->impl, scope_text(x->a, &c->scope), c->n_sets ? "" : " (already set)");
	}
	c->why = arena_strdup(x->a, path.buf);
	sbuf_release(&path);
}

static void grow(struct sgx *x, struct sg_unit *u)
{
	struct sg_choice *v = arena_alloc(x->a, (u->n_choices + 1) * sizeof(*v));
	if (u->n_choices)
		memcpy(v, u->choices, u->n_choices * sizeof(*v));
	u->choices = v;
	u->n_choices++;
}

/* The branch tree: each unknown key the table reads splits it, at most a few levels deep. */
static void walk(struct sgx *x, const struct facts *base, const char *when, unsigned depth, struct sg_unit *u)
{
	struct trial off_t = {0}, none = {0};
	put(&off_t, sgt_impl_key(x->lang), value_str("none"), false);
	struct run off, now;
	run_open(x, &off, base, &off_t);
	run_open(x, &now, base, &none);
	struct sgt_class cls;
	struct sgt_branch b;
	if (sgt_classify(&off.f, x->a, &cls, &b) || depth >= 3) {
		grow(x, u);
		struct sg_choice *c = &u->choices[u->n_choices - 1];
		*c = (struct sg_choice){.when = when};
		if (!cls.row)
			cls = (struct sgt_class){.row = "dense", .because = "unclassified"};
		decide(x, base, &cls, &off, &now, u, c);
	} else {
		if (!u->unknown)
			u->unknown = judge_unknown_key(&off.f, x->tg, b.key, x->a);
		for (size_t k = 0; k < b.n; k++) {
			struct arena *ba = arena_new();
			struct facts f;
			facts_init(&f, ba);
			facts_copy(&f, base);
			facts_set(&f, b.key, b.vals[k], (struct loc){0}, "branch");
			const char *w = arena_printf(x->a, "%s%s%s = %s (%s)", when ? when : "", when ? ", " : "", b.key,
						     value_string(x->a, &b.vals[k], false), b.labels[k]);
			walk(x, &f, w, depth + 1, u);
			facts_release(&f);
			arena_free(ba);
		}
	}
	run_close(&off);
	run_close(&now);
}

/* "a = 1 (x), b = 2 (y)" -> "a and b are" (the keys a branch assumed) */
static const char *branch_keys(struct arena *a, const char *when)
{
	struct sbuf sb;
	sbuf_init(&sb);
	size_t n = 0;
	for (const char *p = when; p && *p; n++) {
		size_t m = strcspn(p, " ");
		sbuf_printf(&sb, "%s%.*s", n ? " and " : "", (int)m, p);
		p = strstr(p, "), ");
		p = p ? p + 3 : NULL;
	}
	sbuf_adds(&sb, n > 1 ? " are" : " is");
	const char *s = arena_strdup(a, sb.buf);
	sbuf_release(&sb);
	return s;
}

/* Branches whose answers are the same settings are one answer: the unknown key did not matter. */
static bool same_choice(const struct sg_choice *a, const struct sg_choice *b)
{
	if (a->status == SG_KEEP && b->status == SG_KEEP)
		return true;    /* the unit's own setting either way: what would win below it does not matter */
	if (a->status != b->status || a->n_sets != b->n_sets || !a->impl != !b->impl ||
	    (a->impl && (strcmp(a->impl, b->impl) || !sgt_same_scope(&a->scope, &b->scope))))
		return false;
	for (size_t k = 0; k < a->n_sets; k++)
		if (strcmp(a->sets[k].key, b->sets[k].key) || !value_equal(&a->sets[k].val, &b->sets[k].val))
			return false;
	return true;
}

/* A scope value copied into the results' arena (its names only). */
static struct value kept_scope(struct sgx *x, struct value scope)
{
	struct value v = scope;
	if (scope.kind == V_STR)
		v = value_str(arena_strdup(x->a, scope.s));
	if (scope.kind == V_LIST) {
		v.items = arena_alloc(x->a, (scope.n + 1) * sizeof(struct value));
		v.n = 0;
		for (size_t k = 0; k < scope.n; k++)
			if (scope.items[k].kind == V_STR)
				v.items[v.n++] = value_str(arena_strdup(x->a, scope.items[k].s));
	}
	return v;
}

/* The unit's own setting in the target's spelling where lint calls it deprecated: the scope
 * MCore 0.18+ moves into the modules (CG132), local + full_iteration (CG133). What --fix writes for a unit whose setting it otherwise leaves (branches, already, keep): the
 * written names under the new key, or MCore's full_iteration impl. The same in every branch:
 * MCore's migration reads none of the keys they assume. */
static void own_spelling(struct sgx *x, const struct run *now, struct sg_unit *u)
{
	const char *ids[MAX_LIST];
	size_t n = ids_of(now, false, SEV_NOTE, ids);
	const struct fact *written = sgt_scope_written(x->pre);
	struct value impl = facts_value(x->pre, sgt_impl_key(x->lang));
	bool fi = chose_full_iteration(u), local_fi = fi && impl.kind == V_STR && !strcmp(impl.s, "local");
	if (x->tg->mcore < 180 || (x->lang != SG_MLM && x->lang != SG_PY && x->lang != SG_YAML) || !u->impl ||
	    (!listed(ids, n, "CG132") && !listed(ids, n, "CG133")))
		return;         /* what lint calls deprecated, no more: a scope Bridge 0.6 clears is not */
	struct value scope = local_fi ? u->scope : kept_scope(x, written ? written->raw : u->scope);
	struct sgt_cand own = {.impl = u->impl, .full_iteration = local_fi};
	if (scope.kind == V_STR)        /* "attn,mlp": MCore splits it on ',' */
		scope = value_split(x->a, &scope, &(struct value){.kind = V_STR, .s = ","});
	for (size_t k = 0; scope.kind == V_LIST && k < scope.n; k++) {
		if (own.n == sizeof(own.scope) / sizeof(own.scope[0]) || scope.items[k].kind != V_STR)
			return;
		own.scope[own.n++] = scope.items[k].s;
	}
	struct trial t = {0};
	struct sg_choice *c = arena_alloc(x->a, sizeof(*c));
	*c = (struct sg_choice){.status = SG_SUGGEST};
	spell(x, &own, &c->impl, &c->scope);
	if (local_fi)   /* else the impl stays as written: a deprecated boolean's migration included */
		put(&t, sgt_impl_key(x->lang), value_str(c->impl), false);
	put(&t, sgt_scope_key(x->lang, x->tg, x->pre), c->scope, false);
	/* its own setting's errors that hold whatever the branch (a companion left on: CG176's
	 * overlapped param gather) lifted with it, when every one has its setting; else none */
	struct trial lifted = t;
	const char *stuck = NULL, *lifts = NULL;
	struct run r;
	run_open(x, &r, x->pre, &lifted);
	const char *errs[MAX_LIST], *left[MAX_LIST];
	size_t ne = ids_of(&r, false, SEV_ERROR, errs);
	if (ne && lift(x, &r, NULL, 0, &lifted, &stuck)) {
		struct run again;
		run_open(x, &again, x->pre, &lifted);
		if (!ids_of(&again, false, SEV_ERROR, left)) {
			t = lifted;
			lifts = arena_printf(x->a, ", with what %s needs", errs[0]);
		}
		run_close(&again);
	}
	run_close(&r);
	diff_sets(x, &t, c);
	respell(x, c);
	c->why = arena_printf(x->a, "its own %s, spelled as %s takes it%s", setting_text(x->a, c->impl, &c->scope),
			      version(x->a, x->tg), lifts ? lifts : "");
	if (c->n_sets)
		u->spelling = c;
}

void sge_unit(struct sgx *x, struct sg_unit *u)
{
	const char *ik = sgt_impl_key(x->lang), *sk = sgt_scope_key(x->lang, x->tg, x->pre);
	struct value impl = facts_value(x->pre, ik);
	u->impl = impl.kind == V_STR ? arena_strdup(x->a, impl.s) : impl.kind == V_NULL ? "none" : NULL;
	u->scope = kept_scope(x, facts_value(x->pre, sk));
	struct run r = {0};
	if (x->lang != SG_HARNESS) {    /* what MCore makes of it: a deprecated boolean's impl, full_iteration's */
		run_open(x, &r, x->pre, NULL);
		struct value ni = facts_value(&r.f, ik);
		if (ni.kind == V_STR && (!u->impl || strcmp(ni.s, u->impl)) && strcmp(ni.s, "none")) {
			u->impl = arena_strdup(x->a, ni.s);
			struct value ns = facts_value(&r.f, x->tg->mcore >= 180 ? "model.cuda_graph_modules" : "model.cuda_graph_scope");
			u->scope = ns.kind == V_LIST || ns.kind == V_STR ? kept_scope(x, ns) : u->scope;
		}
	}
	walk(x, x->pre, NULL, 0, u);
	if (r.ta) {
		own_spelling(x, &r, u);
		run_close(&r);
	}
	for (size_t k = 1; k < u->n_choices; k++)
		if (!same_choice(&u->choices[0], &u->choices[k]))
			return;
	if (u->n_choices > 1) { /* every branch agrees: one answer, nothing assumed */
		struct sg_choice *c = &u->choices[0];
		const char *tail = strchr(c->why, ';') ? strchr(c->why, ';') : strchr(c->why, ':');
		c->row = "any";
		c->why = arena_printf(x->a, "the same answer whatever %s, on %s%s", branch_keys(x->a, c->when),
				      version(x->a, x->tg), tail ? tail : "");
	}
	u->unknown = NULL;
	u->n_choices = u->n_choices ? 1 : 0;
	if (u->n_choices)
		u->choices[0].when = NULL;
}

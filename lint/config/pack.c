/* SPDX-License-Identifier: MIT */
/* pack: loading and validating rule packs (the scanner's API table and the probe's claims: pack_src.c). */
#include "config/pack.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "base/suggest.h"
#include "config/expr.h"
#include "config/pack_load.h"
#include "input/fe_yaml.h"
#include "input/node.h"

static const char *const check_names[] = {
#define CHECK(tag, name, fn) name,
#include "config/checks.def"
#undef CHECK
};

const char *pack_check_name(enum check_kind k)
{
	return k < CHECK_NONE ? check_names[k] : "";
}

static const struct rule *find_for_funnel(const void *owner, const char *id)
{
	return pack_find(owner, id);
}

static unsigned index_for_funnel(const void *owner, const struct rule *r)
{
	(void)owner;
	return r->index;
}

static const struct rule *at_for_funnel(const void *owner, unsigned k)
{
	const struct pack *p = owner;
	return k < p->n_rules ? p->rules[k] : NULL;
}

struct pack *pack_new(void)
{
	struct pack *p = mem_alloc(sizeof(*p));
	p->arena = arena_new();
	p->src = mem_alloc(sizeof(*p->src));
	p->src->pack = p;
	p->lookup = (struct diag_rules){p, find_for_funnel, index_for_funnel, at_for_funnel};
	return p;
}

void pack_free(struct pack *p)
{
	if (!p)
		return;
	free(p->rules);
	strmap_release(&p->by_id);
	strmap_release(&p->by_name);
	free(p->steps);
	free(p->defaults);
	free(p->flags);
	strmap_release(&p->flag_first);
	free(p->suggest);
	free(p->suggest_prev);
	strmap_release(&p->suggest_keys);
	strmap_release(&p->suggest_last);
	free(p->src->apis);
	free(p->src->claims);
	free(p->src);
	pack_names_release(p);
	arena_free(p->arena);
	free(p);
}

/* ---- validation (pack_load.h): every problem names the pack's own file:line ---- */

static void range(struct loader *ld, const struct node *map, const char *key, struct vrange *out)
{
	const char *s = pack_scalar(ld, map, key, false);
	*out = (struct vrange){.any = true};
	if (s && target_parse_range(s, out))
		pack_bad(ld, node_get(map, key), "'%s' is not a version range (like \">=0.16 <0.18\", \"0.17\" or \"none\")", s);
}

struct cond {
	const char *src;
	struct loc at;
	struct arena *a;
	struct expr *e;
};

static struct expr *parse_cond(struct cond *c, struct diag_list *d)
{
	const char *err;
	unsigned col;
	c->e = expr_parse(c->a, c->src, &err, &col);
	if (!c->e && d)
		diag_input(d, "CG910", c->at, "condition: %s at column %u of '%s'", err, col, c->src);
	return c->e;
}

static struct cond *condition(struct loader *ld, const struct node *n)
{
	if (n->kind != NODE_SCALAR) {
		pack_bad(ld, n, "a condition must be a string");
		return NULL;
	}
	struct cond *c = arena_alloc(ld->p->arena, sizeof(*c));
	*c = (struct cond){.src = n->scalar, .at = n->loc, .a = ld->p->arena};
	if (!ld->lazy && !parse_cond(c, ld->d))
		ld->errors++;
	return c;
}

const struct expr *pack_cond(struct cond *c)
{
	if (!c || c->e)
		return c ? c->e : NULL;
	if (!parse_cond(c, NULL)) {
		/* the build parsed every built-in condition (pack_parse_all): this is a broken build */
		fprintf(stderr, "%s:%u:%u: cglint: internal error: a built-in condition does not parse: %s\n",
			c->at.path, c->at.line, c->at.col, c->src);
		exit(3);
	}
	return c->e;
}

static int parse_all(struct cond *const *c, size_t n, struct diag_list *d)
{
	int bad = 0;
	for (size_t k = 0; k < n; k++)
		if (c[k] && !c[k]->e && !parse_cond(c[k], d))
			bad = -1;
	return bad;
}

static int load_tree(struct pack *p, struct diag_list *d, const char *name, struct node *root, bool lazy, bool trusted);

int pack_parse_all(struct pack *p, struct diag_list *d)
{
	int bad = 0;
	for (size_t k = 0; k < p->n_rules; k++) {
		const struct rule *r = p->rules[k];
		bad |= parse_all(&r->when, 1, d) | parse_all(r->at_when, r->n_at, d);
	}
	for (size_t k = 0; k < p->n_steps; k++) {
		const struct step *s = p->steps[k];
		bad |= parse_all(&s->when, 1, d) | parse_all(s->exprs, s->n, d);
	}
	/* the built-in packs' keys, which a run trusts (struct loader's 'trusted'): read again, checked */
	struct pack *q = pack_new();
	for (size_t k = 0; k < pack_n_trees; k++)
		bad |= load_tree(q, d, pack_trees[k].path, pack_trees[k].root, true, false) != 0;
	pack_free(q);
	return bad | pack_names_load_all(p, d);
}

static void mirrors(struct loader *ld, const struct node *map, struct mirror **out, size_t *n_out)
{
	const struct node *m = node_get(map, "mirrors");
	*out = NULL;
	*n_out = 0;
	if (!m)
		return;
	if (m->kind != NODE_MAP) {
		pack_bad(ld, m, "'mirrors' maps \"mcore 0.16\" or \"bridge 0.3\" to a file:line");
		return;
	}
	*out = arena_alloc(ld->p->arena, (m->n ? m->n : 1) * sizeof(**out));
	for (size_t k = 0; k < m->n; k++) {
		const struct node *key = m->items[2 * k], *val = m->items[2 * k + 1];
		struct mirror *mi = &(*out)[*n_out];
		if (key->kind != NODE_SCALAR || val->kind != NODE_SCALAR) {
			pack_bad(ld, key, "'mirrors' entries are \"mcore RANGE: file:line\"");
			continue;
		}
		const char *label = key->scalar;
		if (!strncmp(label, "cuda ", 5) || !strncmp(label, "pytorch", 7) || !strncmp(label, "nccl ", 5)) {
			/* source rules mirror headers and libraries, whatever the Megatron target */
			mi->range.any = true;
			mi->label = label;
			mi->where = val->scalar;
			(*n_out)++;
			continue;
		}
		if (!strncmp(label, "mcore ", 6) || !strncmp(label, "mlm ", 4))
			mi->of_bridge = false;
		else if (!strncmp(label, "bridge ", 7))
			mi->of_bridge = true;
		else {
			pack_bad(ld, key, "mirror label '%s' must start with 'mcore', 'mlm', 'bridge', 'cuda', 'pytorch' or 'nccl'", label);
			continue;
		}
		if (target_parse_range(strchr(label, ' ') + 1, &mi->range)) {
			pack_bad(ld, key, "mirror label '%s' has no version range", label);
			continue;
		}
		mi->label = label;
		mi->where = val->scalar;
		(*n_out)++;
	}
}

/* reports: the public threads where users hit what the rule catches (docs/failures.md) */
static void reports(struct loader *ld, const struct node *map, struct rule *r)
{
	const struct node *n = node_get(map, "reports");
	if (!n)
		return;
	if (n->kind != NODE_SEQ) {
		pack_bad(ld, n, "'reports' lists the addresses of public threads");
		return;
	}
	r->reports = arena_alloc(ld->p->arena, (n->n ? n->n : 1) * sizeof(*r->reports));
	for (size_t k = 0; k < n->n; k++) {
		const struct node *it = n->items[k];
		if (it->kind != NODE_SCALAR || strncmp(it->scalar, "https://", 8))
			pack_bad(ld, it, "a 'reports' entry is the https:// address of a public thread");
		else
			r->reports[r->n_reports++] = it->scalar;
	}
}

static bool ranges_overlap(const struct vrange *a, const struct vrange *b)
{
	if (a->any || b->any)
		return true;
	if (a->none_only || b->none_only)
		return a->none_only && b->none_only;
	return a->lo < b->hi && b->lo < a->hi;
}

static bool valid_id(const char *id)
{
	size_t k = 0;
	while (isupper((unsigned char)id[k]))
		k++;
	if (!k || !isdigit((unsigned char)id[k]))
		return false;
	while (isdigit((unsigned char)id[k]))
		k++;
	return !id[k];
}

static void load_rule(struct loader *ld, const struct node *n)
{
	static const char *const keys[] = {"id", "name", "severity", "mcore", "bridge", "when", "check", "key",
					   "values", "at", "message", "fix", "fix_python", "fix_harness", "fix_mlm",
					   "autofix", "mirrors", "reports", "doc", NULL};
	if (n->kind != NODE_MAP) {
		pack_bad(ld, n, "a rule is a mapping");
		return;
	}
	int before = ld->errors;
	pack_only_keys(ld, n, "rule", keys);
	struct rule *r = arena_alloc(ld->p->arena, sizeof(*r));
	r->defined = n->loc;
	r->head.id = pack_scalar(ld, n, "id", true);
	r->head.name = pack_scalar(ld, n, "name", true);
	r->message = pack_scalar(ld, n, "message", true);
	r->doc = pack_scalar(ld, n, "doc", true);
	r->head.fix = pack_scalar(ld, n, "fix", false);
	r->fix_python = pack_scalar(ld, n, "fix_python", false);
	r->fix_harness = pack_scalar(ld, n, "fix_harness", false);
	r->fix_mlm = pack_scalar(ld, n, "fix_mlm", false);
	r->key = pack_scalar(ld, n, "key", false);
	const char *sev = pack_scalar(ld, n, "severity", true);
	if (sev && diag_sev_parse(sev, &r->head.sev))
		pack_bad(ld, node_get(n, "severity"), "severity must be error, warning or note, not '%s'", sev);
	if (r->head.id && !valid_id(r->head.id))
		pack_bad(ld, node_get(n, "id"), "rule id '%s' must be capital letters then digits, like CG104", r->head.id);
	range(ld, n, "mcore", &r->mcore);
	range(ld, n, "bridge", &r->bridge);
	/* one id may have per-version variants, as long as no target sees two of them; rules in the
	 * pack already obey this, so the first of an id is also the first of its name */
	bool named = r->head.id && r->head.name;
	struct rule *first_id = named ? pack_rule_by(&ld->p->by_id, ld->p, r->head.id) : NULL;
	struct rule *first_name = named ? pack_rule_by(&ld->p->by_name, ld->p, r->head.name) : NULL;
	if (first_id != first_name) {
		const struct rule *o = first_id ? first_id : first_name;
		pack_bad(ld, n, "rule %s (%s) clashes with rule %s (%s): variants share both id and name", r->head.id,
		    r->head.name, o->head.id, o->head.name);
	}
	for (const struct rule *o = first_id; o && first_id == first_name; o = o->variant)
		if (ranges_overlap(&o->mcore, &r->mcore) && ranges_overlap(&o->bridge, &r->bridge)) {
			pack_bad(ld, node_get(n, "id"), "rule id '%s' is defined twice for the same targets", r->head.id);
			break;
		}
	mirrors(ld, n, &r->mirrors, &r->n_mirrors);
	reports(ld, n, r);
	/* autofix: {KEY: VALUE}: the text a key at the diagnostic takes (fix.h) */
	const struct node *af = node_get(n, "autofix");
	if (af && af->kind != NODE_MAP) {
		pack_bad(ld, af, "autofix maps keys to the value they take, e.g. {rng.te_rng_tracker: \"true\"}");
	} else if (af) {
		r->autofix_keys = arena_alloc(ld->p->arena, (af->n + 1) * sizeof(*r->autofix_keys));
		r->autofix_values = arena_alloc(ld->p->arena, (af->n + 1) * sizeof(*r->autofix_values));
		for (size_t k = 0; k < af->n; k++) {
			const struct node *key = af->items[2 * k], *val = af->items[2 * k + 1];
			if (val->kind != NODE_SCALAR || !val->scalar || !*val->scalar) {
				pack_bad(ld, val, "autofix value for %s must be the text to write", key->scalar ? key->scalar : "?");
				continue;
			}
			r->autofix_keys[r->n_autofix] = key->scalar;
			r->autofix_values[r->n_autofix++] = val->scalar;
		}
	}

	const struct node *when = node_get(n, "when");
	const char *check = pack_scalar(ld, n, "check", false);
	r->check = CHECK_NONE;
	if (check) {
		size_t k;
		for (k = 0; k < CHECK_NONE && strcmp(check, check_names[k]); k++)
			;
		if (k == CHECK_NONE)
			pack_bad(ld, node_get(n, "check"), "unknown check '%s'", check);
		r->check = (enum check_kind)k;
	}
	if (when) {
		r->when = condition(ld, when);
		r->when_src = when->kind == NODE_SCALAR ? when->scalar : NULL;
	} else if (!check) {
		pack_bad(ld, n, "a rule needs 'when' (a condition) or 'check' (a built-in check)");
	}
	if (r->check == CHECK_UNKNOWN_VALUES) {
		const struct node *vals = node_get(n, "values");
		if (!r->key)
			pack_bad(ld, n, "check unknown-values needs 'key'");
		if (!vals || vals->kind != NODE_SEQ)
			pack_bad(ld, vals ? vals : n, "check unknown-values needs 'values', a list");
		else
			r->values = node_value(ld->p->arena, vals, NULL);
	}
	/* 'at': key paths, or {key: K, when: CONDITION} for a key that is the culprit only sometimes */
	const struct node *at = node_get(n, "at");
	if (at) {
		const struct node *const *items = at->kind == NODE_SEQ ? (const struct node *const *)at->items : &at;
		size_t n_items = at->kind == NODE_SEQ ? at->n : 1;
		r->at = arena_alloc(ld->p->arena, (n_items ? n_items : 1) * sizeof(*r->at));
		r->at_when = arena_alloc(ld->p->arena, (n_items ? n_items : 1) * sizeof(*r->at_when));
		for (size_t k = 0; k < n_items; k++) {
			const struct node *it = items[k];
			if (it->kind == NODE_SCALAR) {
				r->at[r->n_at++] = it->scalar;
				continue;
			}
			static const char *const at_keys[] = {"key", "when", NULL};
			const char *key = it->kind == NODE_MAP ? pack_scalar(ld, it, "key", true) : NULL;
			const struct node *cond = it->kind == NODE_MAP ? node_get(it, "when") : NULL;
			if (!key) {
				pack_bad(ld, it, "'at' lists key paths or {key: K, when: CONDITION}");
				continue;
			}
			pack_only_keys(ld, it, "'at' entry", at_keys);
			r->at_when[r->n_at] = cond ? condition(ld, cond) : NULL;
			r->at[r->n_at++] = key;
		}
	}
	if (ld->errors != before)
		return;
	GROW(ld->p->rules, ld->p->n_rules, ld->p->cap_rules);
	r->index = (unsigned)ld->p->n_rules;
	ld->p->rules[ld->p->n_rules++] = r;
	if (first_id) {
		while (first_id->variant)
			first_id = first_id->variant;
		first_id->variant = r;
	} else {
		strmap_put(&ld->p->by_id, r->head.id, strlen(r->head.id), r->index);
		strmap_put(&ld->p->by_name, r->head.name, strlen(r->head.name), r->index);
	}
}

static void load_step(struct loader *ld, const struct node *n)
{
	static const char *const keys[] = {"id", "mcore", "bridge", "when", "set", "note", "mirrors", NULL};
	if (n->kind != NODE_MAP) {
		pack_bad(ld, n, "a normalization step is a mapping");
		return;
	}
	int before = ld->errors;
	pack_only_keys(ld, n, "normalization step", keys);
	struct step *s = arena_alloc(ld->p->arena, sizeof(*s));
	s->id = pack_scalar(ld, n, "id", true);
	s->note = pack_scalar(ld, n, "note", true);
	range(ld, n, "mcore", &s->mcore);
	range(ld, n, "bridge", &s->bridge);
	mirrors(ld, n, &s->mirrors, &s->n_mirrors);
	const struct node *when = node_get(n, "when");
	if (when)
		s->when = condition(ld, when);
	const struct node *set = node_get(n, "set");
	if (!set || set->kind != NODE_MAP || !set->n) {
		pack_bad(ld, set ? set : n, "a step needs 'set', a mapping of key paths to expressions");
	} else {
		s->keys = arena_alloc(ld->p->arena, set->n * sizeof(*s->keys));
		s->exprs = arena_alloc(ld->p->arena, set->n * sizeof(*s->exprs));
		for (size_t k = 0; k < set->n; k++) {
			const struct node *key = set->items[2 * k];
			if (key->kind != NODE_SCALAR) {
				pack_bad(ld, key, "'set' keys are key paths");
				continue;
			}
			s->keys[s->n] = key->scalar;
			s->exprs[s->n] = condition(ld, set->items[2 * k + 1]);
			s->n++;
		}
	}
	if (ld->errors != before)
		return;
	GROW(ld->p->steps, ld->p->n_steps, ld->p->cap_steps);
	ld->p->steps[ld->p->n_steps++] = s;
}

static void load_default(struct loader *ld, const struct node *n)
{
	static const char *const keys[] = {"key", "value", "mcore", "bridge", NULL};
	if (n->kind != NODE_MAP) {
		pack_bad(ld, n, "a default is a mapping");
		return;
	}
	int before = ld->errors;
	pack_only_keys(ld, n, "default", keys);
	struct pack_default def = {.key = pack_scalar(ld, n, "key", true)};
	const struct node *v = node_get(n, "value");
	if (!v)
		pack_bad(ld, n, "missing 'value'");
	else
		def.val = node_value(ld->p->arena, v, NULL);
	def.val.loc = (struct loc){0};
	range(ld, n, "mcore", &def.mcore);
	range(ld, n, "bridge", &def.bridge);
	if (ld->errors != before)
		return;
	GROW(ld->p->defaults, ld->p->n_defaults, ld->p->cap_defaults);
	ld->p->defaults[ld->p->n_defaults++] = def;
}

static void load_flag(struct loader *ld, const struct node *n)
{
	static const char *const keys[] = {"program", "flag", "key", "value", "nargs", "split", "env",
					   "mcore", "bridge", NULL};
	if (n->kind != NODE_MAP) {
		pack_bad(ld, n, "a flag is a mapping");
		return;
	}
	int before = ld->errors;
	pack_only_keys(ld, n, "flag", keys);
	struct pack_flag f = {
		.program = pack_scalar(ld, n, "program", true), .flag = pack_scalar(ld, n, "flag", true),
		.split = pack_scalar(ld, n, "split", false), .value = value_unknown, .nargs = PACK_NARGS_GUESS,
	};
	const struct node *key = node_get(n, "key");
	if (key && key->kind == NODE_SCALAR) {
		f.keys = arena_alloc(ld->p->arena, sizeof(*f.keys));
		f.keys[f.n_keys++] = key->scalar;
	} else if (key && key->kind == NODE_SEQ) {
		f.keys = arena_alloc(ld->p->arena, (key->n ? key->n : 1) * sizeof(*f.keys));
		for (size_t k = 0; k < key->n; k++)
			if (key->items[k]->kind == NODE_SCALAR)
				f.keys[f.n_keys++] = key->items[k]->scalar;
			else
				pack_bad(ld, key->items[k], "'key' lists key paths");
	}
	const char *env = pack_scalar(ld, n, "env", false);
	f.env = env && !strcmp(env, "true");
	if (!f.n_keys && !f.env)
		pack_bad(ld, n, "a flag needs 'key' (a path or a list of paths) or 'env: true'");
	const struct node *v = node_get(n, "value");
	if (v)
		f.value = node_value(ld->p->arena, v, NULL);
	const char *nargs = pack_scalar(ld, n, "nargs", false);
	if (nargs) {
		if (!strcmp(nargs, "0"))
			f.nargs = 0;
		else if (!strcmp(nargs, "1"))
			f.nargs = 1;
		else if (!strcmp(nargs, "+"))
			f.nargs = PACK_NARGS_LIST;
		else
			pack_bad(ld, node_get(n, "nargs"), "nargs is 0, 1 or '+'");
	}
	if (!f.nargs && v == NULL)
		f.value = value_bool(true);
	if (f.program && strcmp(f.program, "megatron-lm") && strcmp(f.program, "bridge-perf") &&
	    strcmp(f.program, "bridge-recipe"))
		pack_bad(ld, node_get(n, "program"), "program is megatron-lm, bridge-perf or bridge-recipe");
	range(ld, n, "mcore", &f.mcore);
	range(ld, n, "bridge", &f.bridge);
	if (ld->errors != before)
		return;
	f.hint = strstr(f.flag, "graph") || strstr(f.flag, "rng");
	f.next_same = SIZE_MAX;
	struct pack *p = ld->p;
	size_t k;
	if (strmap_get(&p->flag_first, f.flag, strlen(f.flag), &k)) {
		while (p->flags[k].next_same != SIZE_MAX)
			k = p->flags[k].next_same;
		p->flags[k].next_same = p->n_flags;
	} else {
		strmap_put(&p->flag_first, f.flag, strlen(f.flag), p->n_flags);
	}
	GROW(p->flags, p->n_flags, p->cap_flags);
	p->flags[p->n_flags++] = f;
}

static void load_suggest(struct loader *ld, const struct node *n)
{
	if (n->kind != NODE_SCALAR) {
		pack_bad(ld, n, "'suggest' lists key paths");
		return;
	}
	struct pack *p = ld->p;
	size_t k = p->n_suggest, cap = p->cap_suggest, before;
	GROW(p->suggest, p->n_suggest, p->cap_suggest);
	if (p->cap_suggest != cap)
		p->suggest_prev = mem_realloc(p->suggest_prev, p->cap_suggest * sizeof(*p->suggest_prev));
	p->suggest[p->n_suggest++] = n->scalar;
	const char *dot = strrchr(n->scalar, '.');
	size_t parent = dot ? (size_t)(dot - n->scalar) : 0;
	p->suggest_prev[k] = strmap_get(&p->suggest_last, n->scalar, parent, &before) ? before : SIZE_MAX;
	strmap_put(&p->suggest_last, n->scalar, parent, k);
	strmap_put(&p->suggest_keys, n->scalar, strlen(n->scalar), k);
}

/* Load a pack's parsed tree; its strings must outlive the pack. */
static int load_tree(struct pack *p, struct diag_list *d, const char *name, struct node *root, bool lazy, bool trusted)
{
	static const char *const keys[] = {"pack", "rules", "normalize", "defaults", "flags", "suggest", "apis", "probe", "fields",
					   "options", NULL};
	struct loader ld = {.p = p, .d = d, .lazy = lazy, .trusted = trusted};
	if (!root || root->kind != NODE_MAP) {
		diag_input(d, "CG910", (struct loc){name, 1, 1}, "a rule pack is a mapping with 'rules:'");
		return -1;
	}
	pack_only_keys(&ld, root, "pack", keys);
	pack_each(&ld, root, "rules", load_rule);
	pack_each(&ld, root, "normalize", load_step);
	pack_each(&ld, root, "defaults", load_default);
	pack_each(&ld, root, "flags", load_flag);
	pack_each(&ld, root, "suggest", load_suggest);
	if (lazy && trusted) {  /* a run that reads no source needs neither */
		p->src->unread = true;
	} else {
		pack_each(&ld, root, "apis", pack_load_api);
		pack_each(&ld, root, "probe", pack_load_claim);
	}
	pack_load_names(&ld, root);
	return ld.errors ? -1 : 0;
}

int pack_load(struct pack *p, struct diag_list *d, const char *path, const char *text, size_t len)
{
	struct node *root;
	const char *name = arena_strdup(p->arena, path);
	pack_src_read(p);       /* its rows and calls are judged against the built-in ones' */
	/* pack strings must outlive the run: parse into the pack's arena */
	if (fe_yaml_parse(p->arena, d, name, text, len, &root))
		return -1;
	int rc = load_tree(p, d, name, root, false, false);
	pack_sort_apis(p);
	return rc;
}

void pack_load_builtin(struct pack *p)
{
	struct arena *a = arena_new();
	struct diag_list d;
	diag_init(&d, a, &p->lookup, NULL);
	for (size_t k = 0; k < pack_n_trees; k++)
		if (load_tree(p, &d, pack_trees[k].path, pack_trees[k].root, true, true) || d.n)
			pack_builtin_broken(&d, pack_trees[k].path);
	for (size_t k = 0; k < p->n_rules; k++)
		p->rules[k]->builtin = true;
	diag_release(&d);
	arena_free(a);
}

const struct pack_flag *pack_flag_first(const struct pack *p, const char *flag)
{
	size_t k;
	return strmap_get(&p->flag_first, flag, strlen(flag), &k) ? &p->flags[k] : NULL;
}

/* Ids are typed in any case (cg104); packs spell them in capitals (valid_id). */
const char *pack_closest_rule(const struct pack *p, const char *word)
{
	const char **cands = mem_alloc((2 * p->n_rules + 1) * sizeof(*cands));
	for (size_t k = 0; k < p->n_rules; k++) {
		cands[2 * k] = p->rules[k]->head.id;
		cands[2 * k + 1] = p->rules[k]->head.name;
	}
	const char *best = suggest_closest(word, cands, 2 * p->n_rules);
	free(cands);
	return best;
}

bool pack_has_rules_from(const struct pack *p, const char *path)
{
	for (size_t k = 0; k < p->n_rules; k++)
		if (p->rules[k]->defined.path && !strcmp(p->rules[k]->defined.path, path))
			return true;
	return false;
}

bool pack_applies(const struct vrange *mcore, const struct vrange *bridge, const struct target *t)
{
	return target_in_range(mcore, t->mcore, false) && target_in_range(bridge, t->bridge, true);
}

/* The narrowest range that holds the target wins ("mcore main" over "mcore >=0.18"), the first
 * listed on a tie: a range's lines are right for each release it names, and a development target
 * gets its own line where one is written. */
const char *pack_mirror_for(const struct mirror *m, size_t n, const struct target *t)
{
	const struct mirror *best = NULL;
	for (size_t k = 0; k < n; k++)
		if (target_in_range(&m[k].range, m[k].of_bridge ? t->bridge : t->mcore, m[k].of_bridge) &&
		    (!best || (long)m[k].range.hi - m[k].range.lo < (long)best->range.hi - best->range.lo))
			best = &m[k];
	return best ? best->where : NULL;
}

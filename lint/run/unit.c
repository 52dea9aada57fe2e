/* SPDX-License-Identifier: MIT */
/* unit: what every front-end's unit goes through before and while it is judged (see unit.h). */
#include "run/unit.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "base/strmap.h"
#include "base/suggest.h"
#include "config/fact.h"
#include "config/fields.h"
#include "config/pack.h"
#include "config/proj.h"
#include "config/target.h"
#include "front/cfg.h"
#include "run/lint.h"

/* Where a fact's key is judged against the target's fields: what an input wrote, not cglint's
 * defaults and rewrites, nor the defaults of the class the environment holds (which may be
 * another Megatron Core than the release pins). */
static bool field_judged(const struct fact *f)
{
	return f->loc.path && strcmp(f->layer, "default") && strcmp(f->layer, "normalized") &&
	       f->form != FACT_DECLARED;
}

/* A YAML whose top-level keys are mostly not ConfigContainer's is some other file that happens
 * to have a 'model:' (a model card): its keys are not judged. */
static bool looks_like_config(struct lint_run *r, const struct facts *t, const struct target *tg)
{
	int vote = 0;
	const char *last = NULL;
	size_t last_len = 0;
	for (size_t k = 0; k < t->n; k++) {
		const struct fact *f = t->order[k];
		size_t len = strcspn(f->key, ".");
		if (!field_judged(f) || (last && len == last_len && !strncmp(f->key, last, len)))
			continue;
		last = f->key;
		last_len = len;
		vote += fields_section_vote(r->pack, tg, f->key);
	}
	return vote > 0;
}

/* The missing name said last ("model.teacher" of model.teacher.x): said once, at its first key. */
struct said {
	const char *key;
	size_t len;
};

/* A key the target's ConfigContainer has no field for, reported as its loader treats it: Hydra
 * refuses a command-line override (CG926), Bridge's YAML loader skips the key (CG927). */
static void report_field(struct lint_run *r, const struct fact *f, const struct field_info *fi, const struct target *tg,
			 bool refused, struct said *said)
{
	size_t len = strcspn(fi->name, "."), upto = (size_t)(fi->name - f->key) + len;
	if (said->key && said->len == upto && !strncmp(said->key, f->key, upto))
		return;
	*said = (struct said){f->key, upto};
	char v[16], where[200] = "", sec[64] = "ConfigContainer";
	if (fi->elsewhere[0])
		snprintf(where, sizeof(where), " (it is one in Bridge %s)", fi->elsewhere);
	if (fi->name != f->key)
		snprintf(sec, sizeof(sec), "%.*s", (int)(fi->name - 1 - f->key), f->key);
	size_t n = strlen(f->loc.path);
	bool python = n > 3 && !strcmp(f->loc.path + n - 3, ".py");
	diag_input(&r->diags, refused ? "CG926" : "CG927", f->loc, "'%.*s' is not a field of %s in Bridge %s%s: %s%s%s%s",
		   (int)len, fi->name, sec, target_version_str(tg->bridge, v), where,
		   f->form == FACT_KEYWORD ? "the constructor raises TypeError (an unexpected keyword argument)"
		   : refused ? "Hydra refuses the override"
		   : python ? "Python makes it an attribute that nothing reads" : "Bridge skips it with a log warning",
		   fi->near[0] ? "; did you mean '" : "", fi->near, fi->near[0] ? "'?" : "");
}

/* The CUDA-graph key the packs know that 'key' is one or two typos from, or NULL. */
static const char *graph_key_near(const struct pack *p, const char *key)
{
	const char *leaf = strrchr(key, '.');
	size_t parent = leaf ? (size_t)(leaf - key) : 0, i;
	leaf = leaf ? leaf + 1 : key;
	const char *best = NULL;
	unsigned best_d = UINT_MAX;
	if (strmap_get(&p->suggest_keys, key, strlen(key), &i) || !strmap_get(&p->suggest_last, key, parent, &i))
		return NULL;
	/* the keys under the same parent, last first: on a tie the first listed wins */
	for (; i != SIZE_MAX; i = p->suggest_prev[i]) {
		const char *sleaf = p->suggest[i] + parent + (parent > 0);
		unsigned d = suggest_typo(leaf, sleaf);
		if (d != UINT_MAX && d <= best_d) {
			best = sleaf;
			best_d = d;
		}
	}
	return best;
}

/* Each input key: a field the target lacks (CG926, CG927), or one or two typos from a CUDA-graph
 * key (CG905, as before the field sets: a suppression of it keeps working). */
void unit_check_keys(struct lint_run *r, const struct facts *t, const struct target *tg)
{
	struct said said = {0};
	bool fields = looks_like_config(r, t, tg);
	for (size_t k = 0; k < t->n; k++) {
		const struct fact *f = t->order[k];
		if (!f->loc.path || !strcmp(f->layer, "default") || !strcmp(f->layer, "normalized"))
			continue;
		struct field_info fi;
		enum field_verdict v = fields && field_judged(f) ? fields_key(r->pack, tg, f->key, &fi) : FIELD_UNJUDGED;
		/* Hydra refuses an override without '+'; a constructor, a keyword it lacks */
		bool refused = v == FIELD_ABSENT &&
			       ((!strcmp(f->layer, "dotlist") && f->form != FACT_APPENDED) || f->form == FACT_KEYWORD);
		const char *best = v == FIELD_KNOWN || refused ? NULL : graph_key_near(r->pack, f->key);
		if (best)
			diag_input(&r->diags, "CG905", f->loc, "unknown key '%s'; did you mean '%s'?",
				   strrchr(f->key, '.') ? strrchr(f->key, '.') + 1 : f->key, best);
		else if (v == FIELD_ABSENT)
			report_field(r, f, &fi, tg, refused, &said);
	}
}

void unit_outer_env(struct lint_run *r, struct facts *t)
{
	for (size_t k = 0; k < r->env.n; k++)
		cfg_env(t, r->env.items[k].name, r->env.items[k].value, r->env.items[k].loc, "env");
}

void unit_dotlists(struct lint_run *r, struct facts *t)
{
	for (size_t k = 0; k < r->opts->n_dotlists; k++)
		cfg_dotlist(t, &r->diags, r->opts->dotlists[k], (struct loc){"<command line>", 1, (unsigned)k + 1}, false);
}

void unit_judge(struct lint_run *r, const struct unit_at *at, struct facts *t, const struct target *tg)
{
	struct engine e = {
		.pack = r->pack,
		.unit = {.target = tg, .facts = t, .diags = &r->diags, .arena = t->arena, .unit_path = at->path,
			 .unit_line = at->line},
		.notes = r->opts->verbose ? &r->notes : NULL,
	};
	size_t first_note = r->notes.n;
	if (r->opts->on_unit)
		r->opts->on_unit(r->opts->on_unit_ctx, at->path, at->name, at->line ? at->line : 1, tg, t);
	engine_run(&e);
	if (r->opts->on_facts)
		r->opts->on_facts(r->opts->on_facts_ctx, at->path, at->name, at->line ? at->line : 1, tg, t);
	/* notes point into the unit arena; keep copies that outlive it */
	for (size_t k = first_note; k < r->notes.n; k++)
		r->notes.items[k].text = arena_strdup(r->arena, r->notes.items[k].text);
	r->units++;
}

void unit_bridge_layers(struct lint_run *r, const struct unit_at *at, struct facts *t, const struct target *tg,
			bool full_dump, bool env_spread)
{
	const struct lint_opts *o = r->opts;
	for (size_t k = 0; k < o->n_overlays; k++)
		if (r->overlays[k])
			cfg_from_yaml(t, r->overlays[k], "config-file");
	unit_dotlists(r, t);
	/* the shell wins over env_vars: (Bridge applies them with os.environ.setdefault) */
	if (tg->bridge >= TARGET_BRIDGE_ENV_VARS) {
		bool env_closed = t->env_closed;
		cfg_env_vars(t);
		if (env_spread)
			t->env_closed = env_closed;     /* {**BASE, ...}: other names may be set */
	}
	unit_outer_env(r, t);
	t->closed = full_dump || o->assume_defaults;
	unit_check_keys(r, t, tg);
	unit_judge(r, at, t, tg);
}

void unit_bridge_input(struct lint_run *r, const char *path, struct loc at, const struct target *tg, const char *what)
{
	/* only a Bridge dropped in silence (--mcore alone): --bridge none, or .cglint.yaml's
	 * bridge: none, says it */
	struct proj_settings ps;
	if (tg->bridge != TARGET_NO_BRIDGE || r->opts->bridge_given || (r->said_no_bridge && !strcmp(r->said_no_bridge, path)) ||
	    (r->proj && proj_settings(r->proj, path, &ps) && ps.bridge))
		return;
	r->said_no_bridge = arena_strdup(r->arena, path);
	char m[16], b[16], bm[16];
	int bridge = target_nearest_bridge(tg->mcore), shipped = target_bridge_mcore(bridge);
	target_version_str(tg->mcore, m);
	target_version_str(bridge, b);
	target_version_str(shipped, bm);
	if (target_default_bridge(tg->mcore) == TARGET_NO_BRIDGE)
		diag_input(&r->diags, "CG925", at, "a Megatron-Bridge %s judged as plain Megatron-LM: no Megatron-Bridge "
			   "release ships Megatron Core %s, so the target has no Bridge and Bridge's checks are off; pass "
			   "--bridge %s (it ships Megatron Core %s) or --mcore %s", what, m, b, bm, bm);
	else
		diag_input(&r->diags, "CG925", at, "a Megatron-Bridge %s judged as plain Megatron-LM: the target's "
			   "Bridge is none, so Bridge's checks are off; pass --bridge %s (it ships Megatron Core %s)",
			   what, b, m);
}

void unit_say(struct lint_run *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (r->log) {
		char *line = arena_vprintf(r->arena, fmt, ap);
		sbuf_adds(r->log, line);
	} else {
		vfprintf(stderr, fmt, ap);
	}
	va_end(ap);
}

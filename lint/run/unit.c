/* SPDX-License-Identifier: MIT */
/* unit: what every front-end's unit goes through before and while it is judged (see unit.h). */
#include "run/unit.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "base/strmap.h"
#include "base/suggest.h"
#include "config/fact.h"
#include "config/pack.h"
#include "config/proj.h"
#include "config/target.h"
#include "front/cfg.h"
#include "run/lint.h"

/* A key that is not a CUDA-graph key the packs know but is one or two typos from one. */
static void check_key_spelling(struct lint_run *r, const struct facts *t)
{
	const struct pack *p = r->pack;
	for (size_t k = 0; k < t->n; k++) {
		const struct fact *f = t->order[k];
		if (!f->loc.path || !strcmp(f->layer, "default") || !strcmp(f->layer, "normalized"))
			continue;
		const char *leaf = strrchr(f->key, '.');
		size_t parent = leaf ? (size_t)(leaf - f->key) : 0;
		leaf = leaf ? leaf + 1 : f->key;
		const char *best = NULL;
		unsigned best_d = 99;
		size_t i;
		bool known = strmap_get(&p->suggest_keys, f->key, strlen(f->key), &i);
		/* the keys under the same parent, last first: on a tie the first listed wins */
		if (!known && strmap_get(&p->suggest_last, f->key, parent, &i)) {
			for (; i != SIZE_MAX; i = p->suggest_prev[i]) {
				const char *sleaf = p->suggest[i] + parent + (parent > 0);
				/* every key of a dump is compared: a typo seldom hits both ends of a word, so
				 * skip the edit distance where neither end matches */
				size_t len = strlen(sleaf), llen = strlen(leaf);
				if (!llen || (leaf[0] != sleaf[0] && leaf[llen - 1] != sleaf[len - 1]))
					continue;
				unsigned cap = (len < 9 ? 1 : len < 16 ? 2 : 3) * SUGGEST_EDIT;
				unsigned d = suggest_distance(leaf, sleaf, cap);
				if (d <= cap && d <= best_d) {
					best = sleaf;
					best_d = d;
				}
			}
		}
		if (!known && best)
			diag_input(&r->diags, "CG905", f->loc, "unknown key '%s'; did you mean '%s'?", leaf, best);
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
	check_key_spelling(r, t);
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

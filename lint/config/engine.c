/* SPDX-License-Identifier: MIT */
/* engine: defaults, normalization, then each rule judged. */
#include "config/engine.h"

#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/check.h"
#include "config/expr.h"
#include "config/fact.h"
#include "config/judge.h"
#include "config/pack.h"
#include "config/target.h"

static void (*const check_fns[])(struct judge *, const struct rule *) = {
#define CHECK(tag, name, fn) fn,
#include "config/checks.def"
#undef CHECK
};

static void note(struct engine *e, struct loc loc, const char *text)
{
	if (e->notes)
		engine_note_add(e->notes, loc, text);
}

void engine_note_add(struct engine_notes *n, struct loc loc, const char *text)
{
	if (n->n == n->cap) {
		n->cap = n->cap ? n->cap * 2 : 16;
		n->items = mem_realloc(n->items, n->cap * sizeof(*n->items));
	}
	n->items[n->n++] = (struct engine_note){loc, text};
}

void engine_notes_release(struct engine_notes *n)
{
	free(n->items);
	*n = (struct engine_notes){0};
}

/* With defaults assumed, every key the target defines and no input set takes its default. */
static void apply_defaults(struct engine *e)
{
	const struct pack *p = e->pack;
	for (size_t k = 0; k < p->n_defaults; k++) {
		const struct pack_default *d = &p->defaults[k];
		if (!pack_applies(&d->mcore, &d->bridge, e->unit.target) || facts_get(e->unit.facts, d->key))
			continue;
		facts_set(e->unit.facts, d->key, d->val, (struct loc){0}, "default");
	}
}

/* Where a computed value comes from: its own position, else the first key its expression reads.
 * A literal (the impl a deprecated boolean migrates to) has none: a key it creates is placed at
 * what made the step apply, a key it rewrites keeps its place. */
static struct loc value_origin(const struct engine *e, const struct step *s, const struct expr *x, const struct value *v,
			       bool creates)
{
	if (v->loc.path)
		return v->loc;
	struct loc loc = {0};
	const char *key;
	judge_expr_loc(e->unit.facts, x, &key, &loc);
	if (creates)
		judge_expr_loc(e->unit.facts, pack_cond(s->when), &key, &loc);
	return loc;
}

/* The key an input wrote on loc's line (a value's position may be its token) that the step's
 * expression reads: cuda_graph_scope, for the cuda_graph_modules MC-04 copies from it. */
struct written {
	const struct facts *t;
	struct loc loc;
	const char *self, *key;
};

static void written_key(const char *path, void *ctx)
{
	struct written *w = ctx;
	const struct fact *f = w->key ? NULL : facts_get(w->t, path);
	if (f && f->loc.path && f->loc.line == w->loc.line && !strcmp(f->loc.path, w->loc.path) &&
	    strcmp(f->key, w->self) && !facts_internal(f->key) && strcmp(f->layer, "normalized") && strcmp(f->layer, "default"))
		w->key = f->key;
}

static const char *written_at(const struct facts *t, const struct step *s, size_t i, struct loc loc)
{
	struct written w = {t, loc, s->keys[i], NULL};
	expr_each_path(pack_cond(s->exprs[i]), written_key, &w);
	if (s->when)
		expr_each_path(pack_cond(s->when), written_key, &w);
	return w.key;
}

static void normalize(struct engine *e)
{
	const struct pack *p = e->pack;
	struct expr_env env = {.facts = e->unit.facts, .target = e->unit.target, .arena = e->unit.arena};
	for (size_t k = 0; k < p->n_steps; k++) {
		const struct step *s = p->steps[k];
		if (!pack_applies(&s->mcore, &s->bridge, e->unit.target))
			continue;
		if (s->when && expr_truth(pack_cond(s->when), &env) != TRI_TRUE)
			continue;
		/* evaluate every value first: a step's assignments happen together */
		struct value *vals = arena_alloc(e->unit.arena, s->n * sizeof(*vals));
		const char **whys = arena_alloc(e->unit.arena, s->n * sizeof(*whys));
		const char **froms = arena_alloc(e->unit.arena, s->n * sizeof(*froms));
		for (size_t i = 0; i < s->n; i++) {
			vals[i] = expr_eval(pack_cond(s->exprs[i]), &env);
			froms[i] = vals[i].kind == V_UNKNOWN ? judge_unknown_keys(e->unit.facts, e->unit.target, pack_cond(s->exprs[i]),
										 e->unit.arena) : NULL;
			whys[i] = froms[i] ? arena_printf(e->unit.arena, "%s computes it from %s", s->id, froms[i]) : NULL;
		}
		for (size_t i = 0; i < s->n; i++) {
			struct fact *f = facts_get(e->unit.facts, s->keys[i]);
			struct value old = f ? f->val : facts_value(e->unit.facts, s->keys[i]);
			if (vals[i].kind == V_UNKNOWN && (!f || old.kind == V_UNKNOWN)) {
				/* a derived key is kept, without a note: a rule reading only derived keys then
				 * names what the step waits for (judge.c), and a closed table does not read it as null */
				if (!f && facts_internal(s->keys[i]))
					f = facts_set(e->unit.facts, s->keys[i], vals[i], (struct loc){0}, "normalized");
				if (f && facts_internal(s->keys[i])) {
					f->from = pack_cond(s->exprs[i]);
					/* what it read then: a later step may overwrite those keys (MC-04's modules) */
					f->why = froms[i];
				}
				continue;
			}
			if (value_equal(&old, &vals[i]) && old.kind == vals[i].kind)
				continue;
			/* the fact now says what its new value's origin says: a diagnostic about it points there */
			struct loc origin = value_origin(e, s, pack_cond(s->exprs[i]), &vals[i], !f);
			if (!f) {
				f = facts_set(e->unit.facts, s->keys[i], vals[i], origin, "normalized");
				f->raw = old;
			} else {
				f->val = vals[i];
				if (origin.path)
					f->loc = origin;
			}
			if (whys[i])
				f->why = whys[i];
			f->from = vals[i].kind == V_UNKNOWN ? pack_cond(s->exprs[i]) : NULL;
			if (origin.path && !facts_internal(f->key)) {
				const char *as = written_at(e->unit.facts, s, i, origin);
				f->written_as = as;
				f->moved_by = as ? s->note : NULL;
			}
			if (!e->notes)
				continue;       /* -v only: the text is long, and built for every unit */
			const char *mirror = pack_mirror_for(s->mirrors, s->n_mirrors, e->unit.target);
			note(e, f->loc.path ? f->loc : (struct loc){e->unit.unit_path, e->unit.unit_line ? e->unit.unit_line : 1, 1},
			     arena_printf(e->unit.arena, "%s: %s -> %s (%s: %s%s%s)", s->keys[i], value_string(e->unit.arena, &old, false),
					  value_string(e->unit.arena, &vals[i], false), s->id, s->note, mirror ? "; " : "", mirror ? mirror : ""));
		}
	}
}

static void judge(struct engine *e)
{
	const struct pack *p = e->pack;
	for (size_t k = 0; k < p->n_rules; k++) {
		const struct rule *r = p->rules[k];
		if (!pack_applies(&r->mcore, &r->bridge, e->unit.target) || !diag_selected(e->unit.diags->filter, r))
			continue;
		if (r->check != CHECK_NONE) {
			check_fns[r->check](&e->unit, r);
		} else {
			struct expr_env env = {.facts = e->unit.facts, .target = e->unit.target, .arena = e->unit.arena};
			enum tri t = r->when ? expr_truth(pack_cond(r->when), &env) : TRI_TRUE;
			if (t == TRI_TRUE)
				judge_report(&e->unit, r, (struct loc){0}, NULL, NULL);
			else if (t == TRI_UNKNOWN)
				judge_undecided(&e->unit, r);
		}
	}
}

void engine_run(struct engine *e)
{
	if (e->unit.facts->closed)
		apply_defaults(e);
	normalize(e);
	judge(e);
}

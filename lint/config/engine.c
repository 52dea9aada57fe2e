/* SPDX-License-Identifier: MIT */
/* engine: defaults, normalization, rules. */
#include "config/engine.h"

#include <stdlib.h>
#include <string.h>

#include "config/check.h"
#include "base/diag.h"
#include "config/expr.h"
#include "config/fact.h"
#include "base/mem.h"
#include "config/pack.h"
#include "config/target.h"

static void (*const check_fns[])(struct engine *, const struct rule *) = {
#define CHECK(tag, name, fn) fn,
#include "config/checks.def"
#undef CHECK
};

static struct expr_env env_of(const struct engine *e)
{
	return (struct expr_env){.facts = e->facts, .target = e->target, .arena = e->arena};
}

struct value engine_value(const struct engine *e, const char *key)
{
	return facts_value(e->facts, key);
}

bool engine_when(const struct engine *e, const struct rule *r)
{
	if (!r->when)
		return true;
	struct expr_env env = env_of(e);
	return expr_truth(r->when, &env) == TRI_TRUE;
}

static void note(struct engine *e, struct loc loc, const char *text)
{
	struct engine_notes *n = e->notes;
	if (!n)
		return;
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
		if (!pack_applies(&d->mcore, &d->bridge, e->target) || facts_get(e->facts, d->key))
			continue;
		facts_set(e->facts, d->key, d->val, (struct loc){0}, "default");
	}
}

struct first_loc {
	const char *key;                /* the key the position came from */
	const struct facts *facts;
	struct loc loc;
};

static void take_loc(const char *path, void *ctx)
{
	struct first_loc *fl = ctx;
	const struct fact *f = fl->loc.path ? NULL : facts_get(fl->facts, path);
	if (f && f->loc.path) {
		fl->loc = f->loc;
		fl->key = f->key;
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
	struct first_loc fl = {.facts = e->facts};
	expr_each_path(x, take_loc, &fl);
	if (!fl.loc.path && creates && s->when)
		expr_each_path(s->when, take_loc, &fl);
	return fl.loc;
}

static void normalize(struct engine *e)
{
	const struct pack *p = e->pack;
	struct expr_env env = env_of(e);
	for (size_t k = 0; k < p->n_steps; k++) {
		const struct step *s = p->steps[k];
		if (!pack_applies(&s->mcore, &s->bridge, e->target))
			continue;
		if (s->when && expr_truth(s->when, &env) != TRI_TRUE)
			continue;
		/* evaluate every value first: a step's assignments happen together */
		struct value *vals = arena_alloc(e->arena, s->n * sizeof(*vals));
		for (size_t i = 0; i < s->n; i++)
			vals[i] = expr_eval(s->exprs[i], &env);
		for (size_t i = 0; i < s->n; i++) {
			struct fact *f = facts_get(e->facts, s->keys[i]);
			struct value old = f ? f->val : facts_value(e->facts, s->keys[i]);
			if (value_equal(&old, &vals[i]) && old.kind == vals[i].kind)
				continue;
			/* the fact now says what its new value's origin says: a diagnostic about it points there */
			struct loc origin = value_origin(e, s, s->exprs[i], &vals[i], !f);
			if (!f) {
				if (vals[i].kind == V_UNKNOWN)
					continue;
				f = facts_set(e->facts, s->keys[i], vals[i], origin, "normalized");
				f->raw = old;
			} else {
				f->val = vals[i];
				if (origin.path)
					f->loc = origin;
			}
			const char *mirror = pack_mirror_for(s->mirrors, s->n_mirrors, e->target);
			note(e, f->loc.path ? f->loc : (struct loc){e->unit_path, 1, 1},
			     arena_printf(e->arena, "%s: %s -> %s (%s: %s%s%s)", s->keys[i], value_string(e->arena, &old, false),
					  value_string(e->arena, &vals[i], false), s->id, s->note, mirror ? "; " : "", mirror ? mirror : ""));
		}
	}
}

/* Where a rule's diagnostic goes: its 'at' keys, then the keys its condition reads, in order. */
static struct first_loc rule_at(const struct engine *e, const struct rule *r)
{
	struct first_loc fl = {.facts = e->facts};
	struct expr_env env = env_of(e);
	for (size_t k = 0; k < r->n_at && !fl.loc.path; k++)
		if (!r->at_when[k] || expr_truth(r->at_when[k], &env) == TRI_TRUE)
			take_loc(r->at[k], &fl);
	if (!fl.loc.path && r->key)
		take_loc(r->key, &fl);
	if (!fl.loc.path && r->when)
		expr_each_path(r->when, take_loc, &fl);
	if (!fl.loc.path)
		fl.loc = (struct loc){e->unit_path, 1, 1};
	return fl;
}

/* Expand {key.path}, {value} and {suggestion} in a message or fix template. */
struct fill {
	const struct engine *e;
	const char *value, *suggestion;
};

static void put_fact(struct sbuf *sb, const char *name, size_t len, const void *ctx)
{
	const struct fill *f = ctx;
	if (len == 5 && !strncmp(name, "value", 5)) {
		sbuf_adds(sb, f->value ? f->value : "");
	} else if (len == 10 && !strncmp(name, "suggestion", 10)) {
		if (f->suggestion)
			sbuf_printf(sb, "; did you mean '%s'?", f->suggestion);
	} else {
		struct value v = facts_value(f->e->facts, arena_strndup(f->e->arena, name, len));
		value_render(sb, &v, true);
	}
}

static const char *interpolate(const struct engine *e, const char *tmpl, const char *value, const char *suggestion)
{
	if (!tmpl)
		return NULL;
	struct sbuf sb;
	sbuf_init(&sb);
	struct fill f = {e, value, suggestion};
	sbuf_template(&sb, tmpl, put_fact, &f);
	const char *s = arena_strdup(e->diags->arena, sb.buf);
	sbuf_release(&sb);
	return s;
}

void engine_report(struct engine *e, const struct rule *r, struct loc loc, const char *value, const char *suggestion)
{
	const char *key = NULL;
	if (!loc.path) {
		struct first_loc fl = rule_at(e, r);
		loc = fl.loc;
		key = fl.key;
	}
	struct diag *d = diag_report(e->diags, r, loc, interpolate(e, r->message, value, suggestion),
				     interpolate(e, r->head.fix, value, suggestion),
				     pack_mirror_for(r->mirrors, r->n_mirrors, e->target));
	if (d && key)
		d->key = arena_strdup(e->diags->arena, key);
}

static void judge(struct engine *e)
{
	const struct pack *p = e->pack;
	for (size_t k = 0; k < p->n_rules; k++) {
		const struct rule *r = p->rules[k];
		if (!pack_applies(&r->mcore, &r->bridge, e->target) || !diag_selected(e->diags->filter, r))
			continue;
		if (r->check != CHECK_NONE)
			check_fns[r->check](e, r);
		else if (engine_when(e, r))
			engine_report(e, r, (struct loc){0}, NULL, NULL);
	}
}

void engine_run(struct engine *e)
{
	if (e->facts->closed)
		apply_defaults(e);
	normalize(e);
	judge(e);
}

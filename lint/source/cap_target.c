/* SPDX-License-Identifier: MIT */
/* cap_target: what an indirect call may reach (see cap_target.h). */
#include "source/cap_target.h"

#include <stdbool.h>
#include <string.h>

#include "source/cap.h"
#include "source/cap_ref.h"
#include "source/sir.h"

static size_t add_target(int *v, size_t n, int fn1)
{
	for (size_t k = 0; k < n; k++)
		if (v[k] == fn1)
			return n;
	if (fn1 && n < CAP_MAX_TARGETS)
		v[n++] = fn1;
	return n;
}

static const struct sir_ref *same_value(const struct sir_fn *fn, int decl, const struct sir_ref *v, bool *mixed)
{
	for (size_t i = 0; i < fn->n_ev && !*mixed; i++) {
		const struct sir_ev *e = &fn->ev[i];
		if (e->kind != EV_WRITE || e->target.decl != decl)
			continue;
		*mixed = e->counter || !e->n_args || e->args[0].kind != REF_VAR || (v && !cap_ref_same(v, &e->args[0]));
		v = &e->args[0];
	}
	return v;
}

/* What a pointer holds when every write to it stores the same variable: coll = &allReduceTest,
 * args->collTest = &allReduceTest (a local in its function, a field or global in the unit). */
static struct sir_ref one_value(const struct cap *c, struct sir_ref r)
{
	const struct sir_decl *d = r.kind == REF_VAR && !r.elem ? &c->tu->decls[r.decl] : NULL;
	if (!d || d->kind == DECL_PARAM)
		return r;
	const struct sir_ref *v = NULL;
	bool mixed = false;
	for (size_t f = 0; f < c->tu->n_fns && !mixed; f++)
		if (d->kind != DECL_LOCAL || d->fn == (int)f)
			v = same_value(&c->tu->fns[f], r.decl, v, &mixed);
	return v && !mixed ? *v : r;
}

/* Whether an aggregate initializer stored 'b' where 'field' of 'holder' is read (any holder's
 * when 'holder' is NULL: some object the unit fills). */
static bool bind_fits(const struct sir_bind *b, int field, const struct sir_ref *holder)
{
	if (b->field != field)
		return false;
	if (!holder)
		return true;
	return b->var == holder->decl && (!holder->elem || !holder->const_index || b->index < 0 || b->index == holder->index);
}

/* The functions aggregate initializers stored where 'o' is read: cbs.post, p->run with p a
 * parameter or a local pointing at a table entry, handlers[1]. */
static size_t bound_targets(const struct cap *c, const struct cap_frame *f, const struct sir_ref *o, int *v, size_t n)
{
	int field = o->elem ? -1 : o->decl;
	struct sir_ref h = o->elem ? *o : o->base ? one_value(c, cap_ref_resolve(c, f, *o->base)) : (struct sir_ref){.kind = REF_NONE};
	const struct sir_ref *holder = h.kind == REF_VAR ? &h : NULL;
	bool filled = false;            /* by an initializer of its own */
	for (size_t k = 0; holder && k < c->tu->n_binds && !filled; k++)
		filled = c->tu->binds[k].var == holder->decl;
	if (holder && !filled) {
		const struct sir_decl *d = &c->tu->decls[holder->decl];
		if (d->kind != DECL_PARAM && !strchr(d->type, '*') && !strchr(d->type, '&'))
			return n;       /* an object of its own, filled by assignments (the writes) */
		holder = NULL;          /* a pointer cglint cannot follow: any entry stored there */
	}
	for (size_t k = 0; k < c->tu->n_binds; k++)
		if (bind_fits(&c->tu->binds[k], field, holder))
			n = add_target(v, n, c->tu->binds[k].fn1);
	return n;
}

size_t cap_target_of(const struct cap *c, const struct cap_frame *f, const struct sir_ev *e, int *v)
{
	struct sir_ref o = cap_ref_resolve(c, f, e->object);
	if (o.fn1)
		return add_target(v, 0, o.fn1);
	if (o.kind != REF_VAR)
		return 0;
	size_t n = bound_targets(c, f, &o, v, 0);
	if (o.elem)
		return n;
	const struct sir_decl *d = &c->tu->decls[o.decl];
	for (size_t g = 0; g < c->tu->n_fns; g++)
		for (size_t i = 0; i < c->tu->fns[g].n_ev; i++) {
			const struct sir_ev *x = &c->tu->fns[g].ev[i];
			if ((x->kind == EV_WRITE || x->kind == EV_VAR) && x->target.kind == REF_VAR && x->target.decl == o.decl && x->n_args)
				n = add_target(v, n, x->args[0].fn1);
			else if (d->kind == DECL_PARAM && x->kind == EV_CALL && x->callee == d->fn && (unsigned)d->param < x->n_args)
				n = add_target(v, n, x->args[d->param].fn1);
		}
	return n;
}

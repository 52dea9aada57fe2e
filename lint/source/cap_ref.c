/* SPDX-License-Identifier: MIT */
/* cap_ref: which stream, event or graph an expression is (see cap_ref.h). */
#include "source/cap_ref.h"

#include <string.h>

#include "base/mem.h"
#include "source/cap.h"

/* streams[0] is one stream, streams[i] stands for every element a loop visits. */
static bool same_index(const struct sir_ref *a, const struct sir_ref *b)
{
	return a->elem == b->elem && (!a->elem || (a->const_index == b->const_index && (!a->const_index || a->index == b->index)));
}

bool cap_ref_same(const struct sir_ref *a, const struct sir_ref *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case REF_VAR:
		return a->decl == b->decl && same_index(a, b);
	case REF_CONST:
		return a->has_ival && b->has_ival && a->ival == b->ival;
	case REF_OTHER:
		return a->text && b->text && !strcmp(a->text, b->text);
	case REF_POOL:
		return false;
	default:
		return true;
	}
}

const char *cap_ref_name(const struct cap *c, const struct sir_ref *r)
{
	switch (r->kind) {
	case REF_VAR:
		return arena_printf(c->arena, "'%s'", (r->elem || r->base) && r->text ? r->text : c->tu->decls[r->decl].name);
	case REF_NULL:
	case REF_NONE:
		return "stream 0";
	case REF_LEGACY:
		return "cudaStreamLegacy";
	case REF_PER_THREAD:
		return "cudaStreamPerThread";
	case REF_CURRENT:
		return "the current stream";
	case REF_DEFAULT:
		return "the default stream";
	case REF_POOL:
		return "a pool stream";
	default:
		return r->text ? arena_printf(c->arena, "'%s'", r->text) : "its stream";
	}
}

const struct sir_decl *cap_ref_param(const struct cap *c, const struct cap_frame *f, int decl)
{
	const struct sir_decl *d = &c->tu->decls[decl];
	if (!f || !f->call || d->kind != DECL_PARAM || d->fn != (int)(f->fn - c->tu->fns) || d->param < 0 ||
	    (unsigned)d->param >= f->call->n_args)
		return NULL;
	return d;
}

struct sir_ref cap_ref_alias(const struct cap *c, struct sir_ref r)
{
	if (r.kind != REF_VAR || r.elem || r.decl < 0 || !c->tu->decls[r.decl].elem_of)
		return r;
	bool addr = r.addr;
	r = *c->tu->decls[r.decl].elem_of;
	r.addr |= addr;
	return r;
}

struct sir_ref cap_ref_resolve(const struct cap *c, const struct cap_frame *f, struct sir_ref r)
{
	r = cap_ref_alias(c, r);
	for (const struct sir_decl *d; r.kind == REF_VAR && (d = cap_ref_param(c, f, r.decl)); f = f->up, r = cap_ref_alias(c, r)) {
		struct sir_ref a = f->call->args[d->param];
		if (r.elem) {   /* streams[i] of a parameter: the caller's array's element */
			if (a.kind != REF_VAR || a.elem)
				return (struct sir_ref){.kind = REF_OTHER, .decl = -1, .text = r.text};
			r.decl = a.decl;
			r.base = a.base;
			continue;
		}
		bool addr = r.addr;
		r = a;
		r.addr |= addr;
	}
	return r;
}

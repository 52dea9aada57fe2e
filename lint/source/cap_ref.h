/* SPDX-License-Identifier: MIT */
/*
 * cap_ref: which stream, event or graph an expression of a walked function is, at the bottom of
 * the capture checks: two expressions that are the same, a parameter standing for what its
 * caller passed, and how one reads in a message.
 */
#ifndef CGLINT_CAP_REF_H
#define CGLINT_CAP_REF_H

#include <stdbool.h>

#include "source/sir.h"

struct cap;

/* A function being walked from a region, and the call that entered it. */
struct cap_frame {
	const struct sir_fn *fn;
	const struct sir_ev *call;      /* the call that entered fn, NULL in the region's own function */
	const struct cap_frame *up;
	unsigned depth;
	bool relaxed;                   /* called while relaxed */
	unsigned guard_end;             /* a relaxed mode guard lives until this offset */
};

/* streams[0] is one stream; elements cglint cannot tell apart (streams[i]) are one another. */
bool cap_ref_same(const struct sir_ref *a, const struct sir_ref *b);
/* "'s'", "stream 0", "the current stream". */
const char *cap_ref_name(const struct cap *c, const struct sir_ref *r);
/* The parameter of f's function 'decl' is, with an argument in f's call, or NULL. */
const struct sir_decl *cap_ref_param(const struct cap *c, const struct cap_frame *f, int decl);
/* A local that only ever holds an element of one array (sir_decl.elem_of) is that element. */
struct sir_ref cap_ref_alias(const struct cap *c, struct sir_ref r);
/* A parameter stands for what its caller passed (an element of a parameter array, for the
 * caller's array's element). */
struct sir_ref cap_ref_resolve(const struct cap *c, const struct cap_frame *f, struct sir_ref r);

#endif

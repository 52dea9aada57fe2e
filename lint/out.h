/* SPDX-License-Identifier: MIT */
/*
 * out: output formats as small vtables, one file each. A format prints; it never decides what
 * is reported (that is the funnel's job in diag.c). NULL hooks mean "nothing to do".
 */
#ifndef CGLINT_OUT_H
#define CGLINT_OUT_H

#include <stdbool.h>
#include <stdio.h>

struct diag;
struct diag_list;
struct target;

struct out_ctx {
	FILE *f;
	bool color;
	const struct target *target;
	void *state;            /* the format's own */
};

struct out_format {
	const char *name;
	void (*begin)(struct out_ctx *o);
	void (*diag)(struct out_ctx *o, const struct diag *d);
	void (*end)(struct out_ctx *o, const struct diag_list *l);
};

extern const struct out_format out_text, out_json;

const struct out_format *out_find(const char *name);
const char *out_names(void);     /* "text|json" for usage messages */
void out_print(const struct out_format *fmt, struct out_ctx *o, const struct diag_list *l);

#endif

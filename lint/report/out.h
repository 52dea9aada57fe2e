/* SPDX-License-Identifier: MIT */
/*
 * out: output formats as small vtables, one file each (out_*.c), and what they share. A format
 * prints; it never decides what is reported (that is the funnel's job in diag.c). NULL hooks
 * mean "nothing to do".
 */
#ifndef CGLINT_OUT_H
#define CGLINT_OUT_H

#include <stdbool.h>
#include <stdio.h>

struct diag;
struct diag_list;
struct pack;
struct target;
struct text_store;

struct out_ctx {
	FILE *f;
	bool color;
	const struct target *target;
	const struct pack *pack;        /* every rule, for formats that list them (SARIF); may be NULL */
	const struct text_store *texts; /* the inputs' texts, for formats that look again; may be NULL */
	void *state;            /* the format's own */
};

struct out_format {
	const char *name;
	void (*begin)(struct out_ctx *o);
	void (*diag)(struct out_ctx *o, const struct diag *d);
	void (*end)(struct out_ctx *o, const struct diag_list *l);
};

extern const struct out_format out_text, out_json, out_sarif, out_github;     /* formats.h lists them */

void out_print(const struct out_format *fmt, struct out_ctx *o, const struct diag_list *l);

/*
 * The project root: the nearest folder upward from the current directory that holds .git (a
 * folder, or a file in a worktree or submodule), else the current directory. Absolute, without
 * a trailing '/' (except for "/" itself); found once per process and kept.
 */
const char *out_root(void);
/*
 * 'path' relative to out_root(), '/'-separated, without "./", written into 'buf'. Returns 'path'
 * itself -- the same pointer -- when it cannot be made relative: a name in angle brackets
 * ("<stdin>", "<command line>"), NULL, a path outside the root, the root itself, or a result
 * longer than 'size'. A path is judged as written first (so a symbolic link inside the project
 * keeps its own name), then resolved with realpath() when it exists.
 */
const char *out_relpath(char *buf, size_t size, const char *path);
/* A malloc'd copy of 's' in which bytes that are not UTF-8 became U+FFFD (JSON needs UTF-8). */
char *out_utf8(const char *s);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * supp: inline suppressions, in each input's own comment syntax (# for YAML, Python, scripts and
 * env files; // or slash-star for C, C++ and CUDA):
 *
 *   key: value   # cglint: disable=CG101,CG104 -- reason      this line
 *   # cglint: disable=CG101 -- reason                         the next line that is not a comment
 *   # cglint: disable-next-line=CG101                          the same, said explicitly
 *   # cglint: disable-file=CG409 -- reason                    the whole file
 *
 * Rules are named by id or name, comma-separated; the reason after "--" is optional.
 */
#ifndef CGLINT_SUPP_H
#define CGLINT_SUPP_H

#include <stdbool.h>
#include <stddef.h>

#include "base/loc.h"

struct arena;

enum supp_scope { SUPP_LINE, SUPP_NEXT, SUPP_FILE };

struct supp {
	struct loc at;                  /* the directive itself */
	enum supp_scope scope;
	unsigned line;                  /* the line it covers (SUPP_LINE, SUPP_NEXT) */
	const char **rules;             /* as written */
	size_t n_rules;
	bool *used;                     /* per rule */
	const char *reason;             /* NULL when none */
	const char *error;              /* a malformed directive: what is wrong (rules are then empty) */
};

/* True when the path's comments are C-style (fe_clang's sources); '#' otherwise. */
bool supp_c_syntax(const char *path);
/* Where a line's comment starts (just after '#', '//' or slash-star), quotes followed; NULL
 * when the line has none. */
const char *supp_comment_start(const char *line, const char *end, bool c_syntax);
/* True when the path's comments are Python's: '#' anywhere outside a string, strings
 * (triple-quoted ones across lines) followed. */
bool supp_py_syntax(const char *path);
/* Where the comment of the line [line, end) of 'buf' starts, in the syntax of 'path' (for Python,
 * strings open from earlier lines followed); NULL when the line has none. */
const char *supp_line_comment(const char *path, const char *buf, const char *line, const char *end);
/* Find the directives of one text; arrays in 'a'. Returns how many. */
size_t supp_scan(struct arena *a, const char *path, const char *buf, size_t len, struct supp **out);
/* The text to append to a line to suppress 'rule' there: "  # cglint: disable=CG101". */
const char *supp_comment(struct arena *a, const char *path, const char *rule);

#endif

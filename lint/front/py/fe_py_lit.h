/* SPDX-License-Identifier: MIT */
/*
 * fe_py_lit: the literals of a Python recipe, read from its tree-sitter nodes: str (with
 * escapes, raw and implicit concatenation; not f-strings or bytes), int, float, True/False/None,
 * and lists/tuples of them. Private to the Python front-end's files, the only ones that include
 * tree-sitter.
 */
#ifndef CGLINT_FE_PY_LIT_H
#define CGLINT_FE_PY_LIT_H

#include <stdbool.h>
#include <tree_sitter/api.h>

#include "base/value.h"

struct arena;

#define FE_PY_MAX_NEST 200      /* expression nesting read; deeper is unknown */

/* A string literal's value; false for anything else. */
bool fe_py_lit_string(struct arena *a, const char *src, TSNode n, struct value *out);
/* A literal's value with its position in 'path'; false for anything that is not one (a null node,
 * or one nested deeper than cglint reads). */
bool fe_py_lit_value(struct arena *a, const char *path, const char *src, TSNode n, struct value *out,
		     unsigned depth);

#endif

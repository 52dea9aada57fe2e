/* SPDX-License-Identifier: MIT */
/* fe_clang_walk: between fe_clang.c (set-up and parsing) and fe_clang_walk.c (the AST walk; its
 * expressions are read in fe_clang_expr.c). */
#ifndef CGLINT_FE_CLANG_WALK_H
#define CGLINT_FE_CLANG_WALK_H

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct sir_tu;

/* libclang's CXTranslationUnit is a pointer to this. The parsed unit has to cross: fe_clang.c
 * parses it (and owns and disposes of it), the walk reads it; the tag keeps libclang's
 * headers out of this one. */
struct CXTranslationUnitImpl;

/* The functions 'tu' defines outside system headers, as a sir_tu in 'a'. 'path' is the name
 * the locations get, 'abspath' the name libclang parsed, buf[0..len) its text. */
struct sir_tu *fe_clang_walk_tu(struct arena *a, struct CXTranslationUnitImpl *tu, const char *path,
				const char *abspath, const char *buf, size_t len, bool per_thread);

/* Whether 's' is longer than 'suf' and ends with it. */
bool fe_clang_walk_has_suffix(const char *s, const char *suf);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * fe_clang_expr: what an expression in libclang's AST denotes for the capture checks (a
 * sir_ref: a variable, a constant, a stream the code names) and what a condition tests (a
 * sir_cond), with the variables they name entered in the unit's table (sir_tu.decls).
 * Private to fe_clang_walk.c, which walks the statements around them, and fe_clang_callee.c.
 *
 * Everything returned lives in the arena of the fe_clang_expr it was read with.
 */
#ifndef CGLINT_FE_CLANG_EXPR_H
#define CGLINT_FE_CLANG_EXPR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/loc.h"
#include "base/strmap.h"
#include "source/fe_clang_lib.h"
#include "source/sir.h"

struct arena;

/* The state expressions are read with: the unit being filled and where its text is. */
struct fe_clang_expr {
	struct arena *a;
	CXTranslationUnit tu;
	struct sir_tu *out;
	struct strmap decls;            /* USR -> index in out->decls */
	size_t cap_decls, cap_binds;
	int fn;                         /* the function being walked (owner of its locals), or -1 */
	const char *main_path;          /* the name locations in the main file get */
	CXFile main_file;
	const char *buf;                /* the main file's text */
	size_t len;
};

/* The first eight children of a cursor, its last one and how many there are. */
struct fe_clang_kids {
	CXCursor v[8];
	CXCursor last;
	unsigned n;
};


struct fe_clang_kids fe_clang_expr_kids(CXCursor c);
CXCursor fe_clang_expr_first(CXCursor c);
/* Through the implicit wrappers clang puts around an expression, to what was written. */
CXCursor fe_clang_expr_unwrap(CXCursor e);
/* A member call's object (graph.capture_begin(): graph), or the null cursor. */
CXCursor fe_clang_expr_object(CXCursor call);

unsigned fe_clang_expr_offset(CXSourceLocation l);
void fe_clang_expr_extent(CXCursor c, unsigned *begin, unsigned *end);
/* Whether 'l' is in the main file where it was written or, inside a macro, where the macro was
 * used: a function PYBIND11_MODULE(...) defines has its name in clang's scratch space. */
bool fe_clang_expr_in_main(const struct fe_clang_expr *x, CXSourceLocation l);
struct loc fe_clang_expr_loc(struct fe_clang_expr *x, CXSourceLocation l);

/* "c10::cuda::getCurrentCUDAStream": namespaces and classes, API variant suffixes stripped. */
const char *fe_clang_expr_name(struct arena *a, CXCursor c);
/* The key of a function the unit defines outside system headers, as the walk registers it: its
 * USR, or for a lambda (its LambdaExpr, or its call operator) where it is written. NULL for a
 * function with no body here, or one in a system header. */
const char *fe_clang_expr_fn_key(struct arena *a, CXCursor fn);
/* The declaration's index in the unit's table (added on first sight), or -1. */
int fe_clang_expr_decl(struct fe_clang_expr *x, CXCursor d);
bool fe_clang_expr_is_var(enum CXCursorKind k);

struct sir_ref fe_clang_expr_ref(struct fe_clang_expr *x, CXCursor e);
/* The arguments of a call, read as refs into '*args'; how many. */
unsigned fe_clang_expr_args(struct fe_clang_expr *x, CXCursor call, struct sir_ref **args);
/* 'e' read as a variable plus a constant (width - 1, i + 1), or a constant; false if not. */
bool fe_clang_expr_affine(struct fe_clang_expr *x, CXCursor e, struct sir_bound *b);
/* The functions the aggregate initializer 'init' of variable 'var' stores, added to the unit's
 * binds (sir_tu.binds). */
void fe_clang_expr_binds(struct fe_clang_expr *x, int var, CXCursor init);
/* What 'e' tests when it is a condition (or a value returned as one); never NULL. */
const struct sir_cond *fe_clang_expr_cond(struct fe_clang_expr *x, CXCursor e);

#endif

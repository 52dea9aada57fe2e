/* SPDX-License-Identifier: MIT */
/*
 * fe_clang_callee: what a call in libclang's AST calls, where the cursor alone does not say: a
 * kernel and its launch configuration, and the function a call in a template names through the
 * template's arguments. Private to fe_clang_walk.c, below it.
 */
#ifndef CGLINT_FE_CLANG_CALLEE_H
#define CGLINT_FE_CLANG_CALLEE_H

#include <stdbool.h>

#include "source/fe_clang_lib.h"

struct fe_clang_expr;

/* Whether the function 'fn' is a kernel (__global__). */
bool fe_clang_callee_is_kernel(CXCursor fn);
/* The configuration call under a kernel launch (cudaConfigureCall, __cudaPushCallConfiguration),
 * whose arguments are the launch's <<<...>>>, or the null cursor. */
CXCursor fe_clang_callee_config(CXCursor launch);
/* A call in a template that names its callee but depends on the template's arguments
 * (cudaMemcpy(&host, x, sizeof(T), ...), sync_step(x, s), Traits<T>::launch(...)): the first
 * function of that name, or the null cursor. */
CXCursor fe_clang_callee_dependent(const struct fe_clang_expr *x, CXCursor call);

#endif

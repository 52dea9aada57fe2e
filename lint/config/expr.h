/* SPDX-License-Identifier: MIT */
/*
 * expr: the condition language of rule packs, evaluated with three-valued (Kleene) logic.
 *
 *   model.cuda_graph_impl != "none" and not model.use_te_rng_tracker
 *   "moe" in model.cuda_graph_scope and "moe_router" in model.cuda_graph_scope
 *   "expandable_segments:True" in env.PYTORCH_CUDA_ALLOC_CONF
 *
 * Operators: or, and, not, == != < <= > >=, in / not in (list membership, or substring when
 * the right side is a string), literals (strings, numbers, true/false/null, [lists]), dotted
 * key paths, and the functions listed in expr.c's table (raw, known, given, default, split, with,
 * len, is_list, type, enum_form, pylist). Any unknown operand makes a comparison unknown; 'and'/'or' follow
 * Kleene's tables, so an unset key never produces a definite verdict by itself.
 *
 * Parsed expressions live in the arena given to expr_parse.
 */
#ifndef CGLINT_EXPR_H
#define CGLINT_EXPR_H

#include "base/value.h"

struct arena;
struct facts;
struct target;
struct expr;

struct expr_env {
	const struct facts *facts;
	const struct target *target;
	struct arena *arena;    /* for lists an evaluation builds */
};

/* Returns NULL and sets '*err' (arena string) and '*col' (1-based) on a syntax error. */
struct expr *expr_parse(struct arena *a, const char *src, const char **err, unsigned *col);
struct value expr_eval(const struct expr *e, const struct expr_env *env);
enum tri expr_truth(const struct expr *e, const struct expr_env *env);

/* Calls 'fn' for every key path the expression reads, in source order. */
void expr_each_path(const struct expr *e, void (*fn)(const char *path, void *ctx), void *ctx);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * judge: one rule against one unit's facts: its condition, where its diagnostic goes (its 'at'
 * keys, then the keys its condition reads), its message and fix with {placeholders} filled in.
 * The engine judges every rule through it; built-in checks (check.c) use it too.
 */
#ifndef CGLINT_JUDGE_H
#define CGLINT_JUDGE_H

#include <stdbool.h>

#include "base/loc.h"
#include "base/value.h"

struct arena;
struct diag_list;
struct expr;
struct facts;
struct rule;
struct target;

/* Borrowed: everything outlives the judging of one unit. */
struct judge {
	const struct target *target;
	struct facts *facts;
	struct diag_list *diags;
	struct arena *arena;
	const char *unit_path;          /* whole-unit diagnostics land here, at 1:1 */
	unsigned unit_line;             /* or on this line (a YAML stream's later document); 0: 1 */
};

struct value judge_value(const struct judge *j, const char *key);
bool judge_when(const struct judge *j, const struct rule *r);       /* no condition counts as true */
/* Report 'r' at 'loc', or where the rule says when loc.path is NULL. */
void judge_report(struct judge *j, const struct rule *r, struct loc loc, const char *value, const char *suggestion);
/* A rule whose condition is unknown: an undecided check (diag.h's DIAG_OPEN) naming the keys it
 * waits for and why each is unknown, when the unit's input sets a key the rule reads. */
void judge_undecided(struct judge *j, const struct rule *r);
/* "rng.te_rng_tracker (no input sets it), ..." for the unknown keys 'x' reads, in 'a'; NULL if none. */
const char *judge_unknown_keys(const struct facts *f, const struct target *t, const struct expr *x, struct arena *a);
/* The same for one key: "model.num_moe_experts (model is from ...)"; NULL if it is known. */
const char *judge_unknown_key(const struct facts *f, const struct target *t, const char *key, struct arena *a);
/* Unless 'loc' is already set: the position of the first key 'x' reads that has one, and that key. */
void judge_expr_loc(const struct facts *f, const struct expr *x, const char **key, struct loc *loc);

#endif

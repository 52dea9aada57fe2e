/* SPDX-License-Identifier: MIT */
/*
 * unit: one lint unit's last steps, shared by the front-ends' drivers (lint.c, recipe.c): the
 * layers every Bridge config takes (--config-file overlays, dotlists, env_vars:, the
 * environment), the check of its keys' spelling, and judging it against its target.
 */
#ifndef CGLINT_UNIT_H
#define CGLINT_UNIT_H

#include <stdbool.h>

#include "base/loc.h"
#include "base/mem.h"

struct facts;
struct lint_run;
struct target;

/* Which unit is judged: its file, and the line a finding that no key places goes on. Passed to
 * each call rather than kept in the run, so that nothing is set before a call and reset after. */
struct unit_at {
	const char *path;
	unsigned line;          /* a YAML stream's later document, a script's command, a recipe's def; 0: 1 */
	const char *name;       /* the recipe function, or NULL */
};

/* The run's environment (--env-file, -E) as facts. */
void unit_outer_env(struct lint_run *r, struct facts *t);
/* cglint's own KEY=VALUE words, over what the unit's input set. */
void unit_dotlists(struct lint_run *r, struct facts *t);
/* Judge one unit's facts, built by its front-end, against its target. */
void unit_judge(struct lint_run *r, const struct unit_at *at, struct facts *t, const struct target *tg);
/* The keys the inputs wrote: a field the target's ConfigContainer lacks (CG926, CG927), a typo
 * of a CUDA-graph key (CG905). unit_bridge_layers does it; a launch command's unit calls it. */
void unit_check_keys(struct lint_run *r, const struct facts *t, const struct target *tg);
/* The layers over a Bridge config's own keys, then the unit is judged. 'env_spread': env_vars took
 * entries cglint did not read. */
void unit_bridge_layers(struct lint_run *r, const struct unit_at *at, struct facts *t, const struct target *tg,
			bool full_dump, bool env_spread);
/* CG925, once per file: a Megatron-Bridge input ('what': "config", "recipe", "launcher command")
 * whose target has no Bridge (--bridge none, or an MCore no Bridge ships named alone). */
void unit_bridge_input(struct lint_run *r, const char *path, struct loc at, const struct target *tg, const char *what);
/* A -v line: to stderr, or to the run's log in a worker (batch.h), which sends it back. */
void unit_say(struct lint_run *r, const char *fmt, ...) CG_PRINTF(2, 3);

#endif

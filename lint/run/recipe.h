/* SPDX-License-Identifier: MIT */
/*
 * recipe: Python recipe functions as lint units (fe_py's units, with the sections their config
 * classes leave at their defaults, the GPU a recipe's name gives, and the notes on what could not
 * be followed), and the Megatron-Bridge recipe a launcher names (train.sh / run_recipe.py
 * --recipe NAME), resolved as Bridge resolves it.
 */
#ifndef CGLINT_RECIPE_H
#define CGLINT_RECIPE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/loc.h"

struct facts;
struct lint_run;
struct target;

struct arena;
struct pack;
struct py_session;

/* The Python modules a run reads (fe_py.h), in 'a', told the model fields the packs' steps
 * recompute (any release's, so that what is cached holds for every target). */
struct py_session *recipe_py_session(const struct pack *p, struct arena *a);

void recipe_units(struct lint_run *r, const char *path, const char *buf, size_t len, const struct target *tg);

/* The keys of recipe 'name', named by a launcher in 'script' at 'at', into 't' under the layer
 * "recipe", all placed at 'at'. Found as Bridge's load_recipe finds it (perf_recipes, then
 * recipes), the package looked for as Python would from the script's folder. False, with a
 * CG921 note at 'at', when it cannot be found. */
bool recipe_launch(struct lint_run *r, const char *script, const char *name, struct loc at, struct facts *t,
		   const struct target *tg);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * recipe: Python recipe functions as lint units (fe_py's units, with the sections their config
 * classes leave at their defaults, the GPU a recipe's name gives, and the notes on what could not
 * be followed), and the Megatron-Bridge recipe a launcher names (train.sh / run_recipe.py
 * --recipe NAME), resolved as Bridge resolves it.
 */
#ifndef CGLINT_RECIPE_H
#define CGLINT_RECIPE_H

#include <stddef.h>

struct lint_run;
struct target;

void recipe_units(struct lint_run *r, const char *path, const char *buf, size_t len, const struct target *tg);

#endif

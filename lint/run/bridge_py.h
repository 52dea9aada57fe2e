/* SPDX-License-Identifier: MIT */
/*
 * bridge_py: what Megatron-Bridge's Python does to a recipe beyond the recipe's own code, run
 * through the Python front-end with the run's session: a launcher importing a recipe by name,
 * and the mixed-precision preset a string names. The rest of what Bridge does in Python has its
 * home in front/py/py_bridge*.c and in the packs (docs/bridge-python.md says where each goes).
 */
#ifndef CGLINT_BRIDGE_PY_H
#define CGLINT_BRIDGE_PY_H

struct arena;
struct facts;
struct lint_run;
struct py_unit;

/* The recipe function 'name' of 'package' as a launcher in 'script' imports it: a stand-in module
 * beside the script, whose function '_launch' runs 'body' with the recipe imported as '_imported'.
 * Its unit, in 'a', or NULL when it sets nothing cglint reads. Needs the run's session (r->py). */
const struct py_unit *bridge_py_import(struct lint_run *r, struct arena *a, const char *script, const char *package,
				       const char *name, const char *body);
/* cfg.mixed_precision = "NAME": the preset's fields into 't', placed where the name is written. */
void bridge_py_mixed_precision(struct lint_run *r, const char *path, struct facts *t);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * sh_var: the script's variables (struct sh_v in s->vars, found by name through s->index),
 * set and exported (assignment words are parsed in sh_asg, a layer above expansion). A variable keeps the items
 * of its value, so a word taken from it still knows where each byte was typed. Adding a
 * variable may move s->vars: pointers into it do not survive sh_var_get or an assignment.
 */
#ifndef CGLINT_SH_VAR_H
#define CGLINT_SH_VAR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/loc.h"
#include "front/sh.h"

struct sh_v *sh_var_find(struct sh *s, const char *name, size_t len);
/* The position in s->vars of the variable 'name', added (unset) when there is none. */
size_t sh_var_get(struct sh *s, const char *name, size_t len);
void sh_var_free_elems(struct sh_v *v);
/* A new empty element at the end of v's value. */
struct sh_items *sh_var_push_elem(struct sh_v *v);
/* After a change of v's value: drops its cached text; an exported v makes the env snapshot stale. */
void sh_var_changed(struct sh *s, struct sh_v *v);
void sh_var_export(struct sh *s, size_t vi, bool on);
/* v's value as a string for env, NULL when unresolved. */
const char *sh_var_text(struct sh *s, struct sh_v *v);
struct loc sh_var_loc(const struct sh *s, const struct sh_v *v);

void sh_var_assign_scalar(struct sh *s, size_t vi, const struct sh_items *val, size_t off);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * sh_var: the script's variables (struct sh_v in s->vars, found by name through s->index)
 * and what assignments, exports and prefix assignments do to them. A variable keeps the items
 * of its value, so a word taken from it still knows where each byte was typed. Adding a
 * variable may move s->vars: pointers into it do not survive sh_var_get or an assignment.
 */
#ifndef CGLINT_SH_VAR_H
#define CGLINT_SH_VAR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/loc.h"
#include "front/sh.h"

/* Where an assignment word's parts are: offsets into the text. */
struct sh_var_head {
	size_t name, name_len, sub, sub_len, value;
	bool has_sub, append;
};

struct sh_v *sh_var_find(struct sh *s, const char *name, size_t len);
/* The position in s->vars of the variable 'name', added (unset) when there is none. */
size_t sh_var_get(struct sh *s, const char *name, size_t len);
void sh_var_free_elems(struct sh_v *v);
/* After a change of v's value: drops its cached text; an exported v makes the env snapshot stale. */
void sh_var_changed(struct sh *s, struct sh_v *v);
void sh_var_export(struct sh *s, size_t vi, bool on);
/* v's value as a string for env, NULL when unresolved. */
const char *sh_var_text(struct sh *s, struct sh_v *v);
struct loc sh_var_loc(const struct sh *s, const struct sh_v *v);

void sh_var_assign_scalar(struct sh *s, size_t vi, const struct sh_items *val, size_t off);
/* "NAME=", "NAME+=" or "NAME[sub]=" at p? */
bool sh_var_asg_head(const struct sh *s, size_t p, struct sh_var_head *h);
/* Undo a prefix assignment (the value saved before it). */
void sh_var_restore(struct sh *s, struct sh_asg *a);
/* NAME=value, NAME+=value, NAME[i]=value, NAME=( ... ) at *pos. */
int sh_var_assignment(struct sh *s, size_t *pos, struct sh_cmdst *c, const struct sh_var_head *h);

#endif

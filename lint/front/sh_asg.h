/* SPDX-License-Identifier: MIT */
/*
 * sh_asg: assignment words (NAME=value, NAME+=value, NAME[i]=value, NAME=( ... )), their values
 * expanded (sh_exp) and stored in variables (sh_var); prefix assignments saved and restored.
 */
#ifndef CGLINT_SH_ASG_H
#define CGLINT_SH_ASG_H

#include <stdbool.h>
#include <stddef.h>

#include "front/sh.h"

/* Where an assignment word's parts are: offsets into the text. */
struct sh_asg_head {
	size_t name, name_len, sub, sub_len, value;
	bool has_sub, append;
};

/* "NAME=", "NAME+=" or "NAME[sub]=" at p? */
bool sh_asg_head(const struct sh *s, size_t p, struct sh_asg_head *h);
/* Undo a prefix assignment (the value saved before it). */
void sh_asg_restore(struct sh *s, struct sh_asg *a);
/* NAME=value, NAME+=value, NAME[i]=value, NAME=( ... ) at *pos. */
int sh_asg_assign(struct sh *s, size_t *pos, struct sh_cmdst *c, const struct sh_asg_head *h);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * sh_cmd: launch-command extraction. The command being read (struct sh_cmdst) collects its
 * words and prefix assignments; when it ends it is emitted into s->cmds as a struct sh_cmd
 * (front/fe_sh.h) with the exported variables in effect, then inline NAME=value. Commands
 * share one env snapshot while only new exports change it.
 */
#ifndef CGLINT_SH_CMD_H
#define CGLINT_SH_CMD_H

#include <stdbool.h>

#include "front/sh.h"

/* Free c's arrays and clear it for the next command. */
void sh_cmd_free(struct sh_cmdst *c);
/* Nothing of the command read yet. */
bool sh_cmd_at_start(const struct sh_cmdst *c);
/* The first word that is not an assignment: prefix assignments turn into inline env. */
void sh_cmd_start(struct sh *s, struct sh_cmdst *c);
void sh_cmd_add_word(struct sh *s, struct sh_cmdst *c, const struct sh_field *f);
/* The end of a command: emitted unless it is a header, a declaration or assignments alone. */
void sh_cmd_end(struct sh *s, struct sh_cmdst *c);

#endif

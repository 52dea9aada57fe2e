/* SPDX-License-Identifier: MIT */
/*
 * bridge_src: the Megatron-Bridge a recipe's imports reached, read against the packs. cglint
 * reads a section a config class builds with the packs' defaults for the target (rules/
 * defaults.yaml); the job runs the defaults the installed source writes. Each default the packs
 * hold for the target is read from that source (and the Megatron Core it imports, where found):
 * those that differ are CG923, those it cannot read are said with -v.
 */
#ifndef CGLINT_BRIDGE_SRC_H
#define CGLINT_BRIDGE_SRC_H

#include "base/loc.h"

struct lint_run;
struct target;

/* Once a run, with r->bridge_root set: CG923 at 'at' (the first recipe that reached it). */
void bridge_src_check(struct lint_run *r, struct loc at, const struct target *tg);

#endif

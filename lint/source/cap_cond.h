/* SPDX-License-Identifier: MIT */
/*
 * cap_cond: NCCL work captured into a graph that holds a conditional node, or into a
 * conditional node's body graph (CG412), judged over a function and its capture regions, a
 * layer above cap. Which calls make a conditional node, which give the capturing graph and
 * which launch NCCL work is the pack's 'apis' table (entries of rule CG412).
 */
#ifndef CGLINT_CAP_COND_H
#define CGLINT_CAP_COND_H

#include <stddef.h>

struct cap;
struct cap_region;
struct sir_fn;

void cap_cond_check(const struct cap *c, const struct sir_fn *fn, const struct cap_region *regions, size_t n);

#endif

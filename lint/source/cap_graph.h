/* SPDX-License-Identifier: MIT */
/*
 * cap_graph: graph-API misuse judged over a function's shape and its capture regions
 * (CG404-CG407, CG409, CG410), a layer above cap.
 */
#ifndef CGLINT_CAP_GRAPH_H
#define CGLINT_CAP_GRAPH_H

#include <stddef.h>

struct cap;
struct cap_region;
struct sir_fn;

void cap_graph_check(const struct cap *c, const struct sir_fn *fn, const struct cap_region *regions, size_t n);

#endif

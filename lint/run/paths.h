/* SPDX-License-Identifier: MIT */
/*
 * paths: a recipe's findings on each path through the if statements cglint cannot decide. The
 * merged walk (every branch that may run, a key set differently made unknown) is judged first;
 * then each path alone. A finding on every path is reported as it is; one on some paths only is
 * a warning (an error's severity lowered) naming the path. A check the merged walk left undecided
 * that every path decides is no longer undecided.
 */
#ifndef CGLINT_PATHS_H
#define CGLINT_PATHS_H

#include <stddef.h>

#include "base/diag.h"

/* 'all' holds the merged walk's diagnostics from 'first' on; paths[p] what path p gave, named
 * names[p] ("'use_fp8' is false"). Findings are added to 'all', undecided checks dropped from it;
 * new messages in all's arena. */
void paths_merge(struct diag_list *all, size_t first, const struct diag_list *paths, const char *const *names,
		 size_t n_paths);

#endif

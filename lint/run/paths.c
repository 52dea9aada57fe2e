/* SPDX-License-Identifier: MIT */
/* paths: findings per path of a recipe (paths.h). */
#include <stdbool.h>
#include <stdlib.h>

#include "base/mem.h"
#include "run/paths.h"

static bool same(const struct diag *a, const struct diag *b)
{
	return a->rule == b->rule && a->loc.line == b->loc.line && a->loc.col == b->loc.col;
}

/* 'd' (or, 'any_loc', its rule) among l's findings from 'from' on, or its undecided checks ('open'). */
static bool in(const struct diag_list *l, size_t from, const struct diag *d, bool open, bool any_loc)
{
	for (size_t k = from; k < l->n; k++)
		if ((l->items[k].supp == DIAG_OPEN) == open &&
		    (open || any_loc ? l->items[k].rule == d->rule : same(&l->items[k], d)))
			return true;
	return false;
}

void paths_merge(struct diag_list *all, size_t first, const struct diag_list *paths, const char *const *names,
		 size_t n_paths)
{
	size_t end = all->n;
	/* findings a path has and the merged walk has not: a rule that fires on every path keeps its
	 * severity (where it fires may differ), one that fires on some is a warning; a finding not on
	 * every path names the path */
	for (size_t p = 0; p < n_paths; p++)
		for (size_t k = 0; k < paths[p].n; k++) {
			const struct diag *d = &paths[p].items[k];
			if (d->supp == DIAG_OPEN || in(all, first, d, false, false))
				continue;
			size_t rule_on = 0, here_on = 0;
			for (size_t q = 0; q < n_paths; q++) {
				rule_on += in(&paths[q], 0, d, false, true);
				here_on += in(&paths[q], 0, d, false, false);
			}
			struct diag add = *d;
			if (rule_on < n_paths && add.sev == SEV_ERROR)
				add.sev = SEV_WARNING;
			if (here_on < n_paths)
				add.message = arena_printf(all->arena, "%s (on the path where %s)", d->message, names[p]);
			diag_push(all, &add);
		}
	/* the merged walk's undecided checks that no path leaves undecided: decided */
	size_t out = first;
	for (size_t k = first; k < all->n; k++) {
		const struct diag *d = &all->items[k];
		bool open_somewhere = false;
		for (size_t p = 0; p < n_paths && !open_somewhere && k < end && d->supp == DIAG_OPEN; p++)
			open_somewhere = in(&paths[p], 0, d, true, true);
		if (k < end && d->supp == DIAG_OPEN && !open_somewhere)
			continue;
		all->items[out++] = *d;
	}
	all->n = out;
}

/* SPDX-License-Identifier: MIT */
/* check: built-in config checks. */
#include "config/check.h"

#include "base/suggest.h"
#include "config/fact.h"
#include "config/judge.h"
#include "config/pack.h"

#include <stdlib.h>

/*
 * unknown-values: every item of 'key' (a string or a list of them) must be one of 'values';
 * MCore turns scope names into enums with CudaGraphScope[name], a KeyError otherwise.
 */
void check_unknown_values(struct judge *j, const struct rule *r)
{
	struct value v = judge_value(j, r->key);
	if (v.kind == V_UNKNOWN || v.kind == V_NULL || !judge_when(j, r))
		return;
	const struct value *items = v.kind == V_LIST ? v.items : &v;
	size_t n = v.kind == V_LIST ? v.n : 1;
	const char **cands = malloc((r->values.n ? r->values.n : 1) * sizeof(*cands));
	size_t nc = 0;
	for (size_t k = 0; k < r->values.n; k++)
		if (r->values.items[k].kind == V_STR)
			cands[nc++] = r->values.items[k].s;
	for (size_t k = 0; k < n; k++) {
		if (items[k].kind != V_STR || value_list_has(&r->values, &items[k]))
			continue;
		struct loc loc = items[k].loc.path ? items[k].loc : facts_get(j->facts, r->key)->loc;
		judge_report(j, r, loc, items[k].s, suggest_closest(items[k].s, cands, nc));
	}
	free(cands);
}

/* input: CG9xx problems are reported by the front-ends as they read; nothing to judge here. */
void check_input(struct judge *j, const struct rule *r)
{
	(void)j;
	(void)r;
}

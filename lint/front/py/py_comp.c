/* SPDX-License-Identifier: MIT */
/* py_comp: list, set and dict comprehensions over values py_eval knows (see py_fn.h). */
#include <stdio.h>
#include <stdlib.h>

#include "front/py/py_fn.h"

#define MAX_ITEMS 4096          /* items a comprehension may make, as py_eval's lists */
#define MAX_CLAUSES 16          /* for and if clauses of one comprehension */

struct comp {
	struct fn *f;
	TSNode body;
	TSNode clauses[MAX_CLAUSES];
	size_t n_clauses;
	bool dict, set;
	struct value *items;    /* a dict's: key, value, key, value, ... */
	size_t n, cap;
	const char *why;
	unsigned depth;
};

/* 'for x in', 'for k, v in': the names of the target bound to an item. */
static bool bind(struct comp *c, TSNode target, const struct value *v)
{
	if (py_is(target, "identifier")) {
		py_unit_bind_value(&c->f->log, py_text(c->f, target), *v, NULL);
		return true;
	}
	if (!py_is(target, "pattern_list") && !py_is(target, "tuple_pattern") && !py_is(target, "list_pattern"))
		return c->why = arena_printf(c->f->a, "from a loop target '%s' cglint does not bind",
					     py_snippet(c->f, target)), false;
	TSNode parts[64];
	size_t np = 0;
	for (uint32_t k = 0; k < ts_node_named_child_count(target) && np < 64; k++)
		if (!py_is(ts_node_named_child(target, k), "comment"))
			parts[np++] = ts_node_named_child(target, k);
	const struct value *items;
	size_t n;
	if (!py_obj_items(c->f, v, &items, &n, &c->why))
		return false;
	if (n != np)
		return c->why = "from a loop whose items do not unpack into its target (ValueError)", false;
	for (size_t k = 0; k < np; k++)
		if (!bind(c, parts[k], &items[k]))
			return false;
	return true;
}

static bool add(struct comp *c, struct value key, struct value val)
{
	size_t step = c->dict ? 2 : 1;
	for (size_t k = 0; (c->dict || c->set) && k < c->n; k += step) {
		enum tri eq = py_obj_equal(&c->items[k], &key);
		if (eq == TRI_UNKNOWN)
			return c->why = "from a set or dict of keys cglint cannot compare", false;
		if (eq == TRI_TRUE) {
			if (c->dict)
				c->items[k + 1] = val;  /* a later value, in the first key's place */
			return true;
		}
	}
	if (c->n + step > MAX_ITEMS * 2)
		return c->why = "from a comprehension too long to hold", false;
	while (c->n + step > c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		struct value *more = arena_alloc(c->f->a, c->cap * sizeof(*more));
		if (c->n)
			memcpy(more, c->items, c->n * sizeof(*more));
		c->items = more;
	}
	c->items[c->n++] = key;
	if (c->dict)
		c->items[c->n++] = val;
	return true;
}

static bool run(struct comp *c, size_t k)
{
	struct fn *f = c->f;
	const char *w = NULL;
	if (k == c->n_clauses) {
		TSNode kn = c->dict ? py_field(c->body, "key") : c->body;
		struct value key = py_eval(f, kn, &w, c->depth + 1), val = value_null;
		if (key.kind != V_UNKNOWN && c->dict)
			val = py_eval(f, py_field(c->body, "value"), &w, c->depth + 1);
		if (key.kind == V_UNKNOWN || val.kind == V_UNKNOWN)
			return c->why = w ? w : "from a comprehension item cglint does not know", false;
		return add(c, key, val);
	}
	TSNode cl = c->clauses[k];
	if (py_is(cl, "if_clause")) {
		struct value cond = py_eval(f, ts_node_named_child(cl, 0), &w, c->depth + 1);
		enum tri t = value_truth(&cond);
		if (t == TRI_UNKNOWN)
			return c->why = arena_printf(f->a, "from a comprehension's '%s' (unknown condition%s%s)",
						     py_snippet(f, cl), w ? ": " : "", w ? w : ""), false;
		return t == TRI_FALSE || run(c, k + 1);
	}
	TSNode right = py_field(cl, "right");
	if (ts_node_named_child_count(cl) != 2)
		return c->why = "from a comprehension over several iterables", false;
	struct value it = py_eval(f, right, &w, c->depth + 1);
	const struct value *items;
	size_t n;
	c->why = w;
	if (!py_obj_items(f, &it, &items, &n, &c->why))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!bind(c, py_field(cl, "left"), &items[i]) || !run(c, k + 1))
			return false;
	return true;
}

struct value py_comp(struct fn *f, TSNode n, const char **why, unsigned depth)
{
	if (!f->session)
		return *why = "from a comprehension cglint does not read here", value_unknown;
	struct comp c = {.f = f, .body = py_field(n, "body"), .dict = py_is(n, "dictionary_comprehension"),
			 .set = py_is(n, "set_comprehension"), .depth = depth};
	for (uint32_t k = 0; k < ts_node_named_child_count(n); k++) {
		TSNode cl = ts_node_named_child(n, k);
		if (!py_is(cl, "for_in_clause") && !py_is(cl, "if_clause"))
			continue;
		if (c.n_clauses == MAX_CLAUSES || (py_is(cl, "for_in_clause") && ts_node_child_count(cl) &&
						   !strcmp(ts_node_type(ts_node_child(cl, 0)), "async")))
			return *why = "from a comprehension cglint does not read", value_unknown;
		c.clauses[c.n_clauses++] = cl;
	}
	if (ts_node_is_null(c.body) || !c.n_clauses || !py_is(c.clauses[0], "for_in_clause"))
		return *why = "from a comprehension cglint does not read", value_unknown;
	/* its names live in its own scope: the function's are as they were afterwards */
	size_t nv0 = f->log.n_vars;
	struct py_var *vars0 = mem_alloc((nv0 ? nv0 : 1) * sizeof(*vars0));
	if (nv0)
		memcpy(vars0, f->log.vars, nv0 * sizeof(*vars0));
	bool ok = run(&c, 0);
	f->log.n_vars = nv0;
	if (nv0)
		memcpy(f->log.vars, vars0, nv0 * sizeof(*vars0));
	free(vars0);
	if (!ok) {
		*why = c.why ? c.why : "from a comprehension cglint cannot compute";
		return value_unknown;
	}
	if (c.dict)
		return (struct value){.kind = V_MAP, .items = c.items, .n = c.n};
	return (struct value){.kind = V_LIST, .i = c.set ? PY_SEQ_SET : PY_SEQ_LIST, .items = c.items, .n = c.n};
}

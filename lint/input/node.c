/* SPDX-License-Identifier: MIT */
/* node: lookups in a parsed YAML tree. */
#include "input/node.h"

#include <string.h>

#include "base/mem.h"

struct node *node_get(const struct node *map, const char *key)
{
	if (!map || map->kind != NODE_MAP)
		return NULL;
	for (size_t k = map->n; k-- > 0;) {
		const struct node *kn = map->items[2 * k];
		if (kn->kind == NODE_SCALAR && kn->scalar[0] == key[0] && !strcmp(kn->scalar, key))
			return map->items[2 * k + 1];
	}
	return NULL;
}

bool node_is_scalar(const struct node *n, const char *text)
{
	return n && n->kind == NODE_SCALAR && !strcmp(n->scalar, text);
}

void node_each_entry(const struct node *map, bool merges_first,
		     void (*fn)(const struct node *key, const struct node *val, void *ctx), void *ctx)
{
	for (int pass = merges_first ? 0 : 1; pass < 2; pass++)
		for (size_t k = 0; k < map->n; k++) {
			const struct node *key = map->items[2 * k], *val = map->items[2 * k + 1];
			if (key->kind != NODE_SCALAR)
				continue;
			if (!node_is_scalar(key, "<<")) {
				if (pass == 1)
					fn(key, val, ctx);
			} else if (!(merges_first && pass == 1)) {
				for (size_t i = val->kind == NODE_SEQ ? val->n : 1; i-- > 0;) {
					const struct node *m = val->kind == NODE_SEQ ? val->items[i] : val;
					if (m->kind == NODE_MAP)
						node_each_entry(m, merges_first, fn, ctx);
				}
			}
		}
}

struct value node_value(struct arena *a, const struct node *n, bool *enum_form)
{
	struct value v = {.kind = V_STR};
	switch (n->kind) {
	case NODE_SCALAR:
		v = n->plain ? value_from_plain(a, n->scalar) : value_str(n->scalar);
		break;
	case NODE_SEQ:
		v.kind = V_LIST;
		v.n = n->n;
		v.items = arena_alloc(a, (n->n ? n->n : 1) * sizeof(*v.items));
		for (size_t k = 0; k < n->n; k++)
			v.items[k] = node_value(a, n->items[k], enum_form);
		break;
	case NODE_MAP: {
		const struct node *name = node_get(n, "_name_");
		if (name && name->kind == NODE_SCALAR && node_get(n, "_target_")) {
			v = value_str(name->scalar);
			if (enum_form)
				*enum_form = true;
		} else {
			v.kind = V_MAP;
			v.n = n->n;
		}
		break;
	}
	}
	v.loc = n->loc;
	return v;
}

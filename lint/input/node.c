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

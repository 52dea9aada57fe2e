/* SPDX-License-Identifier: MIT */
/*
 * node: a parsed YAML document in cglint's own types, so that nothing past fe_yaml.c sees
 * libyaml. Aliases share the anchored node (the tree is a DAG); 'weight' is the size the
 * node would have if every alias were expanded, which fe_yaml bounds against alias bombs.
 * Nodes live in the arena passed to the parser.
 */
#ifndef CGLINT_NODE_H
#define CGLINT_NODE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/loc.h"
#include "base/value.h"

struct arena;

enum node_kind { NODE_SCALAR, NODE_SEQ, NODE_MAP };

struct node {
	enum node_kind kind;
	struct loc loc;
	const char *scalar;     /* NODE_SCALAR: the text */
	bool plain;             /* an unquoted plain scalar, whose type is resolved (true, 3, null) */
	struct node **items;    /* NODE_SEQ: n items; NODE_MAP: n pairs as items[2k], items[2k+1] */
	size_t n;
	size_t weight;          /* nodes after alias expansion, this one included */
	unsigned depth;         /* nesting after alias expansion, 1 for a scalar */
};

/* The value of 'key' in mapping 'map' (last one wins), or NULL. */
struct node *node_get(const struct node *map, const char *key);
bool node_is_scalar(const struct node *n, const char *text);

/*
 * Each entry of a mapping, its merge keys ('<<: *A', '<<: [*A, *B]') standing for the merged
 * maps' entries, in the order a loader applies them: of the entries of one key, the one visited
 * last holds. 'merges_first': the merged maps before the map's own keys, which win (PyYAML, the
 * YAML merge spec); else each where its merge key stands (yq's default explode). A list of maps
 * is visited last to first, so its first map wins. fe_yaml bounds the nesting.
 */
void node_each_entry(const struct node *map, bool merges_first,
		     void (*fn)(const struct node *key, const struct node *val, void *ctx), void *ctx);


/*
 * The typed value of a node: plain scalars resolve as PyYAML's safe loader does, sequences
 * become lists, a Bridge enum dict ({_target_: ...Enum, _name_: attn}) becomes its name and
 * sets '*enum_form' (may be NULL), other mappings become V_MAP with n = their size.
 */
struct value node_value(struct arena *a, const struct node *n, bool *enum_form);

#endif

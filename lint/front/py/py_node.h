/* SPDX-License-Identifier: MIT */
/*
 * py_node: the tree-sitter node helpers every file of the Python front-end uses, in one place.
 * A node's text lives in the source it was parsed from ('src'); copies go into the arena given.
 * Private to the front-end's files, which alone include tree-sitter.
 */
#ifndef CGLINT_PY_NODE_H
#define CGLINT_PY_NODE_H

#include <stdbool.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "base/loc.h"
#include "base/mem.h"

const TSLanguage *tree_sitter_python(void);

static inline bool py_is(TSNode n, const char *type)
{
	if (ts_node_is_null(n))
		return false;
	const char *t = ts_node_type(n);
	return t[0] == type[0] && !strcmp(t, type);     /* most asks differ at the first letter */
}

/* A field's id is looked up once per name (the lookup compares the grammar's every field name):
 * names are literals, so the pointer finds it, and the text confirms it. A null node's field is
 * null, as an absent field's is (tree-sitter reads a null node's subtree, and faults). */
static inline TSNode py_field(TSNode n, const char *name)
{
	if (ts_node_is_null(n))
		return n;
	static struct {
		const char *name;
		TSFieldId id;
	} seen[32];
	unsigned k = 0;
	for (; k < 32 && seen[k].name; k++)
		if (seen[k].name == name && !strcmp(seen[k].name, name))
			return ts_node_child_by_field_id(n, seen[k].id);
	TSFieldId id = ts_language_field_id_for_name(tree_sitter_python(), name, (uint32_t)strlen(name));
	if (k < 32)
		seen[k].name = name, seen[k].id = id;
	return ts_node_child_by_field_id(n, id);
}

/* The named children of a node in order, in one walk: ts_node_named_child(n, k) walks from the
 * first child each time, so a block of n statements read that way costs n * n steps. Every walk
 * ends with py_kids_end (the cursor holds memory).
 *	struct py_kids it;
 *	for (py_kids_start(&it, block); py_kids_next(&it);)
 *		use(it.node);
 *	py_kids_end(&it); */
struct py_kids {
	TSTreeCursor c;
	TSNode node;            /* the current child */
	bool started, done;
};

static inline void py_kids_start(struct py_kids *it, TSNode n)
{
	it->c = ts_tree_cursor_new(n);
	it->started = false;
	it->done = ts_node_is_null(n) || !ts_tree_cursor_goto_first_child(&it->c);
}

static inline bool py_kids_next(struct py_kids *it)
{
	while (!it->done) {
		if (it->started && !ts_tree_cursor_goto_next_sibling(&it->c))
			break;
		it->started = true;
		it->node = ts_tree_cursor_current_node(&it->c);
		if (ts_node_is_named(it->node))
			return true;
	}
	it->done = true;
	return false;
}

static inline void py_kids_end(struct py_kids *it)
{
	ts_tree_cursor_delete(&it->c);
}

static inline struct loc py_loc(const char *path, TSNode n)
{
	TSPoint p = ts_node_start_point(n);
	return (struct loc){path, p.row + 1, p.column + 1};
}

/* The node's text, copied into 'a'. */
static inline const char *py_node_text(struct arena *a, const char *src, TSNode n)
{
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	return arena_strndup(a, src + s, e - s);
}

/* The node's text for a message, cut at 60 bytes and at a line end. */
static inline const char *py_node_snippet(struct arena *a, const char *src, TSNode n)
{
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n), len = e - s;
	const char *nl = memchr(src + s, '\n', len);
	if (nl)
		len = (uint32_t)(nl - (src + s));
	return len > 60 ? arena_printf(a, "%.57s...", src + s) : arena_strndup(a, src + s, len);
}

#endif

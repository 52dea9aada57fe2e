/* SPDX-License-Identifier: MIT */
/* fe_yaml: libyaml events -> node tree, with bounds on depth, size and alias expansion. */
#include "input/fe_yaml.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/diag.h"
#include "base/mem.h"
#include "input/node.h"

struct frame {
	struct node *node;
	struct node **items;
	size_t n, cap;
	const char *anchor;     /* a container's anchor, registered when it closes */
};

struct anchor {
	const char *name;
	struct node *node;
};

struct builder {
	struct arena *a;
	struct diag_list *d;
	const char *path;
	const char *buf;
	size_t len;
	struct frame *stack;
	size_t depth, cap;
	struct anchor *anchors;
	size_t n_anchors, cap_anchors;
	struct node **roots;            /* a document's root is roots[documents - 1] */
	size_t cap_roots;
	int documents;
	bool multi;                     /* a stream of documents, or refuse a second one */
	const char *dup_rule;
};

static struct loc mark_loc(const struct builder *b, yaml_mark_t m)
{
	return (struct loc){b->path, (unsigned)m.line + 1, (unsigned)m.column + 1};
}

/* libyaml reports reader (encoding) problems by byte offset only. */
static struct loc offset_loc(const struct builder *b, size_t off)
{
	struct loc l = {b->path, 1, 1};
	for (size_t i = 0; i < off && i < b->len; i++) {
		if (b->buf[i] == '\n')
			l.line++, l.col = 1;
		else if (((unsigned char)b->buf[i] & 0xC0) != 0x80)
			l.col++;
	}
	return l;
}

static void push_item(struct frame *f, struct node *n)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 8;
		f->items = mem_realloc(f->items, f->cap * sizeof(*f->items));
	}
	f->items[f->n++] = n;
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct node *a = *(struct node *const *)pa, *b = *(struct node *const *)pb;
	int c = strcmp(a->scalar, b->scalar);
	if (c)
		return c;
	return a->loc.line != b->loc.line ? (a->loc.line < b->loc.line ? -1 : 1)
					  : (a->loc.col < b->loc.col ? -1 : a->loc.col > b->loc.col);
}

/* Sorting keeps duplicate detection O(n log n) for hostile maps with many keys. */
static void check_duplicates(struct builder *b, const struct node *map)
{
	size_t nk = 0;
	struct node **keys = mem_alloc((map->n ? map->n : 1) * sizeof(*keys));
	for (size_t k = 0; k < map->n; k++)
		if (map->items[2 * k]->kind == NODE_SCALAR && strcmp(map->items[2 * k]->scalar, "<<"))
			keys[nk++] = map->items[2 * k];
	qsort(keys, nk, sizeof(*keys), cmp_key);
	for (size_t k = 1; k < nk; k++)
		if (!strcmp(keys[k - 1]->scalar, keys[k]->scalar))
			diag_input(b->d, b->dup_rule, keys[k]->loc, "duplicate key '%s' (first set on line %u)",
				   keys[k]->scalar, keys[k - 1]->loc.line);
	free(keys);
}

/* Attach a finished node to its parent (or make it the root) and enforce the bounds.
 * 'anchor' (may be NULL) must already live in the builder's arena. */
static int finish(struct builder *b, struct node *n, const char *anchor)
{
	if (n->weight > FE_YAML_MAX_NODES) {
		diag_input(b->d, "CG903", n->loc,
			   "document expands to more than %d nodes (alias expansion or size); refusing to read it",
			   FE_YAML_MAX_NODES);
		return -1;
	}
	if (n->depth > FE_YAML_MAX_DEPTH) {
		diag_input(b->d, "CG903", n->loc, "nesting deeper than %d levels (after alias expansion)",
			   FE_YAML_MAX_DEPTH);
		return -1;
	}
	if (anchor) {
		if (b->n_anchors == b->cap_anchors) {
			b->cap_anchors = b->cap_anchors ? b->cap_anchors * 2 : 8;
			b->anchors = mem_realloc(b->anchors, b->cap_anchors * sizeof(*b->anchors));
		}
		b->anchors[b->n_anchors++] = (struct anchor){anchor, n};
	}
	if (!b->depth) {
		if (b->documents < 1)
			return 0;
		if ((size_t)b->documents > b->cap_roots) {
			b->cap_roots = b->cap_roots ? b->cap_roots * 2 : 4;
			b->roots = mem_realloc(b->roots, b->cap_roots * sizeof(*b->roots));
		}
		b->roots[b->documents - 1] = n;
		return 0;
	}
	struct frame *parent = &b->stack[b->depth - 1];
	push_item(parent, n);
	parent->node->weight += n->weight;
	if (n->depth + 1 > parent->node->depth)
		parent->node->depth = n->depth + 1;
	return 0;
}

static struct node *new_node(struct builder *b, enum node_kind kind, yaml_mark_t m)
{
	struct node *n = arena_alloc(b->a, sizeof(*n));
	n->kind = kind;
	n->loc = mark_loc(b, m);
	n->weight = 1;
	n->depth = 1;
	return n;
}

static int open_container(struct builder *b, enum node_kind kind, yaml_mark_t m, const unsigned char *anchor)
{
	if (b->depth >= FE_YAML_MAX_DEPTH) {
		diag_input(b->d, "CG903", mark_loc(b, m), "nesting deeper than %d levels", FE_YAML_MAX_DEPTH);
		return -1;
	}
	if (b->depth == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 16;
		b->stack = mem_realloc(b->stack, b->cap * sizeof(*b->stack));
	}
	b->stack[b->depth++] = (struct frame){
		.node = new_node(b, kind, m),
		.anchor = anchor ? arena_strdup(b->a, (const char *)anchor) : NULL,
	};
	return 0;
}

static int close_container(struct builder *b)
{
	struct frame *f = &b->stack[--b->depth];
	struct node *n = f->node;
	n->items = arena_alloc(b->a, (f->n ? f->n : 1) * sizeof(*n->items));
	if (f->n)
		memcpy(n->items, f->items, f->n * sizeof(*n->items));
	n->n = n->kind == NODE_MAP ? f->n / 2 : f->n;
	free(f->items);
	if (n->kind == NODE_MAP)
		check_duplicates(b, n);         /* reported; the last value wins, as in PyYAML */
	return finish(b, n, f->anchor);
}

static struct node *find_anchor(struct builder *b, const char *name)
{
	for (size_t k = b->n_anchors; k-- > 0;)       /* a redefined anchor: the latest wins */
		if (!strcmp(b->anchors[k].name, name))
			return b->anchors[k].node;
	return NULL;
}

static int on_event(struct builder *b, yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		b->n_anchors = 0;       /* an alias names an anchor of its own document */
		if (++b->documents > 1 && !b->multi) {
			diag_input(b->d, "CG901", mark_loc(b, ev->start_mark),
				   "a second YAML document; cglint reads files that hold one");
			return -1;
		}
		return 0;
	case YAML_SCALAR_EVENT: {
		struct node *n = new_node(b, NODE_SCALAR, ev->start_mark);
		n->scalar = arena_strndup(b->a, (const char *)ev->data.scalar.value, ev->data.scalar.length);
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag;
		if (strlen(n->scalar) != ev->data.scalar.length) {
			diag_input(b->d, "CG906", n->loc, "scalar contains a NUL character");
			return -1;
		}
		const char *anchor = (const char *)ev->data.scalar.anchor;
		return finish(b, n, anchor ? arena_strdup(b->a, anchor) : NULL);
	}
	case YAML_SEQUENCE_START_EVENT:
		return open_container(b, NODE_SEQ, ev->start_mark, ev->data.sequence_start.anchor);
	case YAML_MAPPING_START_EVENT:
		return open_container(b, NODE_MAP, ev->start_mark, ev->data.mapping_start.anchor);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return close_container(b);
	case YAML_ALIAS_EVENT: {
		struct node *target = find_anchor(b, (const char *)ev->data.alias.anchor);
		if (!target) {
			diag_input(b->d, "CG901", mark_loc(b, ev->start_mark), "alias '*%s' names no earlier anchor",
				   (const char *)ev->data.alias.anchor);
			return -1;
		}
		return finish(b, target, NULL);
	}
	default:
		return 0;
	}
}

int fe_yaml_parse(struct arena *a, struct diag_list *d, const char *path, const char *buf, size_t len,
		  struct node **root)
{
	return fe_yaml_parse_dups(a, d, path, buf, len, "CG902", root);
}

static int parse(struct builder *b);

int fe_yaml_parse_dups(struct arena *a, struct diag_list *d, const char *path, const char *buf, size_t len,
		       const char *dup_rule, struct node **root)
{
	struct builder b = {.a = a, .d = d, .path = path, .buf = buf, .len = len, .dup_rule = dup_rule};
	int rc = parse(&b);
	*root = !rc && b.documents ? b.roots[0] : NULL;
	free(b.roots);
	return rc;
}

/* An empty document ('---' and nothing, or only comments) is libyaml's empty plain scalar. */
static bool is_empty(const struct node *n)
{
	return n->kind == NODE_SCALAR && n->plain && !*n->scalar;
}

int fe_yaml_parse_docs(struct arena *a, struct diag_list *d, const char *path, const char *buf, size_t len,
		       const char *dup_rule, struct node ***roots, size_t *n)
{
	struct builder b = {.a = a, .d = d, .path = path, .buf = buf, .len = len, .dup_rule = dup_rule, .multi = true};
	int rc = parse(&b);
	*n = 0;
	*roots = arena_alloc(a, ((size_t)b.documents + 1) * sizeof(**roots));
	for (int k = 0; !rc && k < b.documents; k++)
		if (!is_empty(b.roots[k]))
			(*roots)[(*n)++] = b.roots[k];
	free(b.roots);
	return rc;
}

static int parse(struct builder *b)
{
	const char *path = b->path;
	struct diag_list *d = b->d;
	yaml_parser_t p;
	int rc = 0;

	if (!yaml_parser_initialize(&p)) {
		diag_input(d, "CG901", (struct loc){path, 0, 0}, "cannot initialise the YAML parser");
		return -1;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)b->buf, b->len);
	for (;;) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&p, &ev)) {
			if (p.error == YAML_READER_ERROR)
				diag_input(d, "CG906", offset_loc(b, p.problem_offset), "invalid input: %s",
					   p.problem ? p.problem : "unreadable character");
			else if (p.error == YAML_MEMORY_ERROR)
				diag_input(d, "CG903", (struct loc){path, 0, 0}, "the YAML parser ran out of memory");
			else
				diag_input(d, "CG901", mark_loc(b, p.problem_mark), "YAML syntax error: %s%s%s",
					   p.problem ? p.problem : "malformed YAML", p.context ? " " : "",
					   p.context ? p.context : "");
			rc = -1;
			break;
		}
		bool end = ev.type == YAML_STREAM_END_EVENT;
		rc = on_event(b, &ev);
		yaml_event_delete(&ev);
		if (rc || end)
			break;
	}
	yaml_parser_delete(&p);
	while (b->depth)
		free(b->stack[--b->depth].items);
	free(b->stack);
	free(b->anchors);
	return rc;
}

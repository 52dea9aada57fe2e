/* SPDX-License-Identifier: MIT */
/*
 * fe_yaml: YAML text -> node tree, through libyaml's event parser. The only file that sees
 * libyaml. Hostile input is bounded: FE_YAML_MAX_DEPTH levels of nesting and
 * FE_YAML_MAX_NODES nodes counted after alias expansion; duplicate keys are errors.
 * Every problem becomes a CG9xx diagnostic with a position.
 */
#ifndef CGLINT_FE_YAML_H
#define CGLINT_FE_YAML_H

#include <stddef.h>

struct arena;
struct diag_list;
struct node;

#define FE_YAML_MAX_DEPTH 64
#define FE_YAML_MAX_NODES 200000

/*
 * Parse 'buf' (not NUL-terminated) read from 'path'. On success returns 0 and sets '*root' to
 * the first document's root, or NULL for an empty stream. On a syntax or limit problem
 * reports it and returns -1. Nodes and strings live in 'a'; 'path' is borrowed.
 */
int fe_yaml_parse(struct arena *a, struct diag_list *d, const char *path, const char *buf, size_t len,
		  struct node **root);
/*
 * A stream of documents ('---'): each document's root into '*roots' (in 'a'), '*n' of them;
 * empty documents are left out. Anchors are per document, as YAML says; line numbers are
 * the stream's. fe_yaml_parse() refuses a second document instead (a single config).
 */
int fe_yaml_parse_docs(struct arena *a, struct diag_list *d, const char *path, const char *buf, size_t len,
		       const char *dup_rule, struct node ***roots, size_t *n);
/* The same, reporting duplicate keys as 'dup_rule' instead of CG902: for a format whose
 * consumer keeps every entry (Megatron-LM's functional-test MODEL_ARGS, CG909). */
int fe_yaml_parse_dups(struct arena *a, struct diag_list *d, const char *path, const char *buf, size_t len,
		       const char *dup_rule, struct node **root);

#endif

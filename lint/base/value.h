/* SPDX-License-Identifier: MIT */
/*
 * value: the typed value of a fact or an expression. V_UNKNOWN is the third truth value: a key
 * that no input sets and whose default is not assumed. Values and their strings live in the
 * arena of whoever built them; a value never owns memory.
 */
#ifndef CGLINT_VALUE_H
#define CGLINT_VALUE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/loc.h"

struct arena;
struct sbuf;

enum val_kind { V_UNKNOWN, V_NULL, V_BOOL, V_INT, V_FLOAT, V_STR, V_LIST, V_MAP };

struct value {
	enum val_kind kind;
	bool b;
	long long i;
	double f;
	const char *s;
	struct value *items;    /* V_LIST */
	size_t n;
	struct loc loc;         /* where an input wrote it; path NULL when computed */
};

enum tri { TRI_FALSE, TRI_TRUE, TRI_UNKNOWN };

extern const struct value value_unknown, value_null;

struct value value_bool(bool b);
struct value value_str(const char *s);

/* Resolve a plain YAML scalar as PyYAML's safe loader does (YAML 1.1: yes/no/on/off, ~, 0x1f). */
struct value value_from_plain(struct arena *a, const char *s);

enum tri value_truth(const struct value *v);        /* Python truthiness; unknown stays unknown */
bool value_equal(const struct value *a, const struct value *b);
bool value_is_number(const struct value *v, double *out);
bool value_list_has(const struct value *list, const struct value *item);

/* Python-like rendering: 'none', ['attn', 'mlp'], True. Strings are not quoted when 'bare'. */
void value_render(struct sbuf *sb, const struct value *v, bool bare);
const char *value_string(struct arena *a, const struct value *v, bool bare);   /* the same, in 'a' */
const char *value_kind_name(enum val_kind k);
/* Python's str.split(sep) of a string, items keeping its position; anything else unchanged. */
struct value value_split(struct arena *a, const struct value *v, const struct value *sep);

#endif

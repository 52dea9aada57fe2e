/* SPDX-License-Identifier: MIT */
/* pack_load: the validation helpers the files that load a pack share (see pack_load.h). */
#include "config/pack_load.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/suggest.h"
#include "input/node.h"

void pack_bad(struct loader *ld, const struct node *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *msg = arena_vprintf(ld->d->arena, fmt, ap);
	va_end(ap);
	diag_input(ld->d, "CG910", at->loc, "%s", msg);
	ld->errors++;
}

/* Reject keys outside 'allowed' (NULL-terminated) with a did-you-mean. */
void pack_only_keys(struct loader *ld, const struct node *map, const char *what, const char *const *allowed)
{
	if (ld->trusted)
		return;
	size_t n = 0;
	while (allowed[n])
		n++;
	for (size_t k = 0; map->kind == NODE_MAP && k < map->n; k++) {     /* callers say what else it is */
		const struct node *key = map->items[2 * k];
		if (key->kind != NODE_SCALAR) {
			pack_bad(ld, key, "%s keys must be plain names", what);
			continue;
		}
		size_t i;
		for (i = 0; i < n && (key->scalar[0] != allowed[i][0] || strcmp(key->scalar, allowed[i])); i++)
			;
		if (i < n)
			continue;
		const char *s = suggest_closest(key->scalar, allowed, n);
		if (s)
			pack_bad(ld, key, "unknown %s key '%s'; did you mean '%s'?", what, key->scalar, s);
		else
			pack_bad(ld, key, "unknown %s key '%s'", what, key->scalar);
	}
}

void pack_each(struct loader *ld, const struct node *root, const char *key,
		 void (*fn)(struct loader *, const struct node *))
{
	const struct node *seq = node_get(root, key);
	if (!seq)
		return;
	if (seq->kind != NODE_SEQ) {
		pack_bad(ld, seq, "'%s' must be a list", key);
		return;
	}
	for (size_t k = 0; k < seq->n; k++)
		fn(ld, seq->items[k]);
}

void pack_builtin_broken(const struct diag_list *d, const char *path)
{
	for (size_t i = 0; i < d->n; i++)
		fprintf(stderr, "%s:%u:%u: %s\n", d->items[i].loc.path, d->items[i].loc.line, d->items[i].loc.col,
			d->items[i].message);
	fprintf(stderr, "cglint: internal error: built-in rule pack %s is invalid\n", path);
	exit(3);
}

const char *pack_scalar(struct loader *ld, const struct node *map, const char *key, bool required)
{
	const struct node *n = node_get(map, key);
	if (!n) {
		if (required)
			pack_bad(ld, map, "missing '%s'", key);
		return NULL;
	}
	if (n->kind != NODE_SCALAR) {
		pack_bad(ld, n, "'%s' must be a single value", key);
		return NULL;
	}
	return n->scalar;
}

struct rule *pack_rule_by(const struct strmap *m, const struct pack *p, const char *key)
{
	size_t k;
	return key && strmap_get(m, key, strlen(key), &k) ? p->rules[k] : NULL;
}

static struct rule *rule_by_id(const struct pack *p, const char *id)
{
	char up[32];
	size_t n = id ? strlen(id) : sizeof(up);
	if (n >= sizeof(up))
		return NULL;
	for (size_t k = 0; k <= n; k++)
		up[k] = (char)toupper((unsigned char)id[k]);
	return pack_rule_by(&p->by_id, p, up);
}

const struct rule *pack_find(const struct pack *p, const char *id_or_name)
{
	const struct rule *by_id = rule_by_id(p, id_or_name), *by_name = pack_rule_by(&p->by_name, p, id_or_name);
	if (by_id && by_name)
		return by_id->index < by_name->index ? by_id : by_name;
	return by_id ? by_id : by_name;
}

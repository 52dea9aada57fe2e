/* SPDX-License-Identifier: MIT */
/* fact: an insertion-ordered hash table of facts. */
#include "config/fact.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

void facts_init(struct facts *t, struct arena *a)
{
	*t = (struct facts){.arena = a};
}

void facts_release(struct facts *t)
{
	free(t->order);
	t->order = NULL;
	strmap_release(&t->index);
	t->n = t->cap = 0;
}

struct fact *facts_get(const struct facts *t, const char *key)
{
	size_t i;
	return strmap_get(&t->index, key, strlen(key), &i) ? t->order[i] : NULL;
}

struct fact *facts_set(struct facts *t, const char *key, struct value v, struct loc loc, const char *layer)
{
	size_t len = strlen(key), hash = strmap_hash(key, len), i;   /* hashed once for both */
	struct fact *f = strmap_get_hashed(&t->index, key, len, hash, &i) ? t->order[i] : NULL;
	if (!f) {
		f = arena_alloc(t->arena, sizeof(*f));
		f->key = arena_strndup(t->arena, key, len);
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 64;
			t->order = mem_realloc(t->order, t->cap * sizeof(*t->order));
		}
		bool added;
		strmap_ref(&t->index, f->key, len, hash, t->n, &added);    /* the map borrows the copy */
		t->order[t->n++] = f;
	}
	f->val = f->raw = v;
	f->loc = loc;
	f->layer = layer;
	f->why = NULL;
	f->origin = (struct loc){0};
	f->enum_form = false;
	f->form = FACT_SET;
	return f;
}

void facts_copy(struct facts *dst, const struct facts *src)
{
	for (size_t k = 0; k < src->n; k++) {
		const struct fact *f = src->order[k];
		struct fact *g = facts_set(dst, f->key, f->val, f->loc, f->layer);
		const char *key = g->key;       /* dst's own copy, which its index points at */
		memcpy(g, f, sizeof(*g));
		g->key = key;
	}
	dst->closed = src->closed;
	dst->env_closed = src->env_closed;
	for (size_t k = 0; k < src->n_closed_under; k++)
		facts_close_under(dst, src->closed_under[k]);
}

bool facts_internal(const char *key)
{
	const char *leaf = strrchr(key, '.');
	return (leaf ? leaf + 1 : key)[0] == '_';
}

void facts_close_under(struct facts *t, const char *section)
{
	const char **v = arena_alloc(t->arena, (t->n_closed_under + 1) * sizeof(*v));
	if (t->n_closed_under)
		memcpy(v, t->closed_under, t->n_closed_under * sizeof(*v));
	v[t->n_closed_under++] = arena_strdup(t->arena, section);
	t->closed_under = v;
}

static struct value absent(const struct facts *t, const char *key)
{
	if (!strncmp(key, "runtime.", 8))
		return value_unknown;   /* known only once the job runs (fact.h) */
	for (size_t k = 0; k < t->n_closed_under; k++) {
		size_t m = strlen(t->closed_under[k]);
		if (!strncmp(key, t->closed_under[k], m) && key[m] == '.')
			return value_null;
	}
	bool env = !strncmp(key, "env.", 4);
	return (env ? t->env_closed : t->closed) ? value_null : value_unknown;
}

struct value facts_value(const struct facts *t, const char *key)
{
	const struct fact *f = facts_get(t, key);
	return f ? f->val : absent(t, key);
}

struct value facts_raw(const struct facts *t, const char *key)
{
	const struct fact *f = facts_get(t, key);
	return f ? f->raw : absent(t, key);
}

/* SPDX-License-Identifier: MIT */
/* fact: an insertion-ordered hash table of facts. */
#include "fact.h"

#include <stdlib.h>
#include <string.h>

#include "mem.h"

void facts_init(struct facts *t, struct arena *a)
{
	*t = (struct facts){.arena = a};
}

void facts_release(struct facts *t)
{
	free(t->order);
	free(t->slots);
	t->order = t->slots = NULL;
	t->n = t->cap = t->n_slots = 0;
}

static size_t hash(const char *s)
{
	size_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static struct fact **slot(const struct facts *t, const char *key)
{
	size_t mask = t->n_slots - 1;
	for (size_t i = hash(key) & mask;; i = (i + 1) & mask)
		if (!t->slots[i] || !strcmp(t->slots[i]->key, key))
			return &t->slots[i];
}

static void rehash(struct facts *t)
{
	free(t->slots);
	t->n_slots = t->n_slots ? t->n_slots * 2 : 64;
	t->slots = mem_alloc(t->n_slots * sizeof(*t->slots));
	for (size_t k = 0; k < t->n; k++)
		*slot(t, t->order[k]->key) = t->order[k];
}

struct fact *facts_get(const struct facts *t, const char *key)
{
	return t->n_slots ? *slot(t, key) : NULL;
}

struct fact *facts_set(struct facts *t, const char *key, struct value v, struct loc loc, const char *layer)
{
	struct fact *f = facts_get(t, key);
	if (!f) {
		if ((t->n + 1) * 2 > t->n_slots)
			rehash(t);
		f = arena_alloc(t->arena, sizeof(*f));
		f->key = arena_strdup(t->arena, key);
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 64;
			t->order = mem_realloc(t->order, t->cap * sizeof(*t->order));
		}
		t->order[t->n++] = f;
		*slot(t, f->key) = f;
	}
	f->val = f->raw = v;
	f->loc = loc;
	f->layer = layer;
	f->enum_form = false;
	return f;
}

static struct value absent(const struct facts *t, const char *key)
{
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

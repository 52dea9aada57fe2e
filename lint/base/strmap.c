/* SPDX-License-Identifier: MIT */
/* strmap: string -> index, open addressing with linear probing (FNV-1a). */
#include "base/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

struct strmap_slot {
	const char *key;        /* NULL: empty */
	size_t len, val;
};

static size_t hash(const char *p, size_t n)
{
	size_t h = 1469598103934665603u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211u;
	return h;
}

static struct strmap_slot *slot(const struct strmap *m, const char *key, size_t len)
{
	size_t mask = m->cap - 1;
	for (size_t i = hash(key, len) & mask;; i = (i + 1) & mask) {
		struct strmap_slot *s = &m->slots[i];
		if (!s->key || (s->len == len && !memcmp(s->key, key, len)))
			return s;
	}
}

bool strmap_get(const struct strmap *m, const char *key, size_t len, size_t *val)
{
	if (!m->cap)
		return false;
	const struct strmap_slot *s = slot(m, key, len);
	if (s->key)
		*val = s->val;
	return s->key != NULL;
}

void strmap_put(struct strmap *m, const char *key, size_t len, size_t val)
{
	if ((m->n + 1) * 2 > m->cap) {
		struct strmap grown = {mem_alloc((m->cap ? m->cap * 2 : 64) * sizeof(*m->slots)), 0,
				       m->cap ? m->cap * 2 : 64};
		for (size_t i = 0; i < m->cap; i++)
			if (m->slots[i].key)
				*slot(&grown, m->slots[i].key, m->slots[i].len) = m->slots[i];
		grown.n = m->n;
		free(m->slots);
		*m = grown;
	}
	struct strmap_slot *s = slot(m, key, len);
	if (!s->key)
		m->n++;
	*s = (struct strmap_slot){key, len, val};
}

void strmap_release(struct strmap *m)
{
	free(m->slots);
	*m = (struct strmap){0};
}

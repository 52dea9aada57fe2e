/* SPDX-License-Identifier: MIT */
/* strmap: string -> index, open addressing with linear probing. */
#include "base/strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

struct strmap_slot {
	const char *key;        /* NULL: empty */
	size_t len, val;
};

/* Eight bytes a step, each mixed in by a multiply and a shift that brings high bits down (the
 * slot is the hash's low bits): keys are dotted paths of 20-40 bytes, hashed on every lookup. */
size_t strmap_hash(const char *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ n, w;
	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdu;
		h ^= h >> 32;
	}
	w = 0;
	if (n)
		memcpy(&w, p, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
	return (size_t)(h ^ h >> 29);
}

static struct strmap_slot *slot(const struct strmap *m, const char *key, size_t len, size_t hash)
{
	size_t mask = m->cap - 1;
	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct strmap_slot *s = &m->slots[i];
		if (!s->key || (s->len == len && !memcmp(s->key, key, len)))
			return s;
	}
}

bool strmap_get_hashed(const struct strmap *m, const char *key, size_t len, size_t hash, size_t *val)
{
	if (!m->cap)
		return false;
	const struct strmap_slot *s = slot(m, key, len, hash);
	if (s->key)
		*val = s->val;
	return s->key != NULL;
}

bool strmap_get(const struct strmap *m, const char *key, size_t len, size_t *val)
{
	return m->cap && strmap_get_hashed(m, key, len, strmap_hash(key, len), val);
}

/* Room for one more key: the slots doubled, each key hashed again (the map keeps no hashes). */
static void room(struct strmap *m)
{
	if ((m->n + 1) * 2 <= m->cap)
		return;
	struct strmap grown = {mem_alloc((m->cap ? m->cap * 2 : 64) * sizeof(*m->slots)), 0, m->cap ? m->cap * 2 : 64};
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			*slot(&grown, m->slots[i].key, m->slots[i].len, strmap_hash(m->slots[i].key, m->slots[i].len)) =
				m->slots[i];
	grown.n = m->n;
	free(m->slots);
	*m = grown;
}

size_t *strmap_ref(struct strmap *m, const char *key, size_t len, size_t hash, size_t val, bool *added)
{
	room(m);
	struct strmap_slot *s = slot(m, key, len, hash);
	*added = !s->key;
	if (*added) {
		m->n++;
		s->val = val;
	}
	s->key = key;
	s->len = len;
	return &s->val;
}

void strmap_put(struct strmap *m, const char *key, size_t len, size_t val)
{
	bool added;
	*strmap_ref(m, key, len, strmap_hash(key, len), val, &added) = val;
}

void strmap_release(struct strmap *m)
{
	free(m->slots);
	*m = (struct strmap){0};
}

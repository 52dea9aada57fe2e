/* SPDX-License-Identifier: MIT */
/*
 * strmap: a string -> index hash map (open addressing), for the tables that keep their entries
 * in an array of their own (facts in insertion order, a script's variables, a source's
 * declarations) and need to find one by name. Keys are byte ranges, borrowed: they must
 * outlive the map and not move.
 */
#ifndef CGLINT_STRMAP_H
#define CGLINT_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

struct strmap_slot;

struct strmap {
	struct strmap_slot *slots;
	size_t n, cap;
};

/* The index stored for key[0..len), into *val; false when there is none. */
bool strmap_get(const struct strmap *m, const char *key, size_t len, size_t *val);
/* Store (or replace) the index for key[0..len). */
void strmap_put(struct strmap *m, const char *key, size_t len, size_t val);
void strmap_release(struct strmap *m);
/* The same with the key's hash, strmap_hash(key, len), given: a caller that asks several maps
 * for one key, or keeps its keys' hashes, hashes each key once. */
bool strmap_get_hashed(const struct strmap *m, const char *key, size_t len, size_t hash, size_t *val);
/* The index stored for key[0..len), added as 'val' when there is none (*added: whether it was):
 * one probe where a get and a put take two. The slot's key becomes 'key', as strmap_put's does;
 * the pointer holds until the map next grows. */
size_t *strmap_ref(struct strmap *m, const char *key, size_t len, size_t hash, size_t val, bool *added);
/* The hash the map uses for key[0..len), for a table that keeps its own (py_unit's records). */
size_t strmap_hash(const char *key, size_t len);

#endif

/* SPDX-License-Identifier: MIT */
/* pack_names: the name sets of rules/fields.yaml (pack.h: struct pack_names), loaded with the
 * packs and indexed on first lookup: most runs read none (a source scan), and indexing every
 * field of every release is a tenth of a small run's start-up. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "config/pack.h"
#include "config/pack_load.h"
#include "input/node.h"

/* A set's name, as a byte range inside its 'names' text, and the next set holding the same. */
struct pack_name_at {
	size_t set;
	size_t next;            /* the next occurrence of this name in the same section, or SIZE_MAX */
};

/* A section's names: the first occurrence of each, and every occurrence. */
struct names_sec {
	const char *name;
	struct strmap first;    /* name -> its first occurrence in 'at' */
	struct pack_name_at *at;
	size_t n, cap;
};

struct pack_names_index {
	bool built;
	struct names_sec *secs;
	size_t n, cap;
	struct strmap by_name;  /* section -> its index in secs */
};

static void load_set(struct loader *ld, const struct node *n, bool option)
{
	static const char *const field_keys[] = {"section", "bridge", "names", NULL};
	static const char *const option_keys[] = {"program", "extra", "mcore", "names", NULL};
	if (n->kind != NODE_MAP) {
		pack_bad(ld, n, "a name set is a mapping with 'names:'");
		return;
	}
	pack_only_keys(ld, n, option ? "options" : "fields", option ? option_keys : field_keys);
	struct pack_names s = {.option = option, .mcore = {.any = true}, .bridge = {.any = true}};
	s.section = pack_scalar(ld, n, option ? "program" : "section", true);
	s.names = pack_scalar(ld, n, "names", true);
	const char *extra = option ? pack_scalar(ld, n, "extra", false) : NULL;
	s.extra = extra != NULL;
	if (extra && strcmp(extra, "modelopt"))
		pack_bad(ld, node_get(n, "extra"), "'extra' is 'modelopt' (what an entry point adds), not '%s'", extra);
	const char *r = pack_scalar(ld, n, option ? "mcore" : "bridge", false);
	if (r && target_parse_range(r, option ? &s.mcore : &s.bridge))
		pack_bad(ld, node_get(n, option ? "mcore" : "bridge"), "'%s' is not a version range", r);
	if (!s.section || !s.names)
		return;
	struct pack *p = ld->p;
	if (!p->names_ix) {
		p->names_ix = mem_alloc(sizeof(*p->names_ix));
		memset(p->names_ix, 0, sizeof(*p->names_ix));
	}
	GROW(p->names, p->n_names, p->cap_names);
	p->names[p->n_names++] = s;
}

void pack_load_field_set(struct loader *ld, const struct node *n)
{
	load_set(ld, n, false);
}

void pack_load_option_set(struct loader *ld, const struct node *n)
{
	load_set(ld, n, true);
}

static struct names_sec *section(struct pack_names_index *ix, const char *name, bool add)
{
	size_t k;
	if (strmap_get(&ix->by_name, name, strlen(name), &k))
		return &ix->secs[k];
	if (!add)
		return NULL;
	GROW(ix->secs, ix->n, ix->cap);
	ix->secs[ix->n] = (struct names_sec){.name = name};
	strmap_put(&ix->by_name, name, strlen(name), ix->n);
	return &ix->secs[ix->n++];
}

/* The next name of a set's text at *s, its length in *len; NULL past the last. */
static const char *next_name(const char **s, size_t *len)
{
	while (**s == ' ' || **s == '\n')
		(*s)++;
	*len = strcspn(*s, " \n");
	const char *name = *len ? *s : NULL;
	*s += *len;
	return name;
}

static void build(const struct pack *p, struct pack_names_index *ix)
{
	ix->built = true;
	for (size_t k = 0; k < p->n_names; k++) {
		struct names_sec *sec = section(ix, p->names[k].section, true);
		size_t len;
		for (const char *at = p->names[k].names, *s; (s = next_name(&at, &len));) {
			size_t first = SIZE_MAX;
			bool seen = strmap_get(&sec->first, s, len, &first);
			GROW(sec->at, sec->n, sec->cap);
			sec->at[sec->n] = (struct pack_name_at){k, SIZE_MAX};
			if (seen) {
				size_t i = first;
				while (sec->at[i].next != SIZE_MAX)
					i = sec->at[i].next;
				sec->at[i].next = sec->n;
			} else {
				strmap_put(&sec->first, s, len, sec->n);
			}
			sec->n++;
		}
	}
}

/* Allocated as the first set loads, filled on first use: a pack is used from one thread (pack.h). */
static struct pack_names_index *index_of(const struct pack *p)
{
	if (p->names_ix && !p->names_ix->built)
		build(p, p->names_ix);
	return p->names_ix;
}

bool pack_names_has_section(const struct pack *p, const char *sec)
{
	struct pack_names_index *ix = index_of(p);
	return ix && section(ix, sec, false);
}

size_t pack_names_find(const struct pack *p, const char *sec, const char *name, size_t len, size_t *sets, size_t max)
{
	struct pack_names_index *ix = index_of(p);
	struct names_sec *s = ix ? section(ix, sec, false) : NULL;
	size_t i, n = 0;
	if (!s || !strmap_get(&s->first, name, len, &i))
		return 0;
	for (; i != SIZE_MAX && n < max; i = s->at[i].next)
		sets[n++] = s->at[i].set;
	return n;
}

void pack_names_each(const struct pack *p, const char *sec, void (*fn)(void *ctx, size_t set, const char *name, size_t len),
		     void *ctx)
{
	struct pack_names_index *ix = index_of(p);
	if (!ix || !section(ix, sec, false))
		return;
	for (size_t k = 0; k < p->n_names; k++) {
		if (strcmp(p->names[k].section, sec))
			continue;
		size_t len;
		for (const char *at = p->names[k].names, *s; (s = next_name(&at, &len));)
			fn(ctx, k, s, len);
	}
}

void pack_names_release(struct pack *p)
{
	struct pack_names_index *ix = p->names_ix;
	free(p->names);
	if (!ix)
		return;
	for (size_t k = 0; k < ix->n; k++) {
		strmap_release(&ix->secs[k].first);
		free(ix->secs[k].at);
	}
	free(ix->secs);
	strmap_release(&ix->by_name);
	free(ix);
}

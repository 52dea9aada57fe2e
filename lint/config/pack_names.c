/* SPDX-License-Identifier: MIT */
/*
 * pack_names: the name sets of rules/fields.yaml. Each set is a section's (or a program's) names,
 * sorted, each once, with the version ranges it exists in as a suffix ("cuda_graph_modules@1,3"
 * holds ranges 1 and 3; no suffix: range 0). The build compiles the list into nodes, so a lookup
 * is a binary search with nothing indexed at run time: a launch script starts a process of its
 * own, and hashing every flag of every release was a tenth of one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/strmap.h"
#include "config/pack.h"
#include "config/pack_load.h"
#include "input/node.h"

#define MAX_HITS 16
#define PACK_NAME_MAX 127       /* names past this length are not offered as did-you-mean */

struct names_set {
	size_t next;                    /* the next set of the same section, or SIZE_MAX */
	size_t lookups;                 /* so far; past a quarter of the list, 'hashed' holds it */
	struct strmap hashed;           /* a name -> its item, once built */
	size_t *by_len;                 /* the items by name length, once did-you-mean asks */
	size_t len_start[PACK_NAME_MAX + 2]; /* where each length starts in by_len */
	const char *section;
	bool option, extra;
	struct vrange *ranges;
	size_t n_ranges;
	const struct node *names;       /* a sequence of scalars */
};

/* A built-in pack's 'fields:' or 'options:' list, read on first use (the build checked it). */
struct later {
	const struct node *seq;
	bool option;
};

struct pack_names_index {
	struct names_set *sets;
	size_t n_sets, cap_sets;
	struct later *later;
	size_t n_later, cap_later;
	bool built;
	struct strmap first;            /* a section -> its first set */
};

/* The length of a list item's name: up to its '@'. */
static size_t name_len(const char *item)
{
	return strcspn(item, "@");
}

/* An item's name (up to its '@') against name[0..len), by bytes, as the list is sorted. */
static int cmp_item(const char *item, const char *name, size_t len)
{
	size_t k = 0;
	for (; k < len && item[k] && item[k] != '@'; k++)
		if (item[k] != name[k])
			return (unsigned char)item[k] < (unsigned char)name[k] ? -1 : 1;
	return k < len ? -1 : item[k] && item[k] != '@';
}

/* The ranges an item holds, as hits; false where its suffix does not index the set's ranges. */
static bool item_hits(const struct names_set *s, const char *item, struct pack_name_hit *hits, size_t *n, size_t max)
{
	const char *at = item + name_len(item);
	if (!*at) {
		if (*n < max)
			hits[(*n)++] = (struct pack_name_hit){&s->ranges[0], s->option, s->extra};
		return s->n_ranges > 0;
	}
	for (const char *p = at + 1; *p;) {
		char *end;
		unsigned long k = strtoul(p, &end, 10);
		if (end == p || k >= s->n_ranges || (*end && *end != ','))
			return false;
		if (*n < max)
			hits[(*n)++] = (struct pack_name_hit){&s->ranges[k], s->option, s->extra};
		p = *end ? end + 1 : end;
	}
	return true;
}

static void load_set(struct loader *ld, struct pack_names_index *ix, const struct node *n, bool option)
{
	static const char *const field_keys[] = {"section", "bridge", "names", NULL};
	static const char *const option_keys[] = {"program", "extra", "mcore", "names", NULL};
	const char *what = option ? "options" : "fields", *rkey = option ? "mcore" : "bridge";
	if (n->kind != NODE_MAP) {
		pack_bad(ld, n, "a name set is a mapping with 'names:'");
		return;
	}
	pack_only_keys(ld, n, what, option ? option_keys : field_keys);
	struct names_set s = {.option = option, .section = pack_scalar(ld, n, option ? "program" : "section", true)};
	const char *extra = option ? pack_scalar(ld, n, "extra", false) : NULL;
	s.extra = extra != NULL;
	if (extra && strcmp(extra, "modelopt"))
		pack_bad(ld, node_get(n, "extra"), "'extra' is 'modelopt' (what an entry point adds), not '%s'", extra);
	const struct node *rs = node_get(n, rkey), *names = node_get(n, "names");
	if (!rs || rs->kind != NODE_SEQ || !rs->n) {
		pack_bad(ld, rs ? rs : n, "'%s' lists the version ranges the names' suffixes index", rkey);
		return;
	}
	s.ranges = mem_alloc(rs->n * sizeof(*s.ranges));
	s.n_ranges = rs->n;
	for (size_t k = 0; k < rs->n; k++)
		if (rs->items[k]->kind != NODE_SCALAR || target_parse_range(rs->items[k]->scalar, &s.ranges[k]))
			pack_bad(ld, rs->items[k], "a version range (like \">=0.16 <0.18\", or \"\" for all)");
	if (!names || names->kind != NODE_SEQ) {
		pack_bad(ld, names ? names : n, "'names' lists the names, sorted");
		free(s.ranges);
		return;
	}
	s.names = names;
	if (!ld->lazy)  /* the built-in sets were checked when the build read them (pack_parse_all) */
		for (size_t k = 0; k < names->n; k++) {
			const struct node *it = names->items[k];
			size_t n_hits = 0;
			struct pack_name_hit hits[MAX_HITS];
			if (it->kind != NODE_SCALAR || !name_len(it->scalar))
				pack_bad(ld, it, "a name, with '@' and the indexes of its ranges where not the first");
			else if (!item_hits(&s, it->scalar, hits, &n_hits, MAX_HITS))
				pack_bad(ld, it, "'%s': the indexes after '@' are of '%s' (0 to %zu)", it->scalar, rkey,
					 s.n_ranges - 1);
			else if (k && names->items[k - 1]->kind == NODE_SCALAR &&
				 cmp_item(names->items[k - 1]->scalar, it->scalar, name_len(it->scalar)) >= 0)
				pack_bad(ld, it, "'%s' is out of order: the names are sorted, each once", it->scalar);
		}
	GROW(ix->sets, ix->n_sets, ix->cap_sets);
	ix->sets[ix->n_sets++] = s;
}

static void load_seq(struct loader *ld, struct pack_names_index *ix, const struct node *seq, bool option)
{
	if (seq->kind != NODE_SEQ) {
		pack_bad(ld, seq, "'%s' must be a list", option ? "options" : "fields");
		return;
	}
	for (size_t k = 0; k < seq->n; k++)
		load_set(ld, ix, seq->items[k], option);
}

void pack_load_names(struct loader *ld, const struct node *root)
{
	static const char *const keys[] = {"fields", "options"};
	for (size_t k = 0; k < 2; k++) {
		const struct node *seq = node_get(root, keys[k]);
		if (!seq)
			continue;
		struct pack *p = ld->p;
		if (!p->names_ix) {
			p->names_ix = mem_alloc(sizeof(*p->names_ix));
			memset(p->names_ix, 0, sizeof(*p->names_ix));
		}
		struct pack_names_index *ix = p->names_ix;
		if (ld->lazy) {
			GROW(ix->later, ix->n_later, ix->cap_later);
			ix->later[ix->n_later++] = (struct later){seq, k == 1};
		} else {
			load_seq(ld, ix, seq, k == 1);
		}
	}
}

/* The built-in sets read now, checked as a --rules pack's are; 'd' takes their problems. */
static int load_later(struct pack_names_index *ix, struct diag_list *d, bool check)
{
	struct loader ld = {.d = d, .lazy = !check};
	for (size_t k = 0; k < ix->n_later; k++)
		load_seq(&ld, ix, ix->later[k].seq, ix->later[k].option);
	ix->n_later = 0;
	return ld.errors ? -1 : 0;
}

int pack_names_load_all(struct pack *p, struct diag_list *d)
{
	return p->names_ix ? load_later(p->names_ix, d, true) : 0;
}

/* Read on first use: a pack is used from one thread (pack.h). A built-in set broken here is a
 * broken build (pack_parse_all reads them all when the build writes the rule pages). */
static struct pack_names_index *index_of(const struct pack *p)
{
	struct pack_names_index *ix = p->names_ix;
	if (!ix || ix->built)
		return ix;
	ix->built = true;
	struct arena *a = arena_new();
	struct diag_list d;
	diag_init(&d, a, &p->lookup, NULL);
	if (load_later(ix, &d, false)) {
		for (size_t i = 0; i < d.n; i++)
			fprintf(stderr, "%s:%u:%u: %s\n", d.items[i].loc.path, d.items[i].loc.line, d.items[i].loc.col,
				d.items[i].message);
		fprintf(stderr, "cglint: internal error: a built-in name set is invalid\n");
		exit(3);
	}
	diag_release(&d);
	arena_free(a);
	for (size_t k = ix->n_sets; k-- > 0;) {      /* each section's sets chained, first to last */
		size_t first;
		const char *sec = ix->sets[k].section;
		ix->sets[k].next = strmap_get(&ix->first, sec, strlen(sec), &first) ? first : SIZE_MAX;
		strmap_put(&ix->first, sec, strlen(sec), k);
	}
	return ix;
}

/* The first set of section 'sec', or NULL. */
static struct names_set *first_set(struct pack_names_index *ix, const char *sec)
{
	size_t k;
	return ix && strmap_get(&ix->first, sec, strlen(sec), &k) ? &ix->sets[k] : NULL;
}

static struct names_set *next_set(struct pack_names_index *ix, const struct names_set *s)
{
	return s->next == SIZE_MAX ? NULL : &ix->sets[s->next];
}

/* Where name[0..len) is in a set's list, or SIZE_MAX. A binary search, until the set has been
 * asked more than a quarter of its length: then its names are hashed. A folder of configs asks
 * thousands of times, a launch script a few dozen, and it runs in a process of its own. */
static size_t position(struct names_set *s, const char *name, size_t len)
{
	size_t lo = 0, hi = s->names->n;
	if (!s->hashed.cap && ++s->lookups > s->names->n / 4 + 16) {
		for (size_t k = 0; k < s->names->n; k++)
			strmap_put(&s->hashed, s->names->items[k]->scalar, name_len(s->names->items[k]->scalar), k);
	}
	if (s->hashed.cap)
		return strmap_get(&s->hashed, name, len, &lo) ? lo : SIZE_MAX;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_item(s->names->items[mid]->scalar, name, len);
		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

int pack_names_find(const struct pack *p, const char *sec, const char *name, size_t len, struct pack_name_hit *hits,
		    size_t max)
{
	struct pack_names_index *ix = index_of(p);
	struct names_set *s = first_set(ix, sec);
	size_t n = 0;
	if (!s)
		return -1;
	for (; s; s = next_set(ix, s)) {
		size_t k = position(s, name, len);
		if (k != SIZE_MAX)
			item_hits(s, s->names->items[k]->scalar, hits, &n, max);
	}
	return (int)n;
}

/* A set's items sorted by name length (a counting sort), for did-you-mean's few lengths. */
static void by_length(struct names_set *s)
{
	const struct node *names = s->names;
	s->by_len = mem_alloc((names->n ? names->n : 1) * sizeof(*s->by_len));
	size_t fill[PACK_NAME_MAX + 1];
	for (size_t k = 0; k < names->n; k++) {
		size_t len = name_len(names->items[k]->scalar);
		s->len_start[(len < PACK_NAME_MAX ? len : PACK_NAME_MAX) + 1]++;
	}
	for (size_t l = 1; l < PACK_NAME_MAX + 2; l++)
		s->len_start[l] += s->len_start[l - 1];
	memcpy(fill, s->len_start, sizeof(fill));
	for (size_t k = 0; k < names->n; k++) {
		size_t len = name_len(names->items[k]->scalar);
		s->by_len[fill[len < PACK_NAME_MAX ? len : PACK_NAME_MAX]++] = k;
	}
}

void pack_names_each(const struct pack *p, const char *sec, size_t lo, size_t hi,
		     void (*fn)(void *ctx, const char *name, size_t len, struct pack_names_item it), void *ctx)
{
	struct pack_names_index *ix = index_of(p);
	if (lo >= PACK_NAME_MAX)
		return;
	hi = hi < PACK_NAME_MAX ? hi : PACK_NAME_MAX - 1;
	for (struct names_set *s = first_set(ix, sec); s; s = next_set(ix, s)) {
		if (!s->by_len)
			by_length(s);
		for (size_t k = s->len_start[lo]; k < s->len_start[hi + 1]; k++) {
			const char *item = s->names->items[s->by_len[k]]->scalar;
			fn(ctx, item, name_len(item), (struct pack_names_item){s, s->by_len[k]});
		}
	}
}

size_t pack_names_hits(struct pack_names_item it, struct pack_name_hit *hits, size_t max)
{
	const struct names_set *s = it.set;
	size_t n = 0;
	item_hits(s, s->names->items[it.k]->scalar, hits, &n, max);
	return n;
}

void pack_names_release(struct pack *p)
{
	struct pack_names_index *ix = p->names_ix;
	if (!ix)
		return;
	for (size_t k = 0; k < ix->n_sets; k++) {
		free(ix->sets[k].ranges);
		free(ix->sets[k].by_len);
		strmap_release(&ix->sets[k].hashed);
	}
	free(ix->sets);
	free(ix->later);
	strmap_release(&ix->first);
	free(ix);
}

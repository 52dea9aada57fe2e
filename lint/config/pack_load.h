/* SPDX-License-Identifier: MIT */
/*
 * pack_load: what the files that load a pack share (pack.c: rules, steps, defaults, flags;
 * pack_src.c: the scanner's API table and the probe's claims; pack_names.c: rules/fields.yaml). Private to them. Every problem
 * is a CG910 at the pack's own file:line. pack_find() lives here too: both loaders name rules.
 */
#ifndef CGLINT_PACK_LOAD_H
#define CGLINT_PACK_LOAD_H

#include "base/diag.h"
#include "config/pack.h"

struct node;

struct loader {
	struct pack *p;
	struct diag_list *d;
	int errors;
	bool lazy;              /* conditions parsed on first use (the built-in packs) */
	bool trusted;           /* keys not checked: the built-in packs at run time, whose keys
				 * pack_parse_all checked when the build read them */
};

#define GROW(arr, n, cap) \
	do { \
		if ((n) == (cap)) { \
			(cap) = (cap) ? (cap) * 2 : 16; \
			(arr) = mem_realloc((arr), (cap) * sizeof(*(arr))); \
		} \
	} while (0)

CG_PRINTF(3, 4) void pack_bad(struct loader *ld, const struct node *at, const char *fmt, ...);
/* A map's keys outside 'allowed' (NULL-ended) are each a problem. */
void pack_only_keys(struct loader *ld, const struct node *map, const char *what, const char *const *allowed);
/* A scalar under 'key', or NULL (a problem when 'required'). */
const char *pack_scalar(struct loader *ld, const struct node *map, const char *key, bool required);

/* fn for each item of the list under 'key' (a problem when it is not a list; nothing when absent). */
void pack_each(struct loader *ld, const struct node *root, const char *key,
	       void (*fn)(struct loader *, const struct node *));

/* The rule a table of the pack maps 'key' to, or NULL (pack_find looks up both tables). */
struct rule *pack_rule_by(const struct strmap *m, const struct pack *p, const char *key);

void pack_load_api(struct loader *ld, const struct node *n);    /* one 'apis:' entry */
void pack_load_claim(struct loader *ld, const struct node *n);  /* one 'probe:' entry */
void pack_sort_apis(struct pack *p);
/* A built-in pack that does not load: its problems and an internal error on stderr, exit status 3. */
void pack_builtin_broken(const struct diag_list *d, const char *path);
/* The built-in packs' 'apis' and 'probe' read now, where load_tree left them (pack.h, struct
 * pack_tables). */
void pack_src_read(struct pack *p);
/* A pack's 'fields:' and 'options:' name sets: read now, or for a built-in pack ('lazy') on
 * first use. */
void pack_load_names(struct loader *ld, const struct node *root);
/* The built-in name sets not read yet, read now into 'd' (pack_parse_all, at build time). */
int pack_names_load_all(struct pack *p, struct diag_list *d);
void pack_names_release(struct pack *p);    /* by name, for pack_api_find */

#endif

/* SPDX-License-Identifier: MIT */
/*
 * rule_docs: writes the page of every built-in rule, DIR/ID.md, with the text `cglint explain ID`
 * prints (config/explain.h), and DIR/README.md listing them. Run at build time into the build
 * folder; docs/rules/ in the repository is a copy that a test keeps current (tests/formats/docs.py).
 *
 * usage: rule_docs DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/explain.h"
#include "config/pack.h"

static int by_id(const void *a, const void *b)
{
	return strcmp((*(const struct rule *const *)a)->head.id, (*(const struct rule *const *)b)->head.id);
}

static FILE *open_in(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		perror(path);
	return f;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: rule_docs DIR\n", stderr);
		return 2;
	}
	struct pack *p = pack_new();
	pack_load_builtin(p);
	/* the built-in conditions are parsed on first use at run time: a broken one stops the build here */
	struct arena *a = arena_new();
	struct diag_list d;
	diag_init(&d, a, &p->lookup, NULL);
	if (pack_parse_all(p, &d)) {
		for (size_t i = 0; i < d.n; i++)
			fprintf(stderr, "%s:%u:%u: %s\n", d.items[i].loc.path, d.items[i].loc.line, d.items[i].loc.col,
				d.items[i].message);
		return 1;
	}
	diag_release(&d);
	arena_free(a);
	const struct rule **sorted = malloc((p->n_rules + 1) * sizeof(*sorted));
	size_t n = 0;
	for (size_t k = 0; k < p->n_rules; k++)
		sorted[n++] = p->rules[k];
	qsort(sorted, n, sizeof(*sorted), by_id);
	FILE *index = open_in(argv[1], "README.md");
	if (!index)
		return 1;
	fputs("<!-- Generated from rules/*.yaml at build time (cmake/rule_docs.c); edit the packs, not this page. -->\n"
	      "# cglint rules\n\nOne page per rule, with the text of `cglint explain ID`.\n\n"
	      "| Rule | Name | Severity |\n|------|------|----------|\n", index);
	int rc = 0;
	for (size_t k = 0; k < n; k++) {
		const struct rule *r = sorted[k];
		if (k && !strcmp(sorted[k - 1]->head.id, r->head.id))
			continue;       /* the variants of one id share its page */
		fprintf(index, "| [%s](%s.md) | %s | %s |\n", r->head.id, r->head.id, r->head.name,
			diag_sev_name(r->head.sev));
		char name[64];
		snprintf(name, sizeof(name), "%s.md", r->head.id);
		FILE *f = open_in(argv[1], name);
		if (!f) {
			rc = 1;
			continue;
		}
		fprintf(f, "<!-- Generated from rules/*.yaml at build time (cmake/rule_docs.c); edit the packs, not this "
			   "page. -->\n# %s %s\n\n", r->head.id, r->head.name);
		explain_id(f, p, r->head.id, true, NULL);
		rc |= fclose(f) != 0;
	}
	rc |= fclose(index) != 0;
	free(sorted);
	pack_free(p);
	return rc;
}

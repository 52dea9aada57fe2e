/* SPDX-License-Identifier: MIT */
/* explain: a rule in words, for `cglint explain` and the rule pages (see explain.h). */
#include "config/explain.h"

#include <string.h>
#include <strings.h>

#include "base/diag.h"
#include "config/pack.h"
#include "config/target.h"

/* A range is shown as the supported releases it covers: "mcore 0.16, 0.17". */
static void print_range(FILE *f, const char *what, const struct vrange *r, bool is_bridge)
{
	char list[160];
	if (!r->any)
		fprintf(f, " %s %s", what,
			*target_range_list(r, is_bridge, list, sizeof(list)) ? list : "(no supported release)");
}

/* The calls of the source scanner's table that break a rule, comma-separated. */
static void print_apis(FILE *f, const struct pack *p, const struct rule *r)
{
	bool any = false;
	size_t n;
	const struct pack_api *a = pack_apis(p, &n);
	for (size_t k = 0; k < n; k++)
		if (a[k].rule == r && (!k || strcmp(a[k - 1].name, a[k].name) || a[k - 1].rule != r)) {
			fprintf(f, "%s%s", any ? ", " : "calls: ", a[k].name);
			any = true;
		}
	if (any)
		fputc('\n', f);
}

void explain_rule(FILE *f, const struct pack *p, const struct rule *r, bool md)
{
	const char *fence = md ? "```text\n" : "";
	fputs(fence, f);
	fprintf(f, "%s %s (%s)\n", r->head.id, r->head.name, diag_sev_name(r->head.sev));
	fprintf(f, "applies to:");
	if (r->check == CHECK_SOURCE)
		fprintf(f, " C, C++ and CUDA sources (any target)");
	else if (r->mcore.any && r->bridge.any)
		fprintf(f, " every target");
	print_range(f, "mcore", &r->mcore, false);
	print_range(f, "bridge", &r->bridge, true);
	fprintf(f, "\nmessage: %s\n", r->message);
	if (r->head.fix)
		fprintf(f, "fix: %s\n", r->head.fix);
	if (r->fix_python)
		fprintf(f, "fix in a Python recipe: %s\n", r->fix_python);
	if (r->fix_harness)
		fprintf(f, "fix on a run_script.py line: %s\n", r->fix_harness);
	if (r->fix_mlm)
		fprintf(f, "fix in Megatron-LM arguments: %s\n", r->fix_mlm);
	for (size_t k = 0; k < r->n_autofix; k++)
		fprintf(f, "autofix (--fix): %s: %s\n", r->autofix_keys[k], r->autofix_values[k]);
	if (r->when_src)
		fprintf(f, "condition: %s\n", r->when_src);
	if (r->check == CHECK_UNKNOWN_VALUES)
		fprintf(f, "check: %s on %s\n", pack_check_name(r->check), r->key);
	print_apis(f, p, r);
	fputs(md ? "```\n" : "", f);
	fprintf(f, "\n%s\n", r->doc);
	if (r->n_mirrors) {
		fprintf(f, "\nmirrors:\n%s", fence);
		for (size_t k = 0; k < r->n_mirrors; k++)
			fprintf(f, "  %-16s %s\n", r->mirrors[k].label, r->mirrors[k].where);
		fputs(md ? "```\n" : "", f);
	}
	if (r->n_reports) {
		fprintf(f, "\nreported in:\n");
		for (size_t k = 0; k < r->n_reports; k++)
			fprintf(f, md ? "- <%s>\n" : "  %s\n", r->reports[k]);
	}
}

bool explain_id_only(FILE *f, const struct pack *p, const char *id, const struct target *target)
{
	bool first = true;
	for (size_t k = 0; k < p->n_rules; k++) {
		const struct rule *r = p->rules[k];
		if ((strcasecmp(r->head.id, id) && strcmp(r->head.name, id)) || !pack_applies(&r->mcore, &r->bridge, target))
			continue;
		if (!first)
			fputs("\n----\n\n", f);
		first = false;
		explain_rule(f, p, r, false);
	}
	if (!first)
		return true;
	fprintf(f, "(%s does not apply to the target given; every variant follows)\n\n", id);
	return explain_id(f, p, id, false, NULL);
}

bool explain_id(FILE *f, const struct pack *p, const char *id, bool md, const struct target *target)
{
	bool first = true;
	for (int pass = target ? 0 : 1; pass < 2; pass++)
		for (size_t k = 0; k < p->n_rules; k++) {
			const struct rule *r = p->rules[k];
			if ((strcasecmp(r->head.id, id) && strcmp(r->head.name, id)) ||
			    (target && pack_applies(&r->mcore, &r->bridge, target) != (pass == 0)))
				continue;
			if (!first)
				fprintf(f, md ? "\n---\n\n" : "\n----\n\n");
			first = false;
			explain_rule(f, p, r, md);
		}
	return !first;
}

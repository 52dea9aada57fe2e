/* SPDX-License-Identifier: MIT */
/* summary: the closing line of a lint run (see summary.h). */
#include "run/summary.h"

#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "run/session.h"

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* Distinct paths the findings are in. */
static size_t files_with_findings(const struct diag_list *l)
{
	struct strmap seen = {0};
	size_t n = 0;
	for (size_t k = 0; k < l->n; k++) {
		const char *p = l->items[k].loc.path ? l->items[k].loc.path : "";
		size_t at;
		if (!strmap_get(&seen, p, strlen(p), &at)) {
			strmap_put(&seen, p, strlen(p), n);
			n++;
		}
	}
	strmap_release(&seen);
	return n;
}

/* "; 2 suppressed inline, 1 in the baseline; 3 checks undecided", or nothing. */
static void hidden(FILE *f, const struct session_result *res, const char *lead)
{
	const char *sep = lead;
	size_t open = res->run.undecided.n;
	if (open) {
		fprintf(f, "%s%zu %s undecided%s", sep, open, plural(open, "check", "checks"),
			res->run.opts->verbose ? "" : " (-v lists them)");
		sep = "; ";
	}
	if (res->suppressed) {
		fprintf(f, "%s%zu suppressed inline", sep, res->suppressed);
		sep = ", ";
	}
	if (res->baselined)
		fprintf(f, "%s%zu in the baseline", sep, res->baselined);
}

void summary_print(FILE *f, const struct session_result *res)
{
	fflush(stdout);
	const struct lint_run *r = &res->run;
	for (size_t k = 0; k < r->n_empty; k++)
		fprintf(f, "cglint: warning: no input found in %s (YAML, launch scripts, Python recipes or "
			   "C/C++/CUDA sources)\n", r->empty[k]);
	const struct diag_list *l = &r->diags;
	size_t errors = diag_count_at_least(l, SEV_ERROR);
	size_t warnings = diag_count_at_least(l, SEV_WARNING) - errors;
	size_t notes = l->n - errors - warnings;
	if (!l->n) {
		if (r->files)
			fprintf(f, "cglint: %s (%zu %s checked", r->undecided.n ? "no findings" : "all checks passed", r->files,
				plural(r->files, "file", "files"));
		else
			fputs("cglint: no files checked", f);
		if (res->excluded)
			fprintf(f, ", %zu skipped", res->excluded);
		hidden(f, res, "; ");
		fputs(r->files ? ")\n" : "\n", f);
		fflush(f);
		return;
	}
	fputs("cglint: ", f);
	const char *sep = "";
	if (errors) {
		fprintf(f, "%zu %s", errors, plural(errors, "error", "errors"));
		sep = ", ";
	}
	if (warnings) {
		fprintf(f, "%s%zu %s", sep, warnings, plural(warnings, "warning", "warnings"));
		sep = ", ";
	}
	if (notes)
		fprintf(f, "%s%zu %s", sep, notes, plural(notes, "note", "notes"));
	size_t in = files_with_findings(l);
	fprintf(f, " in %zu %s; %zu %s checked", in, plural(in, "file", "files"), r->files,
		plural(r->files, "file", "files"));
	if (res->excluded)
		fprintf(f, ", %zu skipped", res->excluded);
	hidden(f, res, "; ");
	fputc('\n', f);
	fflush(f);
}

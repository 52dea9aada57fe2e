/* SPDX-License-Identifier: MIT */
/*
 * out_github: one GitHub Actions workflow command per diagnostic,
 * ::error file=F,line=L,col=C,title=cglint ID (name)::MESSAGE, escaped as @actions/core escapes
 * them. Messages echo config values, so escaping is what keeps a value holding a newline and
 * "::" from issuing commands of its own.
 */
#include "report/out.h"

#include <limits.h>

#include "base/diag.h"
#include "config/pack.h"

static const char *const command[] = {"notice", "warning", "error"};

/* @actions/core escapeData, and escapeProperty (which also escapes ':' and ','). */
static void put_escaped(FILE *f, const char *s, bool property)
{
	for (; *s; s++) {
		if (*s == '%')
			fputs("%25", f);
		else if (*s == '\r')
			fputs("%0D", f);
		else if (*s == '\n')
			fputs("%0A", f);
		else if (property && *s == ':')
			fputs("%3A", f);
		else if (property && *s == ',')
			fputs("%2C", f);
		else
			fputc(*s, f);
	}
}

static void github_diag(struct out_ctx *o, const struct diag *d)
{
	FILE *f = o->f;
	char buf[PATH_MAX];
	fprintf(f, "::%s ", command[d->sev]);
	/* No file for "<stdin>" or "<command line>": the annotation then belongs to the job. */
	if (d->loc.path && d->loc.path[0] != '<') {
		fputs("file=", f);
		put_escaped(f, out_relpath(buf, sizeof(buf), d->loc.path), true);
		fprintf(f, ",line=%u,col=%u,", d->loc.line ? d->loc.line : 1, d->loc.line && d->loc.col ? d->loc.col : 1);
	}
	fputs("title=", f);
	put_escaped(f, "cglint ", true);
	put_escaped(f, d->rule->head.id, true);
	put_escaped(f, " (", true);
	put_escaped(f, d->rule->head.name, true);
	put_escaped(f, ")", true);
	fputs("::", f);
	put_escaped(f, d->message, false);
	if (d->fix) {
		put_escaped(f, " Fix: ", false);
		put_escaped(f, d->fix, false);
	}
	for (size_t k = 0; k < d->n_notes; k++) {
		const struct diag_note *n = &d->notes[k];
		put_escaped(f, "\n", false);
		if (n->loc.path) {
			put_escaped(f, out_relpath(buf, sizeof(buf), n->loc.path), false);
			fprintf(f, ":%u:%u: ", n->loc.line ? n->loc.line : 1, n->loc.line && n->loc.col ? n->loc.col : 1);
		}
		put_escaped(f, "note: ", false);
		put_escaped(f, n->message, false);
	}
	fputc('\n', f);
}

/* GitHub shows 10 error and 10 warning annotations of a step; the summary says when some are hidden. */
static void github_end(struct out_ctx *o, const struct diag_list *l)
{
	size_t errors = diag_count_at_least(l, SEV_ERROR);
	size_t warnings = diag_count_at_least(l, SEV_WARNING) - errors;
	if (!l->n || o->quiet)
		return;
	fprintf(o->f, "cglint: %zu error(s), %zu warning(s), %zu note(s)%s\n", errors, warnings,
		l->n - errors - warnings,
		errors > 10 || warnings > 10 ? "; GitHub shows 10 annotations of each kind per step, upload"
		" --format sarif to code scanning to see them all" : "");
}

const struct out_format out_github = {
	.name = "github",
	.diag = github_diag,
	.end = github_end,
};

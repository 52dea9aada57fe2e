/* SPDX-License-Identifier: MIT */
/*
 * out_junit: a JUnit XML report (Jenkins' junit step, GitLab's artifacts:reports:junit, Azure's
 * PublishTestResults): one <testsuite> per file, one <testcase> per finding in it, failed when the
 * finding is at or above --fail-on; one below it passes and carries its text as <system-out> (Jenkins
 * shows it, GitLab lists the case as passed), so a note does not fail a CI test report. A clean run
 * is one passing test case, so a test report shows that cglint ran. Paths are relative to the
 * project root; text that XML 1.0 cannot hold (control bytes, bytes that are not UTF-8) is replaced.
 */
#include "report/out.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "config/pack.h"

/* Character data or an attribute value: markup escaped, control characters as U+FFFD. */
static void put_xml(FILE *f, const char *s)
{
	char *fixed = out_utf8(s ? s : "");
	for (const char *p = fixed; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '&')
			fputs("&amp;", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c == '\n' || c == '\t')
			fprintf(f, "&#%d;", c);
		else if (c < 0x20)
			fputs("\xEF\xBF\xBD", f);
		else
			fputc(c, f);
	}
	free(fixed);
}

static const char *path_of(const struct diag *d, char *buf, size_t size)
{
	return out_relpath(buf, size, d->loc.path ? d->loc.path : "<command line>");
}

static bool fails(const struct out_ctx *o, const struct diag *d)
{
	return (int)d->sev >= o->fail_on;
}

static void put_case(FILE *f, const struct diag *d, const char *path, bool failed)
{
	unsigned line = d->loc.line ? d->loc.line : 1, col = d->loc.line && d->loc.col ? d->loc.col : 1;
	fputs("    <testcase name=\"", f);
	put_xml(f, d->rule->head.id);
	fputc(' ', f);
	put_xml(f, d->rule->head.name);
	fprintf(f, " at %u:%u\" classname=\"", line, col);
	put_xml(f, path);
	fputs("\" file=\"", f);
	put_xml(f, path);
	fprintf(f, "\" line=\"%u\">\n      ", line);
	if (failed) {
		fprintf(f, "<failure type=\"%s\" message=\"", diag_sev_name(d->sev));
		put_xml(f, d->message);
		fputs("\">", f);
	} else {
		fputs("<system-out>", f);
	}
	/* the body: what the text format's first line says, the fix and the rule's page */
	put_xml(f, path);
	fprintf(f, ":%u:%u: %s: ", line, col, diag_sev_name(d->sev));
	put_xml(f, d->message);
	fprintf(f, " [%s ", d->rule->head.id);
	put_xml(f, d->rule->head.name);
	fputc(']', f);
	if (d->fix) {
		fputs("\nfix: ", f);
		put_xml(f, d->fix);
	}
	char *url = out_rule_see(d->rule);
	if (url) {
		fputs("\nsee: ", f);
		put_xml(f, url);
	}
	free(url);
	fputs(failed ? "</failure>\n    </testcase>\n" : "</system-out>\n    </testcase>\n", f);
}

static void junit_end(struct out_ctx *o, const struct diag_list *l)
{
	FILE *f = o->f;
	size_t failed = diag_count_at_least(l, (enum sev)o->fail_on);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<testsuites name=\"cglint\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n",
		l->n ? l->n : 1, failed);
	if (!l->n)
		fputs("  <testsuite name=\"cglint\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\">\n"
		      "    <testcase name=\"no findings\" classname=\"cglint\"/>\n  </testsuite>\n", f);
	for (size_t k = 0; k < l->n;) {
		char buf[PATH_MAX], other[PATH_MAX];
		const char *path = path_of(&l->items[k], buf, sizeof(buf));
		size_t end = k + 1;     /* the findings are sorted by path: one suite per run of a path */
		failed = 0;
		while (end < l->n && !strcmp(path_of(&l->items[end], other, sizeof(other)), path))
			end++;
		for (size_t i = k; i < end; i++)
			failed += fails(o, &l->items[i]);
		fputs("  <testsuite name=\"", f);
		put_xml(f, path);
		fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n", end - k, failed);
		for (; k < end; k++)
			put_case(f, &l->items[k], path, fails(o, &l->items[k]));
		fputs("  </testsuite>\n", f);
	}
	fputs("</testsuites>\n", f);
}

const struct out_format out_junit = {
	.name = "junit",
	.end = junit_end,
};

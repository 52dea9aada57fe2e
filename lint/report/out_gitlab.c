/* SPDX-License-Identifier: MIT */
/*
 * out_gitlab: a GitLab Code Quality report (artifacts:reports:codequality): a JSON array of issues
 * {description, check_name, fingerprint, severity, location: {path, lines: {begin, end}}}: Code
 * Climate issues (type, categories and line ranges as its spec requires them, which the
 * codeclimate-types definitions the formats test checks against encode), of which GitLab reads
 * the subset in docs.gitlab.com, ci/testing/code_quality. Paths are
 * relative to the project root; fingerprints are unique per finding and path, so GitLab's
 * comparison of a merge request with its target branch follows findings that move.
 */
#include "report/out.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "base/diag.h"
#include "config/pack.h"

static const char *const severity[] = {"info", "minor", "major"};

static void gitlab_begin(struct out_ctx *o)
{
	o->state = json_array();
}

static json_t *jstr(const char *s)
{
	char *fixed = out_utf8(s ? s : "");
	json_t *j = json_string(fixed);
	free(fixed);
	return j;
}

/* FNV-1a, 64 bits, over the strings given, each ended by a NUL. */
static uint64_t fnv(uint64_t h, const char *s)
{
	for (const char *p = s ? s : "";; p++) {
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
		if (!*p)
			return h;
	}
}

static void gitlab_diag(struct out_ctx *o, const struct diag *d)
{
	char buf[PATH_MAX], fp[17];
	const char *path = out_relpath(buf, sizeof(buf), d->loc.path ? d->loc.path : "<command line>");
	/* the run's fingerprint ignores line numbers but not the file: add the path; before the post
	 * stage (a broken --rules pack) there is none, and the line stands in for it */
	uint64_t h = fnv(fnv(fnv(0xcbf29ce484222325ull, path), d->rule->head.id), d->fingerprint);
	if (!d->fingerprint) {
		char line[16];
		snprintf(line, sizeof(line), "%u", d->loc.line);
		h = fnv(fnv(h, d->message), line);
	}
	snprintf(fp, sizeof(fp), "%016llx", (unsigned long long)h);
	char *desc;
	size_t dn;
	FILE *m = open_memstream(&desc, &dn);
	fprintf(m, "%s: %s", d->rule->head.id, d->message ? d->message : "");
	if (d->fix)
		fprintf(m, " Fix: %s", d->fix);
	fclose(m);
	int line = (int)(d->loc.line ? d->loc.line : 1);       /* a range of one line: Code Climate wants both ends */
	json_t *j = json_pack("{s:o, s:s, s:s, s:s, s:s, s:[s], s:{s:o, s:{s:i, s:i}}}", "description", jstr(desc),
			      "check_name", d->rule->head.id, "fingerprint", fp, "severity", severity[d->sev], "type",
			      "issue", "categories", "Bug Risk", "location", "path", jstr(path), "lines", "begin", line, "end",
			      line);
	free(desc);
	char *url = out_rule_see(d->rule);
	if (url)
		json_object_set_new(j, "content", json_pack("{s:s+}", "body", "See ", url));
	free(url);
	json_array_append_new(o->state, j);
}

static void gitlab_end(struct out_ctx *o, const struct diag_list *l)
{
	(void)l;
	json_dumpf(o->state, o->f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', o->f);
	json_decref(o->state);
	o->state = NULL;
}

const struct out_format out_gitlab = {
	.name = "gitlab",
	.begin = gitlab_begin,
	.diag = gitlab_diag,
	.end = gitlab_end,
};

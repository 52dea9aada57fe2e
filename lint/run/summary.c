/* SPDX-License-Identifier: MIT */
/* summary: the closing line of a lint run (see summary.h). */
#include "run/summary.h"

#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "config/pack.h"
#include "config/proj.h"
#include "config/target.h"
#include "report/out.h"
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

static int fail_on_for(const struct session_result *res, const char *path, int fail_on)
{
	struct proj_settings s;
	if (fail_on != SUMMARY_FAIL_ON_CONFIG)
		return fail_on;
	if (res->run.proj && path && proj_settings(res->run.proj, path, &s) && s.has_fail_on)
		return s.fail_on;
	return SEV_ERROR;
}

void summary_gate(const struct session_result *res, int fail_on, struct summary_gate *g)
{
	*g = (struct summary_gate){0};
	const struct diag_list *l = &res->run.diags, *u = &res->run.undecided;
	for (size_t k = 0; k < l->n; k++)
		g->findings += diag_fails(l->items[k].sev, fail_on_for(res, l->items[k].loc.path, fail_on));
	for (size_t k = 0; k < u->n; k++)
		g->undecided += fail_on_for(res, u->items[k].loc.path, fail_on) == DIAG_FAIL_UNDECIDED;
}

/* An import not followed (CG921, CG924) in a file: its undecided checks wait for the Python path. */
static bool not_followed(const struct diag *d)
{
	return d->rule && (!strcmp(d->rule->head.id, "CG921") || !strcmp(d->rule->head.id, "CG924"));
}

static void mark_not_followed(struct strmap *m, const struct diag_list *l)
{
	for (size_t k = 0; k < l->n; k++)
		if (not_followed(&l->items[k]) && l->items[k].loc.path)
			strmap_put(m, l->items[k].loc.path, strlen(l->items[k].loc.path), 1);
}

enum { BY_PYTHON_PATH = 1, BY_HF_CACHE = 2, BY_DEFAULTS = 4, BY_ENV = 8 };

/* What would decide one undecided check: the imports its file could not follow, the Hugging Face
 * cache a model's config.json was missing from, else the keys no input sets: env.* by -E or
 * --env-file, the others by --assume-defaults (where not given already). */
static unsigned decided_by(const struct diag *d, bool import_here, bool assume)
{
	const char *m = d->message;
	if (strstr(m, "Hugging Face cache"))
		return BY_HF_CACHE;
	if (import_here || strstr(m, "cannot resolve") || strstr(m, "unresolved import"))
		return BY_PYTHON_PATH;
	unsigned by = 0;
	for (const char *p = m; (p = strstr(p, " (no input sets it)")); p++) {
		const char *k = p;
		while (k > m && k[-1] != ' ' && k[-1] != '(')
			k--;
		by |= !strncmp(k, "env.", 4) ? BY_ENV : assume ? 0 : BY_DEFAULTS;
	}
	return by || assume ? by : BY_DEFAULTS;
}

/* "--python-path, a Hugging Face cache or --assume-defaults decide them": only what applies;
 * "" when nothing does. */
static const char *remedies(char buf[160], const struct session_result *res)
{
	struct strmap imports = {0};
	mark_not_followed(&imports, &res->run.diags);
	mark_not_followed(&imports, &res->run.suppressed);
	unsigned by = 0;
	for (size_t k = 0; k < res->run.undecided.n; k++) {
		const struct diag *d = &res->run.undecided.items[k];
		size_t at;
		by |= decided_by(d, d->loc.path && strmap_get(&imports, d->loc.path, strlen(d->loc.path), &at),
				 res->run.opts->assume_defaults);
	}
	strmap_release(&imports);
	static const char *const names[] = {"--python-path", "a Hugging Face cache", "--assume-defaults", "-E/--env-file"};
	size_t n = 0, len = 0;
	for (unsigned b = 0; b < 4; b++)
		n += (by >> b) & 1;
	buf[0] = '\0';
	for (unsigned b = 0, k = 0; b < 4; b++)
		if ((by >> b) & 1) {
			len += (size_t)snprintf(buf + len, 160 - len, "%s%s", !k ? "" : k + 1 < n ? ", " : " or ", names[b]);
			k++;
		}
	if (n)
		snprintf(buf + len, 160 - len, "%s", n == 1 ? " decides them" : " decide them");
	return buf;
}

/* "; 2 suppressed inline, 1 in the baseline; 3 checks undecided (...)", or nothing. */
static void hidden(FILE *f, const struct session_result *res, const struct summary_gate *g, const char *lead)
{
	const char *sep = lead;
	size_t open = res->run.undecided.n;
	if (open) {
		fprintf(f, "%s%zu %s undecided", sep, open, plural(open, "check", "checks"));
		if (g && g->undecided == open)
			fprintf(f, ", which fail the run under fail-on undecided");
		else if (g && g->undecided)
			fprintf(f, ", %zu of which fail the run under fail-on undecided", g->undecided);
		char buf[160];
		const char *how = remedies(buf, res), *list = res->run.opts->show_undecided ? "" : "--show-undecided lists them";
		if (*how || *list)
			fprintf(f, " (%s%s%s)", list, *how && *list ? "; " : "", how);
		sep = "; ";
	}
	if (res->suppressed) {
		fprintf(f, "%s%zu suppressed inline", sep, res->suppressed);
		sep = ", ";
	}
	if (res->baselined)
		fprintf(f, "%s%zu in the baseline", sep, res->baselined);
}

void summary_print(FILE *f, const struct session_result *res, const struct summary_gate *g)
{
	fflush(stdout);
	const struct lint_run *r = &res->run;
	char dev[256];
	if (target_describe(&r->opts->target, dev))
		fprintf(f, "cglint: target %s\n", dev);
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
		hidden(f, res, g, "; ");
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
	hidden(f, res, g, "; ");
	fputc('\n', f);
	fflush(f);
}

/* The key an undecided check waits for: the first its message names after "depends on ". */
static size_t waits_for(const char *m, const char **key)
{
	const char *at = strstr(m, "depends on ");
	if (!at) {
		*key = "(another reason)";
		return strlen(*key);
	}
	*key = at + strlen("depends on ");
	return strcspn(*key, " ,()");
}

struct open_check {
	const struct diag *d;
	const char *key;
	size_t key_len;
	size_t order;
};

static int cmp_open(const void *a, const void *b)
{
	const struct open_check *x = a, *y = b;
	size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
	int c = strncmp(x->key, y->key, n);
	if (c || x->key_len != y->key_len)
		return c ? c : x->key_len < y->key_len ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

void summary_undecided(FILE *f, const struct session_result *res)
{
	const struct diag_list *u = &res->run.undecided;
	if (!u->n)
		return;
	struct open_check *v = mem_alloc(u->n * sizeof(*v));
	for (size_t k = 0; k < u->n; k++) {
		v[k] = (struct open_check){.d = &u->items[k], .order = k};
		v[k].key_len = waits_for(u->items[k].message, &v[k].key);
	}
	qsort(v, u->n, sizeof(*v), cmp_open);
	struct out_ctx o = {.f = f, .texts = res->texts};
	fprintf(f, "cglint: %zu %s undecided, by the key each waits for:\n", u->n, plural(u->n, "check", "checks"));
	for (size_t k = 0; k < u->n; k++) {
		if (!k || cmp_open(&(struct open_check){.key = v[k - 1].key, .key_len = v[k - 1].key_len},
				   &(struct open_check){.key = v[k].key, .key_len = v[k].key_len}))
		{
			fputs(k ? "\n== " : "== ", f);
			out_put_clean(f, v[k].key, v[k].key_len);
			fputc('\n', f);
		}
		out_concise.diag(&o, v[k].d);
	}
	fputc('\n', f);
	free(v);
}

/* SPDX-License-Identifier: MIT */
/*
 * out_sarif: one SARIF 2.1.0 log for GitHub code scanning (linter-ecosystem.md §2.1): every rule
 * that fired as a descriptor, every diagnostic as a result. Paths are relative to the project
 * root (uriBaseId %SRCROOT%); columns count Unicode code points. Where the file's text is at hand
 * (the run's text store, else the file read again), a region ends where the word at its start ends.
 */
#define _XOPEN_SOURCE 700   /* realpath */
#include "report/out.h"

#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/pack.h"
#include "config/target.h"
#include "input/text.h"

#define SARIF_TEXT_MAX 1024             /* GitHub's bound on rule descriptions, in bytes here */
#define SARIF_READ_MAX (8u << 20)       /* no input cglint lints is larger (READ_MAX_BYTES) */
#define SARIF_NO_PATH "<command line>"  /* what a diagnostic without a file is reported at */

static const char *const level[] = {"note", "warning", "error"};

struct sarif {
	json_t *results;
	const struct text_store *texts;
	char *path;                     /* the file whose text is at hand, for regions */
	const char *text;               /* NULL when it could not be read */
	size_t len;
	char *owned;                    /* the text when read here rather than found in 'texts' */
	unsigned at_line;               /* where the last line looked up starts, to go on from */
	size_t at_off;
};

/* ---- strings ---- */

/* A JSON string; bytes that are not UTF-8 (a config may hold any) become U+FFFD. */
static json_t *jstr(const char *s)
{
	char *fixed = out_utf8(s ? s : "");
	json_t *j = json_string(fixed);
	free(fixed);
	return j;
}

/* Code points in n bytes (continuation bytes do not count). */
static unsigned codepoints(const char *s, size_t n)
{
	unsigned c = 0;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xC0) != 0x80;
	return c;
}

/* One line, whitespace runs as one space, at most SARIF_TEXT_MAX bytes: cut at a word with "…". */
static char *clip(const char *s)
{
	size_t n = 0, cap = strlen(s) + 1;
	char *out = malloc(cap + 3);
	for (; *s; s++) {
		bool space = *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r';
		if (!space)
			out[n++] = *s;
		else if (n && out[n - 1] != ' ')
			out[n++] = ' ';
	}
	while (n && out[n - 1] == ' ')
		n--;
	if (n > SARIF_TEXT_MAX) {
		size_t cut = SARIF_TEXT_MAX - 3;        /* the text before out[cut], then "…" */
		while (cut > 0 && out[cut] != ' ')
			cut--;
		if (!cut)       /* one long word: cut between code points */
			for (cut = SARIF_TEXT_MAX - 3; ((unsigned char)out[cut] & 0xC0) == 0x80; cut--)
				;
		n = cut;
		memcpy(out + n, "\xE2\x80\xA6", 3);
		n += 3;
	}
	out[n] = '\0';
	return out;
}

/* Markdown text that renders as written: its punctuation escaped. */
static void put_md(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (strchr("\\`*_[]<>#|", *s))
			fputc('\\', f);
		fputc(*s, f);
	}
}

/* ---- the text of a file, read again for regions ---- */

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct stat st;
	char *buf = NULL;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uintmax_t)st.st_size <= SARIF_READ_MAX) {
		buf = malloc((size_t)st.st_size + 1);
		*len = fread(buf, 1, (size_t)st.st_size, f);
		buf[*len] = '\0';
	}
	fclose(f);
	return buf;
}

/* Line 'line' of 'path' (without its line end), or NULL. Diagnostics come sorted, so the last
 * file's text is kept and lines are looked up from the last one found. */
static const char *file_line(struct sarif *s, const char *path, unsigned line, size_t *n)
{
	if (!path)
		return NULL;
	if (!s->path || strcmp(s->path, path)) {
		free(s->path);
		free(s->owned);
		s->path = strdup(path);
		s->owned = NULL;
		if (!text_get(s->texts, path, &s->text, &s->len))
			s->text = s->owned = path[0] == '<' ? NULL : read_file(path, &s->len);
		s->at_line = 1;
		s->at_off = 0;
	}
	if (!s->text)
		return NULL;
	if (line < s->at_line) {
		s->at_line = 1;
		s->at_off = 0;
	}
	while (s->at_line < line) {
		const char *nl = memchr(s->text + s->at_off, '\n', s->len - s->at_off);
		if (!nl)
			return NULL;
		s->at_off = (size_t)(nl - s->text) + 1;
		s->at_line++;
	}
	const char *start = s->text + s->at_off, *nl = memchr(start, '\n', s->len - s->at_off);
	*n = nl ? (size_t)(nl - start) : s->len - s->at_off;
	if (*n && start[*n - 1] == '\r')
		(*n)--;
	return start;
}

/* 1-based; line 0 (the whole file) is line 1, column 1. YAML columns count code points (libyaml),
 * the other front-ends' count bytes: both become code points here when the line can be read. */
static json_t *region(struct sarif *s, struct loc loc)
{
	unsigned line = loc.line ? loc.line : 1, col = loc.line && loc.col ? loc.col : 1, end = 0;
	size_t n;
	const char *t = loc.line ? file_line(s, loc.path, line, &n) : NULL;
	if (t) {
		size_t start, stop;
		if (out_span(loc.path, t, n, col, &start, &stop)) {
			col = codepoints(t, start) + 1;
			if (stop > start)
				end = col + codepoints(t + start, stop - start);
		}
	}
	json_t *r = json_pack("{s:I, s:I}", "startLine", (json_int_t)line, "startColumn", (json_int_t)col);
	if (end)
		json_object_set_new(r, "endColumn", json_integer(end));
	return r;
}

/* Inside the project: relative to %SRCROOT%. Outside it: an absolute file URI. */
static json_t *artifact(const char *path)
{
	char buf[PATH_MAX];
	const char *name = path ? path : SARIF_NO_PATH;
	const char *rel = out_relpath(buf, sizeof(buf), name);
	char *uri;
	json_t *j;
	if (rel != name || name[0] == '<') {
		/* "<command line>" is no URI ('<', '>' and ' ' are not allowed); encoded it is a valid
		 * relative reference that names what every other format names. */
		uri = out_uri_encode("", rel, "");
		j = json_pack("{s:o, s:s}", "uri", jstr(uri), "uriBaseId", "%SRCROOT%");
	} else {
		/* outside the project: absolute; a file gone since it was read keeps its dot segments */
		char cwd[PATH_MAX], *real = name[0] == '/' ? NULL : realpath(name, NULL);
		char *abs = malloc(strlen(name) + sizeof(cwd) + 2);
		if (name[0] == '/' || real)
			strcpy(abs, real ? real : name);
		else
			sprintf(abs, "%s/%s", getcwd(cwd, sizeof(cwd)) ? cwd : "", name);
		uri = out_uri_encode("file://", abs, "");
		free(abs);
		free(real);
		j = json_pack("{s:o}", "uri", jstr(uri));
	}
	free(uri);
	return j;
}

static json_t *location(struct sarif *s, struct loc loc, const char *message)
{
	json_t *j = json_pack("{s:{s:o, s:o}}", "physicalLocation", "artifactLocation", artifact(loc.path), "region",
			      region(s, loc));
	if (message)
		json_object_set_new(j, "message", json_pack("{s:o}", "text", jstr(message)));
	return j;
}

/* ---- rules ---- */

static const char *category(const char *id)
{
	if (strncmp(id, "CG", 2) || strlen(id) != 5 || strspn(id + 2, "0123456789") != 3)
		return NULL;
	switch (id[2]) {
	case '1': return "config";
	case '2': return "environment";
	case '3':
	case '4': return "source";
	case '9': return "input";
	default: return NULL;
	}
}

/* help: the doc, the fix, the source lines it mirrors, the threads that report it; as text and as Markdown. */
static json_t *help(const struct rule *r)
{
	char *text, *md;
	size_t tn, mn;
	FILE *t = open_memstream(&text, &tn), *m = open_memstream(&md, &mn);
	const char *doc = r->doc && *r->doc ? r->doc : r->message && *r->message ? r->message : r->head.name;
	size_t dn = strlen(doc);
	while (dn && (doc[dn - 1] == '\n' || doc[dn - 1] == ' '))
		dn--;
	fprintf(t, "%.*s", (int)dn, doc);
	fprintf(m, "%.*s", (int)dn, doc);      /* docs are written in Markdown already */
	if (r->head.fix) {
		fprintf(t, "\n\nFix: %s", r->head.fix);
		fputs("\n\n**Fix:** ", m);
		put_md(m, r->head.fix);
	}
	if (r->n_mirrors) {
		fputs("\n\nMirrors:", t);
		fputs("\n\n**Mirrors:**\n", m);
		for (size_t k = 0; k < r->n_mirrors; k++) {
			fprintf(t, "\n- %s: %s", r->mirrors[k].label, r->mirrors[k].where);
			fputs("\n- ", m);
			put_md(m, r->mirrors[k].label);
			fputs(": ", m);
			put_md(m, r->mirrors[k].where);
		}
	}
	if (r->n_reports) {
		fputs("\n\nReported in:", t);
		fputs("\n\n**Reported in:**\n", m);
		for (size_t k = 0; k < r->n_reports; k++) {
			fprintf(t, "\n- %s", r->reports[k]);
			fprintf(m, "\n- <%s>", r->reports[k]);
		}
	}
	fclose(t);
	fclose(m);
	json_t *j = json_pack("{s:o, s:o}", "text", jstr(text), "markdown", jstr(md));
	free(text);
	free(md);
	return j;
}

static int id_cmp(const void *key, const void *elem)
{
	return strcmp(key, (*(const struct rule *const *)elem)->head.id);
}

static bool named(const json_t *rel, const char *id)
{
	size_t k;
	json_t *x;
	json_array_foreach(rel, k, x)
	{
		if (!strcmp(json_string_value(json_object_get(json_object_get(x, "target"), "id")), id))
			return true;
	}
	return false;
}

/* The rules a rule's doc names (CGnnn outside `code`, where ids are examples; not itself), as
 * relationships of kind "relevant": by index to the descriptor in this run where there is one,
 * else by id alone, so the report stays as small as the rules that fired. NULL when none. */
static json_t *relationships(const struct rule *r, const struct rule *const *u, size_t n)
{
	json_t *rel = json_array();
	bool code = false;
	const char *doc = r->doc ? r->doc : "";
	for (const char *p = doc; *p; p++) {
		if (*p == '`')
			code = !code;
		if (code || strncmp(p, "CG", 2) || strspn(p + 2, "0123456789") != 3 || (p > doc && isalnum((unsigned char)p[-1])))
			continue;
		char id[6];
		memcpy(id, p, 5);
		id[5] = '\0';
		p += 4;
		if (!strcmp(id, r->head.id) || named(rel, id))
			continue;
		json_t *target = json_pack("{s:s}", "id", id);
		const struct rule *const *hit = bsearch(id, u, n, sizeof(*u), id_cmp);
		if (hit)
			json_object_set_new(target, "index", json_integer(hit - u));
		json_array_append_new(rel, json_pack("{s:o, s:[s]}", "target", target, "kinds", "relevant"));
	}
	if (!json_array_size(rel)) {
		json_decref(rel);
		return NULL;
	}
	return rel;
}

/* A rule's metadata. 'whole': a rule that fired (reported or suppressed) gets its doc, help and
 * relationships; one only an undecided check names gets its message and a pointer to the rest. */
static json_t *descriptor(const struct rule *r, bool whole, const struct rule *const *u, size_t n)
{
	json_t *tags = json_pack("[s]", "cuda-graphs");
	const char *cat = category(r->head.id);
	if (cat)
		json_array_append_new(tags, json_string(cat));
	char *shrt = clip(r->message && *r->message ? r->message : r->head.name);
	json_t *j = json_pack("{s:o, s:o, s:{s:o}}", "id", jstr(r->head.id), "name", jstr(r->head.name),
			      "shortDescription", "text", jstr(shrt));
	if (whole) {
		char *full = clip(r->doc && *r->doc ? r->doc : shrt);
		json_object_set_new(j, "fullDescription", json_pack("{s:o}", "text", jstr(full)));
		json_object_set_new(j, "help", help(r));
		free(full);
	} else {        /* GitHub requires both: the message, and where the rest is */
		json_object_set_new(j, "fullDescription", json_pack("{s:o}", "text", jstr(shrt)));
		json_object_set_new(j, "help", json_pack("{s:s++}", "text", "cglint explain ", r->head.id, " describes the rule."));
	}
	json_object_set_new(j, "defaultConfiguration", json_pack("{s:s}", "level", level[r->head.sev]));
	json_object_set_new(j, "properties", json_pack("{s:o, s:s}", "tags", tags, "precision", "high"));
	/* helpUri only where the build was given an address: the rule's whole page is in 'help', and an
	 * installed page's file:// on a CI runner is nothing a reader of the alert can open */
	if (*CGLINT_DOCS_URL) {
		char *url = out_rule_url(r);
		json_object_set_new(j, "helpUri", jstr(url));
		free(url);
	}
	json_t *rel = whole ? relationships(r, u, n) : NULL;
	if (rel)
		json_object_set_new(j, "relationships", rel);
	free(shrt);
	return j;
}

static bool names_rule(const struct diag_list *l, const struct rule *r)
{
	for (size_t k = 0; l && k < l->n; k++)
		if (!strcmp(l->items[k].rule->head.id, r->head.id))
			return true;
	return false;
}

static int by_id(const void *a, const void *b)
{
	return strcmp((*(const struct rule *const *)a)->head.id, (*(const struct rule *const *)b)->head.id);
}

static void add_rule(const struct rule **u, size_t *n, const struct rule *r)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(u[i]->head.id, r->head.id))
			return;
	u[(*n)++] = r;
}

/* One descriptor per rule a diagnostic (reported or suppressed) names, sorted by id: a report
 * carries the rules that fired, not the whole pack (a few KB for a few findings, not 365 KB). */
static const struct rule **unique_rules(const struct diag_list *l, const struct diag_list *hid,
					const struct diag_list *open, size_t *n)
{
	size_t n_hid = hid ? hid->n : 0, n_open = open ? open->n : 0;
	const struct rule **u = malloc((l->n + n_hid + n_open + 1) * sizeof(*u));
	*n = 0;
	for (size_t k = 0; k < l->n; k++)
		add_rule(u, n, l->items[k].rule);
	for (size_t k = 0; k < n_hid; k++)
		add_rule(u, n, hid->items[k].rule);
	for (size_t k = 0; k < n_open; k++)
		add_rule(u, n, open->items[k].rule);
	qsort(u, *n, sizeof(*u), by_id);
	return u;
}

/* ---- the vtable ---- */

static void sarif_begin(struct out_ctx *o)
{
	struct sarif *s = calloc(1, sizeof(*s));
	s->results = json_array();
	s->texts = o->texts;
	o->state = s;
}

/* The mechanical fix as a SARIF fix: one replacement in the finding's file. */
static json_t *fixes(struct out_ctx *o, const struct diag *d)
{
	struct arena *a = arena_new();
	struct out_edit e;
	json_t *j = NULL;
	if (out_fix(o, a, d, &e)) {
		json_t *del = json_pack("{s:I, s:I, s:I, s:I}", "startLine", (json_int_t)e.start_line, "startColumn",
					(json_int_t)e.start_col, "endLine", (json_int_t)e.end_line, "endColumn",
					(json_int_t)e.end_col);
		j = json_pack("[{s:{s:o}, s:[{s:o, s:[{s:o, s:{s:o}}]}]}]", "description", "text", jstr(e.title),
			      "artifactChanges", "artifactLocation", artifact(d->loc.path), "replacements", "deletedRegion",
			      del, "insertedContent", "text", jstr(e.text));
	}
	arena_free(a);
	return j;
}

/* A suppressed finding: an inline directive is "inSource", the baseline "external". */
static json_t *suppressions(const struct diag *d)
{
	json_t *j = json_pack("{s:s, s:s}", "kind", d->supp == DIAG_SUPP_INLINE ? "inSource" : "external", "status",
			      "accepted");
	if (d->supp_reason)
		json_object_set_new(j, "justification", jstr(d->supp_reason));
	return json_pack("[o]", j);
}

static void sarif_diag(struct out_ctx *o, const struct diag *d)
{
	struct sarif *s = o->state;
	char *msg;
	size_t mn;
	FILE *m = open_memstream(&msg, &mn);
	fputs(d->message ? d->message : "", m);
	if (d->fix)
		fprintf(m, " Fix: %s", d->fix);
	fclose(m);
	/* ruleIndex is known once every rule is: sarif_end sets it */
	json_t *r = json_pack("{s:o, s:i, s:s, s:{s:o}, s:[o]}", "ruleId", jstr(d->rule->head.id), "ruleIndex", -1, "level",
			      level[d->sev], "message", "text", jstr(msg), "locations", location(s, d->loc, NULL));
	if (d->supp == DIAG_OPEN) {     /* an undecided check: kind "open", whose level must be "none" */
		json_object_set_new(r, "kind", json_string("open"));
		json_object_set_new(r, "level", json_string("none"));
	}
	free(msg);
	if (d->fingerprint)
		json_object_set_new(r, "partialFingerprints", json_pack("{s:o}", "cglintFingerprint/v1", jstr(d->fingerprint)));
	if (d->n_notes) {
		json_t *rel = json_array();
		for (size_t k = 0; k < d->n_notes; k++) {
			json_t *loc = location(s, d->notes[k].loc, d->notes[k].message);
			json_object_set_new(loc, "id", json_integer((json_int_t)k));
			json_array_append_new(rel, loc);
		}
		json_object_set_new(r, "relatedLocations", rel);
	}
	json_t *fx = fixes(o, d);
	if (fx)
		json_object_set_new(r, "fixes", fx);
	if (d->supp != DIAG_SUPP_NONE && d->supp != DIAG_OPEN)
		json_object_set_new(r, "suppressions", suppressions(d));
	json_array_append_new(s->results, r);
}

static void sarif_end(struct out_ctx *o, const struct diag_list *l)
{
	struct sarif *s = o->state;
	for (size_t k = 0; o->suppressed && k < o->suppressed->n; k++)
		sarif_diag(o, &o->suppressed->items[k]);
	for (size_t k = 0; o->undecided && k < o->undecided->n; k++)
		sarif_diag(o, &o->undecided->items[k]);
	size_t n;
	const struct rule **u = unique_rules(l, o->suppressed, o->undecided, &n);
	json_t *rules = json_array();
	for (size_t k = 0; k < n; k++)
		json_array_append_new(rules, descriptor(u[k], names_rule(l, u[k]) || names_rule(o->suppressed, u[k]), u, n));
	size_t k;
	json_t *r;
	json_array_foreach(s->results, k, r)
	{
		const char *id = json_string_value(json_object_get(r, "ruleId"));
		const struct rule **hit = bsearch(id, u, n, sizeof(*u), id_cmp);
		if (hit)
			json_object_set_new(r, "ruleIndex", json_integer(hit - u));
		else    /* an id that was not UTF-8 */
			json_object_del(r, "ruleIndex");
	}
	free(u);
	char *root = out_uri_encode("file://", out_root(), strcmp(out_root(), "/") ? "/" : "");
	json_t *doc = json_pack("{s:s, s:s, s:[{s:{s:{s:s, s:s, s:o}}, s:[{s:b}], s:{s:{s:o}}, s:s, s:o}]}",
				"$schema", "https://json.schemastore.org/sarif-2.1.0.json", "version", "2.1.0", "runs",
				"tool", "driver", "name", "cglint", "semanticVersion", CGLINT_VERSION, "rules", rules,
				"invocations", "executionSuccessful", 1, "originalUriBaseIds", "%SRCROOT%", "uri",
				jstr(root), "columnKind", "unicodeCodePoints", "results", s->results);
	free(root);
	const struct target *t = o->target;    /* a development target names the commits it stands for */
	const char *mc = t ? target_commit(t->mcore, false) : NULL, *bc = t ? target_commit(t->bridge, true) : NULL;
	if (mc || bc)
		json_object_set_new(json_array_get(json_object_get(doc, "runs"), 0), "properties",
				    json_pack("{s:o, s:o}", "mcoreCommit", mc ? json_string(mc) : json_null(), "bridgeCommit",
					      bc ? json_string(bc) : json_null()));
	if (*CGLINT_DOCS_URL) { /* no made-up home page: only the address the build was given */
		char *home = out_docs_home(CGLINT_DOCS_URL);
		json_object_set_new(json_object_get(json_object_get(json_array_get(json_object_get(doc, "runs"), 0), "tool"),
						    "driver"), "informationUri", jstr(home));
		free(home);
	}
	json_dumpf(doc, o->f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', o->f);
	json_decref(doc);
	free(s->path);
	free(s->owned);
	free(s);
	o->state = NULL;
}

const struct out_format out_sarif = {
	.name = "sarif",
	.begin = sarif_begin,
	.diag = sarif_diag,
	.end = sarif_end,
};

/* SPDX-License-Identifier: MIT */
/* lsp_doc: open documents, their diagnostics, hover and code actions (see lsp_doc.h). */
#include "lsp/lsp_doc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/diag.h"
#include "base/diag_wire.h"
#include "base/jobs.h"
#include "base/mem.h"
#include "config/pack.h"
#include "input/read.h"
#include "input/text.h"
#include "lsp/lsp_cfg.h"
#include "lsp/lsp_uri.h"
#include "report/fix.h"
#include "report/supp.h"
#include "run/lint.h"
#include "run/session.h"
#include "source/fe_clang.h"
#include "source/src.h"

/* A diagnostic of the document's last lint, with the range it was published with. */
struct doc_diag {
	const struct diag *d;
	struct lsp_range range;
};

struct doc {
	char *uri, *path;               /* path: what the URI names (lsp_uri_to_path) */
	char *text;                     /* malloc'd, NUL-terminated */
	size_t len;
	json_int_t version;
	bool dirty;                     /* changed since it was last published */
	bool linted;                    /* 'res' holds a result */
	struct session_result res;      /* points into 'text' and 'path' */
	struct lsp_pos_text lines;      /* the text's line index, made by lint() */
	struct doc_diag *diags;
	size_t n_diags;
	struct job *job;                /* a source's worker (it keeps its unit between edits), or NULL */
	json_int_t job_version;         /* the version it lints or last linted */
	unsigned long job_sent;         /* when it was last given a text (lsp_docs.sends) */
	struct lsp_docs *ds;            /* for the worker */
};

struct lsp_docs {
	struct session *s;
	struct lsp_client c;
	lsp_publish_fn *publish;
	void *ctx;
	struct doc **docs;
	size_t n, cap;
	struct lsp_cfgs *cfgs;          /* the project configs the documents read */
	unsigned long sends;            /* texts given to workers so far */
};

/* Idle workers kept at once: each holds a parsed unit (about 100 MB against the CUDA headers). */
enum { MAX_KEPT = 4 };

struct lsp_docs *lsp_doc_new(struct session *s, const struct lsp_client *c, lsp_publish_fn *publish, void *ctx)
{
	struct lsp_docs *ds = mem_alloc(sizeof(*ds));
	*ds = (struct lsp_docs){.s = s, .c = *c, .publish = publish, .ctx = ctx};
	ds->cfgs = lsp_cfg_new(s, c, publish, ctx);
	return ds;
}

static void drop_result(struct doc *d)
{
	if (d->linted)
		session_result_release(&d->res);
	d->linted = false;
	lsp_pos_text_release(&d->lines);
	free(d->diags);
	d->diags = NULL;
	d->n_diags = 0;
}

/* The document's worker goes (killed, if it was linting). */
static void retire(struct doc *d)
{
	job_free(d->job);
	d->job = NULL;
}

static bool linting(const struct doc *d)
{
	return d->job && job_busy(d->job);
}

/* The document changed or went: its running lint is stale. */
static void cancel(struct doc *d)
{
	if (linting(d))
		retire(d);
}

static void doc_free(struct doc *d)
{
	retire(d);
	drop_result(d);
	free(d->uri);
	free(d->path);
	free(d->text);
	free(d);
}

void lsp_doc_free(struct lsp_docs *ds)
{
	if (!ds)
		return;
	for (size_t k = 0; k < ds->n; k++)
		doc_free(ds->docs[k]);
	free(ds->docs);
	lsp_cfg_free(ds->cfgs);
	free(ds);
}

/* ---- params ------------------------------------------------------------------------------ */

static const char *get_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static bool get_uint(const json_t *o, const char *key, unsigned *out)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > UINT_MAX)
		return false;
	*out = (unsigned)json_integer_value(v);
	return true;
}

static bool get_pos(const json_t *o, struct lsp_pos *p)
{
	return get_uint(o, "line", &p->line) && get_uint(o, "character", &p->character);
}

static bool get_range(const json_t *o, struct lsp_range *r)
{
	return get_pos(json_object_get(o, "start"), &r->start) && get_pos(json_object_get(o, "end"), &r->end) &&
	       lsp_pos_cmp(r->start, r->end) <= 0;
}

static const char *doc_uri(const json_t *params)
{
	return get_str(json_object_get(params, "textDocument"), "uri");
}

static struct doc *find(const struct lsp_docs *ds, const char *uri)
{
	for (size_t k = 0; uri && k < ds->n; k++)
		if (!strcmp(ds->docs[k]->uri, uri))
			return ds->docs[k];
	return NULL;
}
/* ---- notifications ----------------------------------------------------------------------- */

static void set_text(struct doc *d, const char *text, size_t len)
{
	drop_result(d);         /* the old result points into the old text */
	cancel(d);
	free(d->text);
	d->text = mem_alloc(len + 1);
	memcpy(d->text, text, len);
	d->len = len;
	d->dirty = true;
}

/* Every open document lints again: what applies to it may have changed. The workers go, as
 * they hold the configs as they were when they were forked. */
static void touch_all(struct lsp_docs *ds)
{
	for (size_t k = 0; k < ds->n; k++) {
		ds->docs[k]->dirty = true;
		retire(ds->docs[k]);
	}
}

/* When 'd' is a project config: the runs read its text from now on (none once it is closed),
 * and the documents lint again under it. */
static void config_changed(struct lsp_docs *ds, const struct doc *d, bool open)
{
	if (!lsp_cfg_is_config(d->path))
		return;
	lsp_cfg_set_text(ds->cfgs, d->path, open ? d->text : NULL, d->len);
	touch_all(ds);
}

int lsp_doc_open(struct lsp_docs *ds, const json_t *params, const char **why)
{
	json_t *td = json_object_get(params, "textDocument");
	const char *uri = get_str(td, "uri");
	json_t *text = json_object_get(td, "text"), *version = json_object_get(td, "version");
	if (!uri || !json_is_string(text) || (version && !json_is_integer(version))) {
		*why = "didOpen: textDocument needs a string uri and text and an integer version";
		return -1;
	}
	struct doc *d = find(ds, uri);
	if (!d) {       /* a second didOpen of a URI replaces its text */
		bool is_file;
		char *path = lsp_uri_to_path(uri, &is_file);
		if (!path) {
			*why = "didOpen: the URI names no file cglint can lint";
			return -1;
		}
		/* a Python document whose name does not say so (an unsaved buffer) is linted as one */
		const char *lang = get_str(td, "languageId");
		if (lang && !strcmp(lang, "python") && !supp_py_syntax(path)) {
			size_t n = strlen(path);
			path = mem_realloc(path, n + 4);
			memcpy(path + n, ".py", 4);
		}
		if (ds->n == ds->cap)
			ds->docs = mem_realloc(ds->docs, (ds->cap = ds->cap ? 2 * ds->cap : 8) * sizeof(*ds->docs));
		d = ds->docs[ds->n++] = mem_alloc(sizeof(*d));
		d->uri = mem_strdup(uri);
		d->path = path;
		d->ds = ds;
	}
	d->version = version ? json_integer_value(version) : 0;
	set_text(d, json_string_value(text), json_string_length(text));
	config_changed(ds, d, true);
	return 0;
}

/* Apply one contentChanges entry: a whole new text, or a range replaced. */
static int apply_change(struct lsp_docs *ds, struct doc *d, const json_t *ch)
{
	json_t *text = json_object_get(ch, "text"), *range = json_object_get(ch, "range");
	if (!json_is_string(text))
		return -1;
	if (!range) {
		set_text(d, json_string_value(text), json_string_length(text));
		return 0;
	}
	struct lsp_range r;
	if (!get_range(range, &r))
		return -1;
	struct lsp_pos_text old = {d->text, d->len};   /* scanned: an edit is made once */
	size_t s = lsp_pos_to_offset(&old, r.start, ds->c.enc);
	size_t e = lsp_pos_to_offset(&old, r.end, ds->c.enc);
	size_t n = json_string_length(text);
	char *t = mem_alloc(d->len - (e - s) + n + 1);
	memcpy(t, d->text, s);
	memcpy(t + s, json_string_value(text), n);
	memcpy(t + s + n, d->text + e, d->len - e);
	set_text(d, t, d->len - (e - s) + n);
	free(t);
	return 0;
}

int lsp_doc_change(struct lsp_docs *ds, const json_t *params, const char **why)
{
	const char *uri = doc_uri(params);
	json_t *changes = json_object_get(params, "contentChanges");
	json_t *version = json_object_get(json_object_get(params, "textDocument"), "version");
	if (!uri || !json_is_array(changes) || (version && !json_is_integer(version) && !json_is_null(version))) {
		*why = "didChange: needs textDocument.uri, an integer version and a contentChanges array";
		return -1;
	}
	struct doc *d = find(ds, uri);
	if (!d) {
		*why = "didChange: the document is not open";
		return -1;
	}
	size_t k;
	json_t *ch;
	json_array_foreach(changes, k, ch)
	{
		if (apply_change(ds, d, ch) < 0) {
			*why = "didChange: a content change needs a string text (and a valid range)";
			config_changed(ds, d, true);
			return -1;      /* changes before it stay applied, as the client sent them */
		}
	}
	if (json_is_integer(version))
		d->version = json_integer_value(version);
	d->dirty = true;
	cancel(d);
	config_changed(ds, d, true);
	return 0;
}

int lsp_doc_save(struct lsp_docs *ds, const json_t *params, const char **why)
{
	const char *uri = doc_uri(params);
	struct doc *d = uri ? find(ds, uri) : NULL;
	if (!d) {
		*why = uri ? "didSave: the document is not open" : "didSave: needs textDocument.uri";
		return -1;
	}
	d->dirty = true;        /* files it layers over (--config-file, env files) may have changed */
	config_changed(ds, d, true);
	return 0;
}

int lsp_doc_close(struct lsp_docs *ds, const json_t *params, const char **why)
{
	const char *uri = doc_uri(params);
	if (!uri) {
		*why = "didClose: needs textDocument.uri";
		return -1;
	}
	for (size_t k = 0; k < ds->n; k++) {
		if (strcmp(ds->docs[k]->uri, uri))
			continue;
		ds->publish(ds->ctx, json_pack("{s:o, s:[]}", "uri", lsp_json_str(uri), "diagnostics"));
		struct doc *d = ds->docs[k];
		ds->docs[k] = ds->docs[--ds->n];
		config_changed(ds, d, false);
		lsp_cfg_closed(ds->cfgs, uri);
		doc_free(d);
		return 0;
	}
	*why = "didClose: the document is not open";
	return -1;
}

int lsp_doc_watched(struct lsp_docs *ds, const json_t *params, const char **why)
{
	if (!json_is_array(json_object_get(params, "changes"))) {
		*why = "didChangeWatchedFiles: needs a changes array";
		return -1;
	}
	size_t k;
	json_t *c;
	json_array_foreach(json_object_get(params, "changes"), k, c) {
		const char *uri = json_string_value(json_object_get(c, "uri"));
		size_t n = uri ? strlen(uri) : 0;
		if (n > 3 && !strcmp(uri + n - 3, ".py"))
			session_forget_python(ds->s);   /* a module came or went: its absence was kept */
	}
	touch_all(ds);  /* a config changed on disk, or went, or came */
	return 0;
}

/* ---- diagnostics ------------------------------------------------------------------------- */

/* How cglint counts columns in 'path': code points in YAML, bytes in Python (tree-sitter),
 * scripts and sources. */
static enum lsp_cols cols_of(const char *path, const char *buf, size_t len)
{
	return fe_clang_is_source(path) || supp_py_syntax(path) || lint_is_script(path, buf, len) ? LSP_COLS_BYTES
												    : LSP_COLS_CODEPOINTS;
}

static struct lsp_range loc_range(const struct lsp_docs *ds, struct loc l, const struct lsp_pos_text *t)
{
	return lsp_pos_range(t, l.line, l.col, cols_of(l.path, t->buf, t->len), fe_clang_is_source(l.path), ds->c.enc);
}

/* A note's location: in the document itself, or in another input the run read. */
static json_t *note_location(const struct lsp_docs *ds, const struct doc *d, struct loc l)
{
	struct lsp_pos_text other = {"", 0};
	const struct lsp_pos_text *t = &d->lines;
	char *uri;
	if (!strcmp(l.path, d->path)) {
		uri = mem_strdup(d->uri);
	} else {
		uri = lsp_uri_from_path(l.path);
		if (!text_get(d->res.texts, l.path, &other.buf, &other.len))
			other = (struct lsp_pos_text){"", 0};
		t = &other;
	}
	struct lsp_range r = loc_range(ds, l, t);
	if (!t->len && l.line)  /* no text: trust the numbers */
		r.start = r.end = (struct lsp_pos){l.line - 1, l.col ? l.col - 1 : 0};
	json_t *j = json_pack("{s:o, s:o}", "uri", lsp_json_str(uri), "range", lsp_json_range(r));
	free(uri);
	return j;
}

struct in_doc {
	const struct lsp_docs *ds;
	const struct doc *d;
};

static json_t *doc_note_location(const void *ctx, struct loc l)
{
	const struct in_doc *in = ctx;
	return note_location(in->ds, in->d, l);
}

static json_t *diag_json(const struct lsp_docs *ds, const struct doc *doc, const struct doc_diag *dd)
{
	struct in_doc in = {ds, doc};
	return lsp_json_diag(dd->d, dd->range, ds->c.related_info ? doc_note_location : NULL, &in);
}

/* Publish the document's result (d->res), as linted at 'version'. */
static void publish_result(struct lsp_docs *ds, struct doc *d, json_int_t version)
{
	bool cfg = lsp_cfg_is_config(d->path);
	json_t *list = json_array();
	d->linted = true;
	lsp_pos_text_init(&d->lines, d->text, d->len);
	const struct diag_list *l = &d->res.run.diags;
	d->diags = mem_alloc((l->n ? l->n : 1) * sizeof(*d->diags));
	for (size_t k = 0; k < l->n; k++) {
		const struct diag *g = &l->items[k];
		if (!g->loc.path || (cfg ? !lsp_cfg_same_file(g->loc.path, d->path) : strcmp(g->loc.path, d->path)))
			continue;       /* an overlay's, environment file's or other config's problem */
		struct doc_diag *dd = &d->diags[d->n_diags++];
		*dd = (struct doc_diag){g, loc_range(ds, g->loc, &d->lines)};
		json_array_append_new(list, diag_json(ds, d, dd));
	}
	lsp_cfg_linted(ds->cfgs, d->uri, d->path, &d->res, list);
	ds->publish(ds->ctx,
		    json_pack("{s:o, s:I, s:o}", "uri", lsp_json_str(d->uri), "version", version, "diagnostics", list));
}

/* In the document's worker: lint 'text' as the session would here, its diagnostics to 'out'. */
static void lint_work(void *ctx, const char *text, size_t len, struct sbuf *out)
{
	struct doc *d = ctx;    /* the worker's copy, as it was at the fork: its path holds */
	struct session_result res;
	session_sources_here(d->ds->s);         /* this worker is under the sources' limits (lint_later) */
	session_lint_buffer(d->ds->s, d->path, text, len, &res);
	diag_wire_put(out, &res.run.diags);
	session_result_release(&res);
}

/* Retire the idle workers given a text longest ago, down to 'keep'. */
static void trim(struct lsp_docs *ds, size_t keep)
{
	for (;;) {
		struct doc *oldest = NULL;
		size_t idle = 0;
		for (size_t k = 0; k < ds->n; k++) {
			struct doc *e = ds->docs[k];
			if (e->job && !linting(e)) {
				idle++;
				oldest = !oldest || e->job_sent < oldest->job_sent ? e : oldest;
			}
		}
		if (idle <= keep)
			return;
		retire(oldest);
	}
}

/* A source is linted in its worker (libclang takes from tens of milliseconds to the deadline),
 * so the server keeps answering; false when no worker could be started. */
static bool lint_later(struct lsp_docs *ds, struct doc *d)
{
	cancel(d);
	if (!d->job) {          /* a worker will be forked */
		trim(ds, MAX_KEPT - 1);
		fe_clang_preload();     /* once, here: not again in every worker */
	}
	const char *why;
	const struct src_opts *o = session_sources(ds->s);
	if (!job_give(&d->job, &(struct jobs_limits){.parallel = 1, .seconds = src_timeout(o), .mem_mib = src_memory(o)},
		      lint_work, d, d->text, d->len, &why))
		return false;
	d->job_version = d->version;
	d->job_sent = ++ds->sends;
	return true;
}

/* Sources linted at once: one per CPU, at most LSP_DOC_MAX_JOBS. */
static size_t running(const struct lsp_docs *ds)
{
	size_t n = 0;
	for (size_t k = 0; k < ds->n; k++)
		n += linting(ds->docs[k]);
	return n;
}

static void lint(struct lsp_docs *ds, struct doc *d)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t most = cpus < 1 ? 1 : cpus > LSP_DOC_MAX_JOBS ? LSP_DOC_MAX_JOBS : (size_t)cpus;
	if (fe_clang_is_source(d->path) && !linting(d) && running(ds) >= most)
		return;         /* stays marked: started when one of those ends */
	drop_result(d);
	d->dirty = false;
	if (d->len > READ_MAX_BYTES) {     /* as the command line refuses such a file */
		char msg[96];
		snprintf(msg, sizeof(msg), "file is %zu bytes; cglint reads at most %u", d->len, READ_MAX_BYTES);
		json_t *list = json_pack("[{s:o, s:i, s:s, s:s, s:s}]", "range",
					 lsp_json_range((struct lsp_range){{0, 0}, {0, 0}}), "severity", 1, "code", "CG903",
					 "source", "cglint", "message", msg);
		lsp_cfg_linted(ds->cfgs, d->uri, d->path, NULL, list);
		ds->publish(ds->ctx, json_pack("{s:o, s:I, s:o}", "uri", lsp_json_str(d->uri), "version", d->version,
					       "diagnostics", list));
		return;
	}
	/* a project config is checked as one, the other documents as inputs */
	if (lsp_cfg_is_config(d->path))
		session_check_config(ds->s, d->path, &d->res);
	else if (fe_clang_is_source(d->path) && lint_later(ds, d))
		return;
	else
		session_lint_buffer(ds->s, d->path, d->text, d->len, &d->res);
	publish_result(ds, d, d->version);
}

bool lsp_doc_busy(const struct lsp_docs *ds)
{
	return running(ds) > 0;
}

size_t lsp_doc_fds(const struct lsp_docs *ds, int *fds, size_t max, int *ms)
{
	size_t n = 0;
	*ms = -1;
	for (size_t k = 0; k < ds->n; k++) {
		struct job *j = linting(ds->docs[k]) ? ds->docs[k]->job : NULL;
		int two[2], left = j ? job_ms_left(j) : -1;
		for (size_t i = 0, m = j ? job_fds(j, two) : 0; i < m && n < max; i++)
			fds[n++] = two[i];
		if (left >= 0 && (*ms < 0 || left < *ms))
			*ms = left;
	}
	return n;
}

bool lsp_doc_step(struct lsp_docs *ds)
{
	bool ended = false;
	for (size_t k = 0; k < ds->n; k++) {
		struct doc *d = ds->docs[k];
		struct jobs_result r;
		if (!linting(d) || !job_step(d->job, &r))
			continue;
		session_result_empty(ds->s, d->path, d->text, d->len, &d->res);
		struct diag_list *l = &d->res.run.diags;
		if (r.end != JOBS_DONE || diag_wire_get(l, r.out, r.out_len, d->path))
			src_stopped(l, d->path, &r, session_sources(ds->s));
		if (r.end != JOBS_DONE)
			retire(d);
		publish_result(ds, d, d->job_version);
		trim(ds, MAX_KEPT);
		ended = true;
	}
	return ended;
}

bool lsp_doc_pending(const struct lsp_docs *ds)
{
	for (size_t k = 0; k < ds->n; k++)
		if (ds->docs[k]->dirty)
			return true;
	return false;
}

void lsp_doc_flush(struct lsp_docs *ds)
{
	for (size_t k = 0; k < ds->n; k++)
		if (ds->docs[k]->dirty)
			lint(ds, ds->docs[k]);
}

/* ---- requests ---------------------------------------------------------------------------- */

/* The open document a request is about, linted if it changed; NULL when not open. */
static struct doc *request_doc(struct lsp_docs *ds, const json_t *params)
{
	struct doc *d = find(ds, doc_uri(params));
	if (d && d->dirty)
		lint(ds, d);
	return d;
}

static void hover_text(struct sbuf *sb, const struct diag *d)
{
	if (sb->len)
		sbuf_adds(sb, "\n\n---\n\n");
	if (d->rule)
		sbuf_printf(sb, "**%s** %s (%s)\n\n", d->rule->head.id, d->rule->head.name, diag_sev_name(d->sev));
	sbuf_adds(sb, d->message ? d->message : "");
	if (d->rule && d->rule->doc) {
		size_t n = strlen(d->rule->doc);
		while (n && (d->rule->doc[n - 1] == '\n' || d->rule->doc[n - 1] == ' '))
			n--;
		sbuf_adds(sb, "\n\n");
		sbuf_addn(sb, d->rule->doc, n);
	}
	if (d->fix)
		sbuf_printf(sb, "\n\n**Fix:** %s", d->fix);
	if (d->mirrors)
		sbuf_printf(sb, "\n\n**Mirrors:** `%s`", d->mirrors);
}

int lsp_doc_hover(struct lsp_docs *ds, const json_t *params, json_t **result, const char **why)
{
	struct lsp_pos p;
	if (!doc_uri(params) || !get_pos(json_object_get(params, "position"), &p)) {
		*why = "hover: needs textDocument.uri and a position of non-negative integers";
		return -32602;
	}
	struct doc *d = request_doc(ds, params);
	struct sbuf sb;
	sbuf_init(&sb);
	const struct doc_diag *first = NULL;
	for (size_t k = 0; d && k < d->n_diags; k++) {
		struct lsp_range r = d->diags[k].range;
		bool empty = !lsp_pos_cmp(r.start, r.end);
		if (empty ? lsp_pos_cmp(p, r.start) : lsp_pos_cmp(r.start, p) > 0 || lsp_pos_cmp(p, r.end) >= 0)
			continue;
		first = first ? first : &d->diags[k];
		hover_text(&sb, d->diags[k].d);
	}
	*result = first ? json_pack("{s:{s:s, s:o}, s:o}", "contents", "kind", "markdown", "value", lsp_json_str(sb.buf),
				    "range", lsp_json_range(first->range))
			: json_null();
	sbuf_release(&sb);
	return 0;
}

static bool kind_wanted(const json_t *context)
{
	json_t *only = json_object_get(context, "only"), *k;
	size_t i;
	if (!json_is_array(only))
		return true;
	json_array_foreach(only, i, k)
	{
		const char *s = json_string_value(k);
		if (s && (!strcmp(s, "quickfix") || !*s))
			return true;
	}
	return false;
}

/* Whether the client listed 'dd' in the request's context (same range and code). */
static bool listed(const json_t *context, const struct doc_diag *dd)
{
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(context, "diagnostics"), i, c)
	{
		struct lsp_range r;
		const char *code = get_str(c, "code");
		if (get_range(json_object_get(c, "range"), &r) && !lsp_pos_cmp(r.start, dd->range.start) &&
		    !lsp_pos_cmp(r.end, dd->range.end) && code && dd->d->rule && !strcmp(code, dd->d->rule->head.id))
			return true;
	}
	return false;
}

static json_t *action(const struct lsp_docs *ds, const struct doc *d, const struct doc_diag *dd,
		      const struct fix_edit *e, const char *title, bool preferred)
{
	struct lsp_range r = {lsp_pos_from_offset(&d->lines, e->start, ds->c.enc),
			      lsp_pos_from_offset(&d->lines, e->end, ds->c.enc)};
	json_t *edits =
		json_pack("[{s:o, s:o}]", "range", lsp_json_range(r), "newText", lsp_json_str(e->text ? e->text : ""));
	json_t *a = json_pack("{s:o, s:s, s:[o], s:{s:{s:o}}}", "title", lsp_json_str(title), "kind", "quickfix", "diagnostics",
			      diag_json(ds, d, dd), "edit", "changes", d->uri, edits);
	if (preferred)
		json_object_set_new(a, "isPreferred", json_true());
	return a;
}

int lsp_doc_code_action(struct lsp_docs *ds, const json_t *params, json_t **result, const char **why)
{
	struct lsp_range want;
	if (!doc_uri(params) || !get_range(json_object_get(params, "range"), &want)) {
		*why = "codeAction: needs textDocument.uri and a range";
		return -32602;
	}
	struct doc *d = request_doc(ds, params);
	json_t *context = json_object_get(params, "context");
	if (!d || !kind_wanted(context)) {
		*result = d ? json_array() : json_null();
		return 0;
	}
	/* The diagnostics in the range; those the client names, when it names any of ours. */
	bool *pick = mem_alloc((d->n_diags ? d->n_diags : 1) * sizeof(*pick));
	bool any_listed = false;
	for (size_t k = 0; k < d->n_diags; k++) {
		struct lsp_range r = d->diags[k].range;
		pick[k] = lsp_pos_cmp(r.start, want.end) <= 0 && lsp_pos_cmp(want.start, r.end) <= 0;
		any_listed |= pick[k] && listed(context, &d->diags[k]);
	}
	*result = json_array();
	struct arena *a = arena_new();
	for (size_t k = 0; k < d->n_diags; k++) {
		const struct doc_diag *dd = &d->diags[k];
		if (!pick[k] || (any_listed && !listed(context, dd)))
			continue;
		struct fix_edit e;
		if (fix_for(a, dd->d, d->text, d->len, &e) && e.start <= e.end && e.end <= d->len)
			json_array_append_new(*result, action(ds, d, dd, &e, e.title ? e.title : "Apply cglint's fix", true));
		/* one suppression per rule and line; none in a project config, whose problems no comment hides */
		bool again = lsp_cfg_is_config(d->path);
		for (size_t j = 0; j < k && !again; j++)
			again = pick[j] && (!any_listed || listed(context, &d->diags[j])) && d->diags[j].d->rule == dd->d->rule &&
				d->diags[j].d->loc.line == dd->d->loc.line;
		if (!again && dd->d->rule && fix_suppress(a, dd->d, d->text, d->len, &e) && e.start <= e.end &&
		    e.end <= d->len) {
			const char *title = e.title ? e.title : arena_printf(a, "Suppress %s", dd->d->rule->head.id);
			json_array_append_new(*result, action(ds, d, dd, &e, title, false));
		}
	}
	arena_free(a);
	free(pick);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* lsp_cfg: project configs and their problems in the language server (see lsp_cfg.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "lsp/lsp_cfg.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/proj.h"
#include "input/text.h"
#include "lsp/lsp_uri.h"
#include "run/session.h"

/* A config file some open document reads, or one open in the editor. */
struct cfg {
	char *abs;                      /* absolute, in its resolved folder: proj_file's abs */
	char *uri;
	json_t *shown;                  /* the diagnostics last published for it; NULL: none */
	char **users;                   /* the open documents whose last run read it, by URI */
	size_t n_users;
	char *text;                     /* open in the editor: its text (else NULL) */
	size_t len;
};

struct lsp_cfgs {
	struct session *s;
	struct lsp_client c;
	lsp_publish_fn *publish;
	void *ctx;
	struct cfg **cfgs;
	size_t n;
	struct text_store *open;        /* the open configs' texts, handed to the session */
};

struct lsp_cfgs *lsp_cfg_new(struct session *s, const struct lsp_client *c, lsp_publish_fn *publish, void *ctx)
{
	struct lsp_cfgs *cs = mem_alloc(sizeof(*cs));
	*cs = (struct lsp_cfgs){.s = s, .c = *c, .publish = publish, .ctx = ctx};
	return cs;
}

static void cfg_free(struct cfg *e)
{
	free(e->abs);
	free(e->uri);
	json_decref(e->shown);
	for (size_t k = 0; k < e->n_users; k++)
		free(e->users[k]);
	free(e->users);
	free(e->text);
	free(e);
}

void lsp_cfg_free(struct lsp_cfgs *cs)
{
	if (!cs)
		return;
	session_set_open_configs(cs->s, NULL);
	text_store_free(cs->open);
	for (size_t k = 0; k < cs->n; k++)
		cfg_free(cs->cfgs[k]);
	free(cs->cfgs);
	free(cs);
}

/* ---- paths ------------------------------------------------------------------------------- */

bool lsp_cfg_is_config(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return !strcmp(base, ".cglint.yaml") || !strcmp(base, ".cglint.yml");
}

/* The path with its folder resolved (as proj names a config: proj_file's abs); NULL when the
 * folder does not exist. */
static char *key_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? mem_strdup(path) : mem_strdup(".");
	if (slash)
		dir[slash == path ? 1 : slash - path] = '\0';
	char buf[PATH_MAX];
	char *real = realpath(dir, buf);
	free(dir);
	if (!real)
		return NULL;
	const char *base = slash ? slash + 1 : path;
	char *key = mem_alloc(strlen(buf) + strlen(base) + 2);
	strcpy(key, buf);
	if (strcmp(buf, "/"))
		strcat(key, "/");
	strcat(key, base);
	return key;
}

bool lsp_cfg_same_file(const char *a, const char *b)
{
	if (!strcmp(a, b))
		return true;
	char *ka = key_of(a), *kb = key_of(b);
	bool same = ka && kb && !strcmp(ka, kb);
	free(ka);
	free(kb);
	return same;
}

/* ---- the configs ------------------------------------------------------------------------- */

static struct cfg *find(const struct lsp_cfgs *cs, const char *abs)
{
	for (size_t k = 0; abs && k < cs->n; k++)
		if (!strcmp(cs->cfgs[k]->abs, abs))
			return cs->cfgs[k];
	return NULL;
}

static struct cfg *get(struct lsp_cfgs *cs, const char *abs)
{
	struct cfg *e = find(cs, abs);
	if (e)
		return e;
	e = mem_alloc(sizeof(*e));
	e->abs = mem_strdup(abs);
	e->uri = lsp_uri_from_path(abs);
	cs->cfgs = mem_realloc(cs->cfgs, (cs->n + 1) * sizeof(*cs->cfgs));
	cs->cfgs[cs->n++] = e;
	return e;
}

static bool has_user(const struct cfg *e, const char *uri)
{
	for (size_t k = 0; k < e->n_users; k++)
		if (!strcmp(e->users[k], uri))
			return true;
	return false;
}

static void drop_user(struct cfg *e, const char *uri)
{
	for (size_t k = 0; k < e->n_users; k++) {
		if (strcmp(e->users[k], uri))
			continue;
		free(e->users[k]);
		e->users[k] = e->users[--e->n_users];
		return;
	}
}

/* Publish 'list' (taking it) for a config that is not open, unless it is what it shows. */
static void show(struct lsp_cfgs *cs, struct cfg *e, json_t *list)
{
	bool same = e->shown ? json_equal(e->shown, list) : !json_array_size(list);
	if (e->text || same) {  /* an open config's own lint publishes it */
		json_decref(list);
		return;
	}
	json_decref(e->shown);
	e->shown = json_incref(list);
	cs->publish(cs->ctx, json_pack("{s:o, s:o}", "uri", lsp_json_str(e->uri), "diagnostics", list));
}

/* Clear and forget the configs that no open document reads and that are not open themselves. */
static void collect(struct lsp_cfgs *cs)
{
	for (size_t k = 0; k < cs->n;) {
		struct cfg *e = cs->cfgs[k];
		if (e->n_users || e->text) {
			k++;
			continue;
		}
		show(cs, e, json_array());
		cfg_free(e);
		cs->cfgs[k] = cs->cfgs[--cs->n];
	}
}

/* The session reads the open configs' texts from a store made again on every change. */
static void reopen(struct lsp_cfgs *cs)
{
	struct text_store *ts = text_store_new();
	for (size_t k = 0; k < cs->n; k++)
		if (cs->cfgs[k]->text)
			text_put(ts, cs->cfgs[k]->abs, cs->cfgs[k]->text, cs->cfgs[k]->len);
	session_set_open_configs(cs->s, ts);
	text_store_free(cs->open);
	cs->open = ts;
}

void lsp_cfg_set_text(struct lsp_cfgs *cs, const char *path, const char *text, size_t len)
{
	char *abs = key_of(path);
	if (!abs)
		return;         /* no folder: no run can read a config there */
	struct cfg *e = text ? get(cs, abs) : find(cs, abs);
	free(abs);
	if (!e)
		return;
	free(e->text);
	e->text = NULL;
	if (text) {
		e->text = mem_alloc(len + 1);
		memcpy(e->text, text, len);
		e->len = len;
	}
	/* open, lsp_doc publishes it; closed, lsp_doc cleared it: either way nothing is shown from here */
	json_decref(e->shown);
	e->shown = NULL;
	reopen(cs);
	collect(cs);
}

/* ---- after a lint ------------------------------------------------------------------------ */

/* Where a config's problem is, in the text the run read. */
struct where {
	const struct lsp_cfgs *cs;
	const char *uri;
	struct lsp_pos_text t;
};

static struct lsp_range range_at(const struct where *w, struct loc l)
{
	struct lsp_range r = lsp_pos_range(&w->t, l.line, l.col, LSP_COLS_CODEPOINTS, false, w->cs->c.enc);
	if (!w->t.len && l.line)        /* no text (unreadable): trust the numbers */
		r.start = r.end = (struct lsp_pos){l.line - 1, l.col ? l.col - 1 : 0};
	return r;
}

static json_t *note_location(const void *ctx, struct loc l)
{
	const struct where *w = ctx;
	return json_pack("{s:o, s:o}", "uri", lsp_json_str(w->uri), "range", lsp_json_range(range_at(w, l)));
}

/*
 * The error a document gets for a config of its with problems: the problems as its notes, so
 * that they are relatedInformation pointing into the config (or lines of the message).
 */
static json_t *broken(const struct where *w, const struct proj_file *f, const struct diag_list *l, size_t n)
{
	struct diag_note *notes = mem_alloc(n * sizeof(*notes));
	size_t k = 0;
	for (size_t i = 0; i < l->n && k < n; i++)
		if (l->items[i].loc.path && !strcmp(l->items[i].loc.path, f->path))
			notes[k++] = (struct diag_note){l->items[i].loc, l->items[i].message};
	char msg[PATH_MAX + 160];
	snprintf(msg, sizeof(msg),
		 "the project config %s has %zu problem%s: this file is checked without the settings that could not "
		 "be read",
		 f->path, n, n == 1 ? "" : "s");
	struct diag d = {.sev = SEV_ERROR, .loc = {f->path, 1, 1}, .message = msg, .notes = notes, .n_notes = n,
			 .fix = "correct the config; its problems are shown on the file itself"};
	json_t *j = lsp_json_diag(&d, (struct lsp_range){{0, 0}, {0, 0}}, w->cs->c.related_info ? note_location : NULL,
				  w);
	json_object_set_new(j, "code", json_string("CG915"));
	free(notes);
	return j;
}

void lsp_cfg_linted(struct lsp_cfgs *cs, const char *uri, const char *path, const struct session_result *res,
		    json_t *list)
{
	const struct proj *pj = res ? res->run.proj : NULL;
	/* the configs this document no longer reads */
	for (size_t k = 0; k < cs->n; k++) {
		const struct proj_file *f = NULL;
		for (size_t i = 0; has_user(cs->cfgs[k], uri) && (f = proj_file(pj, i)); i++)
			if (!strcmp(f->abs, cs->cfgs[k]->abs))
				break;
		if (!f)
			drop_user(cs->cfgs[k], uri);
	}
	char *self = key_of(path);
	const struct diag_list *l = res ? &res->run.diags : NULL;
	const struct proj_file *f;
	for (size_t i = 0; (f = proj_file(pj, i)); i++) {
		struct cfg *e = get(cs, f->abs);
		if (!has_user(e, uri)) {
			e->users = mem_realloc(e->users, (e->n_users + 1) * sizeof(*e->users));
			e->users[e->n_users++] = mem_strdup(uri);
		}
		if (self && !strcmp(self, f->abs))
			continue;       /* an open config's own problems are its document's diagnostics */
		struct where w = {cs, e->uri, {f->text ? f->text : "", f->text ? f->len : 0}};
		lsp_pos_text_init(&w.t, w.t.buf, w.t.len);
		json_t *problems = json_array();
		for (size_t k = 0; k < l->n; k++)
			if (l->items[k].loc.path && !strcmp(l->items[k].loc.path, f->path))
				json_array_append_new(problems, lsp_json_diag(&l->items[k], range_at(&w, l->items[k].loc),
									      NULL, NULL));
		if (json_array_size(problems))
			json_array_append_new(list, broken(&w, f, l, json_array_size(problems)));
		show(cs, e, problems);
		lsp_pos_text_release(&w.t);
	}
	free(self);
	collect(cs);
}

void lsp_cfg_closed(struct lsp_cfgs *cs, const char *uri)
{
	for (size_t k = 0; k < cs->n; k++)
		drop_user(cs->cfgs[k], uri);
	collect(cs);
}

json_t *lsp_cfg_watch_params(void)
{
	return json_pack("{s:[{s:s, s:s, s:{s:[{s:s}, {s:s}, {s:s}]}}]}", "registrations", "id", "cglint-configs",
			 "method", "workspace/didChangeWatchedFiles", "registerOptions", "watchers", "globPattern",
			 "**/.cglint.yaml", "globPattern", "**/.cglint.yml", "globPattern", "**/*.py");
}

/* SPDX-License-Identifier: MIT */
/* fe_py: a file's recipe functions as units, and its syntax errors (see fe_py.h). */
#include "front/py/fe_py.h"

#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "base/mem.h"
#include "front/py/fe_py_mod.h"
#include "front/py/py_fn.h"
#include "front/py/py_unit.h"

#define is py_is
#define field py_field
#define loc_of py_loc

/* ---- units ---- */

struct file {
	struct arena *a;
	const char *path, *src;
	const char *only;       /* the one function to walk, or NULL */
	struct py_session *session;
	const struct py_pass *pass;
	struct mod *mod;
	struct py_unit *units;
	size_t n, cap;
};

static void function(struct file *fl, TSNode def, const char *owner, size_t top)
{
	TSNode name = field(def, "name"), body = field(def, "body");
	if (ts_node_is_null(name) || ts_node_is_null(body))
		return;
	struct arena *a = fl->session ? fl->session->a : fl->a;
	struct fn f = {.a = a, .path = fl->path, .src = fl->src, .session = fl->session, .pass = fl->pass, .mod = fl->mod};
	py_unit_init(&f.log, a);
	struct py_log view = {0};
	const char *ns;
	bool cut = false;
	const struct sum *s = top != (size_t)-1 ? py_call_top(fl->session, fl->pass, fl->mod, top, &cut) : NULL;
	if (s) {                /* a module-level function: walked once, for its callers too */
		view = (struct py_log){.a = a, .recs = s->recs, .n = s->n, .cap = s->n, .next_ns = s->next_ns,
				       .over = s->over};
		ns = s->ret.n == 1 && !s->ret.tuple && s->ret.ns[0] ? s->ret.ns[0] : py_unit_busiest(&view, a);
	} else {
		py_walk_def(&f, def);
		view = f.log;
		ns = f.ret.n == 1 && !f.ret.tuple && f.ret.ns[0] ? f.ret.ns[0] : py_unit_busiest(&f.log, a);
	}
	struct py_unit u = {.loc = loc_of(fl->path, name), .forks = s ? s->forks : f.forks,
			    .n_forks = s ? s->n_forks : f.n_forks};
	u.name = owner ? arena_join(fl->a, owner, ".", py_text(&f, name)) : py_text(&f, name);
	py_unit_result(&view, ns, fl->a, &u);
	if (u.n_keys || u.over) {
		if (fl->n == fl->cap) {
			fl->cap = fl->cap ? 2 * fl->cap : 16;
			fl->units = mem_realloc(fl->units, fl->cap * sizeof(*fl->units));
		}
		fl->units[fl->n++] = u;
	}
	py_unit_release(&f.log);
}

/* Whether 'owner.name' (or 'name' at the top) is the function fl->only names, where it names one. */
static bool wanted(const struct file *fl, const char *owner, TSNode name)
{
	if (!fl->only)
		return true;
	const char *q = fl->only;
	if (owner) {
		size_t o = strlen(owner);
		if (strncmp(q, owner, o) || q[o] != '.')
			return false;
		q += o + 1;
	}
	size_t n = ts_node_end_byte(name) - ts_node_start_byte(name);
	return !strncmp(q, fl->src + ts_node_start_byte(name), n) && !q[n];
}

static void definitions(struct file *fl, TSNode block, const char *owner, unsigned depth)
{
	if (depth > 8)
		return;
	struct py_kids it;
	for (py_kids_start(&it, block); py_kids_next(&it);) {
		TSNode d = it.node;
		if (is(d, "decorated_definition"))
			d = field(d, "definition");
		if (is(d, "function_definition")) {
			if (ts_node_is_null(field(d, "name")) || !wanted(fl, owner, field(d, "name")))
				continue;
			size_t top = (size_t)-1;
			for (size_t i = 0; !owner && fl->mod && i < fl->mod->n_defs; i++)
				if (ts_node_eq(fl->mod->defs[i].node, d))
					top = i;
			function(fl, d, owner, top);
		} else if (is(d, "class_definition")) {
			TSNode name = field(d, "name"), body = field(d, "body");
			if (!ts_node_is_null(name) && !ts_node_is_null(body)) {
				const char *cls = arena_strndup(fl->a, fl->src + ts_node_start_byte(name),
								ts_node_end_byte(name) - ts_node_start_byte(name));
				definitions(fl, body, owner ? arena_join(fl->a, owner, ".", cls) : cls,
					    depth + 1);
			}
		}
	}
	py_kids_end(&it);
}

/* ---- syntax errors ---- */

struct errs {
	struct arena *a;
	const char *path, *src;
	struct loc *at;
	const char **what;
	size_t n, cap;
};

static void errors(struct errs *e, TSNode n, unsigned depth)
{
	if (!ts_node_has_error(n) || depth > 10000)
		return;
	bool missing = ts_node_is_missing(n), error = is(n, "ERROR");
	if (missing || error) {
		if (e->n == e->cap) {
			e->cap = e->cap ? 2 * e->cap : 8;
			e->at = mem_realloc(e->at, e->cap * sizeof(*e->at));
			e->what = mem_realloc(e->what, e->cap * sizeof(*e->what));
		}
		e->at[e->n] = loc_of(e->path, n);
		if (missing) {
			e->what[e->n] = arena_printf(e->a, "missing '%s'", ts_node_type(n));
		} else {
			uint32_t s = ts_node_start_byte(n), end = ts_node_end_byte(n), len = end - s;
			const char *nl = memchr(e->src + s, '\n', len);
			if (nl)
				len = (uint32_t)(nl - (e->src + s));
			if (len > 40)
				len = 40;
			e->what[e->n] = len ? arena_printf(e->a, "unexpected '%.*s'", (int)len, e->src + s)
					    : arena_strdup(e->a, "unexpected end of input");
		}
		e->n++;
		if (error)
			return;         /* one report per ERROR node */
	}
	for (uint32_t k = 0; k < ts_node_child_count(n); k++)
		errors(e, ts_node_child(n, k), depth + 1);
}

/* 'pick' rendered: summaries walked on one path are kept apart from the others. */
static const char *pick_sig(struct arena *a, const struct py_choice *pick)
{
	if (!pick || !pick->n)
		return NULL;
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "paths:");
	for (size_t k = 0; k < pick->n; k++)
		sbuf_printf(&sb, "%u=%u,", pick->bytes[k], pick->picks[k]);
	const char *sig = arena_strdup(a, sb.buf);
	sbuf_release(&sb);
	return sig;
}

int fe_py_parse(struct arena *a, struct py_session *c, const struct py_choice *pick, const char *path,
		const char *buf, size_t len, struct py_file *out)
{
	*out = (struct py_file){0};
	struct py_session *own = c && c->parser ? NULL : fe_py_session_new(a);
	struct py_session *use = own ? own : c;
	if (!use->parser) {
		fe_py_session_free(own);
		return -1;
	}
	struct mod *m = NULL;   /* a module read earlier to follow a call, with the same text */
	for (size_t k = use->n; k-- > 0 && !m;)
		if (fe_py_mod_named(use->mods[k], path) && use->mods[k]->len == len && !memcmp(use->mods[k]->src, buf, len))
			m = use->mods[k];
	if (!m)         /* the text in the session's arena: a session kept across runs outlives 'buf' */
		m = fe_py_mod_add(use, arena_strdup(use->a, path), arena_strndup(use->a, buf, len), len, false);
	if (!m) {
		fe_py_session_free(own);
		return -1;
	}
	TSNode root = ts_tree_root_node(m->tree);
	struct py_pass pass = {.top = m, .pick = pick && pick->n ? pick : NULL, .sig = pick_sig(a, pick)};
	struct file fl = {.a = a, .path = m->path, .src = m->src, .only = pick ? pick->unit : NULL, .session = use,
			  .pass = &pass, .mod = m};
	definitions(&fl, root, NULL, 0);
	out->notes = arena_alloc(a, (m->n_notes ? m->n_notes : 1) * sizeof(*out->notes));
	for (size_t k = 0; k < m->n_notes; k++) {       /* in line order */
		size_t at = out->n_notes++;
		while (at && out->notes[at - 1].loc.line > m->notes[k].loc.line) {
			out->notes[at] = out->notes[at - 1];
			at--;
		}
		out->notes[at] = m->notes[k];
		out->notes[at].text = arena_strdup(a, out->notes[at].text), out->notes[at].loc.path = path;
	}
	out->units = arena_alloc(a, (fl.n ? fl.n : 1) * sizeof(*out->units));
	if (fl.n)
		memcpy(out->units, fl.units, fl.n * sizeof(*fl.units));
	out->n_units = fl.n;
	for (size_t u = 0; u < fl.n; u++)       /* Bridge runs public recipes; '_' ones build them */
		for (size_t k = 0; out->units[u].name[0] == '_' && k < fl.mod->n_defs; k++)
			out->units[u].helper |= fl.mod->defs[k].called && !strcmp(fl.mod->defs[k].name, out->units[u].name);
	free(fl.units);

	struct errs e = {.a = a, .path = path, .src = buf};
	errors(&e, root, 0);
	out->errors = arena_alloc(a, (e.n ? e.n : 1) * sizeof(*out->errors));
	out->error_what = arena_alloc(a, (e.n ? e.n : 1) * sizeof(*out->error_what));
	if (e.n) {
		memcpy(out->errors, e.at, e.n * sizeof(*e.at));
		memcpy(out->error_what, e.what, e.n * sizeof(*e.what));
	}
	out->n_errors = e.n;
	free(e.at);
	free(e.what);
	fe_py_session_free(own);
	return 0;
}

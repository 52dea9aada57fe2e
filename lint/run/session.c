/* SPDX-License-Identifier: MIT */
/* session: one invocation's packs and settings, and its lint runs (see session.h). */
#include "run/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "config/pack.h"
#include "config/proj.h"
#include "front/py/fe_py.h"
#include "input/pyenv.h"
#include "input/read.h"
#include "input/text.h"
#include "report/baseline.h"
#include "run/post.h"
#include "run/recipe.h"

struct session {
	struct session_opts o;
	struct pack *pack;
	struct baseline *baseline;
	struct arena *arena;            /* the texts of --rules packs */
	const struct text_store *open;  /* config texts read in place of their files */
	bool keep_python;               /* session_keep_python: 'py' serves run after run */
	struct arena *py_arena;         /* py's texts, trees' summaries */
	struct py_session *py;
	size_t py_search;               /* pyenv_added() when it was made: a folder added since drops it */
};

/* Each edit adds its document's text to a kept session: past this many it is read afresh. */
#define SESSION_PY_MAX_TEXTS 64

static void drop_python(struct session *s)
{
	fe_py_session_free(s->py);
	arena_free(s->py_arena);
	s->py = NULL;
	s->py_arena = NULL;
}

void session_keep_python(struct session *s)
{
	s->keep_python = true;
}

void session_forget_python(struct session *s)
{
	drop_python(s);
}

/* --select/--ignore patterns must name a rule: a typo would silently check nothing (or everything). */
static bool filter_ok(const struct pack *p, const char *opt, const char *const *pats, size_t n)
{
	bool ok = true;
	for (size_t k = 0; k < n; k++) {
		bool hit = false;
		for (size_t i = 0; i < p->n_rules && !hit; i++)
			hit = diag_matches(pats[k], p->rules[i]);
		if (hit)
			continue;
		const char *best = pack_closest_rule(p, pats[k]);
		fprintf(stderr, "cglint: %s: no rule matches '%s'%s%s%s\n", opt, pats[k], best ? "; did you mean '" : "",
			best ? best : "", best ? "'?" : "");
		ok = false;
	}
	if (!ok)
		fputs("(cglint rules lists the rule ids and names)\n", stderr);
	return ok;
}

struct session *session_new(const struct session_opts *o, struct arena *a, struct diag_list *problems)
{
	struct session *s = mem_alloc(sizeof(*s));
	s->o = *o;
	char why[256];
	struct target *t = &s->o.lint.target;
	if (!o->lint.mcore_given)
		t->mcore = 0;
	if (!o->lint.bridge_given)
		t->bridge = 0;
	if (target_resolve(t, why, sizeof(why))) {
		fprintf(stderr, "cglint: %s\n(try 'cglint --help')\n", why);
		free(s);
		return NULL;
	}
	s->arena = arena_new();
	s->pack = pack_new();
	pack_load_builtin(s->pack);
	diag_init(problems, a, &s->pack->lookup, NULL);
	bool bad = false;
	for (size_t k = 0; k < o->n_rule_files; k++) {
		char *text;
		size_t len;
		size_t before = problems->n;
		if (read_path(problems, s->arena, o->rule_files[k], &text, &len) == 0)
			pack_load(s->pack, problems, o->rule_files[k], text, len);
		bad |= problems->n > before;
	}
	if (!bad && (!filter_ok(s->pack, "--select", o->filter.select, o->filter.n_select) ||
		     !filter_ok(s->pack, "--ignore", o->filter.ignore, o->filter.n_ignore))) {
		diag_release(problems);
		pack_free(s->pack);
		arena_free(s->arena);
		free(s);
		return NULL;
	}
	if (!bad && o->baseline)
		s->baseline = baseline_read(o->baseline, s->arena, problems);
	return s;
}

void session_free(struct session *s)
{
	if (!s)
		return;
	drop_python(s);
	baseline_free(s->baseline);
	pack_free(s->pack);
	arena_free(s->arena);
	free(s);
}

const struct pack *session_pack(const struct session *s)
{
	return s->pack;
}

const struct target *session_target(const struct session *s)
{
	return &s->o.lint.target;
}

static void begin(struct session *s, struct session_result *out)
{
	*out = (struct session_result){0};
	lint_run_init(&out->run, s->pack, &s->o.lint, &s->o.filter, NULL);
	if (s->keep_python) {
		if (s->py && (!fe_py_session_current(s->py, SESSION_PY_MAX_TEXTS) || s->py_search != pyenv_added()))
			drop_python(s);
		if (!s->py) {
			s->py_arena = arena_new();
			s->py = recipe_py_session(s->pack, s->py_arena);
			s->py_search = pyenv_added();
		}
		out->run.py = s->py;
		out->run.py_kept = true;
	}
	if (!s->o.isolated) {
		out->run.proj = proj_new(out->run.arena, &out->run.diags, s->pack);
		proj_set_open(out->run.proj, s->open);
	}
	out->texts = out->run.texts;
}

static void end(struct session *s, struct session_result *out)
{
	lint_finish(&out->run);
	struct post_counts c = {0};
	post_run(&out->run, !s->o.no_inline, s->baseline, &c);
	out->suppressed = c.suppressed;
	out->baselined = c.baselined;
	out->excluded = out->run.excluded;
}

void session_lint(struct session *s, const char *const *paths, size_t n, struct session_result *out)
{
	begin(s, out);
	for (size_t k = 0; k < n; k++)
		lint_path(&out->run, paths[k]);
	end(s, out);
}

void session_lint_buffer(struct session *s, const char *path, const char *buf, size_t len,
			 struct session_result *out)
{
	begin(s, out);
	struct lint_run *r = &out->run;
	const char *p = arena_strdup(r->arena, path);
	if (r->proj && proj_excluded(r->proj, p))
		r->excluded++;
	else
		lint_buffer(r, p, arena_strndup(r->arena, buf, len), len);
	end(s, out);
}

void session_result_empty(struct session *s, const char *path, const char *buf, size_t len,
			  struct session_result *out)
{
	*out = (struct session_result){0};
	lint_run_init(&out->run, s->pack, &s->o.lint, &s->o.filter, NULL);
	out->texts = out->run.texts;
	text_put(out->texts, arena_strdup(out->run.arena, path), arena_strndup(out->run.arena, buf, len), len);
}

const struct src_opts *session_sources(const struct session *s)
{
	return &s->o.lint.sources;
}

void session_sources_here(struct session *s)
{
	s->o.lint.sources.in_worker = true;
}

void session_set_open_configs(struct session *s, const struct text_store *open)
{
	s->open = open;
}

void session_check_config(struct session *s, const char *path, struct session_result *out)
{
	begin(s, out);
	struct proj_settings ps;
	if (out->run.proj)
		proj_settings(out->run.proj, path, &ps);     /* reads the configs that apply there */
	end(s, out);
}

void session_result_release(struct session_result *r)
{
	lint_run_release(&r->run);
	*r = (struct session_result){0};
}

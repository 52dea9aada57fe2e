/* SPDX-License-Identifier: MIT */
/* py_call: calls into the functions cglint reads, with what the caller passes (see py_fn.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "front/py/py_fn.h"

#define MAX_WALKS 20000         /* functions walked to follow calls, a run */
#define MAX_SUMS 512            /* summaries kept per function (argument signatures, reads of the
                                 * caller's objects); past them, not followed */

void py_call_note(struct fn *f, TSNode at, const char *text, bool megatron, bool recipe)
{
	struct mod *m = f->mod;
	if (!f->session)
		return;
	struct loc l = py_loc(f->path, at);
	for (size_t k = 0; k < m->n_notes; k++)
		if (m->notes[k].loc.line == l.line && !strcmp(m->notes[k].text, text))
			return;
	if (m->n_notes == m->cap_notes) {
		m->cap_notes = m->cap_notes ? 2 * m->cap_notes : 8;
		m->notes = mem_realloc(m->notes, m->cap_notes * sizeof(*m->notes));
	}
	m->notes[m->n_notes++] = (struct py_note){l, arena_strdup(f->session->a, text), megatron, recipe};
}

/* An absolute module of the package 'pkg' (or 'pkg' itself). */
static bool in_package(const char *module, unsigned level, const char *pkg)
{
	size_t n = strlen(pkg);
	return !level && !strncmp(module, pkg, n) && (!module[n] || module[n] == '.');
}

/* A module of Megatron-Bridge or Megatron Core. */
static bool megatron_module(const char *module, unsigned level)
{
	return in_package(module, level, "megatron.bridge") || in_package(module, level, "megatron.core");
}

/* A recipe's name, as Bridge names its recipes (llama3_8b_pretrain_config). */
static bool recipe_name(const char *fn)
{
	size_t n = strlen(fn);
	return n > 7 && !strcmp(fn + n - 7, "_config");
}

/* Noted at the import 'im': 'called' (the call's function as written) is not followed, through
 * 'full', the module the call reaches, which cglint could not read. One of Bridge's recipes when
 * the function 'fn' is in megatron.bridge.recipes with a recipe's name (not its utils' helpers). */
static void not_followed(struct fn *f, const struct imp *im, const char *full, const char *called, const char *fn)
{
	py_call_note(f, im->at, arena_printf(f->a, "cannot resolve import '%.*s%s' (not found above this file or on "
						   "the Python path): '%s' is not followed", (int)im->level,
					     "..........", im->module, called),
		     megatron_module(full, im->level),
		     in_package(full, im->level, "megatron.bridge.recipes") && recipe_name(fn));
}

/* Whether a package above the module 'name' (megatron.bridge of megatron.bridge.AutoBridge) is
 * read, the top one apart: then the rest is a class or a name in it, not a module cglint could
 * not find. */
static bool package_found(struct fn *f, const char *name, unsigned level)
{
	char *p = arena_strdup(f->a, name);
	for (char *dot; (dot = strrchr(p, '.')) && dot != strchr(p, '.');) {
		*dot = '\0';
		if (fe_py_mod_load(f->session, f->mod, p, level))
			return true;
	}
	return false;
}

/* The function a call names: f(...) in this module or imported, m.f(...) through a module.
 * An import that does not resolve is noted at its line. */
static bool resolve(struct fn *f, TSNode fnode, struct mod **out, size_t *def)
{
	if (py_is(fnode, "identifier")) {
		const char *name = py_text(f, fnode);
		if (py_unit_var(&f->log, name))
			return false;
		/* imported in the function ('from x import f' there), else at module level */
		const struct imp *local = fe_py_mod_import_at(f->mod, name, ts_node_start_byte(fnode), true);
		struct mod *next = local && local->attr ? fe_py_mod_load(f->session, f->mod, local->module, local->level) : NULL;
		if (local ? next && fe_py_mod_lookup(f->session, next, local->attr, 0, out, def)
			  : fe_py_mod_lookup(f->session, f->mod, name, 0, out, def))
			return true;
		const struct imp *im = local ? local : fe_py_mod_import(f->mod, name);
		if (im && im->attr && !fe_py_mod_load(f->session, f->mod, im->module, im->level))
			not_followed(f, im, im->module, name, im->attr);
		/* not bound here: a 'from megatron... import *' cglint could not read may bind it. Said
		 * for a recipe's name (*_config) alone: any other name may be a builtin (len, print) */
		for (size_t k = !im && recipe_name(name) ? f->mod->n_imps : 0; k-- > 0;) {
			const struct imp *star = &f->mod->imps[k];
			if (!strcmp(star->local, "*") && megatron_module(star->module, star->level) &&
			    !fe_py_mod_load(f->session, f->mod, star->module, star->level))
				not_followed(f, star, star->module, name, name);
		}
		return false;
	}
	if (!py_is(fnode, "attribute"))
		return false;
	/* m.f(...) through a module, or p.m.f(...) through a package: the names before the function,
	 * collected from the last */
	const char *path[8];
	size_t n = 0;
	TSNode obj = py_field(fnode, "object"), last = py_field(fnode, "attribute");
	for (; py_is(obj, "attribute") && n < 8; obj = py_field(obj, "object")) {
		TSNode part = py_field(obj, "attribute");
		if (!py_is(part, "identifier"))
			return false;
		path[n++] = py_text(f, part);
	}
	if (!py_is(obj, "identifier") || !py_is(last, "identifier"))
		return false;
	const char *first = py_text(f, obj), *attr = py_text(f, last);
	const struct imp *im = fe_py_mod_import_at(f->mod, first, ts_node_start_byte(fnode), false);
	if (!im || !strcmp(im->local, "*") || py_unit_var(&f->log, first))
		return false;
	/* import a.b as m, import a (a.b.f), or from a import b (b a module) */
	const char *name = !im->attr ? im->module : *im->module ? arena_join(f->a, im->module, ".", im->attr) : im->attr;
	/* Python's own convention names a class in CapWords and a module in lower case: a name so
	 * written on the way (RecipeConfig.from_config_dict) is a class's method, which is noted no
	 * more than the class's constructor is */
	bool through = n > 0, by_class = im->attr && isupper((unsigned char)im->attr[0]);
	while (n) {
		by_class |= isupper((unsigned char)path[n - 1][0]);
		name = arena_join(f->a, name, ".", path[--n]);
	}
	/* through a package: Megatron's alone (recipes.llama.llama3_8b_pretrain_config); another
	 * package's submodules (torch.cuda.device_count) are not read, as before */
	if (through && !megatron_module(name, im->level))
		return false;
	struct mod *m = fe_py_mod_load(f->session, f->mod, name, im->level);
	/* said for Megatron's packages alone, as a 'from' import's function is */
	if (!m && !by_class && megatron_module(name, im->level) && !package_found(f, name, im->level))
		not_followed(f, im, name, py_text(f, fnode), attr);
	return m && fe_py_mod_lookup(f->session, m, attr, 0, out, def);
}

/* The parameters of a def, in order: names, defaults (null nodes where none), positional count. */
struct params {
	const char **names;
	TSNode *defaults;
	size_t n, n_positional;
	bool kwargs;            /* a **kwargs parameter */
};

static void params_of(struct arena *a, const char *src, TSNode def, struct params *out)
{
	TSNode ps = py_field(def, "parameters");
	uint32_t n = ts_node_is_null(ps) ? 0 : ts_node_named_child_count(ps);
	*out = (struct params){.names = arena_alloc(a, (n ? n : 1) * sizeof(char *)),
			       .defaults = arena_alloc(a, (n ? n : 1) * sizeof(TSNode))};
	bool positional = true;
	for (uint32_t k = 0; k < n; k++) {
		TSNode p = ts_node_named_child(ps, k), id = p, dflt = {0};
		if (py_is(p, "typed_parameter"))
			id = ts_node_named_child(p, 0);
		else if (py_is(p, "default_parameter") || py_is(p, "typed_default_parameter"))
			id = py_field(p, "name"), dflt = py_field(p, "value");
		out->kwargs |= py_is(p, "dictionary_splat_pattern") ||
			       (py_is(p, "typed_parameter") && py_is(ts_node_named_child(p, 0), "dictionary_splat_pattern"));
		if (!py_is(id, "identifier")) {
			positional &= py_is(p, "positional_separator");        /* after * or *args: keywords only */
			continue;
		}
		uint32_t s = ts_node_start_byte(id), e = ts_node_end_byte(id);
		const char *name = arena_strndup(a, src + s, e - s);
		if (!strcmp(name, "self") || !strcmp(name, "cls"))
			continue;
		out->names[out->n] = name;
		out->defaults[out->n++] = dflt;
		out->n_positional += positional;
	}
}

/* A summary whose reads of the caller's objects read the same now. */
static bool reads_agree(struct fn *caller, const struct sum *s, const struct py_arg *args, size_t n_args)
{
	for (size_t k = 0; k < s->n_reads; k++) {
		const struct py_read *r = &s->reads[k];
		const char *up = caller ? py_eval_in_caller(caller->a, s->param_ns, s->n_params, args, n_args, r->key) : NULL;
		struct value v = value_unknown;
		const char *why = NULL;
		bool found = up && py_fn_get(caller, up, &v, &why);
		if (found != r->found || (found && (v.kind != r->val.kind || !value_equal(&v, &r->val) ||
						    (v.kind == V_UNKNOWN && (!why) != (!r->why)))))
			return false;
	}
	return true;
}

/* What function 'd' of 'm' does when 'caller' calls it with 'args' ('sig' renders them), walked
 * once for each signature and what it reads of the caller's objects; NULL where it cannot be
 * said (recursion, the depth or walk limit: '*cut' then). */
static const struct sum *summarize(struct py_session *c, const struct py_pass *p, struct fn *caller, struct mod *m,
				   size_t d, unsigned depth, bool *cut, const struct py_arg *args, size_t n_args, const char *sig)
{
	struct def *def = &m->defs[d];
	size_t kept = 0;
	bool walking = false;
	for (struct sum *s = def->sums; s; s = s->next, kept++) {
		if (strcmp(s->sig, sig))
			continue;
		walking |= s->state == 1;
		if (s->state == 2 && reads_agree(caller, s, args, n_args))
			return s;
	}
	if (walking || depth > FE_PY_MAX_DEPTH || c->walks >= MAX_WALKS || kept >= MAX_SUMS) {
		*cut = !walking;
		return NULL;
	}
	struct sum *s = arena_alloc(c->a, sizeof(*s));
	*s = (struct sum){.sig = arena_strdup(c->a, sig), .next = def->sums};
	def->sums = s;
	c->walks++;
	s->state = 1;
	struct fn f = {.a = c->a, .path = m->path, .src = m->src, .session = c, .pass = p, .mod = m,
		       .depth = depth, .args = args, .n_args = n_args, .caller = caller};
	py_unit_init(&f.log, c->a);
	py_walk_def(&f, def->node);
	*s = (struct sum){.sig = s->sig, .next = s->next, .state = 2, .n = f.log.n, .params = f.params,
			  .param_ns = f.param_ns, .n_params = f.n_params, .n_positional = f.n_positional, .ret = f.ret,
			  .next_ns = f.log.next_ns, .over = f.log.over, .reads = f.reads, .n_reads = f.n_reads, .forks = f.forks, .n_forks = f.n_forks};
	s->recs = arena_alloc_raw(c->a, (f.log.n ? f.log.n : 1) * sizeof(*s->recs));
	if (f.log.n)
		memcpy(s->recs, f.log.recs, f.log.n * sizeof(*s->recs));
	py_unit_release(&f.log);
	if (f.cut) {            /* walked with calls cut short: deeper than needed here; not kept */
		*cut = true;
		s->state = 0;
	}
	return s;
}

const struct sum *py_call_top(struct py_session *c, const struct py_pass *p, struct mod *m, size_t d, bool *cut)
{
	/* a walk of one path: only the function holding a chosen if is walked again */
	TSNode def = m->defs[d].node;
	bool chosen = false;
	for (size_t k = 0; p && p->pick && k < p->pick->n && m == p->top; k++)
		chosen |= p->pick->bytes[k] >= ts_node_start_byte(def) && p->pick->bytes[k] < ts_node_end_byte(def);
	return summarize(c, p, NULL, m, d, 0, cut, NULL, 0, chosen ? p->sig : "");
}

/* An argument: an object (a variable bound to a config or one of its sections) or a value. */
static void argument(struct fn *f, TSNode a, struct py_arg *out)
{
	const char *p = py_eval_path(f, a, 0);
	size_t dots = 0;
	for (const char *q = p; q && (q = strchr(q, '.')); q++)
		dots++;
	if (p && dots <= 1 && !(py_is(a, "identifier") && py_unit_value(&f->log, py_text(f, a), &(struct value){0},
									    &(const char *){0}))) {
		*out = (struct py_arg){.ns = p};
		return;
	}
	out->ns = NULL;
	out->val = py_eval(f, a, &out->why, 0);
}

bool py_call_follow(struct fn *f, TSNode call, struct py_ret *ret)
{
	*ret = (struct py_ret){0};
	struct mod *m;
	size_t d;
	/* a parameter's default may call the function again (def f(x=f()):): bounded here, before
	 * the defaults are evaluated, as summarize() bounds the walk */
	if (!f->session || f->depth > FE_PY_MAX_DEPTH || !resolve(f, py_field(call, "function"), &m, &d))
		return false;
	m->defs[d].called |= m == f->mod;
	struct params ps;
	params_of(f->a, m->src, m->defs[d].node, &ps);
	struct py_arg *args = arena_alloc(f->a, (ps.n ? ps.n : 1) * sizeof(*args));
	bool *given = arena_alloc(f->a, (ps.n ? ps.n : 1) * sizeof(*given));
	TSNode an = py_field(call, "arguments");
	uint32_t n = ts_node_is_null(an) ? 0 : ts_node_named_child_count(an);
	size_t pos = 0;
	const char *splat = NULL;       /* a *args or **kwargs whose content is not known */
	for (uint32_t k = 0; k < n; k++) {
		TSNode a = ts_node_named_child(an, k);
		if (py_is(a, "comment"))
			continue;
		if (py_is(a, "list_splat") || py_is(a, "dictionary_splat")) {
			TSNode inner = ts_node_named_child(a, 0);
			if (py_eval_path(f, inner, 0))
				return false;   /* *args holding the config: which parameter is not known */
			const char *w;
			struct value v = py_eval(f, inner, &w, 0);
			if (py_is(a, "dictionary_splat") && v.kind == V_MAP) {
				for (size_t i = 0; i < v.n / 2; i++)
					for (size_t p = 0; v.items[2 * i].kind == V_STR && p < ps.n; p++)
						if (!strcmp(ps.names[p], v.items[2 * i].s) && !given[p]) {
							args[p] = (struct py_arg){.val = v.items[2 * i + 1]};
							given[p] = true;
						}
				continue;
			}
			splat = arena_printf(f->a, "passed through '%s' (not known)", py_snippet(f, a));
			continue;
		}
		size_t p = ps.n;
		TSNode val = a;
		if (py_is(a, "keyword_argument")) {
			const char *name = py_text(f, py_field(a, "name"));
			val = py_field(a, "value");
			for (p = 0; p < ps.n && strcmp(ps.names[p], name); p++)
				;
		} else if (pos < ps.n_positional) {
			p = pos++;
		}
		if (p == ps.n) {        /* taken by *args or **kwargs: an object there is not read */
			const char *path = py_eval_path(f, val, 0);
			if (path)
				py_unit_forget(&f->log, path, true,
					       arena_printf(f->a, "passed to '%s' as an argument cglint does not follow",
							    py_snippet(f, py_field(call, "function"))));
			continue;
		}
		argument(f, val, &args[p]);
		given[p] = true;
	}
	/* parameters the caller leaves out: their defaults, or unknown after an unknown splat */
	struct sbuf sig;
	sbuf_init(&sig);
	sbuf_addn(&sig, "", 0);
	for (size_t p = 0; p < ps.n; p++) {
		if (!given[p] && splat) {
			args[p] = (struct py_arg){.val = value_unknown, .why = splat};
			given[p] = true;
		} else if (!given[p] && !ts_node_is_null(ps.defaults[p])) {
			struct fn g = {.a = f->a, .path = m->path, .src = m->src, .session = f->session, .pass = f->pass,
				       .mod = m, .depth = f->depth + 1};
			py_unit_init(&g.log, f->a);
			args[p].val = py_eval(&g, ps.defaults[p], &args[p].why, 0);
			py_unit_release(&g.log);
			given[p] = true;
		}
		if (!given[p])
			args[p] = (struct py_arg){.val = value_unknown, .absent = true};
		if (!given[p])
			sbuf_adds(&sig, "-\x1f");
		else if (args[p].ns)
			sbuf_adds(&sig, "O\x1f");
		else
			sbuf_printf(&sig, "%s%s\x1f", value_string(f->a, &args[p].val, false),
				    args[p].why ? args[p].why : "");
	}
	bool cut = false;
	const struct sum *s = summarize(f->session, f->pass, f, m, d, f->depth + 1, &cut, args, ps.n, sig.buf);
	sbuf_release(&sig);
	f->cut |= cut;
	if (!s)
		return false;
	const char **from = arena_alloc(f->a, (s->n_params + s->ret.n + 1) * sizeof(*from));
	const char **to = arena_alloc(f->a, (s->n_params + s->ret.n + 1) * sizeof(*to));
	size_t n_map = 0;
	for (size_t p = 0; p < s->n_params && p < ps.n; p++)
		if (args[p].ns) {
			from[n_map] = s->param_ns[p];
			to[n_map++] = args[p].ns;
		}
	/* what it returns: an argument, an object it made (a namespace of ours now), or a value */
	*ret = (struct py_ret){.n = s->ret.n, .tuple = s->ret.tuple,
			       .ns = arena_alloc(f->a, (s->ret.n + 1) * sizeof(char *)),
			       .val = arena_alloc(f->a, (s->ret.n + 1) * sizeof(struct value)),
			       .why = arena_alloc(f->a, (s->ret.n + 1) * sizeof(char *))};
	for (size_t k = 0; k < s->ret.n; k++) {
		ret->val[k] = s->ret.val[k];
		ret->why[k] = s->ret.why[k];
		const char *ns = s->ret.ns[k];
		if (!ns)
			continue;
		for (size_t i = 0; i < n_map && !ret->ns[k]; i++)
			if (!strcmp(from[i], ns))
				ret->ns[k] = to[i];
		bool is_param = false;
		for (size_t i = 0; i < s->n_params; i++)
			is_param |= !strcmp(s->param_ns[i], ns);
		if (!ret->ns[k] && !is_param) {
			ret->ns[k] = py_unit_new_ns(&f->log);
			from[n_map] = ns;
			to[n_map++] = ret->ns[k];
		}
		if (!ret->ns[k]) {
			ret->val[k] = value_unknown;
			ret->why[k] = "from a parameter the caller does not pass";
		}
	}
	py_unit_replay(&f->log, s->recs, s->n, from, to, n_map, py_loc(f->path, call));
	f->log.over |= s->over; /* what the callee wrote past its bound is missing here too */
	return true;
}

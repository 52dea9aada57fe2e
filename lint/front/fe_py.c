/* SPDX-License-Identifier: MIT */
/* fe_py: Python recipe functions -> keys, through tree-sitter (see fe_py.h). */
#include "front/fe_py.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "base/mem.h"
#include "front/fe_py_lit.h"
#include "front/fe_py_mod.h"
#include "front/py_unit.h"

const TSLanguage *tree_sitter_python(void);

#define MAX_WALKS 20000         /* functions walked to follow calls, a run */

struct fn {
	struct arena *a;
	const char *path, *src;
	struct py_log log;
	const char *returned;   /* the namespace the function returns, or NULL */
	struct py_cache *cache; /* NULL: calls are not followed */
	struct mod *mod;
	unsigned depth;
	bool cut;               /* a call was cut off by the depth limit: record not kept */
	const char **params, **param_ns;
	size_t n_params, n_positional;
};

/* ---- small helpers ---- */

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

static const char *text(struct fn *f, TSNode n)
{
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	return arena_strndup(f->a, f->src + s, e - s);
}

static struct loc loc_of(const char *path, TSNode n)
{
	TSPoint p = ts_node_start_point(n);
	return (struct loc){path, p.row + 1, p.column + 1};
}

static TSNode field(TSNode n, const char *name)
{
	return ts_node_child_by_field_name(n, name, (uint32_t)strlen(name));
}

#define var_prefix(f, name) py_unit_var(&(f)->log, (name))
#define var_set(f, name, prefix) py_unit_bind(&(f)->log, (name), (prefix))
#define new_ns(f) py_unit_new_ns(&(f)->log)
#define put(f, key, v, loc) py_unit_put(&(f)->log, (key), (v), (loc))
#define forget(f, prefix) py_unit_forget(&(f)->log, (prefix), false)
#define touch(f, prefix) py_unit_forget(&(f)->log, (prefix), true)

static bool follow(struct fn *f, TSNode call, const char **ret);

/* ---- names ---- */

/* The key an expression names: 'cfg.model.x' -> "#0.model.x", 'cfg.env_vars["A"]' ->
 * "#0.env_vars.A", a tracked variable -> its prefix. NULL for anything else. */
static const char *path_of(struct fn *f, TSNode n, unsigned depth)
{
	if (depth > FE_PY_MAX_NEST)
		return NULL;
	if (is(n, "identifier"))
		return var_prefix(f, text(f, n));
	if (is(n, "attribute")) {
		const char *base = path_of(f, field(n, "object"), depth + 1);
		TSNode attr = field(n, "attribute");
		return base && !ts_node_is_null(attr) ? arena_printf(f->a, "%s.%s", base, text(f, attr)) : NULL;
	}
	if (is(n, "subscript")) {
		const char *base = path_of(f, field(n, "value"), depth + 1);
		TSNode sub = field(n, "subscript");
		struct value k;
		if (!base || ts_node_is_null(sub) || !fe_py_lit_string(f->a, f->src, sub, &k) || strchr(k.s, '.'))
			return NULL;
		return arena_printf(f->a, "%s.%s", base, k.s);
	}
	if (is(n, "parenthesized_expression") && ts_node_named_child_count(n) == 1)
		return path_of(f, ts_node_named_child(n, 0), depth + 1);
	return NULL;
}

/* Where a key's name was written: the attribute, the subscript, the keyword. */
static TSNode name_node(TSNode target)
{
	if (is(target, "attribute")) {
		TSNode a = field(target, "attribute");
		return ts_node_is_null(a) ? target : a;
	}
	if (is(target, "subscript")) {
		TSNode s = field(target, "subscript");
		return ts_node_is_null(s) ? target : s;
	}
	return target;
}

static const char *callee_name(struct fn *f, TSNode call)
{
	TSNode fnode = field(call, "function");
	if (is(fnode, "attribute"))
		fnode = field(fnode, "attribute");
	return is(fnode, "identifier") ? text(f, fnode) : NULL;
}

/* Config classes by their section of a ConfigContainer, for an object built on its own. */
static const char *class_section(const char *cls)
{
	static const struct {
		const char *suffix, *section;
	} map[] = {
		{"ConfigContainer", ""},
		{"Provider", "model"},
		{"ModelConfig", "model"},
		{"TransformerConfig", "model"},
		{"RNGConfig", "rng"},
		{"TrainingConfig", "train"},
		{"DistributedDataParallelConfig", "ddp"},
		{"OptimizerConfig", "optimizer"},
		{"CommOverlapConfig", "comm_overlap"},
		{"RerunStateMachineConfig", "rerun_state_machine"},
		{"CheckpointConfig", "checkpoint"},
		{"LoggerConfig", "logger"},
	};
	size_t n = strlen(cls);
	for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++) {
		size_t m = strlen(map[k].suffix);
		if (n >= m && !strcmp(cls + n - m, map[k].suffix))
			return map[k].section;
	}
	/* Bridge's sized providers: Llama3ModelProvider8B, Qwen3MoEModelProvider30B_A3B, ... */
	return strstr(cls, "ModelProvider") ? "model" : NULL;
}

/* ConfigContainer: the class whose section is the whole config (""). */
static bool is_container(const char *callee)
{
	const char *section = class_section(callee);
	return section && !*section;
}

static bool is_constructor(const char *callee)
{
	return callee && isupper((unsigned char)callee[0]);
}

/* ---- what cglint cannot follow ---- */

static void scan_unknown(struct fn *f, TSNode n, unsigned depth);

static void target_unknown(struct fn *f, TSNode target)
{
	const char *p = path_of(f, target, 0);
	if (p && !is(target, "identifier")) {
		forget(f, p);
		struct value u = value_unknown;
		u.loc = loc_of(f->path, name_node(target));
		put(f, p, u, u.loc);
	} else if (is(target, "identifier")) {
		var_set(f, text(f, target), NULL);  /* rebound where cglint does not follow */
	} else if (is(target, "pattern_list") || is(target, "tuple_pattern") || is(target, "list_pattern")) {
		for (uint32_t k = 0; k < ts_node_named_child_count(target); k++)
			target_unknown(f, ts_node_named_child(target, k));
	}
}

/* Builtins that take an object without changing it: getattr(cfg.model, "x", None). */
static bool reads_only(struct fn *f, TSNode call)
{
	static const char *const names[] = {"getattr", "hasattr", "isinstance", "len", "print", "repr", "str",
					    "type", "id", "bool"};
	TSNode fnode = field(call, "function");
	if (!is(fnode, "identifier"))
		return false;
	const char *name = text(f, fnode);
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(name, names[k]))
			return true;
	return false;
}

/* Assignments and calls that may change the config, where cglint cannot say how. */
static void scan_unknown(struct fn *f, TSNode n, unsigned depth)
{
	if (depth > FE_PY_MAX_NEST || ts_node_is_null(n))
		return;
	const char *t = ts_node_type(n);
	if (!strcmp(t, "assignment") || !strcmp(t, "augmented_assignment")) {
		target_unknown(f, field(n, "left"));
	} else if (!strcmp(t, "for_statement") || !strcmp(t, "for_in_clause")) {
		target_unknown(f, field(n, "left"));
	} else if (!strcmp(t, "call")) {
		TSNode fnode = field(n, "function");
		if (is(fnode, "attribute")) {
			const char *p = path_of(f, field(fnode, "object"), 0);
			if (p)
				touch(f, p);    /* cfg.model.finalize(), cfg.env_vars.update(...) */
		}
		TSNode args = field(n, "arguments");
		for (uint32_t k = 0; !ts_node_is_null(args) && k < ts_node_named_child_count(args); k++) {
			TSNode a = ts_node_named_child(args, k);
			if (is(a, "keyword_argument"))
				a = field(a, "value");
			else if (is(a, "list_splat") || is(a, "dictionary_splat"))
				a = ts_node_named_child(a, 0);
			const char *p = ts_node_is_null(a) ? NULL : path_of(f, a, 0);
			if (p && !reads_only(f, n))
				touch(f, p);    /* helper(cfg), helper(cfg.model) */
		}
	}
	for (uint32_t k = 0; k < ts_node_named_child_count(n); k++)
		scan_unknown(f, ts_node_named_child(n, k), depth + 1);
}

/* ---- what cglint reads ---- */

static void assign(struct fn *f, const char *key, TSNode rhs, struct loc at, unsigned depth);

static void assign_dict(struct fn *f, const char *key, TSNode dict, unsigned depth)
{
	forget(f, key);
	size_t first = f->log.n;
	for (uint32_t k = 0; k < ts_node_named_child_count(dict); k++) {
		TSNode c = ts_node_named_child(dict, k);
		if (is(c, "pair")) {
			struct value name;
			TSNode kn = field(c, "key");
			if (fe_py_lit_string(f->a, f->src, kn, &name) && !strchr(name.s, '.'))
				assign(f, arena_printf(f->a, "%s.%s", key, name.s), field(c, "value"),
				       loc_of(f->path, kn), depth + 1);
			else
				scan_unknown(f, c, depth + 1);
		} else if (is(c, "dictionary_splat")) {
			/* {**BASE, ...}: what BASE holds is not read; keys before it may be overridden */
			for (size_t j = first; j < f->log.n; j++)
				if (f->log.recs[j].op == PY_SET && f->log.recs[j].val.kind != V_UNKNOWN) {
					f->log.recs[j].val = value_unknown;
					f->log.recs[j].val.loc = f->log.recs[j].loc;
				}
			py_unit_mark(&f->log, PY_SPREAD, key, loc_of(f->path, c));
			scan_unknown(f, c, depth + 1);
		}
	}
}

/* Config classes whose field defaults the packs hold (rules/defaults.yaml): a keyword
 * constructor of one leaves its other fields at those defaults. A model family's provider
 * (Llama3ModelProvider8B) has defaults of its own and is not one of them. */
static bool class_defaults_known(const char *cls)
{
	static const char *const known[] = {"GPTModelProvider", "TransformerConfig", "RNGConfig",
					    "DistributedDataParallelConfig", "OptimizerConfig",
					    "RerunStateMachineConfig"};
	for (size_t k = 0; cls && k < sizeof(known) / sizeof(known[0]); k++)
		if (!strcmp(cls, known[k]))
			return true;
	return false;
}

/* Keyword arguments of a config class, under 'key'; the rest of its fields keep the class's
 * defaults where the packs know them, else are not known. */
static void assign_ctor(struct fn *f, const char *key, TSNode call, unsigned depth)
{
	forget(f, key);
	if (class_defaults_known(callee_name(f, call)))
		py_unit_mark(&f->log, PY_CLOSE, key, loc_of(f->path, call));
	TSNode args = field(call, "arguments");
	for (uint32_t k = 0; !ts_node_is_null(args) && k < ts_node_named_child_count(args); k++) {
		TSNode a = ts_node_named_child(args, k);
		if (is(a, "keyword_argument")) {
			TSNode name = field(a, "name");
			assign(f, arena_printf(f->a, "%s.%s", key, text(f, name)), field(a, "value"),
			       loc_of(f->path, name), depth + 1);
		} else {
			scan_unknown(f, a, depth + 1);
		}
	}
}

static void assign(struct fn *f, const char *key, TSNode rhs, struct loc at, unsigned depth)
{
	struct value v;
	if (ts_node_is_null(rhs) || depth > FE_PY_MAX_NEST) {
		v = value_unknown;
	} else if (fe_py_lit_value(f->a, f->path, f->src, rhs, &v, 0)) {
		forget(f, key);
		put(f, key, v, at);
		return;
	} else if (is(rhs, "dictionary")) {
		assign_dict(f, key, rhs, depth);
		return;
	} else if (is(rhs, "call") && is_constructor(callee_name(f, rhs))) {
		assign_ctor(f, key, rhs, depth);
		return;
	} else if (is(rhs, "identifier") && var_prefix(f, text(f, rhs))) {
		/* model=model_cfg: the object built before becomes this section */
		const char *from = var_prefix(f, text(f, rhs));
		forget(f, key);
		py_unit_copy(&f->log, from, key);
		var_set(f, text(f, rhs), key);
		return;
	} else {
		scan_unknown(f, rhs, depth + 1);
		v = value_unknown;
	}
	forget(f, key);
	v.loc = at;
	put(f, key, v, at);
}

/* 'name = rhs' at body level: binds a config, an alias of a section, or something else. */
static void bind(struct fn *f, const char *name, TSNode rhs)
{
	const char *p = path_of(f, rhs, 0);
	if (p && !is(rhs, "identifier")) {
		var_set(f, name, p);    /* model = cfg.model */
		return;
	}
	if (p) {
		var_set(f, name, p);    /* c = cfg */
		return;
	}
	if (is(rhs, "call")) {
		const char *callee = callee_name(f, rhs), *ret;
		const char *section = is_constructor(callee) ? class_section(callee) : NULL;
		if (!section && follow(f, rhs, &ret)) {
			var_set(f, name, ret ? ret : new_ns(f));        /* cfg = llama3_8b_pretrain_config() */
			return;
		}
		if (!section)
			scan_unknown(f, rhs, 0);        /* cfg = tweak(cfg) */
		const char *ns = new_ns(f);
		if (section) {
			const char *key = *section ? arena_printf(f->a, "%s.%s", ns, section) : ns;
			assign_ctor(f, key, rhs, 0);
			var_set(f, name, key);
		} else {
			var_set(f, name, ns);   /* a base recipe cglint cannot read */
		}
		return;
	}
	scan_unknown(f, rhs, 0);
	var_set(f, name, NULL);
}

static void statement(struct fn *f, TSNode st)
{
	if (f->log.over)
		return;         /* not read (CG903): the rest would only cost time */
	const char *t = ts_node_type(st);
	if (!strcmp(t, "return_statement")) {
		TSNode v = ts_node_named_child(st, 0);
		const char *p = ts_node_is_null(v) ? NULL : path_of(f, v, 0);
		const char *ret;
		if (p && !strchr(p, '.')) {
			f->returned = p;
		} else if (is(v, "call") && !is_constructor(callee_name(f, v)) && follow(f, v, &ret)) {
			f->returned = ret && !strchr(ret, '.') ? ret : NULL;   /* return helper(cfg) */
		} else if (is(v, "call") && is_constructor(callee_name(f, v)) && is_container(callee_name(f, v))) {
			f->returned = new_ns(f);        /* return ConfigContainer(model=..., ...) */
			assign_ctor(f, f->returned, v, 0);
		} else if (!ts_node_is_null(v)) {
			scan_unknown(f, v, 0);
		}
		return;
	}
	const char *ret;
	if (!strcmp(t, "expression_statement") && ts_node_named_child_count(st) == 1 &&
	    is(ts_node_named_child(st, 0), "call") && follow(f, ts_node_named_child(st, 0), &ret))
		return;         /* helper(cfg), read and replayed */
	if (strcmp(t, "expression_statement") || ts_node_named_child_count(st) != 1 ||
	    !is(ts_node_named_child(st, 0), "assignment")) {
		scan_unknown(f, st, 0);         /* a call, control flow, a nested def, ... */
		return;
	}
	/* a = b = value: the targets from the left, the value at the end of the chain */
	TSNode targets[64];
	size_t n = 0;
	TSNode a = ts_node_named_child(st, 0), rhs = field(a, "right");
	targets[n++] = field(a, "left");
	while (is(rhs, "assignment") && n < 64) {
		targets[n++] = field(rhs, "left");
		rhs = field(rhs, "right");
	}
	if (is(rhs, "assignment") || ts_node_is_null(rhs)) {
		scan_unknown(f, st, 0);
		return;
	}
	for (size_t k = 0; k < n; k++) {
		TSNode tg = targets[k];
		if (ts_node_is_null(tg))
			continue;
		if (is(tg, "identifier")) {
			bind(f, text(f, tg), rhs);
			continue;
		}
		const char *key = path_of(f, tg, 0);
		if (key && strchr(key, '.'))
			assign(f, key, rhs, loc_of(f->path, name_node(tg)), 0);
		else
			target_unknown(f, tg);
	}
}

static void parameters(struct fn *f, TSNode params)
{
	uint32_t n = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
	f->params = arena_alloc(f->a, (n ? n : 1) * sizeof(*f->params));
	f->param_ns = arena_alloc(f->a, (n ? n : 1) * sizeof(*f->param_ns));
	bool positional = true;
	for (uint32_t k = 0; k < n; k++) {
		TSNode p = ts_node_named_child(params, k);
		TSNode id = p;
		if (is(p, "typed_parameter"))
			id = ts_node_named_child(p, 0);
		else if (is(p, "default_parameter") || is(p, "typed_default_parameter"))
			id = field(p, "name");
		if (!is(id, "identifier")) {
			positional &= is(p, "positional_separator");   /* after * or *args: keywords only */
			continue;
		}
		const char *name = text(f, id);
		if (!strcmp(name, "self") || !strcmp(name, "cls"))
			continue;
		const char *ns = new_ns(f);
		var_set(f, name, ns);
		f->params[f->n_params] = name;
		f->param_ns[f->n_params++] = ns;
		f->n_positional += positional;
	}
}

static void walk(struct fn *f, TSNode def)
{
	TSNode body = field(def, "body");
	parameters(f, field(def, "parameters"));
	for (uint32_t k = 0; !ts_node_is_null(body) && k < ts_node_named_child_count(body); k++) {
		TSNode st = ts_node_named_child(body, k);
		if (!is(st, "comment"))
			statement(f, st);
	}
}

/* ---- calls: modules, their functions, and what each one does ---- */

/* The function a call names: f(...) in this module or imported, m.f(...) through a module. */
static bool resolve(struct fn *f, TSNode fnode, struct mod **out, size_t *def)
{
	if (is(fnode, "identifier"))
		return !var_prefix(f, text(f, fnode)) && fe_py_mod_lookup(f->cache, f->mod, text(f, fnode), 0, out, def);
	if (!is(fnode, "attribute") || !is(field(fnode, "object"), "identifier"))
		return false;
	const char *obj = text(f, field(fnode, "object")), *attr = text(f, field(fnode, "attribute"));
	for (size_t k = f->mod->n_imps; k-- > 0;) {
		const struct imp *im = &f->mod->imps[k];
		if (strcmp(im->local, obj))
			continue;
		/* import a.b as m, or from a import b (b a module) */
		const char *name = !im->attr ? im->module
				   : *im->module ? arena_printf(f->a, "%s.%s", im->module, im->attr) : im->attr;
		struct mod *m = fe_py_mod_load(f->cache, f->mod, name, im->level);
		return m && fe_py_mod_lookup(f->cache, m, attr, 0, out, def);
	}
	return false;
}

/* What function 'd' of 'm' does, walked once; NULL where it cannot be said (recursion, the
 * depth or walk limit: '*cut' then). */
static const struct sum *summarize(struct py_cache *c, struct mod *m, size_t d, unsigned depth, bool *cut)
{
	struct sum *s = &m->defs[d].sum;
	if (s->state == 2)
		return s;
	if (s->state == 1 || depth > FE_PY_MAX_DEPTH || c->walks >= MAX_WALKS) {
		*cut = s->state != 1;
		return NULL;
	}
	c->walks++;
	s->state = 1;
	struct fn f = {.a = c->a, .path = m->path, .src = m->src, .cache = c, .mod = m, .depth = depth};
	py_unit_init(&f.log, c->a);
	walk(&f, m->defs[d].node);
	*s = (struct sum){.state = 2, .n = f.log.n, .params = f.params, .param_ns = f.param_ns,
			  .n_params = f.n_params, .n_positional = f.n_positional, .returned = f.returned,
			  .next_ns = f.log.next_ns, .over = f.log.over};
	s->recs = arena_alloc(c->a, (f.log.n ? f.log.n : 1) * sizeof(*s->recs));
	if (f.log.n)
		memcpy(s->recs, f.log.recs, f.log.n * sizeof(*s->recs));
	py_unit_release(&f.log);
	if (f.cut) {            /* walked with calls cut short: deeper than needed here; not kept */
		*cut = true;
		s->state = 0;
	}
	return s;
}

/* A call into a function cglint reads: its records on its parameters, replayed on the
 * arguments; '*ret' is what its result names (a new object, an argument, or NULL). False when
 * the callee is not one cglint can read: the caller treats the call as unknown. */
static bool follow(struct fn *f, TSNode call, const char **ret)
{
	*ret = NULL;
	struct mod *m;
	size_t d;
	if (!f->cache || !resolve(f, field(call, "function"), &m, &d))
		return false;
	bool cut = false;
	const struct sum *s = summarize(f->cache, m, d, f->depth + 1, &cut);
	f->cut |= cut;
	if (!s)
		return false;
	TSNode args = field(call, "arguments");
	uint32_t n = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
	const char **from = arena_alloc(f->a, (s->n_params + 1) * sizeof(*from));
	const char **to = arena_alloc(f->a, (s->n_params + 1) * sizeof(*to));
	size_t n_map = 0, pos = 0;
	for (uint32_t k = 0; k < n; k++) {
		TSNode a = ts_node_named_child(args, k);
		if (is(a, "comment"))
			continue;
		const char *param = NULL, *path;
		if (is(a, "keyword_argument")) {
			param = text(f, field(a, "name"));
			path = path_of(f, field(a, "value"), 0);
		} else if (is(a, "list_splat") || is(a, "dictionary_splat")) {
			if (path_of(f, ts_node_named_child(a, 0), 0))
				return false;   /* *args holding the config: which parameter is not known */
			continue;
		} else {
			path = path_of(f, a, 0);
			param = pos < s->n_positional ? s->params[pos] : NULL;
			pos++;
		}
		size_t p = 0;
		while (param && p < s->n_params && strcmp(s->params[p], param))
			p++;
		if (path && (!param || p == s->n_params))
			touch(f, path); /* taken by **kwargs: not read */
		else if (path) {
			from[n_map] = s->param_ns[p];
			to[n_map++] = path;
		}
	}
	const char *result = NULL;
	if (s->returned) {
		for (size_t k = 0; k < n_map && !result; k++)
			if (!strcmp(from[k], s->returned))
				result = to[k];
		bool is_param = false;
		for (size_t k = 0; k < s->n_params; k++)
			is_param |= !strcmp(s->param_ns[k], s->returned);
		if (!is_param) {
			result = new_ns(f);
			from[n_map] = s->returned;
			to[n_map++] = result;
		}
	}
	py_unit_replay(&f->log, s->recs, s->n, from, to, n_map);
	f->log.over |= s->over; /* what the callee wrote past its bound is missing here too */
	*ret = result;
	return true;
}

/* ---- units ---- */

struct file {
	struct arena *a;
	const char *path, *src;
	struct py_cache *cache;
	struct mod *mod;
	struct py_unit *units;
	size_t n, cap;
};

static void function(struct file *fl, TSNode def, const char *owner, size_t top)
{
	TSNode name = field(def, "name"), body = field(def, "body");
	if (ts_node_is_null(name) || ts_node_is_null(body))
		return;
	struct arena *a = fl->cache ? fl->cache->a : fl->a;
	struct fn f = {.a = a, .path = fl->path, .src = fl->src, .cache = fl->cache, .mod = fl->mod};
	py_unit_init(&f.log, a);
	struct py_log view = {0};
	const char *ns;
	bool cut = false;
	const struct sum *s = top != (size_t)-1 ? summarize(fl->cache, fl->mod, top, 0, &cut) : NULL;
	if (s) {                /* a module-level function: walked once, for its callers too */
		view = (struct py_log){.a = a, .recs = s->recs, .n = s->n, .cap = s->n, .next_ns = s->next_ns,
				       .over = s->over};
		ns = s->returned ? s->returned : py_unit_busiest(&view, a);
	} else {
		walk(&f, def);
		view = f.log;
		ns = f.returned ? f.returned : py_unit_busiest(&f.log, a);
	}
	struct py_unit u = {.loc = loc_of(fl->path, name)};
	u.name = owner ? arena_printf(fl->a, "%s.%s", owner, text(&f, name)) : text(&f, name);
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

static void definitions(struct file *fl, TSNode block, const char *owner, unsigned depth)
{
	if (depth > 8)
		return;
	for (uint32_t k = 0; k < ts_node_named_child_count(block); k++) {
		TSNode d = ts_node_named_child(block, k);
		if (is(d, "decorated_definition"))
			d = field(d, "definition");
		if (is(d, "function_definition")) {
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
				definitions(fl, body, owner ? arena_printf(fl->a, "%s.%s", owner, cls) : cls,
					    depth + 1);
			}
		}
	}
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

struct py_cache *fe_py_cache_new(struct arena *a)
{
	struct py_cache *c = mem_alloc(sizeof(*c));
	*c = (struct py_cache){.a = a, .parser = ts_parser_new()};
	if (c->parser && !ts_parser_set_language(c->parser, tree_sitter_python())) {
		ts_parser_delete(c->parser);
		c->parser = NULL;
	}
	return c;
}

void fe_py_cache_free(struct py_cache *c)
{
	if (!c)
		return;
	for (size_t k = 0; k < c->n; k++)
		ts_tree_delete(c->mods[k]->tree);
	free(c->mods);
	if (c->parser)
		ts_parser_delete(c->parser);
	free(c);
}

size_t fe_py_cache_count(const struct py_cache *c)
{
	size_t n = 0;
	for (size_t k = 0; c && k < c->n; k++)
		n += c->mods[k]->from_disk;
	return n;
}

void fe_py_cache_file(const struct py_cache *c, size_t k, const char **path, const char **buf, size_t *len)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->mods[i]->from_disk && k-- == 0) {
			*path = c->mods[i]->path;
			*buf = c->mods[i]->src;
			*len = c->mods[i]->len;
			return;
		}
}

int fe_py_parse(struct arena *a, struct py_cache *c, const char *path, const char *buf, size_t len,
		struct py_file *out)
{
	*out = (struct py_file){0};
	struct py_cache *own = c && c->parser ? NULL : fe_py_cache_new(a);
	struct py_cache *use = own ? own : c;
	if (!use->parser) {
		fe_py_cache_free(own);
		return -1;
	}
	struct mod *m = NULL;   /* a module read earlier to follow a call, with the same text */
	for (size_t k = use->n; k-- > 0 && !m;)
		if (!strcmp(use->mods[k]->path, path) && use->mods[k]->len == len && !memcmp(use->mods[k]->src, buf, len))
			m = use->mods[k];
	if (!m)
		m = fe_py_mod_add(use, arena_strdup(use->a, path), buf, len, false);
	if (!m) {
		fe_py_cache_free(own);
		return -1;
	}
	TSNode root = ts_tree_root_node(m->tree);
	struct file fl = {.a = a, .path = m->path, .src = m->src, .cache = use, .mod = m};
	definitions(&fl, root, NULL, 0);
	out->units = arena_alloc(a, (fl.n ? fl.n : 1) * sizeof(*out->units));
	if (fl.n)
		memcpy(out->units, fl.units, fl.n * sizeof(*fl.units));
	out->n_units = fl.n;
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
	fe_py_cache_free(own);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * py_bridge_reg: Megatron-Bridge's registry of model bridges, read from the Bridge on the search
 * path (see py_fn.h): the bridge class registered for an HF architecture, the provider class it
 * builds, its base bridge and its CONFIG_MAPPING.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "front/py/fe_py_lit.h"
#include "front/py/py_fn.h"
#include "front/py/py_mod.h"

#define MAX_BRIDGE_FILES 512    /* model bridge files scanned a run */
#define MAX_CHAIN 6             /* bridge classes followed up through their bases */

/* A file under megatron/bridge/models that registers a bridge, read once a run. */
struct bfile {
	const char *module;     /* "megatron.bridge.models.llama.llama_bridge" */
	const char *text;
};

struct py_bridge_reg {
	const char *models;     /* the models package's folder, NULL: no Bridge found */
	struct bfile *files;
	size_t n, cap;
};

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

static void scan_dir(struct fn *f, struct py_bridge_reg *pa, const char *dir, const char *module, unsigned depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)) && pa->n < MAX_BRIDGE_FILES) {
		if (e->d_name[0] == '.' || e->d_name[0] == '_')
			continue;
		const char *path = arena_printf(f->session->a, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode) && depth < 2) {
			scan_dir(f, pa, path, arena_join(f->session->a, module, ".", e->d_name), depth + 1);
			continue;
		}
		if (!S_ISREG(st.st_mode) || !has_suffix(e->d_name, ".py") || st.st_size > (1 << 20))
			continue;
		FILE *fp = fopen(path, "rb");
		char *buf = fp ? arena_alloc(f->session->a, (size_t)st.st_size + 1) : NULL;
		size_t got = fp ? fread(buf, 1, (size_t)st.st_size, fp) : 0;
		if (fp)
			fclose(fp);
		if (!buf || !strstr((buf[got] = '\0', buf), "register_bridge("))
			continue;
		pa->files = arena_grow(f->session->a, pa->files, pa->n, &pa->cap, sizeof(*pa->files));
		pa->files[pa->n++] = (struct bfile){
			arena_printf(f->session->a, "%s.%.*s", module, (int)(strlen(e->d_name) - 3), e->d_name), buf};
	}
	if (d)
		closedir(d);
}

/* The run's list of bridge files, made on first use. */
static struct py_bridge_reg *bridges(struct fn *f)
{
	if (f->session->bridges)
		return f->session->bridges;
	struct py_bridge_reg *pa = arena_alloc(f->session->a, sizeof(*pa));
	f->session->bridges = pa;
	const char *init = py_mod_find(f->session->a, f->path, "megatron.bridge.models", 0);
	if (init && has_suffix(init, "/__init__.py")) {
		pa->models = arena_strndup(f->session->a, init, strlen(init) - strlen("/__init__.py"));
		scan_dir(f, pa, pa->models, "megatron.bridge.models", 0);
	}
	return pa;
}

struct klass *py_bridge_reg_class(struct py_session *c, struct mod *m, const char *name, struct mod **out)
{
	size_t at;
	return fe_py_mod_class(c, m, name, 0, out, &at) ? &(*out)->classes[at] : NULL;
}

/* Whether 'e' is a call of register_bridge (MegatronModelBridge.register_bridge(...)). */
static bool register_call(const struct mod *m, TSNode e)
{
	if (!py_is(e, "call"))
		return false;
	uint32_t s = ts_node_start_byte(e), end = ts_node_start_byte(py_field(e, "arguments"));
	return end - s >= 15 && !strncmp(m->src + end - 15, "register_bridge", 15);
}

/* 'NAME = ...register_bridge(...)(NAME)' at the module's level, in an if or a try too, as Ministral
 * 3's bridge registers itself where transformers has its class (v0.6.0 ministral3_bridge.py
 * L247-257): the inner call's arguments, or a null node. */
static TSNode registered_later(struct fn *f, const struct mod *m, TSNode block, const char *cls, unsigned depth)
{
	TSNode none = {0};
	for (uint32_t i = 0; depth < 6 && i < ts_node_named_child_count(block); i++) {
		TSNode st = ts_node_named_child(block, i), e = ts_node_named_child(st, 0);
		if (py_is(st, "if_statement") || py_is(st, "try_statement") || py_is(st, "block") ||
		    py_is(st, "else_clause") || py_is(st, "elif_clause") || py_is(st, "except_clause") ||
		    py_is(st, "finally_clause")) {
			TSNode got = registered_later(f, m, st, cls, depth + 1);
			if (!ts_node_is_null(got))
				return got;
			continue;
		}
		if (!py_is(st, "expression_statement") || !py_is(e, "assignment"))
			continue;
		TSNode left = py_field(e, "left"), right = py_field(e, "right");
		TSNode inner = py_is(right, "call") ? py_field(right, "function") : none;
		TSNode args = py_is(right, "call") ? py_field(right, "arguments") : none;
		TSNode arg = !ts_node_is_null(args) && ts_node_named_child_count(args) == 1 ? ts_node_named_child(args, 0)
											 : none;
		if (py_is(left, "identifier") && py_is(arg, "identifier") && register_call(m, inner) &&
		    !strcmp(py_node_text(f->a, m->src, left), cls) && !strcmp(py_node_text(f->a, m->src, arg), cls))
			return py_field(inner, "arguments");
	}
	return none;
}

/* The arguments of a class's register_bridge(...): its decorator, or a call on it further down. */
static TSNode registration(struct fn *f, const struct mod *m, const struct klass *k)
{
	TSNode none = {0}, parent = ts_node_parent(k->node);
	for (uint32_t i = 0; py_is(parent, "decorated_definition") && i < ts_node_named_child_count(parent); i++) {
		TSNode d = ts_node_named_child(parent, i);
		TSNode e = py_is(d, "decorator") && ts_node_named_child_count(d) ? ts_node_named_child(d, 0) : none;
		if (register_call(m, e))
			return py_field(e, "arguments");
	}
	return registered_later(f, m, ts_tree_root_node(m->tree), k->name, 0);
}

static TSNode keyword(struct fn *f, const struct mod *m, TSNode args, const char *name)
{
	TSNode none = {0};
	for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
		TSNode a = ts_node_named_child(args, i);
		if (!py_is(a, "keyword_argument"))
			continue;
		TSNode n = py_field(a, "name");
		uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
		if (e - s == strlen(name) && !strncmp(m->src + s, name, e - s))
			return py_field(a, "value");
	}
	(void)f;
	return none;
}

/* Whether a register_bridge source= names 'arch': the class itself, its name, or a constant. */
static bool names_arch(struct fn *f, struct mod *m, TSNode src, const char *arch)
{
	struct value v;
	const char *why;
	if (py_is(src, "identifier") && !strcmp(py_node_text(f->a, m->src, src), arch))
		return true;
	if (fe_py_lit_value(f->a, m->path, m->src, src, &v, 0))
		return v.kind == V_STR && !strcmp(v.s, arch);
	return py_is(src, "identifier") && py_eval_global(f->session, m, py_node_text(f->a, m->src, src), &v, &why, 0) &&
	       v.kind == V_STR && !strcmp(v.s, arch);
}

/* The bridge class registered for 'arch', and the provider class it builds. */
const char *py_bridge_reg_find(struct fn *f, const char *arch, struct py_bridge_found *r)
{
	struct py_bridge_reg *pa = bridges(f);
	if (!pa->models)
		return "cglint finds no Megatron-Bridge (megatron.bridge.models) on the search path to map it";
	for (size_t i = 0; i < pa->n && !r->bk; i++) {
		const char *hit = strstr(pa->files[i].text, arch);
		if (!hit)
			continue;
		struct mod *m = fe_py_mod_load(f->session, f->mod, pa->files[i].module, 0);
		for (size_t k = 0; m && k < m->n_classes && !r->bk; k++) {
			TSNode args = registration(f, m, &m->classes[k]);
			if (!ts_node_is_null(args) && names_arch(f, m, keyword(f, m, args, "source"), arch)) {
				r->bm = m;
				r->bk = &m->classes[k];
			}
		}
	}
	if (!r->bk)
		return arena_printf(f->a, "no model bridge of the Megatron-Bridge at %s registers %s", pa->models, arch);
	/* the provider: register_bridge(provider=...), else GPT's */
	TSNode p = keyword(f, r->bm, registration(f, r->bm, r->bk), "provider");
	if (py_is(p, "identifier"))
		r->pk = py_bridge_reg_class(f->session, r->bm, py_node_text(f->a, r->bm->src, p), &r->pm);
	else if (!ts_node_is_null(p))
		return arena_printf(f->a, "%s's provider '%s' is not a class name cglint reads", r->bk->name,
				    py_node_text(f->a, r->bm->src, p));
	else {
		struct mod *gm = fe_py_mod_load(f->session, f->mod, "megatron.bridge.models.gpt_provider", 0);
		r->pk = gm ? py_bridge_reg_class(f->session, gm, "GPTModelProvider", &r->pm) : NULL;
	}
	if (!r->pk)
		return arena_printf(f->a, "cglint does not find the provider class of %s", r->bk->name);
	return NULL;
}

/* The class a bridge class derives from (its first base), or NULL at MegatronModelBridge. */
struct klass *py_bridge_reg_base(struct fn *f, struct mod *m, struct klass *k, struct mod **bm, bool *generic)
{
	TSNode sup = py_field(k->node, "superclasses");
	TSNode b = !ts_node_is_null(sup) && ts_node_named_child_count(sup) ? ts_node_named_child(sup, 0) : sup;
	const char *name = ts_node_is_null(b) ? "" : py_node_text(f->a, m->src, b);
	*generic = has_suffix(name, "MegatronModelBridge");
	return *generic || ts_node_is_null(b) ? NULL : py_bridge_reg_class(f->session, m, name, bm);
}

/* The value of 'NAME = ...' in a class's own body, or a null node. */
static TSNode class_attr(struct fn *f, const struct mod *m, const struct klass *k, const char *name)
{
	TSNode none = {0}, body = py_field(k->node, "body");
	for (uint32_t i = 0; !ts_node_is_null(body) && i < ts_node_named_child_count(body); i++) {
		TSNode st = ts_node_named_child(body, i);
		TSNode as = py_is(st, "expression_statement") ? ts_node_named_child(st, 0) : none;
		TSNode left = py_is(as, "assignment") ? py_field(as, "left") : none;
		if (py_is(left, "identifier") && !strcmp(py_node_text(f->a, m->src, left), name))
			return py_field(as, "right");
	}
	return none;
}

static bool mapping_of(struct fn *f, struct mod *m, struct klass *k, struct value *out, unsigned depth);

/* A CONFIG_MAPPING expression: a literal list, Other.CONFIG_MAPPING, or a sum of them. */
static bool mapping_expr(struct fn *f, struct mod *m, TSNode e, struct value *out, unsigned depth)
{
	if (depth > MAX_CHAIN)
		return false;
	if (fe_py_lit_value(f->a, m->path, m->src, e, out, 0))
		return out->kind == V_LIST;
	if (py_is(e, "attribute") && !strcmp(py_node_text(f->a, m->src, py_field(e, "attribute")), "CONFIG_MAPPING")) {
		struct mod *om = NULL;
		struct klass *ok = py_bridge_reg_class(f->session, m, py_node_text(f->a, m->src, py_field(e, "object")), &om);
		return ok && mapping_of(f, om, ok, out, depth + 1);
	}
	struct value x, y;
	TSNode op = py_field(e, "operator");
	if (!py_is(e, "binary_operator") || ts_node_is_null(op) || strcmp(ts_node_type(op), "+") ||
	    !mapping_expr(f, m, py_field(e, "left"), &x, depth + 1) || !mapping_expr(f, m, py_field(e, "right"), &y, depth + 1))
		return false;
	*out = (struct value){.kind = V_LIST, .n = x.n + y.n};
	out->items = arena_alloc(f->a, (out->n ? out->n : 1) * sizeof(*out->items));
	memcpy(out->items, x.items, x.n * sizeof(*x.items));
	memcpy(out->items + x.n, y.items, y.n * sizeof(*y.items));
	return true;
}

/* A bridge class's CONFIG_MAPPING, its own or its bases', up to MegatronModelBridge's. */
static bool mapping_of(struct fn *f, struct mod *m, struct klass *k, struct value *out, unsigned depth)
{
	TSNode e = class_attr(f, m, k, "CONFIG_MAPPING");
	if (!ts_node_is_null(e))
		return mapping_expr(f, m, e, out, depth + 1);
	struct mod *bm = NULL;
	bool generic;
	struct klass *b = depth < MAX_CHAIN ? py_bridge_reg_base(f, m, k, &bm, &generic) : NULL;
	if (!b && generic)
		b = py_bridge_reg_class(f->session, m, "MegatronModelBridge", &bm);
	return b && b != k && mapping_of(f, bm, b, out, depth + 1);
}

bool py_bridge_reg_mapping(struct fn *f, struct mod *m, struct klass *k, struct value *out)
{
	return mapping_of(f, m, k, out, 0);
}

/* SPDX-License-Identifier: MIT */
/* py_walk: a function's statements, in order, into its record log (see py_fn.h and fe_py.h). */
#include "front/py/fe_py.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "base/mem.h"
#include "front/py/fe_py_lit.h"
#include "front/py/fe_py_mod.h"
#include "front/py/py_bridge.h"
#include "front/py/py_fn.h"
#include "front/py/py_unit.h"

#define is py_is
#define field py_field
#define loc_of py_loc
#define path_of py_eval_path

#define var_prefix(f, name) py_unit_var(&(f)->log, (name))
#define var_set(f, name, prefix) py_unit_bind(&(f)->log, (name), (prefix))
#define new_ns(f) py_unit_new_ns(&(f)->log)
#define put(f, key, v, loc, why) py_unit_put(&(f)->log, (key), (v), (loc), (why))
#define forget(f, prefix, why) py_unit_forget(&(f)->log, (prefix), false, (why))
#define touch(f, prefix, why) py_unit_forget(&(f)->log, (prefix), true, (why))


/* ---- names ---- */

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
	return is(fnode, "identifier") ? py_text(f, fnode) : NULL;
}

/* ConfigContainer: the class whose section is the whole config (""). */
static bool is_container(const char *callee)
{
	const char *section = py_bridge_section(callee);
	return section && !*section;
}

static bool is_constructor(const char *callee)
{
	return callee && isupper((unsigned char)callee[0]);
}

/* ---- what cglint cannot follow ---- */

static void scan_unknown(struct fn *f, TSNode n, unsigned depth, const char *why);

static void target_unknown(struct fn *f, TSNode target, const char *why)
{
	const char *p = path_of(f, target, 0);
	if (p && !is(target, "identifier")) {
		forget(f, p, why);
		struct value u = value_unknown;
		u.loc = loc_of(f->path, name_node(target));
		put(f, p, u, u.loc, why);
	} else if (is(target, "identifier")) {
		py_unit_bind_value(&f->log, py_text(f, target), value_unknown, why);  /* rebound where cglint does not follow */
	} else if (is(target, "pattern_list") || is(target, "tuple_pattern") || is(target, "list_pattern")) {
		for (uint32_t k = 0; k < ts_node_named_child_count(target); k++)
			target_unknown(f, ts_node_named_child(target, k), why);
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
	const char *name = py_text(f, fnode);
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(name, names[k]))
			return true;
	return false;
}

/* Assignments and calls that may change the config, where cglint cannot say how ('why' says
 * what the code is; NULL: each call names itself). */
static void scan_unknown(struct fn *f, TSNode n, unsigned depth, const char *why)
{
	if (depth > FE_PY_MAX_NEST || ts_node_is_null(n))
		return;
	const char *t = ts_node_type(n);
	if (!strcmp(t, "assignment") || !strcmp(t, "augmented_assignment")) {
		target_unknown(f, field(n, "left"), why ? why : arena_printf(f->a, "set by '%s', which cglint does not read",
									    py_snippet(f, n)));
	} else if (!strcmp(t, "for_statement") || !strcmp(t, "for_in_clause")) {
		target_unknown(f, field(n, "left"), why ? why : "set in a loop");
	} else if (!strcmp(t, "call")) {
		TSNode fnode = field(n, "function");
		const char *w = why ? why : arena_printf(f->a, "changed by '%s', which cglint does not follow",
							 py_snippet(f, fnode));
		if (is(fnode, "attribute")) {
			const char *p = path_of(f, field(fnode, "object"), 0);
			if (p)
				touch(f, p, w);    /* cfg.model.finalize(), cfg.env_vars.update(...) */
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
				touch(f, p, w);    /* helper(cfg), helper(cfg.model) */
		}
	}
	for (uint32_t k = 0; k < ts_node_named_child_count(n); k++)
		scan_unknown(f, ts_node_named_child(n, k), depth + 1, why);
}

/* ---- what cglint reads ---- */

static void assign(struct fn *f, const char *key, TSNode rhs, struct loc at, unsigned depth);

/* A value at 'key': a dict's entries under it (a '**' of an unknown one leaves other names
 * possible), anything else as it is. */
static void put_value(struct fn *f, const char *key, struct value v, struct loc at, const char *why)
{
	forget(f, key, why);
	if (v.kind != V_MAP) {
		put(f, key, v, at, why);
		return;
	}
	for (size_t k = 0; k + 1 < v.n; k += 2)
		if (v.items[k].kind == V_STR && !strchr(v.items[k].s, '.'))
			put(f, arena_join(f->a, key, ".", v.items[k].s), v.items[k + 1], at, NULL);
}

static void assign_dict(struct fn *f, const char *key, TSNode dict, unsigned depth)
{
	const char *why;
	struct value whole = py_eval(f, dict, &why, depth + 1);
	if (whole.kind == V_MAP) {      /* every entry known, '**' entries from dicts cglint reads: */
		put_value(f, key, whole, loc_of(f->path, dict), NULL);
		py_unit_mark(&f->log, PY_CLOSE, key, loc_of(f->path, dict));   /* no other entry */
		/* entries written here are placed on their own keys */
		for (uint32_t k = 0; k < ts_node_named_child_count(dict); k++) {
			TSNode c = ts_node_named_child(dict, k);
			struct value name;
			if (is(c, "pair") && fe_py_lit_string(f->a, f->src, field(c, "key"), &name) && !strchr(name.s, '.')) {
				const char *w;
				struct value v = py_eval(f, field(c, "value"), &w, depth + 1);
				put(f, arena_join(f->a, key, ".", name.s), v, loc_of(f->path, field(c, "key")), w);
			}
		}
		return;
	}
	forget(f, key, why);
	size_t first = f->log.n;
	for (uint32_t k = 0; k < ts_node_named_child_count(dict); k++) {
		TSNode c = ts_node_named_child(dict, k);
		if (is(c, "pair")) {
			struct value name;
			TSNode kn = field(c, "key");
			if (fe_py_lit_string(f->a, f->src, kn, &name) && !strchr(name.s, '.'))
				assign(f, arena_join(f->a, key, ".", name.s), field(c, "value"),
				       loc_of(f->path, kn), depth + 1);
			else
				scan_unknown(f, c, depth + 1, NULL);
		} else if (is(c, "dictionary_splat")) {
			/* {**BASE, ...}: what BASE holds is not read; keys before it may be overridden */
			const char *sw;
			struct value base = py_eval(f, ts_node_named_child(c, 0), &sw, depth + 1);
			if (base.kind == V_MAP) {
				for (size_t j = 0; j + 1 < base.n; j += 2)
					if (base.items[j].kind == V_STR && !strchr(base.items[j].s, '.'))
						put(f, arena_join(f->a, key, ".", base.items[j].s), base.items[j + 1],
						    loc_of(f->path, c), NULL);
				continue;
			}
			const char *w = arena_printf(f->a, "may be overridden by '%s' (%s)", py_snippet(f, c),
						     sw ? sw : "not read");
			for (size_t j = first; j < f->log.n; j++)
				if (f->log.recs[j].op == PY_SET && f->log.recs[j].val.kind != V_UNKNOWN) {
					f->log.recs[j].val = value_unknown;
					f->log.recs[j].val.loc = f->log.recs[j].loc;
					f->log.recs[j].why = w;
				}
			py_unit_mark(&f->log, PY_SPREAD, key, loc_of(f->path, c));
		}
	}
}

static void container_defaults(struct fn *f, const char *key, TSNode call)
{
	TSNode args = field(call, "arguments");
	struct loc at = loc_of(f->path, field(call, "function"));
	bool factory;
	const char *section;
	for (size_t k = 0; (section = py_bridge_container_section(k, &factory)); k++) {
		bool given = false;
		for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args) && !given; i++) {
			TSNode a = ts_node_named_child(args, i);
			given = is(a, "dictionary_splat") ||
				(is(a, "keyword_argument") && !strcmp(py_text(f, field(a, "name")), section));
		}
		if (given)
			continue;
		const char *sk = arena_join(f->a, key, ".", section);
		if (factory)
			py_unit_mark(&f->log, PY_CLOSE, sk, at);
		else
			put(f, sk, value_null, at, NULL);
	}
}

/* Keyword arguments of a config class, under 'key'; the rest of its fields keep the class's
 * defaults where the packs know them, else are not known. */
static void assign_ctor(struct fn *f, const char *key, TSNode call, unsigned depth)
{
	const char *callee = callee_name(f, call);
	forget(f, key, arena_printf(f->a, "replaced by '%s(...)'", callee));
	if (py_bridge_defaults_known(callee))
		py_unit_mark(&f->log, PY_CLOSE, key, loc_of(f->path, call));
	/* a config section's class: its other fields at their defaults (those the packs hold win) */
	const char *section = py_bridge_section(callee), *dot = strchr(key, '.');
	if (section && *section && (!dot || !strchr(dot + 1, '.'))) {
		/* the section is there now (comm_overlap != null), whatever its fields */
		put(f, key, (struct value){.kind = V_MAP}, loc_of(f->path, call), NULL);
		py_class_defaults(f, call, key, py_bridge_defaults_known(callee));
	}
	if (is_container(callee))
		container_defaults(f, key, call);
	TSNode args = field(call, "arguments");
	for (uint32_t k = 0; !ts_node_is_null(args) && k < ts_node_named_child_count(args); k++) {
		TSNode a = ts_node_named_child(args, k);
		if (is(a, "keyword_argument")) {
			TSNode name = field(a, "name");
			const char *kw = arena_join(f->a, key, ".", py_text(f, name));
			size_t from = f->log.n;
			assign(f, kw, field(a, "value"), loc_of(f->path, name), depth + 1);
			py_unit_form(&f->log, from, kw, PY_KEYWORD);
		} else if (is(a, "dictionary_splat")) {
			const char *w;
			struct value v = py_eval(f, ts_node_named_child(a, 0), &w, depth + 1);
			if (v.kind == V_MAP)
				put_value(f, key, v, loc_of(f->path, a), NULL);
			else
				scan_unknown(f, a, depth + 1, NULL);
		} else {
			scan_unknown(f, a, depth + 1, NULL);
		}
	}
}

static void assign(struct fn *f, const char *key, TSNode rhs, struct loc at, unsigned depth)
{
	struct value v;
	const char *why = NULL;
	struct py_ret r;
	if (ts_node_is_null(rhs) || depth > FE_PY_MAX_NEST) {
		v = value_unknown;
		why = "not read (nested too deep)";
	} else if (fe_py_lit_value(f->a, f->path, f->src, rhs, &v, 0)) {
		forget(f, key, NULL);
		put(f, key, v, at, NULL);
		return;
	} else if (is(rhs, "dictionary")) {
		assign_dict(f, key, rhs, depth);
		return;
	} else if (is(rhs, "call") && is_constructor(callee_name(f, rhs))) {
		assign_ctor(f, key, rhs, depth);
		return;
	} else if (is(rhs, "identifier") && var_prefix(f, py_text(f, rhs))) {
		/* model=model_cfg: the object built before becomes this section */
		const char *from = var_prefix(f, py_text(f, rhs)), *vw = py_unit_var_why(&f->log, py_text(f, rhs));
		forget(f, key, vw);
		struct value u = value_unknown;
		u.loc = at;
		if (!py_unit_copy(&f->log, from, key) && vw)
			put(f, key, u, at, vw);
		var_set(f, py_text(f, rhs), key);
		return;
	} else if (is(rhs, "call") && py_bridge_auto_provider(f, key, rhs, &why)) {
		return;         /* AutoBridge.from_hf_pretrained(...).to_megatron_provider() */
	} else if (why) {
		v = value_unknown;      /* one it cannot resolve (not in the cache): why names the cause */
	} else if (is(rhs, "call") && py_call_follow(f, rhs, &r)) {
		/* cfg.mixed_precision = bf16_mixed(): the object it builds becomes this section */
		if (r.n == 1 && !r.tuple && r.ns[0]) {
			forget(f, key, NULL);
			py_unit_copy(&f->log, r.ns[0], key);
			return;
		}
		v = r.n == 1 && !r.tuple ? r.val[0] : value_unknown;
		why = r.n == 1 && !r.tuple ? r.why[0] : arena_printf(f->a, "from '%s', which returns nothing cglint reads",
								      py_snippet(f, field(rhs, "function")));
	} else {
		v = py_eval(f, rhs, &why, depth + 1);
		if (v.kind == V_UNKNOWN)
			scan_unknown(f, rhs, depth + 1, NULL);
	}
	if (v.kind == V_UNKNOWN)
		v.loc = at;
	put_value(f, key, v, at, why);
}

/* 'name = rhs' at body level: binds a config, an alias of a section, or a value. */
static void bind(struct fn *f, const char *name, TSNode rhs)
{
	const char *p = path_of(f, rhs, 0);
	size_t dots = 0;
	for (const char *q = p; q && (q = strchr(q, '.')); q++)
		dots++;
	bool is_value = false;  /* tp = cfg.model.tensor_model_parallel_size: a key set before */
	for (size_t k = f->log.n; p && dots > 1 && k-- > 0;)
		if (!strcmp(f->log.recs[k].key, p)) {
			is_value = f->log.recs[k].op == PY_SET;
			break;
		}
	if (p && !is_value) {
		var_set(f, name, p);    /* model = cfg.model, c = cfg */
		return;
	}
	if (is(rhs, "call")) {
		const char *callee = callee_name(f, rhs);
		const char *section = is_constructor(callee) ? py_bridge_section(callee) : NULL;
		struct py_ret r;
		const char *why = NULL, *ns = section ? NULL : new_ns(f);
		if (ns && py_bridge_auto_provider(f, ns, rhs, &why)) {
			var_set(f, name, ns);   /* model = AutoBridge.from_hf_pretrained(...).to_megatron_provider() */
			return;
		}
		if (why) {      /* not in the cache: the object is unknown, and stays so where it is copied */
			struct value u = value_unknown;
			u.loc = py_loc(f->path, rhs);
			put(f, ns, u, u.loc, why);
			py_unit_bind_object(&f->log, name, ns, why);
			return;
		}
		if (!section && py_call_follow(f, rhs, &r)) {
			if (r.n == 1 && !r.tuple && !r.ns[0])
				py_unit_bind_value(&f->log, name, r.val[0], r.why[0]);
			else
				var_set(f, name, r.n == 1 && !r.tuple && r.ns[0] ? r.ns[0] : ns);
			return;         /* cfg = llama3_8b_pretrain_config() */
		}
		if (section) {
			ns = new_ns(f);
			const char *key = *section ? arena_join(f->a, ns, ".", section) : ns;
			assign_ctor(f, key, rhs, 0);
			var_set(f, name, key);
			return;
		}
		struct value v = py_eval(f, rhs, &why, 0);
		if (v.kind != V_UNKNOWN) {
			py_unit_bind_value(&f->log, name, v, NULL);
			return;
		}
		scan_unknown(f, rhs, 0, NULL);  /* cfg = tweak(cfg) */
		/* a base recipe cglint cannot read, or a value it cannot know */
		py_unit_bind_object(&f->log, name, ns, py_eval_call_why(f, rhs));
		return;
	}
	const char *why;
	struct value v = py_eval(f, rhs, &why, 0);
	if (v.kind == V_UNKNOWN)
		scan_unknown(f, rhs, 0, NULL);
	py_unit_bind_value(&f->log, name, v, why);
}

/* 'a, b = rhs': a helper's tuple (opt_cfg, scheduler_cfg = helper(...)), or a tuple of values. */
static void unpack(struct fn *f, TSNode target, TSNode rhs)
{
	uint32_t n = 0;
	TSNode items[64];
	for (uint32_t k = 0; k < ts_node_named_child_count(target) && n < 64; k++)
		if (!is(ts_node_named_child(target, k), "comment"))
			items[n++] = ts_node_named_child(target, k);
	struct py_ret r = {0};
	const char *why = NULL;
	if (is(rhs, "call") && !is_constructor(callee_name(f, rhs)) && py_call_follow(f, rhs, &r) && r.tuple && r.n == n) {
		for (uint32_t k = 0; k < n; k++) {
			if (!is(items[k], "identifier"))
				target_unknown(f, items[k], "unpacked from a call");
			else if (r.ns[k])
				var_set(f, py_text(f, items[k]), r.ns[k]);
			else
				py_unit_bind_value(&f->log, py_text(f, items[k]), r.val[k], r.why[k]);
		}
		return;
	}
	struct value v = r.n ? value_unknown : py_eval(f, rhs, &why, 0);
	if (r.n)
		why = "unpacked from a call whose result cglint cannot split";
	for (uint32_t k = 0; k < n; k++) {
		bool known = v.kind == V_LIST && v.n == n;
		if (is(items[k], "identifier"))
			py_unit_bind_value(&f->log, py_text(f, items[k]), known ? v.items[k] : value_unknown,
					   known ? NULL : why ? why : "unpacked from a value cglint does not know");
		else
			target_unknown(f, items[k], "unpacked from a value");
	}
}

/* 'return x': an object, a value, or a tuple of them. */
static void returns(struct fn *f, TSNode v)
{
	if (ts_node_is_null(v))
		return;
	TSNode items[64];
	uint32_t n = 0;
	bool tuple = is(v, "expression_list") || is(v, "tuple");
	if (tuple) {
		for (uint32_t k = 0; k < ts_node_named_child_count(v) && n < 64; k++)
			if (!is(ts_node_named_child(v, k), "comment"))
				items[n++] = ts_node_named_child(v, k);
	} else {
		items[n++] = v;
	}
	struct py_ret r = {.n = n, .tuple = tuple, .ns = arena_alloc(f->a, n * sizeof(char *)),
			   .val = arena_alloc(f->a, n * sizeof(struct value)), .why = arena_alloc(f->a, n * sizeof(char *))};
	for (uint32_t k = 0; k < n; k++) {
		TSNode e = items[k];
		const char *p = path_of(f, e, 0);
		struct py_ret sub;
		const char *hf_why = NULL, *ns = NULL;
		if (p && (!strchr(p, '.') || tuple)) {  /* an object, or a section in a tuple (optimizer, scheduler) */
			r.ns[k] = p;
		} else if (is(e, "call") && py_bridge_auto_provider(f, ns = new_ns(f), e, &hf_why)) {
			r.ns[k] = ns;   /* return AutoBridge.from_hf_pretrained(...).to_megatron_provider() */
		} else if (hf_why) {
			r.val[k] = value_unknown;       /* the same, not in the cache: why names the model */
			r.why[k] = hf_why;
		} else if (is(e, "call") && is_constructor(callee_name(f, e)) && py_bridge_section(callee_name(f, e))) {
			const char *section = py_bridge_section(callee_name(f, e));
			r.ns[k] = new_ns(f);    /* return ConfigContainer(...), return OptimizerConfig(...) */
			assign_ctor(f, *section ? arena_join(f->a, r.ns[k], ".", section) : r.ns[k], e, 0);
			if (*section)
				r.ns[k] = arena_join(f->a, r.ns[k], ".", section);
		} else if (is(e, "call") && !is_constructor(callee_name(f, e)) && py_call_follow(f, e, &sub)) {
			if (sub.n == 1 && !sub.tuple) {         /* return helper(cfg) */
				r.ns[k] = sub.ns[0] && !strchr(sub.ns[0], '.') ? sub.ns[0] : NULL;
				r.val[k] = sub.ns[0] ? value_unknown : sub.val[0];
				r.why[k] = sub.ns[0] ? (r.ns[k] ? NULL : "a section returned") : sub.why[0];
			} else if (!tuple && sub.tuple) {
				r = sub;                        /* return helper(): its tuple */
				break;
			} else {
				r.val[k] = value_unknown;
				r.why[k] = "from a call that returns nothing cglint reads";
			}
		} else {
			r.val[k] = py_eval(f, e, &r.why[k], 0);
			if (r.val[k].kind == V_UNKNOWN)
				scan_unknown(f, e, 0, NULL);
		}
	}
	py_flow_return(f, &r);
}


static void statement(struct fn *f, TSNode st)
{
	if (f->log.over || f->done)
		return;         /* not read (CG903), or not reached */
	const char *t = ts_node_type(st);
	if (!strcmp(t, "return_statement")) {
		returns(f, ts_node_named_child(st, 0));
		f->done = true;
		return;
	}
	if (!strcmp(t, "if_statement")) {
		py_flow_if(f, st);
		return;
	}
	if (!strcmp(t, "with_statement")) {
		py_walk_block(f, field(st, "body"));    /* the body runs; what the context manager does is not read */
		return;
	}
	struct py_ret r;
	if (!strcmp(t, "expression_statement") && ts_node_named_child_count(st) == 1 &&
	    is(ts_node_named_child(st, 0), "call") && py_call_follow(f, ts_node_named_child(st, 0), &r))
		return;         /* helper(cfg), read and replayed */
	if (strcmp(t, "expression_statement") || ts_node_named_child_count(st) != 1 ||
	    !is(ts_node_named_child(st, 0), "assignment")) {
		if (!strcmp(t, "pass_statement") || !strcmp(t, "comment") || (!strcmp(t, "expression_statement") &&
		    ts_node_named_child_count(st) == 1 && is(ts_node_named_child(st, 0), "string")))
			return; /* a docstring */
		scan_unknown(f, st, 0, !strcmp(t, "for_statement") || !strcmp(t, "while_statement") ? "set in a loop"
				       : !strcmp(t, "try_statement") ? "set in a try statement" : NULL);
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
		scan_unknown(f, st, 0, NULL);
		return;
	}
	if (n == 1 && (is(targets[0], "pattern_list") || is(targets[0], "tuple_pattern") || is(targets[0], "list_pattern"))) {
		unpack(f, targets[0], rhs);
		return;
	}
	for (size_t k = 0; k < n; k++) {
		TSNode tg = targets[k];
		if (ts_node_is_null(tg))
			continue;
		if (is(tg, "identifier")) {
			bind(f, py_text(f, tg), rhs);
			continue;
		}
		const char *key = path_of(f, tg, 0);
		if (key && strchr(key, '.'))
			assign(f, key, rhs, loc_of(f->path, name_node(tg)), 0);
		else
			target_unknown(f, tg, "set where cglint does not read");
	}
}

void py_walk_block(struct fn *f, TSNode body)
{
	struct py_kids it;
	for (py_kids_start(&it, body); py_kids_next(&it);)
		if (!is(it.node, "comment"))
			statement(f, it.node);
	py_kids_end(&it);
}

/* Parameters bound from what the caller passes (f->args), else to defaults, else to objects of
 * their own whose values are unknown. */
static void parameters(struct fn *f, TSNode params)
{
	uint32_t n = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
	f->params = arena_alloc(f->a, (n ? n : 1) * sizeof(*f->params));
	f->param_ns = arena_alloc(f->a, (n ? n : 1) * sizeof(*f->param_ns));
	bool positional = true;
	for (uint32_t k = 0; k < n; k++) {
		TSNode p = ts_node_named_child(params, k);
		TSNode id = p, dflt = {0};
		if (is(p, "typed_parameter"))
			id = ts_node_named_child(p, 0);
		else if (is(p, "default_parameter") || is(p, "typed_default_parameter"))
			id = field(p, "name"), dflt = field(p, "value");
		if (!is(id, "identifier")) {
			positional &= is(p, "positional_separator");   /* after * or *args: keywords only */
			continue;
		}
		const char *name = py_text(f, id);
		if (!strcmp(name, "self") || !strcmp(name, "cls"))
			continue;
		const char *ns = new_ns(f);
		size_t at = f->n_params;
		f->params[at] = name;
		f->param_ns[f->n_params++] = ns;
		f->n_positional += positional;
		const struct py_arg *arg = f->args && at < f->n_args ? &f->args[at] : NULL;
		if (arg && arg->ns) {
			var_set(f, name, ns);
		} else if (arg && !arg->absent) {
			py_unit_bind_value(&f->log, name, arg->val, arg->why);
		} else if (!arg && !ts_node_is_null(dflt)) {
			const char *why;
			struct value v = py_eval(f, dflt, &why, 0);
			if (v.kind == V_NULL)
				var_set(f, name, ns);   /* cfg=None: an object when the caller passes one */
			else
				py_unit_bind_value(&f->log, name, v, why);
		} else {
			var_set(f, name, ns);
		}
	}
}

void py_walk_def(struct fn *f, TSNode def)
{
	parameters(f, field(def, "parameters"));
	py_walk_block(f, field(def, "body"));
}

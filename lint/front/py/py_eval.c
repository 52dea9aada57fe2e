/* SPDX-License-Identifier: MIT */
/* py_eval: Python expressions to values, where cglint can know them (see py_fn.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "front/py/fe_py_lit.h"
#include "front/py/py_fn.h"

#define MAX_ITEMS 4096          /* items a computed list or string may reach ([0] * n, 'a' * n) */

static struct value unknown(const char **why, const char *reason)
{
	*why = reason;
	return value_unknown;
}

/* ---- names ---- */

/* The key an expression names: 'cfg.model.x' -> "#0.model.x", 'cfg.env_vars["A"]' ->
 * "#0.env_vars.A", a tracked variable -> its prefix. NULL for anything else. */
static const char *attr_call(struct fn *f, TSNode call, const char *which, bool *has_default, unsigned depth);

const char *py_eval_path(struct fn *f, TSNode n, unsigned depth)
{
	if (depth > FE_PY_MAX_NEST)
		return NULL;
	if (py_is(n, "identifier"))
		return py_unit_var(&f->log, py_text(f, n));
	if (py_is(n, "attribute")) {
		const char *base = py_eval_path(f, py_field(n, "object"), depth + 1);
		TSNode attr = py_field(n, "attribute");
		return base && !ts_node_is_null(attr) ? arena_join(f->a, base, ".", py_text(f, attr)) : NULL;
	}
	if (py_is(n, "subscript")) {
		const char *base = py_eval_path(f, py_field(n, "value"), depth + 1);
		TSNode sub = py_field(n, "subscript");
		struct value k;
		if (!base || ts_node_is_null(sub) || !fe_py_lit_string(f->a, f->src, sub, &k) || strchr(k.s, '.'))
			return NULL;
		return arena_join(f->a, base, ".", k.s);
	}
	if (py_is(n, "parenthesized_expression") && ts_node_named_child_count(n) == 1)
		return py_eval_path(f, ts_node_named_child(n, 0), depth + 1);
	if (py_is(n, "call")) {
		bool dflt = true;
		const char *key = attr_call(f, n, "getattr", &dflt, depth);
		return dflt ? NULL : key;
	}
	return NULL;
}


const char *py_eval_in_caller(struct arena *a, const char *const *param_ns, size_t n_params,
			     const struct py_arg *args, size_t n_args, const char *key)
{
	for (size_t p = 0; p < n_params && p < n_args; p++)
		if (args[p].ns && py_unit_under(key, param_ns[p]))
			return arena_join(a, args[p].ns, "", key + strlen(param_ns[p]));
	return NULL;
}

bool py_fn_get(struct fn *f, const char *key, struct value *out, const char **why)
{
	if (py_unit_get(&f->log, key, out, why))
		return true;
	const char *up = f->caller ? py_eval_in_caller(f->a, f->param_ns, f->n_params, f->args, f->n_args, key) : NULL;
	if (!up)
		return false;
	bool found = py_fn_get(f->caller, up, out, why);
	f->reads = arena_grow(f->a, f->reads, f->n_reads, &f->cap_reads, sizeof(*f->reads));
	f->reads[f->n_reads++] = (struct py_read){key, found, found ? *out : value_unknown, found ? *why : NULL};
	return found;
}

/* A name bound by an import of 'm': the module's constant, followed through re-exports. */
static bool imported(struct py_session *c, struct mod *m, const struct imp *im, struct value *out, const char **why,
		     unsigned depth)
{
	if (!im->attr) {
		*out = unknown(why, arena_printf(c->a, "from the module '%s' (not a value)", im->module));
		return true;
	}
	struct mod *next = fe_py_mod_load(c, m, im->module, im->level);
	if (!next) {
		const char *dots = arena_printf(c->a, "%.*s%s", (int)im->level, "..........", im->module);
		*out = unknown(why, arena_printf(c->a, "from an unresolved import '%s'", dots));
		return true;
	}
	if (py_eval_global(c, next, im->attr, out, why, depth + 1))
		return true;
	*out = unknown(why, arena_printf(c->a, "from '%s', which is not a constant cglint reads", im->attr));
	return true;
}

bool py_eval_global(struct py_session *c, struct mod *m, const char *name, struct value *out, const char **why,
		    unsigned depth)
{
	if (depth > FE_PY_MAX_DEPTH) {
		*out = unknown(why, "from a chain of imports too long to follow");
		return true;
	}
	for (size_t k = m->n_globs; k-- > 0;) {
		struct glob *g = &m->globs[k];
		const char *gw;
		enum tri live = strcmp(g->name, name) ? TRI_FALSE : fe_py_mod_live(m, g->guard, g->handler, &gw);
		if (live == TRI_FALSE)
			continue;       /* another name, or bound by the other branch of a try */
		if (live == TRI_UNKNOWN) {
			*out = unknown(why, arena_printf(c->a, "from '%s', bound under %s", name, gw));
			return true;
		}
		if (g->state == 1) {
			*out = unknown(why, arena_printf(c->a, "from '%s', defined in terms of itself", name));
			return true;
		}
		if (g->state == 0) {
			g->state = 1;
			struct fn f = {.a = c->a, .path = m->path, .src = m->src, .session = c, .mod = m, .depth = depth};
			py_unit_init(&f.log, c->a);
			g->val = py_eval(&f, g->value, &g->why, 0);
			py_unit_release(&f.log);
			g->state = 2;
		}
		*out = g->val;
		*why = g->why;
		return true;
	}
	for (size_t k = m->n_classes; k-- > 0;)
		if (!strcmp(m->classes[k].name, name)) {
			*out = py_obj_class(c, m, k);   /* a class, as a value */
			*why = NULL;
			return true;
		}
	const struct imp *im = fe_py_mod_import(m, name);
	const char *gw;
	if (im && fe_py_mod_live(m, im->guard, im->handler, &gw) == TRI_UNKNOWN) {
		*out = unknown(why, arena_printf(c->a, "from '%s', imported under %s", name, gw));
		return true;
	}
	return im && imported(c, m, im, out, why, depth);
}

static bool is_param_ns(struct fn *f, const char *prefix)
{
	for (size_t k = 0; k < f->n_params; k++)
		if (!strcmp(f->param_ns[k], prefix))
			return true;
	return false;
}

static struct value name_value(struct fn *f, TSNode n, const char **why)
{
	const char *name = py_text(f, n);
	struct value v;
	if (py_unit_value(&f->log, name, &v, why))
		return v;
	const char *prefix = py_unit_var(&f->log, name);
	if (prefix && is_param_ns(f, prefix))
		return unknown(why, arena_printf(f->a, "from parameter '%s', which has no default", name));
	if (prefix && py_unit_var_why(&f->log, name))
		return unknown(why, py_unit_var_why(&f->log, name));
	if (prefix)
		return unknown(why, arena_printf(f->a, "'%s' is a config object, not a value", name));
	const struct imp *im = f->mod ? fe_py_mod_import_at(f->mod, name, ts_node_start_byte(n), true) : NULL;
	if (im && f->session && imported(f->session, f->mod, im, &v, why, f->depth))
		return v;       /* imported in the function */
	if (f->session && py_eval_global(f->session, f->mod, name, &v, why, f->depth))
		return v;
	return unknown(why, arena_printf(f->a, "from '%s', which cglint does not know here", name));
}

/* 'a.b.c': a key set before in this function, a module's constant (mod.NAME), an attribute of
 * an object (Cls.member, member.name). */
static struct value attribute_value(struct fn *f, TSNode n, const char **why, unsigned depth)
{
	const char *key = py_eval_path(f, n, 0);
	struct value v;
	if (key && strchr(key, '.')) {
		if (py_fn_get(f, key, &v, why))
			return v.kind == V_UNKNOWN ? unknown(why, *why ? *why : "not known where it is read") : v;
		const char *shown = strchr(key, '.') + 1;
		return unknown(why, arena_printf(f->a, "read from '%s', which this function does not set before", shown));
	}
	TSNode obj = py_field(n, "object"), attr = py_field(n, "attribute");
	if (py_is(obj, "identifier") && f->session && !py_unit_var(&f->log, py_text(f, obj))) {
		const struct imp *im = fe_py_mod_import(f->mod, py_text(f, obj));
		if (im && !im->attr) {
			struct mod *m = fe_py_mod_load(f->session, f->mod, im->module, 0);
			if (m && py_eval_global(f->session, m, py_text(f, attr), &v, why, f->depth + 1))
				return v;
		}
	}
	struct value o = key ? value_unknown : py_eval(f, obj, why, depth + 1);
	if (!ts_node_is_null(attr) && py_obj_attr(f, &o, py_text(f, attr), &v, why))
		return v;
	return unknown(why, arena_printf(f->a, "from '%s', which cglint does not read", py_snippet(f, n)));
}

/* ---- operators ---- */

static bool number(const struct value *v, double *d, bool *is_int)
{
	*is_int = v->kind == V_INT || v->kind == V_BOOL;
	return value_is_number(v, d);
}

static struct value num(double d, bool is_int)
{
	if (is_int && fabs(d) < 9e15)
		return (struct value){.kind = V_INT, .i = (long long)d};
	return (struct value){.kind = V_FLOAT, .f = d};
}

static struct value repeat(struct fn *f, const struct value *seq, long long times, const char **why)
{
	if (times < 0)
		times = 0;
	size_t len = seq->kind == V_STR ? strlen(seq->s) : seq->n;
	if (len && (size_t)times > MAX_ITEMS / len)
		return unknown(why, "a repetition too long to hold");
	if (seq->kind == V_STR) {
		char *s = arena_alloc(f->a, len * (size_t)times + 1);
		for (long long k = 0; k < times; k++)
			memcpy(s + (size_t)k * len, seq->s, len);
		return value_str(s);
	}
	struct value out = {.kind = V_LIST, .n = len * (size_t)times, .i = seq->i};
	out.items = arena_alloc(f->a, (out.n ? out.n : 1) * sizeof(*out.items));
	for (size_t k = 0; k < out.n; k++)
		out.items[k] = seq->items[k % len];
	return out;
}

static struct value binary(struct fn *f, const char *op, struct value x, struct value y, const char **why)
{
	double a, b;
	bool ia, ib;
	if (py_obj_is(&x) || py_obj_is(&y))
		return unknown(why, arena_printf(f->a, "from '%s' on an object whose class decides it", op));
	if (number(&x, &a, &ia) && number(&y, &b, &ib)) {
		bool i = ia && ib;
		if (!strcmp(op, "+"))
			return num(a + b, i);
		if (!strcmp(op, "-"))
			return num(a - b, i);
		if (!strcmp(op, "*"))
			return num(a * b, i);
		if (!strcmp(op, "/") && b != 0)
			return num(a / b, false);
		if (!strcmp(op, "//") && b != 0)
			return num(floor(a / b), i);
		if (!strcmp(op, "%") && b != 0)
			return num(a - b * floor(a / b), i);
		if (!strcmp(op, "**") && (!i || b >= 0) && fabs(b) < 64)
			return num(pow(a, b), i);
		return unknown(why, arena_printf(f->a, "from '%s' on numbers cglint does not compute", op));
	}
	if (!strcmp(op, "+") && x.kind == V_STR && y.kind == V_STR)
		return value_str(arena_join(f->a, x.s, "", y.s));
	if ((x.kind == V_LIST && x.i == PY_SEQ_SET) || (y.kind == V_LIST && y.i == PY_SEQ_SET) ||
	    (x.kind == V_LIST && y.kind == V_LIST && x.i && y.i && x.i != y.i))
		return unknown(why, arena_printf(f->a, "from '%s' on a set, or on a list and a tuple", op));
	if (!strcmp(op, "+") && x.kind == V_LIST && y.kind == V_LIST) {
		struct value out = {.kind = V_LIST, .n = x.n + y.n, .i = x.i == y.i ? x.i : PY_SEQ};
		if (out.n > MAX_ITEMS)
			return unknown(why, "a list too long to hold");
		out.items = arena_alloc(f->a, (out.n ? out.n : 1) * sizeof(*out.items));
		for (size_t k = 0; k < x.n; k++)
			out.items[k] = x.items[k];
		for (size_t k = 0; k < y.n; k++)
			out.items[x.n + k] = y.items[k];
		return out;
	}
	if (!strcmp(op, "*") && (x.kind == V_STR || x.kind == V_LIST) && y.kind == V_INT)
		return repeat(f, &x, y.i, why);
	if (!strcmp(op, "*") && (y.kind == V_STR || y.kind == V_LIST) && x.kind == V_INT)
		return repeat(f, &y, x.i, why);
	return unknown(why, arena_printf(f->a, "from '%s' on values cglint does not compute", op));
}

static bool map_get(const struct value *m, const struct value *key, struct value *out)
{
	for (size_t k = m->n / 2; k-- > 0;)
		if (py_obj_equal(&m->items[2 * k], key) == TRI_TRUE) {
			*out = m->items[2 * k + 1];
			return true;
		}
	return false;
}

/* One comparison of a chain; TRI_UNKNOWN where it cannot be said. */
static enum tri compare(const char *op, const struct value *x, const struct value *y)
{
	if (!strcmp(op, "==") || !strcmp(op, "!=") || !strcmp(op, "is") || !strcmp(op, "is not")) {
		enum tri eq = py_obj_equal(x, y);
		bool objects = py_obj_is(x) && py_obj_is(y);    /* classes and members: one object each */
		if ((!strcmp(op, "is") || !strcmp(op, "is not")) && x->kind != V_NULL && y->kind != V_NULL &&
		    x->kind != V_BOOL && !objects)
			return TRI_UNKNOWN;     /* identity of objects */
		bool neg = op[0] == '!' || !strcmp(op, "is not");
		return eq == TRI_UNKNOWN ? eq : (eq == TRI_TRUE) != neg ? TRI_TRUE : TRI_FALSE;
	}
	if (py_obj_is(x) || py_obj_is(y))
		return TRI_UNKNOWN;     /* an object ordered or searched: its class decides */
	if (!strcmp(op, "in") || !strcmp(op, "not in")) {
		bool has = false;
		if (y->kind == V_LIST) {
			for (size_t k = 0; k < y->n && !has; k++) {
				enum tri eq = py_obj_equal(&y->items[k], x);
				if (eq == TRI_UNKNOWN)
					return eq;
				has = eq == TRI_TRUE;
			}
		} else if (y->kind == V_STR && x->kind == V_STR)
			has = strstr(y->s, x->s) != NULL;
		else if (y->kind == V_MAP) {
			struct value ignored;
			has = map_get(y, x, &ignored);
		} else
			return TRI_UNKNOWN;
		return has != (op[0] == 'n') ? TRI_TRUE : TRI_FALSE;
	}
	double a, b;
	int c;
	if (value_is_number(x, &a) && value_is_number(y, &b))
		c = a < b ? -1 : a > b;
	else if (x->kind == V_STR && y->kind == V_STR)
		c = strcmp(x->s, y->s);
	else
		return TRI_UNKNOWN;
	bool r = !strcmp(op, "<") ? c < 0 : !strcmp(op, "<=") ? c <= 0 : !strcmp(op, ">") ? c > 0 : c >= 0;
	return r ? TRI_TRUE : TRI_FALSE;
}

static struct value comparison(struct fn *f, TSNode n, const char **why, unsigned depth)
{
	/* a < b < c: operands are the named children, operators the unnamed ones between them */
	struct value left = value_unknown;
	const char *op = NULL;
	enum tri all = TRI_TRUE;
	bool first = true;
	for (uint32_t k = 0; k < ts_node_child_count(n); k++) {
		TSNode c = ts_node_child(n, k);
		if (!ts_node_is_named(c)) {
			const char *t = ts_node_type(c);
			op = op && (!strcmp(t, "in") || !strcmp(t, "not")) && !strcmp(op, "not") ? "not in"
			   : op && !strcmp(op, "is") && !strcmp(t, "not") ? "is not" : t;
			continue;
		}
		if (py_is(c, "comment"))
			continue;
		const char *w;
		struct value right = py_eval(f, c, &w, depth + 1);
		if (!first) {
			/* no operator between two operands: a tree the parser recovered from an error */
			enum tri r = !op || left.kind == V_UNKNOWN || right.kind == V_UNKNOWN ? TRI_UNKNOWN
				   : compare(op, &left, &right);
			if (r == TRI_FALSE)
				return value_bool(false);
			if (r == TRI_UNKNOWN) {
				all = TRI_UNKNOWN;
				*why = left.kind == V_UNKNOWN ? *why : right.kind == V_UNKNOWN ? w : NULL;
			}
		} else if (right.kind == V_UNKNOWN) {
			*why = w;
		}
		left = right;
		first = false;
		op = NULL;
	}
	if (all == TRI_TRUE)
		return value_bool(true);
	return unknown(why, *why ? *why : arena_printf(f->a, "from '%s', which cglint cannot decide", py_snippet(f, n)));
}

static struct value fstring(struct fn *f, TSNode n, const char **why, unsigned depth)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_addn(&sb, "", 0);
	bool ok = true;
	for (uint32_t k = 0; ok && k < ts_node_named_child_count(n); k++) {
		TSNode c = ts_node_named_child(n, k);
		if (py_is(c, "string_content")) {
			sbuf_addn(&sb, f->src + ts_node_start_byte(c), ts_node_end_byte(c) - ts_node_start_byte(c));
		} else if (py_is(c, "interpolation")) {
			TSNode e = py_field(c, "expression");
			if (!ts_node_is_null(py_field(c, "format_specifier")) || !ts_node_is_null(py_field(c, "type_conversion"))) {
				*why = "from an f-string format cglint does not apply";
				ok = false;
				break;
			}
			struct value v = py_eval(f, e, why, depth + 1);
			if (py_obj_is(&v) && !py_obj_str(f, &v, &v))
				v = value_unknown;
			if (v.kind == V_UNKNOWN || v.kind == V_MAP || v.kind == V_FLOAT || (v.kind == V_LIST && v.i == PY_SEQ_SET)) {
				if (v.kind != V_UNKNOWN)
					*why = "from an f-string of a value cglint does not format";
				ok = false;
				break;
			}
			value_render(&sb, &v, true);
		} else if (py_is(c, "escape_sequence")) {
			ok = false;
			*why = "from an f-string with escapes";
		}
	}
	struct value out = ok ? value_str(arena_strdup(f->a, sb.buf)) : value_unknown;
	sbuf_release(&sb);
	return out;
}

static struct value sequence(struct fn *f, TSNode n, const char **why, unsigned depth)
{
	uint32_t cnt = ts_node_named_child_count(n);
	struct value out = {.kind = V_LIST};
	out.items = arena_alloc(f->a, (cnt ? cnt : 1) * sizeof(*out.items));
	for (uint32_t k = 0; k < cnt; k++) {
		TSNode c = ts_node_named_child(n, k);
		if (py_is(c, "comment"))
			continue;
		if (py_is(c, "list_splat"))
			return unknown(why, "from a list with a '*' entry");
		struct value v = py_eval(f, c, why, depth + 1);
		if (v.kind == V_UNKNOWN)
			return v;
		out.items[out.n++] = v;
	}
	return out;
}

/* A dict: V_MAP with items key, value, ...; a '**' of a known dict is merged, later wins. */
static struct value dict(struct fn *f, TSNode n, const char **why, unsigned depth)
{
	size_t cap = 8, cnt = 0;
	struct value *kv = arena_alloc(f->a, cap * 2 * sizeof(*kv));
	for (uint32_t k = 0; k < ts_node_named_child_count(n); k++) {
		TSNode c = ts_node_named_child(n, k);
		struct value key, val, spread;
		size_t add = 1;
		if (py_is(c, "pair")) {
			key = py_eval(f, py_field(c, "key"), why, depth + 1);
			if (key.kind == V_UNKNOWN)
				return key;
			val = py_eval(f, py_field(c, "value"), why, depth + 1);
			if (val.kind == V_UNKNOWN)
				return val;
		} else if (py_is(c, "dictionary_splat")) {
			spread = py_eval(f, ts_node_named_child(c, 0), why, depth + 1);
			if (spread.kind != V_MAP)
				return spread.kind == V_UNKNOWN ? spread : unknown(why, "from a '**' of something not a dict");
			add = spread.n / 2;
		} else if (py_is(c, "comment")) {
			continue;
		} else {
			return unknown(why, "from a dict comprehension");
		}
		if (cnt + add > MAX_ITEMS)
			return unknown(why, "a dict too long to hold");
		for (size_t j = 0; j < add; j++) {
			struct value kk = py_is(c, "pair") ? key : spread.items[2 * j];
			struct value vv = py_is(c, "pair") ? val : spread.items[2 * j + 1];
			size_t at = cnt;
			for (size_t i = 0; i < cnt; i++)
				if (py_obj_equal(&kv[2 * i], &kk) == TRI_TRUE)
					at = i;
			if (at == cnt) {
				if (cnt == cap) {
					struct value *more = arena_alloc(f->a, cap * 4 * sizeof(*more));
					memcpy(more, kv, cap * 2 * sizeof(*kv));
					kv = more;
					cap *= 2;
				}
				cnt++;
			}
			kv[2 * at] = kk;
			kv[2 * at + 1] = vv;
		}
	}
	return (struct value){.kind = V_MAP, .items = kv, .n = 2 * cnt};
}

/* The values of two fields of 'n'; false (with '*x' the unknown one) when either is unknown. */
static bool operands(struct fn *f, TSNode n, const char *left, const char *right, struct value *x, struct value *y,
		     const char **why, unsigned depth)
{
	*x = py_eval(f, py_field(n, left), why, depth + 1);
	if (x->kind == V_UNKNOWN)
		return false;
	*y = py_eval(f, py_field(n, right), why, depth + 1);
	if (y->kind == V_UNKNOWN)
		*x = *y;
	return y->kind != V_UNKNOWN;
}

static struct value subscript(struct fn *f, TSNode n, const char **why, unsigned depth)
{
	struct value base, idx, out;
	if (!operands(f, n, "value", "subscript", &base, &idx, why, depth))
		return base;
	if (py_obj_index(f, &base, &idx, &out, why))
		return out;
	if (base.kind == V_MAP && map_get(&base, &idx, &out))
		return out;
	if (base.kind == V_LIST && idx.kind == V_INT) {
		long long i = idx.i < 0 ? idx.i + (long long)base.n : idx.i;
		if (i >= 0 && (size_t)i < base.n)
			return base.items[i];
	}
	return unknown(why, arena_printf(f->a, "from '%s', which cglint cannot index", py_snippet(f, n)));
}

/* getattr(obj, "name"[, default]) and hasattr(obj, "name") on a config object: its key's path,
 * with '*has_default' (getattr's, which may take a default: NULL for hasattr), or NULL where the
 * call is not one of them. */
static const char *attr_call(struct fn *f, TSNode call, const char *which, bool *has_default, unsigned depth)
{
	TSNode fnode = py_field(call, "function"), args = py_field(call, "arguments");
	if (!py_is(fnode, "identifier") || !py_is(args, "argument_list"))
		return NULL;
	const char *name = py_text(f, fnode);
	if (strcmp(name, which) || py_unit_var(&f->log, name) || (f->mod && fe_py_mod_import(f->mod, name)))
		return NULL;
	TSNode a[3];
	uint32_t n = 0;
	for (uint32_t k = 0; k < ts_node_named_child_count(args); k++) {
		TSNode c = ts_node_named_child(args, k);
		if (py_is(c, "comment"))
			continue;
		if (n == 3 || py_is(c, "keyword_argument") || py_is(c, "list_splat") || py_is(c, "dictionary_splat"))
			return NULL;
		a[n++] = c;
	}
	struct value attr;
	if (n < 2 || n > (has_default ? 3u : 2u) || !fe_py_lit_string(f->a, f->src, a[1], &attr) ||
	    !*attr.s || strchr(attr.s, '.'))
		return NULL;
	const char *base = py_eval_path(f, a[0], depth + 1);
	if (has_default)
		*has_default = n == 3;
	return base ? arena_join(f->a, base, ".", attr.s) : NULL;
}

/* getattr() and hasattr() on a config object: what the key holds, whether it is there. */
static bool attr_builtin(struct fn *f, TSNode call, struct value *out, const char **why)
{
	bool dflt = false;
	const char *key = attr_call(f, call, "getattr", &dflt, 0);
	if (key) {
		if (py_fn_get(f, key, out, why) && out->kind != V_UNKNOWN)
			return true;
		/* a default returned only where the field is not there: not known which */
		*out = unknown(why, *why && !dflt ? *why : arena_printf(f->a, "from '%s', which cglint cannot read", py_snippet(f, call)));
		return true;
	}
	key = attr_call(f, call, "hasattr", NULL, 0);
	if (!key)
		return false;
	struct value v;
	const char *w;
	/* a field set (to anything) is there; not set here, it may or may not be */
	if (py_fn_get(f, key, &v, &w) && !(v.kind == V_UNKNOWN && w && strstr(w, "replaced")))
		*out = value_bool(true);
	else
		*out = unknown(why, arena_printf(f->a, "from '%s': cglint does not know the object's fields", py_snippet(f, call)));
	return true;
}

/* Calls whose value cglint knows: str(), int(), float(), bool(), len(), min(), max(), abs(). */
static bool builtin(struct fn *f, TSNode call, struct value *out, const char **why, unsigned depth)
{
	TSNode fnode = py_field(call, "function"), args = py_field(call, "arguments");
	if (!py_is(fnode, "identifier") || ts_node_is_null(args) || py_unit_var(&f->log, py_text(f, fnode)))
		return false;
	const char *name = py_text(f, fnode);
	static const char *const known[] = {"str", "int", "float", "bool", "len", "min", "max", "abs"};
	bool is_known = false;
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
		is_known |= !strcmp(name, known[k]);
	if (!is_known || (f->mod && (fe_py_mod_import(f->mod, name) || fe_py_mod_lookup(f->session, f->mod, name, 0, &(struct mod *){0}, &(size_t){0}))))
		return false;
	uint32_t n = ts_node_named_child_count(args);
	struct value v[8];
	if (n == 0 || n > 8)
		return false;
	for (uint32_t k = 0; k < n; k++) {
		TSNode a = ts_node_named_child(args, k);
		if (!py_is(a, "comment") && (py_is(a, "keyword_argument") || py_is(a, "list_splat") || py_is(a, "dictionary_splat")))
			return false;
		v[k] = py_eval(f, a, why, depth + 1);
		if (v[k].kind == V_UNKNOWN) {
			*out = v[k];
			return true;
		}
		if (py_obj_is(&v[k]) || (v[k].kind == V_LIST && v[k].i == PY_SEQ_SET && strcmp(name, "len") && strcmp(name, "bool"))) {
			*out = value_unknown;   /* str(member) aside, its class decides */
			if (!strcmp(name, "str") && n == 1 && py_obj_str(f, &v[k], out) && out->kind != V_UNKNOWN)
				return true;
			*why = arena_printf(f->a, "from '%s', which cglint does not compute", py_snippet(f, call));
			return true;
		}
	}
	double d;
	bool is_int;
	*out = value_unknown;
	if (!strcmp(name, "len") && n == 1 && (v[0].kind == V_LIST || v[0].kind == V_STR || v[0].kind == V_MAP))
		*out = (struct value){.kind = V_INT, .i = v[0].kind == V_STR ? (long long)strlen(v[0].s)
						 : (long long)(v[0].kind == V_MAP ? v[0].n / 2 : v[0].n)};
	else if (!strcmp(name, "bool") && n == 1 && value_truth(&v[0]) != TRI_UNKNOWN)
		*out = value_bool(value_truth(&v[0]) == TRI_TRUE);
	else if (!strcmp(name, "str") && n == 1 && v[0].kind != V_MAP && v[0].kind != V_FLOAT)
		*out = value_str(value_string(f->a, &v[0], true));
	else if (!strcmp(name, "int") && n == 1 && number(&v[0], &d, &is_int))
		*out = num(trunc(d), true);
	else if (!strcmp(name, "float") && n == 1 && number(&v[0], &d, &is_int))
		*out = num(d, false);
	else if (!strcmp(name, "abs") && n == 1 && number(&v[0], &d, &is_int))
		*out = num(fabs(d), is_int);
	else if ((!strcmp(name, "min") || !strcmp(name, "max")) && n >= 2) {
		bool mx = name[1] == 'a';
		*out = v[0];
		for (uint32_t k = 1; k < n; k++) {
			enum tri lt = compare("<", &v[k], out);
			if (lt == TRI_UNKNOWN) {
				*out = value_unknown;
				break;
			}
			enum tri gt = compare(">", &v[k], out);
			if ((mx && gt == TRI_TRUE) || (!mx && lt == TRI_TRUE))
				*out = v[k];
		}
	}
	if (out->kind == V_UNKNOWN)
		*why = arena_printf(f->a, "from '%s', which cglint does not compute", py_snippet(f, call));
	return true;
}

const char *py_eval_call_why(struct fn *f, TSNode call)
{
	TSNode fnode = py_field(call, "function");
	/* AutoBridge.from_hf_pretrained(...).to_megatron_provider(...): the model's Hugging Face config */
	const char *all = py_snippet(f, fnode);
	if (strstr(all, "from_hf_pretrained") || strstr(all, "AutoBridge"))
		return "from 'AutoBridge.from_hf_pretrained' (a Hugging Face config)";
	for (TSNode n = fnode; !ts_node_is_null(n);) {
		if (py_is(n, "call"))
			n = py_field(n, "function");
		else if (py_is(n, "attribute"))
			n = py_field(n, "object");
		else
			break;
		if (py_is(n, "call") && strstr(py_snippet(f, n), "from_hf_pretrained"))
			return "from 'AutoBridge.from_hf_pretrained' (a Hugging Face config)";
	}
	if (py_is(fnode, "identifier") && f->mod) {
		const struct imp *im = fe_py_mod_import(f->mod, py_text(f, fnode));
		if (im && f->session && !fe_py_mod_load(f->session, f->mod, im->module, im->level))
			return arena_printf(f->a, "from '%s', imported from '%.*s%s', which cglint cannot resolve",
					    py_text(f, fnode), (int)im->level, "..........", im->module);
	}
	return arena_printf(f->a, "from a call to '%s', which cglint does not follow", all);
}

struct value py_eval(struct fn *f, TSNode n, const char **why, unsigned depth)
{
	*why = NULL;
	struct value v;
	if (ts_node_is_null(n))
		return unknown(why, "from an expression cglint could not parse");
	if (depth > FE_PY_MAX_NEST)
		return unknown(why, "from an expression nested too deep");
	const char *t = ts_node_type(n);
	if (strcmp(t, "string") && strcmp(t, "concatenated_string") && strcmp(t, "list") && strcmp(t, "tuple") &&
	    strcmp(t, "set") && fe_py_lit_value(f->a, f->path, f->src, n, &v, 0))
		return v;
	if (!strcmp(t, "string") || !strcmp(t, "concatenated_string")) {
		if (fe_py_lit_value(f->a, f->path, f->src, n, &v, 0))
			return v;
		if (!strcmp(t, "string"))
			return fstring(f, n, why, depth);
		struct sbuf sb;
		sbuf_init(&sb);
		sbuf_addn(&sb, "", 0);
		for (uint32_t k = 0; k < ts_node_named_child_count(n); k++) {
			struct value part = py_eval(f, ts_node_named_child(n, k), why, depth + 1);
			if (part.kind != V_STR) {
				sbuf_release(&sb);
				return part.kind == V_UNKNOWN ? part : unknown(why, "from a string cglint cannot join");
			}
			sbuf_adds(&sb, part.s);
		}
		v = value_str(arena_strdup(f->a, sb.buf));
		sbuf_release(&sb);
		return v;
	}
	if (!strcmp(t, "list") || !strcmp(t, "tuple") || !strcmp(t, "set")) {
		if (!fe_py_lit_value(f->a, f->path, f->src, n, &v, 0))
			v = sequence(f, n, why, depth);
		if (v.kind == V_LIST)
			v.i = t[0] == 'l' ? PY_SEQ_LIST : t[0] == 't' ? PY_SEQ_TUPLE : PY_SEQ_SET;
		size_t kept = 0;
		for (size_t k = 0; v.kind == V_LIST && t[0] == 's' && k < v.n; k++) {
			enum tri dup = TRI_FALSE;       /* {a, b, a}: one of each, the first kept */
			for (size_t j = 0; j < kept && dup == TRI_FALSE; j++)
				dup = py_obj_equal(&v.items[j], &v.items[k]);
			if (dup == TRI_UNKNOWN)
				return unknown(why, "from a set of values cglint cannot compare");
			if (dup == TRI_FALSE)
				v.items[kept++] = v.items[k];
		}
		if (v.kind == V_LIST && t[0] == 's')
			v.n = kept;
		return v;
	}
	if (!strcmp(t, "list_comprehension") || !strcmp(t, "set_comprehension") || !strcmp(t, "dictionary_comprehension"))
		return py_comp(f, n, why, depth);
	if (!strcmp(t, "parenthesized_expression") && ts_node_named_child_count(n) == 1)
		return py_eval(f, ts_node_named_child(n, 0), why, depth + 1);
	if (!strcmp(t, "identifier"))
		return name_value(f, n, why);
	if (!strcmp(t, "attribute"))
		return attribute_value(f, n, why, depth);
	if (!strcmp(t, "subscript"))
		return subscript(f, n, why, depth);
	if (!strcmp(t, "dictionary"))
		return dict(f, n, why, depth);
	if (!strcmp(t, "binary_operator")) {
		struct value x, y;
		if (!operands(f, n, "left", "right", &x, &y, why, depth))
			return x;
		TSNode op = py_field(n, "operator");
		return binary(f, ts_node_is_null(op) ? "" : ts_node_type(op), x, y, why);
	}
	if (!strcmp(t, "unary_operator")) {
		struct value x = py_eval(f, py_field(n, "argument"), why, depth + 1);
		double d;
		bool is_int;
		TSNode op = py_field(n, "operator");
		if (x.kind != V_UNKNOWN && number(&x, &d, &is_int) && !ts_node_is_null(op))
			return num(!strcmp(ts_node_type(op), "-") ? -d : d, is_int);
		return x.kind == V_UNKNOWN ? x : unknown(why, "from a unary operator cglint does not compute");
	}
	if (!strcmp(t, "not_operator")) {
		struct value x = py_eval(f, py_field(n, "argument"), why, depth + 1);
		enum tri b = value_truth(&x);
		return b == TRI_UNKNOWN ? x : value_bool(b == TRI_FALSE);
	}
	if (!strcmp(t, "boolean_operator")) {
		/* and/or: the value of the operand that decides, as Python gives it */
		struct value x = py_eval(f, py_field(n, "left"), why, depth + 1);
		TSNode op = py_field(n, "operator");
		bool is_and = !ts_node_is_null(op) && !strcmp(ts_node_type(op), "and");
		enum tri b = value_truth(&x);
		if (b == TRI_UNKNOWN)
			return x;
		if ((b == TRI_FALSE) == is_and)
			return x;
		return py_eval(f, py_field(n, "right"), why, depth + 1);
	}
	if (!strcmp(t, "comparison_operator"))
		return comparison(f, n, why, depth);
	if (!strcmp(t, "conditional_expression") && ts_node_named_child_count(n) >= 3) {
		/* a if cond else b */
		const char *cw;
		struct value c = py_eval(f, ts_node_named_child(n, 1), &cw, depth + 1);
		enum tri b = value_truth(&c);
		if (b == TRI_UNKNOWN)
			return unknown(why, arena_printf(f->a, "from '... if %s else ...' (unknown condition)",
							 py_snippet(f, ts_node_named_child(n, 1))));
		return py_eval(f, ts_node_named_child(n, b == TRI_TRUE ? 0 : 2), why, depth + 1);
	}
	if (!strcmp(t, "call")) {
		if (attr_builtin(f, n, &v, why) || py_obj_builtin(f, n, &v, why, depth) || builtin(f, n, &v, why, depth) ||
		    py_obj_value_call(f, n, &v, why, depth))
			return v;
		struct py_ret r;
		if (f->session && py_call_follow(f, n, &r) && r.n == 1 && !r.tuple && !r.ns[0]) {
			*why = r.why[0];
			return r.val[0];
		}
		return unknown(why, py_eval_call_why(f, n));
	}
	return unknown(why, arena_printf(f->a, "from '%s', which cglint does not evaluate", py_snippet(f, n)));
}

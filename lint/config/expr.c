/* SPDX-License-Identifier: MIT */
/* expr: a recursive-descent parser and a three-valued evaluator for rule conditions. */
#include "config/expr.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "config/fact.h"
#include "config/target.h"

#define EXPR_MAX_DEPTH 64

enum op { E_LIT, E_PATH, E_LIST, E_NOT, E_AND, E_OR, E_EQ, E_NE, E_LT, E_LE, E_GT, E_GE, E_IN, E_NOTIN, E_CALL };

enum fn { F_RAW, F_KNOWN, F_GIVEN, F_DEFAULT, F_SPLIT, F_WITH, F_WITHOUT, F_LEN, F_IS_LIST, F_TYPE, F_ENUM_FORM, F_PYLIST };

/* name, arity (-1: at least one), whether the first argument must be a key path */
static const struct { const char *name; int arity; int wants_path; } functions[] = {
	[F_RAW] = {"raw", 1, 1},             /* the value as the inputs set it, before normalization */
	[F_KNOWN] = {"known", 1, 0},         /* true unless unknown: two-valued */
	[F_GIVEN] = {"given", 1, 1},         /* an input (not a default or normalization) set the key */
	[F_DEFAULT] = {"default", 2, 0},     /* first argument, or the second when it is unknown */
	[F_SPLIT] = {"split", 2, 0},         /* str.split(sep) as MCore does; lists pass through */
	[F_WITH] = {"with", -1, 0},          /* the list plus the items it lacks */
	[F_WITHOUT] = {"without", -1, 0},    /* the list less the items named; order kept */
	[F_LEN] = {"len", 1, 0},
	[F_IS_LIST] = {"is_list", 1, 0},
	[F_TYPE] = {"type", 1, 0},           /* "null", "bool", "int", "float", "string", "list", "mapping" */
	[F_ENUM_FORM] = {"enum_form", 1, 1}, /* the key was written as YAML enum dicts */
	[F_PYLIST] = {"pylist", 1, 0},       /* "([0]*3+[1]*9)" as Bridge/MLM evaluate it; else unchanged */
};

struct expr {
	enum op op;
	enum fn fn;
	struct value lit;
	const char *path;
	struct expr **args;
	size_t n;
};

struct parser {
	struct arena *a;
	const char *src, *p;
	const char *err;
	unsigned err_col;
	int depth;
};

static struct expr *fail(struct parser *ps, const char *at, const char *msg)
{
	if (!ps->err) {
		ps->err = msg;
		ps->err_col = (unsigned)(at - ps->src) + 1;
	}
	return NULL;
}

static void skip_ws(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static bool is_ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Match keyword 'kw' as a whole word. */
static bool accept_word(struct parser *ps, const char *kw)
{
	skip_ws(ps);
	if (*ps->p != *kw)      /* the common miss, without a call */
		return false;
	size_t n = strlen(kw);
	if (strncmp(ps->p, kw, n) || is_ident(ps->p[n]) || ps->p[n] == '.')
		return false;
	ps->p += n;
	return true;
}

static bool accept(struct parser *ps, const char *tok)
{
	skip_ws(ps);
	if (*ps->p != *tok)
		return false;
	size_t n = strlen(tok);
	if (strncmp(ps->p, tok, n))
		return false;
	ps->p += n;
	return true;
}

static struct expr *node(struct parser *ps, enum op op, struct expr *l, struct expr *r)
{
	struct expr *e = arena_alloc(ps->a, sizeof(*e));
	e->op = op;
	if (l) {
		e->args = arena_alloc(ps->a, 2 * sizeof(*e->args));
		e->args[0] = l;
		e->args[1] = r;
		e->n = r ? 2 : 1;
	}
	return e;
}

static struct expr *parse_or(struct parser *ps);

static struct expr *parse_args(struct parser *ps, struct expr *e, char close)
{
	struct expr **items = NULL;
	size_t n = 0, cap = 0;
	skip_ws(ps);
	if (*ps->p != close) {
		do {
			struct expr *item = parse_or(ps);
			if (!item) {
				free(items);
				return NULL;
			}
			if (n == cap)
				items = mem_realloc(items, (cap = cap ? cap * 2 : 4) * sizeof(*items));
			items[n++] = item;
		} while (accept(ps, ","));
	}
	skip_ws(ps);
	if (*ps->p != close) {
		free(items);
		return fail(ps, ps->p, close == ']' ? "expected ']'" : "expected ')'");
	}
	ps->p++;
	e->args = arena_alloc(ps->a, (n ? n : 1) * sizeof(*e->args));
	if (n)
		memcpy(e->args, items, n * sizeof(*items));
	e->n = n;
	free(items);
	return e;
}

static struct expr *parse_string(struct parser *ps)
{
	char q = *ps->p++;
	size_t len = 0;     /* an upper bound: escapes shrink it */
	while (ps->p[len] && ps->p[len] != q)
		len += ps->p[len] == '\\' && ps->p[len + 1] ? 2 : 1;
	if (ps->p[len] != q)
		return fail(ps, ps->p + len, "unterminated string");
	char *text = arena_alloc(ps->a, len + 1), *out = text;
	for (const char *end = ps->p + len; ps->p < end; ps->p++) {
		if (*ps->p == '\\')
			ps->p++;
		*out++ = *ps->p;
	}
	*out = 0;
	ps->p++;
	struct expr *e = node(ps, E_LIT, NULL, NULL);
	e->lit = value_str(text);
	return e;
}

/* Whether word[0..n) is 'kw'. */
static bool is_word(const char *word, size_t n, const char *kw)
{
	return word[0] == kw[0] && !strncmp(word, kw, n) && !kw[n];
}

static struct expr *parse_primary(struct parser *ps)
{
	skip_ws(ps);
	const char *start = ps->p;
	if (*ps->p == '(') {
		ps->p++;
		struct expr *e = parse_or(ps);
		if (e && !accept(ps, ")"))
			return fail(ps, ps->p, "expected ')'");
		return e;
	}
	if (*ps->p == '[') {
		ps->p++;
		return parse_args(ps, node(ps, E_LIST, NULL, NULL), ']');
	}
	if (*ps->p == '"' || *ps->p == '\'')
		return parse_string(ps);
	if (isdigit((unsigned char)*ps->p) || (*ps->p == '-' && isdigit((unsigned char)ps->p[1]))) {
		size_t n = 1;
		while (isalnum((unsigned char)ps->p[n]) || ps->p[n] == '.')
			n++;
		char *text = arena_strndup(ps->a, ps->p, n);
		struct expr *e = node(ps, E_LIT, NULL, NULL);
		e->lit = value_from_plain(ps->a, text);
		if (e->lit.kind != V_INT && e->lit.kind != V_FLOAT)
			return fail(ps, start, "malformed number");
		ps->p += n;
		return e;
	}
	if (!is_ident_start(*ps->p))
		return fail(ps, start, *ps->p ? "expected a key, a literal or '('" : "unexpected end of expression");
	size_t n = 0;
	while (is_ident(ps->p[n]) || (ps->p[n] == '.' && is_ident_start(ps->p[n + 1])))
		n++;
	const char *word = ps->p;
	ps->p += n;
	struct expr *e = node(ps, E_LIT, NULL, NULL);
	if (is_word(word, n, "true") || is_word(word, n, "True"))
		e->lit = value_bool(true);
	else if (is_word(word, n, "false") || is_word(word, n, "False"))
		e->lit = value_bool(false);
	else if (is_word(word, n, "null") || is_word(word, n, "None"))
		e->lit = value_null;
	else if (accept(ps, "(")) {
		size_t f;
		for (f = 0; f < sizeof(functions) / sizeof(functions[0]); f++)
			if (is_word(word, n, functions[f].name))
				break;
		if (f == sizeof(functions) / sizeof(functions[0]))
			return fail(ps, start, "unknown function");
		e->op = E_CALL;
		e->fn = (enum fn)f;
		if (!parse_args(ps, e, ')'))
			return NULL;
		int arity = functions[f].arity;
		if (arity >= 0 ? e->n != (size_t)arity : e->n < 1)
			return fail(ps, start, "wrong number of arguments");
		if (functions[f].wants_path && e->args[0]->op != E_PATH)
			return fail(ps, start, "this function takes a key path");
	} else {
		if (is_word(word, n, "and") || is_word(word, n, "or") || is_word(word, n, "not") || is_word(word, n, "in"))
			return fail(ps, start, "expected an operand");
		e->op = E_PATH;
		e->path = arena_strndup(ps->a, word, n);
	}
	return e;
}

static struct expr *parse_cmp(struct parser *ps)
{
	struct expr *l = parse_primary(ps);
	if (!l)
		return NULL;
	static const struct { const char *tok; enum op op; } ops[] = {
		{"==", E_EQ}, {"!=", E_NE}, {"<=", E_LE}, {">=", E_GE}, {"<", E_LT}, {">", E_GT},
	};
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (accept(ps, ops[k].tok)) {
			struct expr *r = parse_primary(ps);
			return r ? node(ps, ops[k].op, l, r) : NULL;
		}
	const char *save = ps->p;
	if (accept_word(ps, "not")) {
		if (!accept_word(ps, "in")) {
			ps->p = save;
			return l;
		}
		struct expr *r = parse_primary(ps);
		return r ? node(ps, E_NOTIN, l, r) : NULL;
	}
	if (accept_word(ps, "in")) {
		struct expr *r = parse_primary(ps);
		return r ? node(ps, E_IN, l, r) : NULL;
	}
	return l;
}

static struct expr *parse_not(struct parser *ps)
{
	if (++ps->depth > EXPR_MAX_DEPTH)
		return fail(ps, ps->p, "expression nested too deeply");
	struct expr *e;
	if (accept_word(ps, "not")) {
		struct expr *x = parse_not(ps);
		e = x ? node(ps, E_NOT, x, NULL) : NULL;
	} else {
		e = parse_cmp(ps);
	}
	ps->depth--;
	return e;
}

static struct expr *parse_and(struct parser *ps)
{
	struct expr *l = parse_not(ps);
	while (l && accept_word(ps, "and")) {
		struct expr *r = parse_not(ps);
		l = r ? node(ps, E_AND, l, r) : NULL;
	}
	return l;
}

static struct expr *parse_or(struct parser *ps)
{
	if (++ps->depth > EXPR_MAX_DEPTH)
		return fail(ps, ps->p, "expression nested too deeply");
	struct expr *l = parse_and(ps);
	while (l && accept_word(ps, "or")) {
		struct expr *r = parse_and(ps);
		l = r ? node(ps, E_OR, l, r) : NULL;
	}
	ps->depth--;
	return l;
}

struct expr *expr_parse(struct arena *a, const char *src, const char **err, unsigned *col)
{
	struct parser ps = {.a = a, .src = src, .p = src};
	struct expr *e = parse_or(&ps);
	skip_ws(&ps);
	if (e && *ps.p)
		e = fail(&ps, ps.p, "unexpected text after the expression");
	if (!e) {
		*err = ps.err ? ps.err : "malformed expression";
		*col = ps.err_col;
	}
	return e;
}

/* ---- evaluation ---- */

static struct value tri_value(enum tri t)
{
	return t == TRI_UNKNOWN ? value_unknown : value_bool(t == TRI_TRUE);
}

static struct value path_value(const char *path, const struct expr_env *env)
{
	if (!strncmp(path, "target.", 7)) {
		const struct target *t = env->target;
		if (!strcmp(path + 7, "gpu_major"))
			return t->gpu_major ? (struct value){.kind = V_INT, .i = t->gpu_major} : value_unknown;
		if (!strcmp(path + 7, "te"))    /* encoded as versions are: 2.10 -> 2100 (target.h) */
			return t->te ? (struct value){.kind = V_INT, .i = t->te} : value_unknown;
		if (!strcmp(path + 7, "bridge")) {
			char buf[16];
			return value_str(t->bridge == TARGET_NO_BRIDGE
						 ? "none"
						 : arena_strdup(env->arena, target_version_str(t->bridge, buf)));
		}
		return value_unknown;
	}
	return facts_value(env->facts, path);
}

static enum tri compare(enum op op, const struct value *a, const struct value *b)
{
	if (a->kind == V_UNKNOWN || b->kind == V_UNKNOWN)
		return TRI_UNKNOWN;
	if (op == E_EQ)
		return value_equal(a, b) ? TRI_TRUE : TRI_FALSE;
	if (op == E_NE)
		return value_equal(a, b) ? TRI_FALSE : TRI_TRUE;
	double x, y;
	int c;
	if (value_is_number(a, &x) && value_is_number(b, &y))
		c = x < y ? -1 : x > y;
	else if (a->kind == V_STR && b->kind == V_STR)
		c = strcmp(a->s, b->s);
	else
		return TRI_FALSE;       /* Python would raise; no ordering means no verdict */
	switch (op) {
	case E_LT: return c < 0 ? TRI_TRUE : TRI_FALSE;
	case E_LE: return c <= 0 ? TRI_TRUE : TRI_FALSE;
	case E_GT: return c > 0 ? TRI_TRUE : TRI_FALSE;
	default: return c >= 0 ? TRI_TRUE : TRI_FALSE;
	}
}

static enum tri membership(const struct value *item, const struct value *in)
{
	if (item->kind == V_UNKNOWN || in->kind == V_UNKNOWN)
		return TRI_UNKNOWN;
	if (in->kind == V_LIST)
		return value_list_has(in, item) ? TRI_TRUE : TRI_FALSE;
	if (in->kind == V_STR && item->kind == V_STR)
		return strstr(in->s, item->s) ? TRI_TRUE : TRI_FALSE;
	return TRI_FALSE;       /* 'x in None' reads as an empty list, as MCore's None -> [] */
}

/*
 * The list expressions recipes write for moe_layer_freq: ([0]*3+[1]*9), [1,0]*4. Anything
 * else is returned unchanged rather than guessed at. At most 4096 items.
 */
static struct value pylist(const struct value *v, struct arena *a)
{
	if (v->kind != V_STR)
		return *v;
	long long items[4096];
	size_t n = 0;
	const char *p = v->s;
	while (*p == ' ' || *p == '(')
		p++;
	for (;;) {
		long long part[64];
		size_t np = 0;
		if (*p++ != '[')
			return *v;
		while (*p && *p != ']') {
			char *end;
			long long x = strtoll(p, &end, 10);
			if (end == p || np == 64)
				return *v;
			part[np++] = x;
			p = end;
			while (*p == ' ' || *p == ',')
				p++;
		}
		if (*p++ != ']')
			return *v;
		while (*p == ' ')
			p++;
		long long times = 1;
		if (*p == '*') {
			char *end;
			times = strtoll(p + 1, &end, 10);
			if (end == p + 1 || times < 0)
				return *v;
			p = end;
		}
		for (long long t = 0; t < times; t++)
			for (size_t k = 0; k < np; k++) {
				if (n == sizeof(items) / sizeof(items[0]))
					return *v;
				items[n++] = part[k];
			}
		while (*p == ' ')
			p++;
		if (*p != '+')
			break;
		p++;
		while (*p == ' ')
			p++;
	}
	while (*p == ' ' || *p == ')')
		p++;
	if (*p)
		return *v;
	struct value out = {.kind = V_LIST, .n = n, .loc = v->loc};
	out.items = arena_alloc(a, (n ? n : 1) * sizeof(*out.items));
	for (size_t k = 0; k < n; k++)
		out.items[k] = (struct value){.kind = V_INT, .i = items[k], .loc = v->loc};
	return out;
}

static struct value call(const struct expr *e, const struct expr_env *env)
{
	if (e->fn == F_RAW)
		return facts_raw(env->facts, e->args[0]->path);
	if (e->fn == F_GIVEN) {
		const struct fact *f = facts_get(env->facts, e->args[0]->path);
		return value_bool(f && f->raw.kind != V_UNKNOWN && strcmp(f->layer, "default") &&
				  strcmp(f->layer, "normalized"));
	}
	if (e->fn == F_ENUM_FORM) {
		const struct fact *f = facts_get(env->facts, e->args[0]->path);
		return value_bool(f && f->enum_form);
	}
	struct value x = expr_eval(e->args[0], env);
	switch (e->fn) {
	case F_KNOWN: return value_bool(x.kind != V_UNKNOWN);
	case F_DEFAULT: return x.kind == V_UNKNOWN ? expr_eval(e->args[1], env) : x;
	case F_SPLIT: {
		struct value sep = expr_eval(e->args[1], env);
		return sep.kind == V_UNKNOWN ? value_unknown : value_split(env->arena, &x, &sep);
	}
	case F_LEN:
		if (x.kind == V_LIST || x.kind == V_MAP)
			return (struct value){.kind = V_INT, .i = (long long)x.n};
		if (x.kind == V_STR)
			return (struct value){.kind = V_INT, .i = (long long)strlen(x.s)};
		return x.kind == V_UNKNOWN ? value_unknown : (struct value){.kind = V_INT};
	case F_IS_LIST: return x.kind == V_UNKNOWN ? value_unknown : value_bool(x.kind == V_LIST);
	case F_PYLIST: return pylist(&x, env->arena);
	case F_TYPE: return x.kind == V_UNKNOWN ? value_unknown : value_str(value_kind_name(x.kind));
	case F_WITH: {
		if (x.kind == V_UNKNOWN)
			return x;
		size_t have = x.kind == V_LIST ? x.n : 0;
		struct value out = {.kind = V_LIST, .loc = x.loc};
		out.items = arena_alloc(env->arena, (have + e->n) * sizeof(*out.items));
		for (size_t k = 0; k < have; k++)
			out.items[out.n++] = x.items[k];
		for (size_t k = 1; k < e->n; k++) {
			struct value it = expr_eval(e->args[k], env);
			if (it.kind == V_UNKNOWN)
				return value_unknown;
			if (!value_list_has(&out, &it))
				out.items[out.n++] = it;
		}
		return out;
	}
	case F_WITHOUT: {
		if (x.kind != V_LIST)
			return x;
		struct value drop = {.kind = V_LIST, .n = 0};
		drop.items = arena_alloc(env->arena, e->n * sizeof(*drop.items));
		for (size_t k = 1; k < e->n; k++) {
			struct value it = expr_eval(e->args[k], env);
			if (it.kind == V_UNKNOWN)
				return value_unknown;
			drop.items[drop.n++] = it;
		}
		struct value out = {.kind = V_LIST, .loc = x.loc};
		out.items = arena_alloc(env->arena, (x.n ? x.n : 1) * sizeof(*out.items));
		for (size_t k = 0; k < x.n; k++)
			if (!value_list_has(&drop, &x.items[k]))
				out.items[out.n++] = x.items[k];
		return out;
	}
	default: return value_unknown;
	}
}

struct value expr_eval(const struct expr *e, const struct expr_env *env)
{
	switch (e->op) {
	case E_LIT: return e->lit;
	case E_PATH: return path_value(e->path, env);
	case E_LIST: {
		struct value out = {.kind = V_LIST, .n = e->n};
		out.items = arena_alloc(env->arena, (e->n ? e->n : 1) * sizeof(*out.items));
		for (size_t k = 0; k < e->n; k++) {
			out.items[k] = expr_eval(e->args[k], env);
			if (out.items[k].kind == V_UNKNOWN)
				return value_unknown;
		}
		return out;
	}
	case E_NOT: {
		enum tri t = expr_truth(e->args[0], env);
		return tri_value(t == TRI_UNKNOWN ? t : t == TRI_TRUE ? TRI_FALSE : TRI_TRUE);
	}
	case E_AND: {
		enum tri a = expr_truth(e->args[0], env);
		if (a == TRI_FALSE)
			return value_bool(false);
		enum tri b = expr_truth(e->args[1], env);
		if (b == TRI_FALSE)
			return value_bool(false);
		return tri_value(a == TRI_TRUE && b == TRI_TRUE ? TRI_TRUE : TRI_UNKNOWN);
	}
	case E_OR: {
		enum tri a = expr_truth(e->args[0], env);
		if (a == TRI_TRUE)
			return value_bool(true);
		enum tri b = expr_truth(e->args[1], env);
		if (b == TRI_TRUE)
			return value_bool(true);
		return tri_value(a == TRI_FALSE && b == TRI_FALSE ? TRI_FALSE : TRI_UNKNOWN);
	}
	case E_IN:
	case E_NOTIN: {
		struct value a = expr_eval(e->args[0], env), b = expr_eval(e->args[1], env);
		enum tri t = membership(&a, &b);
		if (e->op == E_NOTIN && t != TRI_UNKNOWN)
			t = t == TRI_TRUE ? TRI_FALSE : TRI_TRUE;
		return tri_value(t);
	}
	case E_CALL: return call(e, env);
	default: {
		struct value a = expr_eval(e->args[0], env), b = expr_eval(e->args[1], env);
		return tri_value(compare(e->op, &a, &b));
	}
	}
}

enum tri expr_truth(const struct expr *e, const struct expr_env *env)
{
	struct value v = expr_eval(e, env);
	return value_truth(&v);
}

void expr_each_path(const struct expr *e, void (*fn)(const char *path, void *ctx), void *ctx)
{
	if (e->op == E_PATH)
		fn(e->path, ctx);
	for (size_t k = 0; k < e->n; k++)
		expr_each_path(e->args[k], fn, ctx);
}

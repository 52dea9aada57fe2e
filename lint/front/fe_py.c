/* SPDX-License-Identifier: MIT */
/* fe_py: Python recipe functions -> keys, through tree-sitter (see fe_py.h). */
#include "front/fe_py.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "base/mem.h"

const TSLanguage *tree_sitter_python(void);

#define MAX_DEPTH 200           /* expression nesting read; deeper is unknown */

/* A variable that names a config object or a section of one: its key prefix. Every object a
 * function binds gets a namespace of its own ("#3"), so that two objects never mix. */
struct var {
	const char *name;
	const char *prefix;     /* "#0", "#0.model" */
};

struct fn {
	struct arena *a;
	const char *path, *src;
	struct py_key *keys;
	size_t n_keys, cap_keys;
	struct var *vars;
	size_t n_vars, cap_vars;
	unsigned next_ns;
	const char *returned;   /* the namespace the function returns, or NULL */
	struct sbuf spread_ns;  /* namespaces whose env_vars had a ** entry, '|'-separated */
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

static const char *var_prefix(struct fn *f, const char *name)
{
	for (size_t k = f->n_vars; k-- > 0;)
		if (!strcmp(f->vars[k].name, name))
			return f->vars[k].prefix;
	return NULL;
}

static void var_set(struct fn *f, const char *name, const char *prefix)
{
	for (size_t k = 0; k < f->n_vars; k++)
		if (!strcmp(f->vars[k].name, name)) {
			f->vars[k].prefix = prefix;
			return;
		}
	if (f->n_vars == f->cap_vars) {
		f->cap_vars = f->cap_vars ? 2 * f->cap_vars : 16;
		f->vars = mem_realloc(f->vars, f->cap_vars * sizeof(*f->vars));
	}
	f->vars[f->n_vars++] = (struct var){arena_strdup(f->a, name), prefix};
}

static void var_drop(struct fn *f, const char *name)
{
	for (size_t k = 0; k < f->n_vars; k++)
		if (!strcmp(f->vars[k].name, name))
			f->vars[k].prefix = NULL;
}

static const char *new_ns(struct fn *f)
{
	return arena_printf(f->a, "#%u", f->next_ns++);
}

static void put(struct fn *f, const char *key, struct value v, struct loc loc)
{
	if (f->n_keys == f->cap_keys) {
		f->cap_keys = f->cap_keys ? 2 * f->cap_keys : 32;
		f->keys = mem_realloc(f->keys, f->cap_keys * sizeof(*f->keys));
	}
	f->keys[f->n_keys++] = (struct py_key){key, v, loc};
}

static bool under(const char *key, const char *prefix)
{
	size_t n = strlen(prefix);
	return !strncmp(key, prefix, n) && (key[n] == '\0' || key[n] == '.');
}

/* What a call or a rebinding may have changed: every key set so far under 'prefix' is unknown
 * from here on (written again, so that it overrides, at its old position). */
static void forget(struct fn *f, const char *prefix)
{
	size_t n = f->n_keys;
	for (size_t k = 0; k < n; k++) {
		if (!under(f->keys[k].key, prefix) || f->keys[k].val.kind == V_UNKNOWN)
			continue;
		bool later = false;     /* only the latest write of a key matters */
		for (size_t j = k + 1; j < n && !later; j++)
			later = !strcmp(f->keys[j].key, f->keys[k].key);
		if (!later) {
			struct value u = value_unknown;
			u.loc = f->keys[k].loc;
			put(f, f->keys[k].key, u, f->keys[k].loc);
		}
	}
}

/* ---- literals ---- */

static bool string_literal(struct fn *f, TSNode n, struct value *out)
{
	if (is(n, "concatenated_string")) {
		struct sbuf sb;
		sbuf_init(&sb);
		bool ok = true;
		for (uint32_t k = 0; ok && k < ts_node_named_child_count(n); k++) {
			struct value part;
			ok = string_literal(f, ts_node_named_child(n, k), &part);
			if (ok)
				sbuf_adds(&sb, part.s);
		}
		if (ok)
			*out = value_str(arena_strdup(f->a, sb.buf ? sb.buf : ""));
		sbuf_release(&sb);
		return ok;
	}
	if (!is(n, "string"))
		return false;
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	const char *p = f->src + s, *end = f->src + e;
	bool raw = false;
	while (p < end && isalpha((unsigned char)*p)) {
		char c = (char)tolower((unsigned char)*p++);
		if (c == 'f' || c == 'b')
			return false;   /* f-strings and bytes are not config strings cglint reads */
		raw |= c == 'r';
	}
	if (p >= end)
		return false;
	char q = *p;
	size_t ql = (end - p >= 6 && p[1] == q && p[2] == q) ? 3 : 1;
	if ((size_t)(end - p) < 2 * ql)
		return false;
	p += ql;
	end -= ql;
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_addn(&sb, "", 0);
	for (; p < end; p++) {
		if (*p != '\\' || raw || p + 1 >= end) {
			sbuf_addc(&sb, *p);
			continue;
		}
		char c = *++p;
		switch (c) {
		case 'n': sbuf_addc(&sb, '\n'); break;
		case 't': sbuf_addc(&sb, '\t'); break;
		case '\\': case '\'': case '"': sbuf_addc(&sb, c); break;
		case '\n': break;
		default:
			sbuf_addc(&sb, '\\');
			sbuf_addc(&sb, c);
		}
	}
	*out = value_str(arena_strdup(f->a, sb.buf ? sb.buf : ""));
	sbuf_release(&sb);
	return true;
}

static bool literal(struct fn *f, TSNode n, struct value *out, unsigned depth)
{
	if (depth > MAX_DEPTH)
		return false;
	struct loc at = loc_of(f->path, n);
	const char *t = ts_node_type(n);
	if (!strcmp(t, "parenthesized_expression") && ts_node_named_child_count(n) == 1)
		return literal(f, ts_node_named_child(n, 0), out, depth + 1);
	if (!strcmp(t, "string") || !strcmp(t, "concatenated_string")) {
		if (!string_literal(f, n, out))
			return false;
	} else if (!strcmp(t, "true") || !strcmp(t, "false")) {
		*out = value_bool(t[0] == 't');
	} else if (!strcmp(t, "none")) {
		*out = value_null;
	} else if (!strcmp(t, "integer") || !strcmp(t, "float") ||
		   (!strcmp(t, "unary_operator") && ts_node_named_child_count(n) == 1 &&
		    (is(ts_node_named_child(n, 0), "integer") || is(ts_node_named_child(n, 0), "float")))) {
		const char *s = text(f, n);
		char *clean = arena_strdup(f->a, s), *w = clean;
		for (const char *r = s; *r; r++)
			if (*r != '_' && !isspace((unsigned char)*r))
				*w++ = *r;
		*w = '\0';
		char *endp;
		bool is_float = !strcmp(t, "float") ||
				(!strcmp(t, "unary_operator") && is(ts_node_named_child(n, 0), "float"));
		if (strpbrk(clean, "jJ"))
			return false;   /* complex */
		if (is_float) {
			*out = (struct value){.kind = V_FLOAT, .f = strtod(clean, &endp)};
		} else {
			long long v = strtoll(clean, &endp, 0);
			if (clean[0] == '0' && clean[1] && isdigit((unsigned char)clean[1]))
				return false;   /* not Python 3 */
			if (*endp && !(clean[0] == '0' && (clean[1] == 'o' || clean[1] == 'O')))
				return false;
			if (clean[0] == '0' && (clean[1] == 'o' || clean[1] == 'O'))
				v = strtoll(clean + 2, &endp, 8);
			*out = (struct value){.kind = V_INT, .i = v};
		}
		if (*endp)
			return false;
	} else if (!strcmp(t, "list") || !strcmp(t, "tuple")) {
		uint32_t n_items = ts_node_named_child_count(n);
		struct value *items = arena_alloc(f->a, (n_items ? n_items : 1) * sizeof(*items));
		size_t m = 0;
		for (uint32_t k = 0; k < n_items; k++) {
			TSNode c = ts_node_named_child(n, k);
			if (is(c, "comment"))
				continue;
			if (!literal(f, c, &items[m], depth + 1))
				return false;
			m++;
		}
		*out = (struct value){.kind = V_LIST, .items = items, .n = m};
	} else {
		return false;
	}
	out->loc = at;
	return true;
}

/* ---- names ---- */

/* The key an expression names: 'cfg.model.x' -> "#0.model.x", 'cfg.env_vars["A"]' ->
 * "#0.env_vars.A", a tracked variable -> its prefix. NULL for anything else. */
static const char *path_of(struct fn *f, TSNode n, unsigned depth)
{
	if (depth > MAX_DEPTH)
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
		if (!base || ts_node_is_null(sub) || !string_literal(f, sub, &k) || strchr(k.s, '.'))
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
	return NULL;
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
		var_drop(f, text(f, target));  /* rebound where cglint does not follow */
	} else if (is(target, "pattern_list") || is(target, "tuple_pattern") || is(target, "list_pattern")) {
		for (uint32_t k = 0; k < ts_node_named_child_count(target); k++)
			target_unknown(f, ts_node_named_child(target, k));
	}
}

/* Assignments and calls that may change the config, where cglint cannot say how. */
static void scan_unknown(struct fn *f, TSNode n, unsigned depth)
{
	if (depth > MAX_DEPTH || ts_node_is_null(n))
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
				forget(f, p);   /* cfg.model.finalize(), cfg.env_vars.update(...) */
		}
		TSNode args = field(n, "arguments");
		for (uint32_t k = 0; !ts_node_is_null(args) && k < ts_node_named_child_count(args); k++) {
			TSNode a = ts_node_named_child(args, k);
			if (is(a, "keyword_argument"))
				a = field(a, "value");
			else if (is(a, "list_splat") || is(a, "dictionary_splat"))
				a = ts_node_named_child(a, 0);
			const char *p = ts_node_is_null(a) ? NULL : path_of(f, a, 0);
			if (p)
				forget(f, p);   /* helper(cfg), helper(cfg.model) */
		}
	}
	for (uint32_t k = 0; k < ts_node_named_child_count(n); k++)
		scan_unknown(f, ts_node_named_child(n, k), depth + 1);
}

/* ---- what cglint reads ---- */

static void assign(struct fn *f, const char *key, TSNode rhs, struct loc at, unsigned depth);

/* Copy the keys under 'from' to 'to' (an object built on its own, then put in a config). */
static void copy_keys(struct fn *f, const char *from, const char *to)
{
	size_t n = f->n_keys, m = strlen(from);
	for (size_t k = 0; k < n; k++)
		if (under(f->keys[k].key, from))
			put(f, arena_printf(f->a, "%s%s", to, f->keys[k].key + m), f->keys[k].val, f->keys[k].loc);
}

static void assign_dict(struct fn *f, const char *key, TSNode dict, unsigned depth)
{
	forget(f, key);
	size_t first = f->n_keys;
	for (uint32_t k = 0; k < ts_node_named_child_count(dict); k++) {
		TSNode c = ts_node_named_child(dict, k);
		if (is(c, "pair")) {
			struct value name;
			TSNode kn = field(c, "key");
			if (string_literal(f, kn, &name) && !strchr(name.s, '.'))
				assign(f, arena_printf(f->a, "%s.%s", key, name.s), field(c, "value"),
				       loc_of(f->path, kn), depth + 1);
			else
				scan_unknown(f, c, depth + 1);
		} else if (is(c, "dictionary_splat")) {
			/* {**BASE, ...}: what BASE holds is not read; keys before it may be overridden */
			for (size_t j = first; j < f->n_keys; j++)
				if (f->keys[j].val.kind != V_UNKNOWN) {
					f->keys[j].val = value_unknown;
					f->keys[j].val.loc = f->keys[j].loc;
				}
			sbuf_printf(&f->spread_ns, "|%s|", key);
			scan_unknown(f, c, depth + 1);
		}
	}
}

/* Keyword arguments of a config class, under 'key'; the rest of its fields are not known. */
static void assign_ctor(struct fn *f, const char *key, TSNode call, unsigned depth)
{
	forget(f, key);
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
	if (ts_node_is_null(rhs) || depth > MAX_DEPTH) {
		v = value_unknown;
	} else if (literal(f, rhs, &v, 0)) {
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
		copy_keys(f, from, key);
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
		scan_unknown(f, rhs, 0);        /* cfg = tweak(cfg) */
		const char *callee = callee_name(f, rhs);
		const char *ns = new_ns(f);
		const char *section = is_constructor(callee) ? class_section(callee) : NULL;
		if (section) {
			const char *key = *section ? arena_printf(f->a, "%s.%s", ns, section) : ns;
			assign_ctor(f, key, rhs, 0);
			var_set(f, name, key);
		} else {
			var_set(f, name, ns);   /* cfg = llama3_8b_pretrain_config() */
		}
		return;
	}
	scan_unknown(f, rhs, 0);
	var_drop(f, name);
}

static void statement(struct fn *f, TSNode st)
{
	const char *t = ts_node_type(st);
	if (!strcmp(t, "return_statement")) {
		TSNode v = ts_node_named_child(st, 0);
		const char *p = ts_node_is_null(v) ? NULL : path_of(f, v, 0);
		if (p && !strchr(p, '.')) {
			f->returned = p;
		} else if (is(v, "call") && is_constructor(callee_name(f, v)) &&
			   class_section(callee_name(f, v)) && !*class_section(callee_name(f, v))) {
			f->returned = new_ns(f);        /* return ConfigContainer(model=..., ...) */
			assign_ctor(f, f->returned, v, 0);
		} else if (!ts_node_is_null(v)) {
			scan_unknown(f, v, 0);
		}
		return;
	}
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
	for (uint32_t k = 0; !ts_node_is_null(params) && k < ts_node_named_child_count(params); k++) {
		TSNode p = ts_node_named_child(params, k);
		TSNode id = p;
		if (is(p, "typed_parameter"))
			id = ts_node_named_child(p, 0);
		else if (is(p, "default_parameter") || is(p, "typed_default_parameter"))
			id = field(p, "name");
		if (!is(id, "identifier"))
			continue;
		const char *name = text(f, id);
		if (strcmp(name, "self") && strcmp(name, "cls"))
			var_set(f, name, new_ns(f));
	}
}

/* ---- units ---- */

struct file {
	struct arena *a;
	const char *path, *src;
	struct py_unit *units;
	size_t n, cap;
};

static void function(struct file *fl, TSNode def, const char *owner)
{
	TSNode name = field(def, "name"), body = field(def, "body");
	if (ts_node_is_null(name) || ts_node_is_null(body))
		return;
	struct fn f = {.a = fl->a, .path = fl->path, .src = fl->src};
	sbuf_init(&f.spread_ns);
	sbuf_addn(&f.spread_ns, "", 0);
	parameters(&f, field(def, "parameters"));
	for (uint32_t k = 0; k < ts_node_named_child_count(body); k++) {
		TSNode st = ts_node_named_child(body, k);
		if (!is(st, "comment"))
			statement(&f, st);
	}
	/* the object the function returns, else the one it sets most keys of */
	const char *ns = f.returned;
	size_t best = 0;
	for (unsigned k = 0; !ns && k < f.next_ns; k++) {
		char id[16];
		snprintf(id, sizeof(id), "#%u", k);
		size_t count = 0;
		for (size_t j = 0; j < f.n_keys; j++)
			count += under(f.keys[j].key, id);
		if (count > best) {
			best = count;
			ns = arena_strdup(fl->a, id);
		}
	}
	struct py_unit u = {.loc = loc_of(fl->path, name)};
	u.name = owner ? arena_printf(fl->a, "%s.%s", owner, text(&f, name)) : text(&f, name);
	if (ns) {
		size_t m = strlen(ns), cnt = 0;
		u.keys = arena_alloc(fl->a, (f.n_keys ? f.n_keys : 1) * sizeof(*u.keys));
		for (size_t j = 0; j < f.n_keys; j++)
			if (under(f.keys[j].key, ns) && f.keys[j].key[m] == '.') {
				u.keys[cnt] = f.keys[j];
				u.keys[cnt++].key = f.keys[j].key + m + 1;
			}
		u.n_keys = cnt;
		char *needle = arena_printf(fl->a, "|%s.env_vars|", ns);
		u.env_spread = f.spread_ns.buf && strstr(f.spread_ns.buf, needle);
	}
	if (u.n_keys) {
		if (fl->n == fl->cap) {
			fl->cap = fl->cap ? 2 * fl->cap : 16;
			fl->units = mem_realloc(fl->units, fl->cap * sizeof(*fl->units));
		}
		fl->units[fl->n++] = u;
	}
	free(f.keys);
	free(f.vars);
	sbuf_release(&f.spread_ns);
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
			function(fl, d, owner);
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

int fe_py_parse(struct arena *a, const char *path, const char *buf, size_t len, struct py_file *out)
{
	*out = (struct py_file){0};
	TSParser *parser = ts_parser_new();
	if (!parser)
		return -1;
	if (!ts_parser_set_language(parser, tree_sitter_python())) {
		ts_parser_delete(parser);
		return -1;
	}
	TSTree *tree = ts_parser_parse_string(parser, NULL, buf, (uint32_t)len);
	if (!tree) {
		ts_parser_delete(parser);
		return -1;
	}
	TSNode root = ts_tree_root_node(tree);
	struct file fl = {.a = a, .path = path, .src = buf};
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
	ts_tree_delete(tree);
	ts_parser_delete(parser);
	return 0;
}

bool fe_py_is_graph_key(const char *key)
{
	const char *leaf = strrchr(key, '.');
	leaf = leaf ? leaf + 1 : key;
	return strstr(leaf, "cuda_graph") || strstr(leaf, "rng_tracker") || !strcmp(leaf, "NCCL_GRAPH_REGISTER") ||
	       !strcmp(leaf, "PYTORCH_CUDA_ALLOC_CONF");
}

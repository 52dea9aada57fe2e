/* SPDX-License-Identifier: MIT */
/* py_obj: classes, Enum members, and what Python's builtins do with values (see py_fn.h). */
#include <stdio.h>
#include <stdlib.h>

#include "front/py/py_fn.h"

#define MAX_MEMBERS 256         /* members of one Enum cglint reads */

/* One object of the run: a class, or one member of an Enum class (the first of its aliases). */
struct py_obj {
	struct mod *mod;
	struct klass *cls;
	const char *member;     /* NULL: the class itself */
	struct value val;       /* a member's value */
	/* the class's members, read once (state 2; 'why' when its members cannot be read) */
	int state;
	const char **names;
	struct value *vals;
	size_t *canon;          /* per member: the first member with an equal value (an alias's) */
	size_t n;
	const char *why;
};

static struct value unknown(const char **why, const char *reason)
{
	*why = reason;
	return value_unknown;
}

bool py_obj_is(const struct value *v)
{
	return v->kind == V_STR && v->i != 0;
}

static struct py_obj *obj_of(struct py_session *c, const struct value *v)
{
	long long k = v->i < 0 ? -v->i - 1 : v->i - 1;
	return py_obj_is(v) && (size_t)k < c->n_objs ? &c->objs[k] : NULL;
}

/* The object's index: made once, so that one class or member is always the same object. */
static size_t intern(struct py_session *c, struct mod *m, struct klass *k, const char *member, struct value val)
{
	for (size_t i = 0; i < c->n_objs; i++)
		if (c->objs[i].cls == k && (member ? c->objs[i].member && !strcmp(c->objs[i].member, member)
						   : !c->objs[i].member))
			return i;
	c->objs = arena_grow(c->a, c->objs, c->n_objs, &c->cap_objs, sizeof(*c->objs));
	c->objs[c->n_objs] = (struct py_obj){.mod = m, .cls = k, .member = member, .val = val};
	return c->n_objs++;
}

struct value py_obj_class(struct py_session *c, struct mod *m, size_t cls)
{
	struct value v = value_str(m->classes[cls].name);
	v.i = -(long long)intern(c, m, &m->classes[cls], NULL, value_unknown) - 1;
	return v;
}

static struct value member_value(struct py_session *c, struct py_obj *cls, size_t k)
{
	size_t at = cls->canon[k];
	struct value v = value_str(cls->names[at]);
	v.i = (long long)intern(c, cls->mod, cls->cls, cls->names[at], cls->vals[at]) + 1;
	return v;
}

/* ---- Enum classes ---- */

/* 'enum.Enum' or 'Enum', bound by an import of the standard library's enum module. */
static bool is_enum_base(struct fn *g, TSNode b)
{
	const struct imp *im;
	if (py_is(b, "identifier"))
		return (im = fe_py_mod_import(g->mod, py_text(g, b))) && !strcmp(im->module, "enum") && !im->level &&
		       im->attr && !strcmp(im->attr, "Enum");
	return py_is(b, "attribute") && py_is(py_field(b, "object"), "identifier") &&
	       !strcmp(py_text(g, py_field(b, "attribute")), "Enum") &&
	       (im = fe_py_mod_import(g->mod, py_text(g, py_field(b, "object")))) && !im->attr &&
	       !strcmp(im->module, "enum");
}

/* A class whose only base is enum.Enum, whose body holds only members ('NAME = value'),
 * methods and a docstring, decorated with nothing but unique: its members as Python's
 * EnumMeta makes them (aliases: a later member with an equal value names the first). */
static void read_members(struct py_session *c, size_t at)
{
	struct py_obj own = c->objs[at], *o = &own;    /* the table may move while values are read */
	c->objs[at].state = 1;
	o->state = 2;
	struct fn g = {.a = c->a, .path = o->mod->path, .src = o->mod->src, .session = c, .mod = o->mod, .depth = 1};
	py_unit_init(&g.log, c->a);
	TSNode node = o->cls->node, sup = py_field(node, "superclasses"), parent = ts_node_parent(node);
	const char *cls = o->cls->name;
	uint32_t nb = ts_node_is_null(sup) ? 0 : ts_node_named_child_count(sup);
	if (nb != 1 || !is_enum_base(&g, ts_node_named_child(sup, 0)))
		o->why = arena_printf(c->a, "%s is not a plain enum.Enum, whose members cglint reads", cls);
	for (uint32_t k = 0; !o->why && py_is(parent, "decorated_definition") && k < ts_node_named_child_count(parent); k++) {
		TSNode d = ts_node_named_child(parent, k);
		const char *t = py_is(d, "decorator") ? py_text(&g, d) : "@unique";
		if (strcmp(t, "@unique") && strcmp(t, "@enum.unique"))
			o->why = arena_printf(c->a, "%s is decorated with '%s'", cls, py_snippet(&g, d));
	}
	TSNode body = py_field(node, "body");
	uint32_t n = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
	o->names = arena_alloc(c->a, (n ? n : 1) * sizeof(*o->names));
	o->vals = arena_alloc(c->a, (n ? n : 1) * sizeof(*o->vals));
	o->canon = arena_alloc(c->a, (n ? n : 1) * sizeof(*o->canon));
	for (uint32_t k = 0; !o->why && k < n; k++) {
		TSNode st = ts_node_named_child(body, k);
		TSNode def = py_is(st, "decorated_definition") ? py_field(st, "definition") : st;
		if (py_is(st, "comment") || (py_is(st, "expression_statement") && ts_node_named_child_count(st) == 1 &&
					     py_is(ts_node_named_child(st, 0), "string")))
			continue;
		if (py_is(def, "function_definition")) {
			const char *name = py_text(&g, py_field(def, "name"));
			if (name[0] == '_')
				o->why = arena_printf(c->a, "%s defines %s, which may change its members", cls, name);
			continue;
		}
		TSNode as = py_is(st, "expression_statement") && ts_node_named_child_count(st) == 1
				    ? ts_node_named_child(st, 0) : (TSNode){0};
		TSNode left = py_field(as, "left"), right = py_field(as, "right");  /* null when 'as' is */
		if (!py_is(as, "assignment") || !py_is(left, "identifier") || ts_node_is_null(right) ||
		    !ts_node_is_null(py_field(as, "type")) || py_text(&g, left)[0] == '_' || o->n == MAX_MEMBERS) {
			o->why = arena_printf(c->a, "%s's body holds '%s', which cglint does not read as a member", cls,
					      py_snippet(&g, st));
			break;
		}
		const char *w;
		struct value v = py_eval(&g, right, &w, 0);
		if (v.kind == V_UNKNOWN) {
			o->why = arena_printf(c->a, "the value of %s.%s: %s", cls, py_text(&g, left), w ? w : "not known");
			break;
		}
		size_t first = o->n;
		for (size_t i = 0; i < o->n && first == o->n; i++) {
			enum tri eq = py_obj_equal(&o->vals[i], &v);
			if (eq == TRI_UNKNOWN)
				o->why = arena_printf(c->a, "%s.%s may or may not be an alias", cls, py_text(&g, left));
			if (eq == TRI_TRUE)
				first = i;
		}
		o->names[o->n] = py_text(&g, left);
		o->vals[o->n] = v;
		o->canon[o->n++] = first;
	}
	py_unit_release(&g.log);
	c->objs[at] = own;
}

/* The class an object is (itself or a member's), with its members read; NULL with '*why' when
 * they cannot be. */
static struct py_obj *enum_class(struct py_session *c, const struct py_obj *o, const char **why)
{
	size_t at = intern(c, o->mod, o->cls, NULL, value_unknown);
	struct py_obj *cls = &c->objs[at];
	if (cls->state == 0) {
		read_members(c, at);
		cls = &c->objs[at];
	}
	if (cls->state != 2 || cls->why) {
		*why = cls->why ? cls->why : arena_printf(c->a, "%s's members lead back to it", cls->cls->name);
		return NULL;
	}
	return cls;
}

bool py_obj_attr(struct fn *f, const struct value *v, const char *attr, struct value *out, const char **why)
{
	struct py_obj *o = f->session ? obj_of(f->session, v) : NULL;
	if (!o)
		return false;
	struct py_obj *cls = enum_class(f->session, o, why);
	if (!cls) {
		*out = value_unknown;
		return true;
	}
	if (o->member && !strcmp(attr, "name")) {
		*out = value_str(o->member);
		return true;
	}
	if (o->member && !strcmp(attr, "value")) {
		*out = o->val;
		return true;
	}
	for (size_t k = 0; k < cls->n; k++)
		if (!strcmp(cls->names[k], attr)) {
			*out = member_value(f->session, cls, k);  /* Cls.attn, and member.other as Python allows */
			return true;
		}
	*out = unknown(why, arena_printf(f->a, "from '%s.%s', which cglint does not read", o->member ? o->member
										      : cls->cls->name, attr));
	return true;
}

bool py_obj_index(struct fn *f, const struct value *v, const struct value *idx, struct value *out, const char **why)
{
	struct py_obj *o = f->session ? obj_of(f->session, v) : NULL;
	if (!o)
		return false;
	struct py_obj *cls = o->member ? NULL : enum_class(f->session, o, why);
	*out = value_unknown;
	if (!cls)
		return true;
	for (size_t k = 0; idx->kind == V_STR && !py_obj_is(idx) && k < cls->n; k++)
		if (!strcmp(cls->names[k], idx->s)) {
			*out = member_value(f->session, cls, k);
			return true;
		}
	*why = arena_printf(f->a, "%s[%s] raises KeyError", cls->cls->name, value_string(f->a, idx, false));
	return true;
}

bool py_obj_call(struct fn *f, const struct value *callee, const struct value *arg, struct value *out, const char **why)
{
	struct py_obj *o = f->session ? obj_of(f->session, callee) : NULL;
	if (!o || o->member)
		return false;
	struct py_obj *cls = enum_class(f->session, o, why);
	*out = value_unknown;
	if (!cls)
		return true;
	struct py_obj *a = obj_of(f->session, arg);
	if (a && a->member && a->cls == cls->cls) {     /* Cls(member) is the member */
		*out = *arg;
		return true;
	}
	for (size_t k = 0; k < cls->n; k++) {
		enum tri eq = py_obj_equal(&cls->vals[k], arg);
		if (eq == TRI_UNKNOWN) {
			*why = arena_printf(f->a, "%s(...) of a value cglint cannot compare", cls->cls->name);
			return true;
		}
		if (eq == TRI_TRUE) {
			*out = member_value(f->session, cls, k);
			return true;
		}
	}
	*why = arena_printf(f->a, "%s(%s) raises ValueError", cls->cls->name, value_string(f->a, arg, false));
	return true;
}

/* ---- Python's == ---- */

enum tri py_obj_equal(const struct value *a, const struct value *b)
{
	if (a->kind == V_UNKNOWN || b->kind == V_UNKNOWN)
		return TRI_UNKNOWN;
	if (py_obj_is(a) || py_obj_is(b))       /* objects compare by identity */
		return py_obj_is(a) && py_obj_is(b) && a->i == b->i ? TRI_TRUE : TRI_FALSE;
	if (a->kind == V_LIST && b->kind == V_LIST) {
		if (a->i != b->i && a->i && b->i)
			return TRI_FALSE;       /* a list is never a tuple or a set */
		if (a->i != b->i || a->i == PY_SEQ_SET)
			return TRI_UNKNOWN;
		if (a->n != b->n)
			return TRI_FALSE;
		enum tri all = TRI_TRUE;
		for (size_t k = 0; k < a->n && all != TRI_FALSE; k++) {
			enum tri e = py_obj_equal(&a->items[k], &b->items[k]);
			all = e == TRI_FALSE ? e : e == TRI_UNKNOWN ? e : all;
		}
		return all;
	}
	if (a->kind == V_MAP || b->kind == V_MAP) {
		if (a->kind != b->kind)
			return TRI_FALSE;
		return value_equal(a, b) ? TRI_TRUE : TRI_UNKNOWN;      /* order aside */
	}
	return value_equal(a, b) ? TRI_TRUE : TRI_FALSE;
}

/* ---- isinstance ---- */

enum tri py_obj_isinstance(struct fn *f, const struct value *v, TSNode type)
{
	if (py_is(type, "tuple") || py_is(type, "parenthesized_expression")) {
		enum tri any = TRI_FALSE;
		for (uint32_t k = 0; k < ts_node_named_child_count(type) && any != TRI_TRUE; k++) {
			enum tri t = py_obj_isinstance(f, v, ts_node_named_child(type, k));
			any = t == TRI_TRUE ? t : t == TRI_UNKNOWN ? t : any;
		}
		return any;
	}
	if (!py_is(type, "identifier") || v->kind == V_UNKNOWN)
		return TRI_UNKNOWN;
	const char *t = py_text(f, type);
	if (py_unit_var(&f->log, t) || (f->mod && fe_py_mod_binds(f->mod, t) != TRI_FALSE))
		return TRI_UNKNOWN;     /* not the builtin */
	bool member = py_obj_is(v);
	if (!strcmp(t, "str"))
		return v->kind == V_STR && !member ? TRI_TRUE : TRI_FALSE;
	if (!strcmp(t, "bool"))
		return v->kind == V_BOOL ? TRI_TRUE : TRI_FALSE;
	if (!strcmp(t, "int"))
		return v->kind == V_INT || v->kind == V_BOOL ? TRI_TRUE : TRI_FALSE;
	if (!strcmp(t, "float"))
		return v->kind == V_FLOAT ? TRI_TRUE : TRI_FALSE;
	if (!strcmp(t, "dict"))
		return v->kind == V_MAP ? TRI_TRUE : TRI_FALSE;
	int seq = !strcmp(t, "list") ? PY_SEQ_LIST : !strcmp(t, "tuple") ? PY_SEQ_TUPLE : !strcmp(t, "set") ? PY_SEQ_SET : -1;
	if (seq < 0)
		return TRI_UNKNOWN;
	if (v->kind != V_LIST)
		return TRI_FALSE;
	return !v->i ? TRI_UNKNOWN : v->i == seq ? TRI_TRUE : TRI_FALSE;
}

/* ---- str(), and methods of str ---- */

bool py_obj_str(struct fn *f, const struct value *v, struct value *out)
{
	struct py_obj *o = f->session ? obj_of(f->session, v) : NULL;
	if (!o)
		return false;
	/* a plain Enum's member: 'Cls.name'; a class's own text is not one a recipe reads */
	const char *w;
	*out = o->member && enum_class(f->session, o, &w) ? value_str(arena_join(f->a, o->cls->name, ".", o->member))
							 : value_unknown;
	return true;
}

/* s.split(sep, n) and s.rsplit(sep, n) with a separator given. */
static struct value split(struct fn *f, const char *s, const char *sep, long long max, bool right)
{
	size_t ls = strlen(s), lp = strlen(sep), parts = 1;
	for (const char *p = s; (p = strstr(p, sep)); p += lp)
		parts++;
	if (max >= 0 && (size_t)max + 1 < parts)
		parts = (size_t)max + 1;
	struct value out = {.kind = V_LIST, .i = PY_SEQ_LIST, .n = parts};
	out.items = arena_alloc(f->a, parts * sizeof(*out.items));
	size_t cuts = parts - 1;
	/* the separators used: the first 'cuts' from the left, or the last 'cuts' */
	size_t *at = arena_alloc(f->a, (cuts ? cuts : 1) * sizeof(*at)), n = 0, total = 0;
	for (const char *p = s; (p = strstr(p, sep)); p += lp)
		total++;
	size_t skip = right ? total - cuts : 0, seen = 0;
	for (const char *p = s; n < cuts && (p = strstr(p, sep)); p += lp)
		if (seen++ >= skip)
			at[n++] = (size_t)(p - s);
	size_t from = 0;
	for (size_t k = 0; k < parts; k++) {
		size_t to = k < cuts ? at[k] : ls;
		out.items[k] = value_str(arena_strndup(f->a, s + from, to - from));
		from = to + lp;
	}
	return out;
}

bool py_obj_method(struct fn *f, const struct value *self, const char *name, const struct value *args, size_t n,
		   struct value *out, const char **why)
{
	if (self->kind != V_STR || py_obj_is(self))
		return false;
	*out = value_unknown;
	const char *s = self->s;
	bool rs = !strcmp(name, "rsplit");
	/* rsplit with a longer separator may cut where split does not ("aaa") */
	if ((rs || !strcmp(name, "split")) && n >= 1 && n <= 2 && args[0].kind == V_STR && !py_obj_is(&args[0]) &&
	    *args[0].s && (!rs || !args[0].s[1]) && (n == 1 || args[1].kind == V_INT))
		*out = split(f, s, args[0].s, n == 2 ? args[1].i : -1, rs);
	else if ((!strcmp(name, "startswith") || !strcmp(name, "endswith")) && n == 1 && args[0].kind == V_STR &&
		 !py_obj_is(&args[0])) {
		size_t ls = strlen(s), lp = strlen(args[0].s);
		bool start = name[0] == 's';
		*out = value_bool(lp <= ls && !memcmp(start ? s : s + ls - lp, args[0].s, lp));
	} else if (!strcmp(name, "replace") && (n == 2 || n == 3) && args[0].kind == V_STR && args[1].kind == V_STR &&
		   !py_obj_is(&args[0]) && !py_obj_is(&args[1]) && *args[0].s && (n == 2 || args[2].kind == V_INT)) {
		/* every (or the first 'count') non-overlapping 'old', from the left */
		long long count = n == 3 && args[2].i >= 0 ? args[2].i : -1;
		size_t lo = strlen(args[0].s);
		struct sbuf sb;
		sbuf_init(&sb);
		sbuf_addn(&sb, "", 0);
		const char *p = s, *hit;
		for (; count != 0 && (hit = strstr(p, args[0].s)); p = hit + lo, count--) {
			sbuf_addn(&sb, p, (size_t)(hit - p));
			sbuf_adds(&sb, args[1].s);
		}
		sbuf_adds(&sb, p);
		*out = value_str(arena_strdup(f->a, sb.buf));
		sbuf_release(&sb);
	} else if ((!strcmp(name, "lower") || !strcmp(name, "upper")) && n == 0) {
		char *t = arena_strdup(f->a, s);
		for (char *p = t; *p; p++)      /* ASCII only: anything else is not known */
			if ((unsigned char)*p >= 0x80)
				return *why = "from a case change of a non-ASCII string", true;
			else
				*p = name[0] == 'l' ? (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p)
						    : (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
		*out = value_str(t);
	}
	if (out->kind == V_UNKNOWN)
		*why = arena_printf(f->a, "from str.%s(), which cglint does not compute here", name);
	return true;
}

/* ---- iteration ---- */

bool py_obj_items(struct fn *f, const struct value *v, const struct value **out, size_t *n, const char **why)
{
	if (v->kind == V_LIST && v->i == PY_SEQ_SET && v->n > 1) {
		*why = "from a loop over a set, whose order Python does not fix";
		return false;
	}
	if (v->kind == V_LIST) {
		*out = v->items;
		*n = v->n;
		return true;
	}
	if (v->kind == V_MAP) {         /* its keys, in insertion order */
		struct value *keys = arena_alloc(f->a, (v->n ? v->n / 2 : 1) * sizeof(*keys));
		for (size_t k = 0; k < v->n / 2; k++)
			keys[k] = v->items[2 * k];
		*out = keys;
		*n = v->n / 2;
		return true;
	}
	if (v->kind == V_STR && !py_obj_is(v)) {
		size_t len = strlen(v->s);
		struct value *chars = arena_alloc(f->a, (len ? len : 1) * sizeof(*chars));
		for (size_t k = 0; k < len; k++) {
			if ((unsigned char)v->s[k] >= 0x80) {
				*why = "from a loop over a non-ASCII string";
				return false;
			}
			chars[k] = value_str(arena_strndup(f->a, v->s + k, 1));
		}
		*out = chars;
		*n = len;
		return true;
	}
	if (v->kind != V_UNKNOWN || !*why)
		*why = arena_printf(f->a, "from a loop over %s, which cglint does not iterate",
				    v->kind == V_UNKNOWN ? "a value it does not know" : value_string(f->a, v, false));
	return false;
}

/* ---- calls ---- */

/* A call's positional arguments evaluated (at most 'max'); false where one is a keyword or a
 * splat ('*why' NULL) or not known ('*why' its reason). */
static bool positional(struct fn *f, TSNode call, struct value *v, size_t max, size_t *n, const char **why,
		       unsigned depth)
{
	TSNode args = py_field(call, "arguments");
	*n = 0;
	*why = NULL;
	if (!py_is(args, "argument_list"))
		return false;
	for (uint32_t k = 0; k < ts_node_named_child_count(args); k++) {
		TSNode a = ts_node_named_child(args, k);
		if (py_is(a, "comment"))
			continue;
		if (*n == max || py_is(a, "keyword_argument") || py_is(a, "list_splat") || py_is(a, "dictionary_splat"))
			return false;
		v[*n] = py_eval(f, a, why, depth + 1);
		if (v[(*n)++].kind == V_UNKNOWN)
			return false;
	}
	return true;
}

/* The builtin 'name' is what a call names: not a local, not a module-level name. */
static bool is_builtin(struct fn *f, TSNode fnode, const char *name)
{
	return py_is(fnode, "identifier") && !strcmp(py_text(f, fnode), name) && !py_unit_var(&f->log, name) &&
	       !py_unit_value(&f->log, name, &(struct value){0}, &(const char *){0}) &&
	       (!f->mod || fe_py_mod_binds(f->mod, name) == TRI_FALSE);
}

bool py_obj_builtin(struct fn *f, TSNode call, struct value *out, const char **why, unsigned depth)
{
	TSNode fnode = py_field(call, "function"), args = py_field(call, "arguments");
	struct value v[3];
	size_t n;
	*out = value_unknown;
	if (!f->session)
		return false;
	if (is_builtin(f, fnode, "isinstance")) {
		uint32_t cnt = py_is(args, "argument_list") ? ts_node_named_child_count(args) : 0;
		if (cnt != 2 || py_is(ts_node_named_child(args, 0), "keyword_argument"))
			return false;
		v[0] = py_eval(f, ts_node_named_child(args, 0), why, depth + 1);
		enum tri t = py_obj_isinstance(f, &v[0], ts_node_named_child(args, 1));
		if (t != TRI_UNKNOWN)
			*out = value_bool(t == TRI_TRUE);
		else if (v[0].kind != V_UNKNOWN)
			*why = arena_printf(f->a, "from '%s', which cglint cannot decide", py_snippet(f, call));
		return true;
	}
	bool set = is_builtin(f, fnode, "set"), list = is_builtin(f, fnode, "list"), tuple = is_builtin(f, fnode, "tuple");
	if (set || list || tuple) {
		const struct value *items = NULL;
		size_t ni = 0;
		if (!positional(f, call, v, 1, &n, why, depth) ||
		    (n == 1 && !py_obj_items(f, &v[0], &items, &ni, why)))
			return *why ? true : false;
		struct value seq = {.kind = V_LIST, .i = set ? PY_SEQ_SET : list ? PY_SEQ_LIST : PY_SEQ_TUPLE};
		seq.items = arena_alloc(f->a, (ni ? ni : 1) * sizeof(*seq.items));
		for (size_t k = 0; k < ni; k++) {
			bool dup = false;
			for (size_t j = 0; set && j < seq.n && !dup; j++) {
				enum tri eq = py_obj_equal(&seq.items[j], &items[k]);
				if (eq == TRI_UNKNOWN)
					return *why = "from a set of values cglint cannot compare", true;
				dup = eq == TRI_TRUE;
			}
			if (!dup)
				seq.items[seq.n++] = items[k];
		}
		*out = seq;
		return true;
	}
	if (is_builtin(f, fnode, "getattr")) {  /* getattr(member, "name"[, default]) */
		if (!positional(f, call, v, 3, &n, why, depth) || n < 2 || !py_obj_is(&v[0]) || v[1].kind != V_STR ||
		    py_obj_is(&v[1]))
			return false;
		struct py_obj *o = f->session ? obj_of(f->session, &v[0]) : NULL;
		if (!o || !o->member || (strcmp(v[1].s, "name") && strcmp(v[1].s, "value")))
			return false;
		return py_obj_attr(f, &v[0], v[1].s, out, why);
	}
	return false;
}

bool py_obj_value_call(struct fn *f, TSNode call, struct value *out, const char **why, unsigned depth)
{
	TSNode fnode = py_field(call, "function");
	struct value v[4], self;
	size_t n;
	const char *w;
	if (!f->session)
		return false;
	if (py_is(fnode, "attribute") && !py_eval_path(f, py_field(fnode, "object"), 0)) {
		/* a method of a value: 'a.b'.rsplit('.', 1) */
		self = py_eval(f, py_field(fnode, "object"), &w, depth + 1);
		if (self.kind != V_STR || py_obj_is(&self))
			return false;
		if (!positional(f, call, v, 4, &n, why, depth)) {
			*out = value_unknown;
			if (!*why)
				*why = arena_printf(f->a, "from '%s', which cglint does not compute", py_snippet(f, call));
			return true;
		}
		return py_obj_method(f, &self, py_text(f, py_field(fnode, "attribute")), v, n, out, why);
	}
	/* Cls(value) of an Enum: one positional argument */
	TSNode args = py_field(call, "arguments");
	if (!py_is(args, "argument_list") || ts_node_named_child_count(args) != 1 ||
	    (!py_is(fnode, "identifier") && !py_is(fnode, "attribute")))
		return false;
	self = py_eval(f, fnode, &w, depth + 1);
	if (!py_obj_is(&self) || !positional(f, call, v, 1, &n, why, depth))
		return false;
	struct py_obj *o = f->session ? obj_of(f->session, &self) : NULL;
	if (!o || o->member || !enum_class(f->session, o, &w))
		return false;
	return py_obj_call(f, &self, &v[0], out, why);
}

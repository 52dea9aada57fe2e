/* SPDX-License-Identifier: MIT */
/* py_class: the field defaults of the config class a call builds, read from its source (see py_fn.h). */
#include <stdio.h>
#include <stdlib.h>

#include "front/py/fe_py_lit.h"
#include "front/py/py_bridge.h"
#include "front/py/py_fn.h"

#define MAX_MRO 32              /* classes in one class's method resolution order */
#define MAX_BASES 8             /* bases a class names that cglint reads */
#define MAX_HELPER_DEPTH 3      /* functions a method hands 'self' to, followed this deep */
#define MAX_SCAN_NODES 200000   /* nodes a class's methods are scanned through */

/* A dataclass field as a class's __init__ leaves it when the caller does not pass it. */
struct cfield {
	const char *name;
	struct value val;       /* V_UNKNOWN: 'why' */
	const char *why;
	bool required;          /* no default: the caller must pass it */
	struct loc at;          /* its name in the class body */
};

/* What one class says, read once a run. */
struct klass_info {
	struct mod *mod;
	const char *why;        /* nothing can be said from it: a base not found, a class among its own bases */
	bool dataclass;         /* decorated with @dataclass */
	bool own_init;          /* defines __init__ itself */
	struct klass *mro[MAX_MRO];     /* itself first, in Python's C3 order */
	size_t n_mro;
	struct cfield *fields;  /* its fields, its dataclass bases' included, as dataclasses merges them */
	size_t n_fields, cap_fields;
	const char **changed;   /* names its methods (or the functions they hand 'self' to) assign */
	const char **changed_by;
	size_t n_changed, cap_changed;
	size_t scanned;         /* nodes scanned for that, against MAX_SCAN_NODES */
};

static bool decorated_dataclass(struct arena *a, const struct mod *m, TSNode cls)
{
	TSNode parent = ts_node_parent(cls);
	if (!py_is(parent, "decorated_definition"))
		return false;
	for (uint32_t k = 0; k < ts_node_named_child_count(parent); k++) {
		TSNode d = ts_node_named_child(parent, k);
		if (!py_is(d, "decorator") || !ts_node_named_child_count(d))
			continue;
		TSNode e = ts_node_named_child(d, 0);
		if (py_is(e, "call"))
			e = py_field(e, "function");
		const char *name = py_node_text(a, m->src, e);
		if (!strcmp(name, "dataclass") || !strcmp(name, "dataclasses.dataclass"))
			return true;
	}
	return false;
}

/* ---- bases ---- */

/* Bases from the standard library that add no field and run no code at construction. */
static bool plain_base(const char *name)
{
	static const char *const names[] = {"object", "Generic", "ABC", "Protocol", "typing.Generic", "abc.ABC",
					    "typing.Protocol"};
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(name, names[k]))
			return true;
	return false;
}

/* The module-level class ('classes') or function an expression names (Name, module.Name) as
 * 'm' sees it: its module and index there. */
static bool find_named(struct py_session *c, struct mod *m, TSNode n, bool classes, struct mod **out, size_t *at)
{
	bool (*lookup)(struct py_session *, struct mod *, const char *, unsigned, struct mod **, size_t *) =
		classes ? fe_py_mod_class : fe_py_mod_lookup;
	if (py_is(n, "identifier"))
		return lookup(c, m, py_node_text(c->a, m->src, n), 0, out, at);
	if (!py_is(n, "attribute") || !py_is(py_field(n, "object"), "identifier"))
		return false;
	const struct imp *im = fe_py_mod_import(m, py_node_text(c->a, m->src, py_field(n, "object")));
	if (!im)
		return false;
	const char *name = !im->attr ? im->module : *im->module ? arena_join(c->a, im->module, ".", im->attr)
								 : im->attr;
	struct mod *next = fe_py_mod_load(c, m, name, im->level);
	return next && lookup(c, next, py_node_text(c->a, m->src, py_field(n, "attribute")), 0, out, at);
}

static struct klass *find_class(struct py_session *c, struct mod *m, TSNode base, struct mod **cm)
{
	size_t at;
	return find_named(c, m, base, true, cm, &at) ? &(*cm)->classes[at] : NULL;
}

static struct klass_info *read_class(struct py_session *c, struct mod *m, struct klass *k, unsigned depth);

static bool in_tail(struct klass *k, struct klass **seq, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (seq[i] == k)
			return true;
	return false;
}

/* Python's C3 linearization of a class over its bases' orders: false where Python refuses. */
static bool linearize(struct klass_info *ki, struct klass *self, struct klass **bases, size_t nb)
{
	struct klass *seqs[MAX_BASES + 1][MAX_MRO];
	size_t len[MAX_BASES + 1], start[MAX_BASES + 1] = {0};
	for (size_t b = 0; b < nb; b++) {
		len[b] = bases[b]->info->n_mro;
		memcpy(seqs[b], bases[b]->info->mro, len[b] * sizeof(*seqs[b]));
	}
	memcpy(seqs[nb], bases, nb * sizeof(*bases));
	len[nb] = nb;
	ki->mro[0] = self;
	ki->n_mro = 1;
	for (;;) {
		struct klass *pick = NULL;
		bool left = false;
		for (size_t s = 0; s <= nb && !pick; s++) {
			if (start[s] == len[s])
				continue;
			left = true;
			struct klass *head = seqs[s][start[s]];
			bool ok = true;
			for (size_t o = 0; o <= nb && ok; o++)
				ok = !in_tail(head, seqs[o] + start[o], len[o] - start[o]);
			if (ok)
				pick = head;
		}
		if (!left)
			return true;
		if (!pick || ki->n_mro == MAX_MRO)
			return false;
		ki->mro[ki->n_mro++] = pick;
		for (size_t s = 0; s <= nb; s++)
			if (start[s] < len[s] && seqs[s][start[s]] == pick)
				start[s]++;
	}
}

/* ---- fields ---- */

static struct cfield *field_slot(struct arena *a, struct klass_info *ki, const char *name)
{
	for (size_t k = 0; k < ki->n_fields; k++)
		if (!strcmp(ki->fields[k].name, name))
			return &ki->fields[k];
	if (ki->n_fields == ki->cap_fields) {
		ki->cap_fields = ki->cap_fields ? 2 * ki->cap_fields : 64;
		struct cfield *grown = arena_alloc(a, ki->cap_fields * sizeof(*grown));
		if (ki->n_fields)
			memcpy(grown, ki->fields, ki->n_fields * sizeof(*grown));
		ki->fields = grown;
	}
	ki->fields[ki->n_fields] = (struct cfield){.name = name};
	return &ki->fields[ki->n_fields++];
}

static bool not_a_field(const char *type)
{
	static const char *const prefixes[] = {"ClassVar", "typing.ClassVar", "InitVar", "dataclasses.InitVar",
					       "KW_ONLY", "dataclasses.KW_ONLY"};
	for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++)
		if (!strncmp(type, prefixes[k], strlen(prefixes[k])))
			return true;
	return false;
}

/* default_factory=F: the empty value of a builtin container, else unknown; where F asks whether
 * a module imports (Bridge's fusions.can_enable_gradient_accumulation_fusion), the machine that
 * runs the job decides, and the reason says so. */
static struct value factory(struct fn *g, TSNode fac, const char **why)
{
	const char *f = py_text(g, fac);
	bool shadowed = fe_py_mod_import(g->mod, f) || py_unit_var(&g->log, f);
	if (!shadowed && (!strcmp(f, "dict") || !strcmp(f, "list") || !strcmp(f, "tuple")))
		return (struct value){.kind = f[0] == 'd' ? V_MAP : V_LIST};
	struct mod *fm;
	size_t d;
	const char *probe = find_named(g->session, g->mod, fac, false, &fm, &d)
				    ? fe_py_mod_import_probe(g->session->a, fm->src, fm->defs[d].node) : NULL;
	if (probe)
		*why = arena_printf(g->a, "depends on the machine that runs the job: default_factory=%s returns "
				    "whether %s imports there", py_snippet(g, fac), probe);
	else
		*why = arena_printf(g->a, "from default_factory=%s, which cglint does not call", py_snippet(g, fac));
	return value_unknown;
}

/* 'name: T = value' or 'name: T = field(default=...)' in the body of class 'cls'. */
static void own_field(struct fn *g, struct klass_info *ki, const char *cls, TSNode as)
{
	TSNode left = py_field(as, "left"), type = py_field(as, "type"), right = py_field(as, "right");
	const char *name = py_text(g, left);
	if (not_a_field(py_text(g, type)))
		return;
	struct cfield *fd = field_slot(g->a, ki, name);
	*fd = (struct cfield){.name = name, .at = py_loc(g->path, left)};
	const char *fn = py_is(right, "call") ? py_text(g, py_field(right, "function")) : NULL;
	if (fn && (!strcmp(fn, "field") || !strcmp(fn, "dataclasses.field"))) {
		fd->required = true;
		TSNode args = py_field(right, "arguments");
		for (uint32_t k = 0; !ts_node_is_null(args) && k < ts_node_named_child_count(args); k++) {
			TSNode a = ts_node_named_child(args, k);
			const char *kw = py_is(a, "keyword_argument") ? py_text(g, py_field(a, "name")) : "";
			if (!strcmp(kw, "default")) {
				fd->required = false;
				fd->val = py_eval(g, py_field(a, "value"), &fd->why, 0);
			} else if (!strcmp(kw, "default_factory")) {
				fd->required = false;
				fd->val = factory(g, py_field(a, "value"), &fd->why);
			}
		}
	} else if (ts_node_is_null(right)) {
		fd->required = true;
	} else {
		fd->val = py_eval(g, right, &fd->why, 0);
	}
	if (!fd->required && fd->val.kind == V_UNKNOWN)
		fd->why = arena_printf(g->a, "the default of %s.%s: %s", cls, name,
				       fd->why ? fd->why : "not a value cglint reads");
	if (!fd->required)
		py_unit_bind_value(&g->log, name, fd->val, fd->why);  /* later defaults may read it */
}

/* A name the class body binds some other way (unannotated, under an if): not read. */
static void other_binding(struct fn *g, struct klass_info *ki, const char *cls, const char *name)
{
	for (size_t k = 0; k < ki->n_fields; k++)
		if (!strcmp(ki->fields[k].name, name)) {
			ki->fields[k].val = value_unknown;
			ki->fields[k].required = false;
			ki->fields[k].why = arena_printf(g->a, "%s.%s is bound in the class body without an annotation "
							  "or under a statement cglint does not read", cls, name);
		}
	py_unit_bind_value(&g->log, name, value_unknown, "bound in a class body");
}

static void bound_names(struct fn *g, struct klass_info *ki, const char *cls, TSNode n, unsigned depth)
{
	if (depth > 64 || ts_node_is_null(n))
		return;
	if (py_is(n, "assignment") || py_is(n, "augmented_assignment")) {
		TSNode left = py_field(n, "left");
		if (py_is(left, "identifier"))
			other_binding(g, ki, cls, py_text(g, left));
	}
	if (py_is(n, "function_definition") || py_is(n, "class_definition"))
		return;
	for (uint32_t k = 0; k < ts_node_named_child_count(n); k++)
		bound_names(g, ki, cls, ts_node_named_child(n, k), depth + 1);
}

/* The class body in order: its own fields; 'own_init' for a def __init__. */
static void own_fields(struct py_session *c, struct mod *m, struct klass *k, struct klass_info *ki)
{
	struct fn g = {.a = c->a, .path = m->path, .src = m->src, .session = c, .mod = m, .depth = 1};
	py_unit_init(&g.log, c->a);
	TSNode body = py_field(k->node, "body");
	for (uint32_t i = 0; !ts_node_is_null(body) && i < ts_node_named_child_count(body); i++) {
		TSNode st = ts_node_named_child(body, i);
		if (py_is(st, "decorated_definition"))
			st = py_field(st, "definition");
		if (py_is(st, "function_definition") || py_is(st, "class_definition")) {
			const char *name = py_text(&g, py_field(st, "name"));
			ki->own_init |= !strcmp(name, "__init__") || !strcmp(name, "__new__");
			py_unit_bind_value(&g.log, name, value_unknown, "a method");
			continue;
		}
		TSNode as = py_is(st, "expression_statement") && ts_node_named_child_count(st) == 1
				    ? ts_node_named_child(st, 0) : (TSNode){0};
		if (ki->dataclass && py_is(as, "assignment") && py_is(py_field(as, "left"), "identifier") &&
		    !ts_node_is_null(py_field(as, "type")))
			own_field(&g, ki, k->name, as);
		else
			bound_names(&g, ki, k->name, st, 0);
	}
	py_unit_release(&g.log);
}

/* ---- what methods change ---- */

static void changed(struct py_session *c, struct klass_info *ki, const char *name, const char *by)
{
	for (size_t k = 0; k < ki->n_changed; k++)
		if (!strcmp(ki->changed[k], name))
			return;
	if (ki->n_changed == ki->cap_changed) {
		ki->cap_changed = ki->cap_changed ? 2 * ki->cap_changed : 32;
		const char **n1 = arena_alloc(c->a, ki->cap_changed * sizeof(*n1));
		const char **n2 = arena_alloc(c->a, ki->cap_changed * sizeof(*n2));
		if (ki->n_changed) {
			memcpy(n1, ki->changed, ki->n_changed * sizeof(*n1));
			memcpy(n2, ki->changed_by, ki->n_changed * sizeof(*n2));
		}
		ki->changed = n1;
		ki->changed_by = n2;
	}
	ki->changed[ki->n_changed] = name;
	ki->changed_by[ki->n_changed++] = by;
}

struct scan {
	struct py_session *c;
	struct klass_info *ki;
	struct mod *m;
	const char **selves;    /* the names that hold the object: 'self', a helper's parameters */
	size_t n_selves;
	const char *by;         /* "TransformerConfig.__post_init__" */
	TSNode def;             /* the function scanned */
	unsigned depth;
};

static bool is_self(struct scan *s, TSNode n)
{
	if (!py_is(n, "identifier"))
		return false;
	uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
	for (size_t k = 0; k < s->n_selves; k++)
		if (strlen(s->selves[k]) == e - b && !memcmp(s->selves[k], s->m->src + b, e - b))
			return true;
	return false;
}

/* self.x, self.x.y, self.x[0]: 'x' */
static const char *self_field(struct scan *s, TSNode n)
{
	TSNode attr = {0};
	for (unsigned guard = 0; guard < 64; guard++) {
		if (py_is(n, "attribute")) {
			if (is_self(s, py_field(n, "object")))
				return ts_node_is_null(attr = py_field(n, "attribute")) ? NULL : py_node_text(s->c->a, s->m->src, attr);
			n = py_field(n, "object");
		} else if (py_is(n, "subscript")) {
			n = py_field(n, "value");
		} else {
			return NULL;
		}
	}
	return NULL;
}

static void scan_node(struct scan *s, TSNode n, unsigned depth);

static void scan_target(struct scan *s, TSNode t)
{
	const char *name = self_field(s, t);
	if (name) {
		changed(s->c, s->ki, name, s->by);
		return;
	}
	for (uint32_t k = 0; (py_is(t, "pattern_list") || py_is(t, "tuple_pattern") || py_is(t, "list_pattern")) &&
			     k < ts_node_named_child_count(t); k++)
		scan_target(s, ts_node_named_child(t, k));
}

/* A call whose string arguments go nowhere else: a message printed, logged or warned. */
static bool message_call(const char *fn)
{
	static const char *const tails[] = {"print", "warn", "warning", "info", "debug", "error", "exception",
					    "critical", "log", "getattr", "hasattr"};
	const char *leaf = strrchr(fn, '.');
	leaf = leaf ? leaf + 1 : fn;
	for (size_t k = 0; k < sizeof(tails) / sizeof(tails[0]); k++)
		if (!strcmp(leaf, tails[k]))
			return true;
	return false;
}

/* setattr(self, name, v) with a name cglint cannot read: every string the function holds may
 * be that name, but for those no name can come from: a raise's or an assert's (the function
 * ends there) and a message's (print, warnings.warn, logging; getattr/hasattr only read). */
static void strings_of(struct scan *s, TSNode n, unsigned depth)
{
	if (depth > 200 || s->ki->scanned++ > MAX_SCAN_NODES)
		return;
	if (py_is(n, "raise_statement") || py_is(n, "assert_statement"))
		return;
	struct value v;
	if (py_is(n, "string") && fe_py_lit_string(s->c->a, s->m->src, n, &v))
		changed(s->c, s->ki, v.s, s->by);
	if (py_is(n, "call") && message_call(py_node_text(s->c->a, s->m->src, py_field(n, "function"))))
		return;
	for (uint32_t k = 0; k < ts_node_named_child_count(n); k++)
		strings_of(s, ts_node_named_child(n, k), depth + 1);
}

static void scan_function(struct scan *s, struct mod *m, TSNode def, const char *by, bool all_params);

static void scan_call(struct scan *s, TSNode call)
{
	TSNode fnode = py_field(call, "function"), args = py_field(call, "arguments");
	uint32_t n = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
	const char *fname = py_is(fnode, "identifier") || py_is(fnode, "attribute") ? py_node_text(s->c->a, s->m->src, fnode) : "";
	/* setattr(self, "x", v), object.__setattr__(self, "x", v) */
	if ((!strcmp(fname, "setattr") || strstr(fname, "__setattr__")) && n >= 2) {
		TSNode obj = ts_node_named_child(args, 0), name = ts_node_named_child(args, 1);
		struct value v;
		if (is_self(s, obj) && fe_py_lit_string(s->c->a, s->m->src, name, &v))
			changed(s->c, s->ki, v.s, s->by);
		else if (is_self(s, obj))
			strings_of(s, s->def, 0);
		return;
	}
	/* self.x.append(...), self.x.update(...): x changes */
	if (py_is(fnode, "attribute")) {
		const char *name = self_field(s, py_field(fnode, "object"));
		if (name)
			changed(s->c, s->ki, name, s->by);
	}
	/* helper(self): what the helper assigns on its parameters */
	bool passes = false;
	for (uint32_t k = 0; k < n && !passes; k++) {
		TSNode a = ts_node_named_child(args, k);
		passes = is_self(s, py_is(a, "keyword_argument") ? py_field(a, "value") : a);
	}
	struct mod *hm;
	size_t d;
	if (passes && py_is(fnode, "identifier") && s->depth < MAX_HELPER_DEPTH &&
	    fe_py_mod_lookup(s->c, s->m, fname, 0, &hm, &d))
		scan_function(s, hm, hm->defs[d].node, arena_printf(s->c->a, "%s (through %s)", s->by, fname), true);
}

static void scan_node(struct scan *s, TSNode n, unsigned depth)
{
	if (depth > 200 || ts_node_is_null(n) || s->ki->scanned++ > MAX_SCAN_NODES)
		return;
	if (py_is(n, "assignment") || py_is(n, "augmented_assignment"))
		scan_target(s, py_field(n, "left"));
	else if (py_is(n, "call"))
		scan_call(s, n);
	for (uint32_t k = 0; k < ts_node_named_child_count(n); k++)
		scan_node(s, ts_node_named_child(n, k), depth + 1);
}

/* A method (its first parameter is the object) or a helper it hands the object to (every
 * parameter may be). */
static void scan_function(struct scan *s, struct mod *m, TSNode def, const char *by, bool all_params)
{
	TSNode ps = py_field(def, "parameters");
	uint32_t np = ts_node_is_null(ps) ? 0 : ts_node_named_child_count(ps);
	struct scan sub = {.c = s->c, .ki = s->ki, .m = m, .by = by, .def = def, .depth = s->depth + 1,
			   .selves = arena_alloc(s->c->a, (np ? np : 1) * sizeof(char *))};
	for (uint32_t k = 0; k < np && (all_params || !sub.n_selves); k++) {
		TSNode p = ts_node_named_child(ps, k), id = p;
		if (py_is(p, "typed_parameter"))
			id = ts_node_named_child(p, 0);
		else if (py_is(p, "default_parameter") || py_is(p, "typed_default_parameter"))
			id = py_field(p, "name");
		if (py_is(id, "identifier"))
			sub.selves[sub.n_selves++] = py_node_text(s->c->a, m->src, id);
	}
	if (sub.n_selves)
		scan_node(&sub, py_field(def, "body"), 0);
}

static void methods(struct py_session *c, struct mod *m, struct klass *k, struct klass_info *ki)
{
	TSNode body = py_field(k->node, "body");
	for (uint32_t i = 0; !ts_node_is_null(body) && i < ts_node_named_child_count(body); i++) {
		TSNode st = ts_node_named_child(body, i);
		if (py_is(st, "decorated_definition"))
			st = py_field(st, "definition");
		if (!py_is(st, "function_definition"))
			continue;
		struct scan s = {.c = c, .ki = ki, .m = m};
		scan_function(&s, m, st, arena_join(c->a, k->name, ".", py_node_text(c->a, m->src, py_field(st, "name"))),
			      false);
	}
}

/* ---- a class ---- */

static struct klass_info *read_class(struct py_session *c, struct mod *m, struct klass *k, unsigned depth)
{
	if (k->state == 2)
		return k->info;
	struct klass_info *ki = arena_alloc(c->a, sizeof(*ki));
	*ki = (struct klass_info){.mod = m};
	if (k->state == 1 || depth > MAX_MRO) {
		ki->why = arena_printf(c->a, "%s is among its own bases, or they go deeper than cglint reads", k->name);
		return ki;      /* not kept: the outer read decides */
	}
	k->state = 1;
	ki->dataclass = decorated_dataclass(c->a, m, k->node);
	struct klass *bases[MAX_BASES];
	size_t nb = 0;
	TSNode sup = py_field(k->node, "superclasses");
	for (uint32_t i = 0; !ts_node_is_null(sup) && i < ts_node_named_child_count(sup) && !ki->why; i++) {
		TSNode b = ts_node_named_child(sup, i);
		if (py_is(b, "keyword_argument") || py_is(b, "comment"))
			continue;       /* metaclass=..., kw_only=... */
		if (py_is(b, "subscript"))
			b = py_field(b, "value");       /* Mixin[Model] */
		const char *bname = py_node_text(c->a, m->src, b);
		struct mod *bm = NULL;
		struct klass *bk = find_class(c, m, b, &bm);
		if (!bk && plain_base(bname))
			continue;
		struct klass_info *bi = bk ? read_class(c, bm, bk, depth + 1) : NULL;
		if (!bk)
			ki->why = arena_printf(c->a, "its base '%s' (of %s) is not a class cglint finds", bname, k->name);
		else if (bi->why)
			ki->why = bi->why;
		else if (nb == MAX_BASES)
			ki->why = arena_printf(c->a, "%s has more bases than cglint reads", k->name);
		else
			bases[nb++] = bk;
	}
	if (!ki->why && !linearize(ki, k, bases, nb))
		ki->why = arena_printf(c->a, "%s has no consistent method resolution order", k->name);
	if (!ki->why) {
		/* dataclasses: each dataclass base's fields, the farthest first, then the class's own */
		for (size_t i = ki->n_mro; i-- > 1;) {
			const struct klass_info *bi = ki->mro[i]->info;
			for (size_t f = 0; bi->dataclass && f < bi->n_fields; f++)
				*field_slot(c->a, ki, bi->fields[f].name) = bi->fields[f];
		}
		own_fields(c, m, k, ki);
		methods(c, m, k, ki);
		if (ki->scanned > MAX_SCAN_NODES)
			ki->why = arena_printf(c->a, "%s's methods are larger than cglint reads", k->name);
	}
	k->info = ki;
	k->state = 2;
	return ki;
}

/* MCore's and Bridge's TransformerConfig classes, whose __post_init__ and finalize() the packs'
 * steps replay for the fields they set; a provider's or a user's own methods they do not. */
static bool replayed_by_packs(const struct klass *k)
{
	static const char *const names[] = {"TransformerConfig", "MLATransformerConfig", "ModelParallelConfig",
					    "HeterogeneousTransformerConfig"};
	const char *path = k->info->mod->path;
	bool ours = strstr(path, "/megatron/core/") || strstr(path, "/megatron/bridge/models/transformer_config.py");
	for (size_t n = 0; ours && n < sizeof(names) / sizeof(names[0]); n++)
		if (!strcmp(k->name, names[n]))
			return true;
	return false;
}

bool py_class_defaults(struct fn *f, TSNode call, const char *key, bool known_only)
{
	TSNode fnode = py_field(call, "function");
	struct mod *m = NULL;
	struct klass *k = f->session && f->mod ? find_class(f->session, f->mod, fnode, &m) : NULL;
	return k && py_class_defaults_of(f, m, k, key, py_loc(f->path, fnode), known_only);
}

enum tri py_class_has_field(struct py_session *c, struct mod *m, struct klass *k, const char *name)
{
	struct klass_info *ki = read_class(c, m, k, 0);
	for (size_t i = 0; !ki->why && i < ki->n_fields; i++)
		if (!strcmp(ki->fields[i].name, name))
			return TRI_TRUE;
	return ki->why ? TRI_UNKNOWN : TRI_FALSE;
}

/* The method (or a function it hands 'self' to) of a class in ki's order that may assign field
 * 'name', or NULL; with 'replayed', classes whose changes the packs' steps replay are passed over. */
static const char *changer(const struct klass_info *ki, const char *name, bool replayed)
{
	for (size_t o = 0; o < ki->n_mro; o++) {
		const struct klass_info *bi = ki->mro[o]->info;
		for (size_t j = 0; j < bi->n_changed && !(replayed && replayed_by_packs(ki->mro[o])); j++)
			if (!strcmp(bi->changed[j], name))
				return bi->changed_by[j];
	}
	return NULL;
}

bool py_class_defaults_of(struct fn *f, struct mod *m, struct klass *k, const char *key, struct loc at,
			  bool known_only)
{
	struct klass_info *ki = read_class(f->session, m, k, 0);
	const char *cls = k->name;
	if (ki->why)
		return false;
	/* the __init__ that runs: the first class in the order that defines one or is a dataclass */
	for (size_t i = 0; i < ki->n_mro; i++) {
		const struct klass_info *bi = ki->mro[i]->info;
		if (bi->own_init || (!bi->dataclass && i + 1 == ki->n_mro))
			return false;   /* its own __init__, or no dataclass's */
		if (bi->dataclass)
			break;
	}
	bool model = !strcmp(py_bridge_section(cls) ? py_bridge_section(cls) : "", "model");
	size_t from = f->log.n;
	for (size_t i = 0; i < ki->n_fields; i++) {
		const struct cfield *fd = &ki->fields[i];
		if (fd->required)
			continue;
		struct value v = fd->val;
		const char *why = fd->why;
		bool replayed = false;
		for (size_t r = 0; model && r < f->session->n_replayed && !replayed; r++)
			replayed = !strcmp(f->session->replayed[r], fd->name);
		const char *by = v.kind != V_UNKNOWN ? changer(ki, fd->name, replayed) : NULL;
		if (by) {
			v = value_unknown;
			why = arena_printf(f->a, "%s may change %s.%s, whose default cglint does not follow past it",
					   by, cls, fd->name);
		}
		if (v.kind == V_UNKNOWN && known_only)
			continue;
		v.loc = at;
		py_unit_put(&f->log, arena_join(f->a, key, ".", fd->name), v, at, why);
	}
	py_unit_form(&f->log, from, NULL, PY_DECLARED);        /* not judged against a release's fields */
	return true;
}

int fe_py_class_field(struct py_session *c, const char *from, const char *module, const char *cls, const char *name,
		      struct value *out, struct loc *at, const char **why)
{
	struct mod importer = {.path = from}, *m = c ? fe_py_mod_load(c, &importer, module, 0) : NULL, *cm = NULL;
	size_t idx;
	if (!m || !fe_py_mod_class(c, m, cls, 0, &cm, &idx))
		return -1;
	struct klass_info *ki = read_class(c, cm, &cm->classes[idx], 0);
	*out = value_unknown;
	*at = py_loc(cm->path, cm->classes[idx].node);
	if (ki->why) {
		*why = ki->why;
		return 1;
	}
	for (size_t i = 0; i < ki->n_fields; i++) {
		const struct cfield *fd = &ki->fields[i];
		if (strcmp(fd->name, name))
			continue;
		if (fd->required)
			return 0;
		*out = fd->val;
		*why = fd->why;
		*at = fd->at;
		const char *by = changer(ki, name, false);
		if (by) {
			*out = value_unknown;
			*why = arena_printf(c->a, "%s may change it", by);
		}
		return 1;
	}
	return 0;
}

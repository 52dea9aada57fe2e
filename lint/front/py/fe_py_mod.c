/* SPDX-License-Identifier: MIT */
/* fe_py_mod: the modules a run parses, their functions and imports (see fe_py_mod.h). */
#define _GNU_SOURCE     /* memmem */
#include "front/py/fe_py_mod.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/mem.h"
#include "front/py/py_mod.h"
#include "front/py/py_node.h"
#include "front/py/py_session.h"

#define is py_is
#define text py_node_text
#define field py_field

/* An except clause that catches ImportError: bare, or naming it, a base of it, or a tuple
 * holding one. */
static bool catches_import_error(const char *src, TSNode clause)
{
	if (!is(clause, "except_clause"))
		return false;
	TSNode v = field(clause, "value");
	if (ts_node_is_null(v))
		return true;
	uint32_t n = is(v, "tuple") || is(v, "parenthesized_expression") ? ts_node_named_child_count(v) : 1;
	for (uint32_t k = 0; k < n; k++) {
		TSNode e = n == 1 && !is(v, "tuple") && !is(v, "parenthesized_expression") ? v : ts_node_named_child(v, k);
		uint32_t b = ts_node_start_byte(e), len = ts_node_end_byte(e) - b;
		static const char *const names[] = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException",
						    "builtins.ImportError"};
		for (size_t i = 0; is(e, "identifier") || is(e, "attribute") ? i < sizeof(names) / sizeof(names[0]) : 0; i++)
			if (strlen(names[i]) == len && !memcmp(src + b, names[i], len))
				return true;
	}
	return false;
}

/* The handler of a try that an ImportError runs, or a null node. */
static TSNode import_handler(const char *src, TSNode st)
{
	for (uint32_t k = 0; is(st, "try_statement") && k < ts_node_named_child_count(st); k++) {
		TSNode c = ts_node_named_child(st, k);
		if (is(c, "except_clause") || is(c, "except_group_clause")) {
			if (catches_import_error(src, c))
				return c;
			if (ts_node_is_null(field(c, "value")))
				break;
		}
	}
	return (TSNode){0};
}

static TSNode clause_block(TSNode clause)
{
	for (uint32_t k = ts_node_named_child_count(clause); k-- > 0;)
		if (is(ts_node_named_child(clause, k), "block"))
			return ts_node_named_child(clause, k);
	return (TSNode){0};
}

const char *fe_py_mod_import_probe(struct arena *a, const char *src, TSNode def)
{
	TSNode body = field(def, "body");
	const char *out = NULL;
	for (uint32_t k = 0; !ts_node_is_null(body) && k < ts_node_named_child_count(body); k++) {
		TSNode st = ts_node_named_child(body, k), tb = field(st, "body");
		if (ts_node_is_null(import_handler(src, st)))
			continue;
		for (uint32_t i = 0; !ts_node_is_null(tb) && i < ts_node_named_child_count(tb); i++) {
			TSNode im = ts_node_named_child(tb, i);
			TSNode name = is(im, "import_from_statement") ? field(im, "module_name")
				    : is(im, "import_statement") ? ts_node_named_child(im, 0) : (TSNode){0};
			if (is(name, "aliased_import"))
				name = field(name, "name");
			if (ts_node_is_null(name))
				continue;
			const char *t = text(a, src, name);
			out = out ? arena_printf(a, "%s or '%s'", out, t) : arena_printf(a, "'%s'", t);
		}
	}
	return out;
}

/* An assignment whose value calls nothing: it cannot raise ImportError itself. */
static bool calls_nothing(TSNode n, unsigned depth)
{
	if (is(n, "call") || depth > 64)
		return false;
	for (uint32_t k = 0; k < ts_node_named_child_count(n); k++)
		if (!calls_nothing(ts_node_named_child(n, k), depth + 1))
			return false;
	return true;
}

struct caps {
	size_t imps, stmts;
};

static void count(TSNode block, struct caps *cp, unsigned depth)
{
	struct py_kids it;
	for (py_kids_start(&it, block); py_kids_next(&it);) {
		TSNode d = it.node;
		cp->stmts++;
		if (is(d, "import_from_statement") || is(d, "import_statement"))
			cp->imps += ts_node_named_child_count(d);
		if (!is(d, "try_statement") || depth)
			continue;
		count(field(d, "body"), cp, depth + 1);
		for (uint32_t i = 0; i < ts_node_named_child_count(d); i++)
			if (!ts_node_is_null(clause_block(ts_node_named_child(d, i))))
				count(clause_block(ts_node_named_child(d, i)), cp, depth + 1);
	}
	py_kids_end(&it);
}

static void statements(struct py_session *c, struct mod *m, TSNode block, unsigned guard, bool handler, size_t cap_imps);
static bool imports(struct py_session *c, struct mod *m, TSNode d, struct imp *imps, size_t *n_imps, size_t cap_imps,
		    unsigned guard, bool handler);

/* One statement at module level ('guard': under a try's body or handler). False where it binds
 * names cglint does not record. */
static bool statement(struct py_session *c, struct mod *m, TSNode d, unsigned guard, bool handler, size_t cap_imps)
{
	const char *buf = m->src;
	if (is(d, "decorated_definition"))
		d = field(d, "definition");
	if (is(d, "function_definition") && !ts_node_is_null(field(d, "name"))) {
		if (guard)
			return false;   /* a def under a try: not one cglint follows */
		m->defs[m->n_defs++] = (struct def){.name = text(c->a, buf, field(d, "name")), .node = d};
		return strcmp(m->defs[m->n_defs - 1].name, "__getattr__") != 0;
	}
	if (is(d, "class_definition") && !ts_node_is_null(field(d, "name"))) {
		if (guard)
			return false;
		m->classes[m->n_classes++] = (struct klass){.name = text(c->a, buf, field(d, "name")), .node = d};
		return true;
	}
	if (is(d, "expression_statement") && ts_node_named_child_count(d) == 1 &&
	    is(ts_node_named_child(d, 0), "assignment")) {
		TSNode as = ts_node_named_child(d, 0), left = field(as, "left"), right = field(as, "right");
		if (ts_node_is_null(right))
			return true;    /* 'NAME: T' binds nothing */
		if (guard && !calls_nothing(right, 0))
			return false;   /* a call may raise ImportError itself, or not */
		if (is(left, "identifier") && !ts_node_is_null(right) && !is(right, "assignment")) {
			m->globs[m->n_globs++] = (struct glob){.name = text(c->a, buf, left), .value = right, .guard = guard,
							       .handler = handler};
			return true;
		}
		return !is(left, "identifier") && !is(left, "pattern_list") && !is(left, "tuple_pattern") &&
		       !is(left, "list_pattern") && !is(right, "assignment");
	}
	if (is(d, "try_statement") && !guard && !ts_node_is_null(import_handler(buf, d))) {
		m->guards[m->n_guards] = (struct guard){.st = d};
		unsigned g = (unsigned)++m->n_guards;
		statements(c, m, field(d, "body"), g, false, cap_imps);
		statements(c, m, clause_block(import_handler(buf, d)), g, true, cap_imps);
		for (uint32_t i = 0; i < ts_node_named_child_count(d); i++)
			if (is(ts_node_named_child(d, i), "else_clause"))
				statements(c, m, clause_block(ts_node_named_child(d, i)), g, false, cap_imps);
			else if (is(ts_node_named_child(d, i), "finally_clause"))
				statements(c, m, clause_block(ts_node_named_child(d, i)), 0, false, cap_imps);
		return true;
	}
	if (!is(d, "import_from_statement") && !is(d, "import_statement"))
		return is(d, "expression_statement") || is(d, "pass_statement") || is(d, "comment") ||
		       is(d, "future_import_statement") || is(d, "assert_statement") || is(d, "raise_statement");
	return imports(c, m, d, m->imps, &m->n_imps, cap_imps, guard, handler);
}

/* The names an import statement binds, added to 'imps'; false for 'import *'. */
static bool imports(struct py_session *c, struct mod *m, TSNode d, struct imp *imps, size_t *n_imps, size_t cap_imps,
		    unsigned guard, bool handler)
{
	const char *buf = m->src;
	bool from = is(d, "import_from_statement");
	const char *module = NULL;
	unsigned level = 0;
	bool known = true;
	for (uint32_t i = 0; i < ts_node_named_child_count(d); i++) {
		TSNode c2 = ts_node_named_child(d, i);
		if (is(c2, "comment"))
			continue;
		if (from && !module) {          /* the module_name comes first */
			module = "";
			if (is(c2, "relative_import")) {
				for (uint32_t r = 0; r < ts_node_named_child_count(c2); r++) {
					TSNode part = ts_node_named_child(c2, r);
					if (is(part, "import_prefix"))
						level = ts_node_end_byte(part) - ts_node_start_byte(part);
					else if (is(part, "dotted_name"))
						module = text(c->a, buf, part);
				}
			} else {
				module = text(c->a, buf, c2);
			}
			continue;
		}
		if (from && is(c2, "wildcard_import") && *n_imps < cap_imps) {     /* from x import * */
			imps[(*n_imps)++] = (struct imp){"*", module, "*", level, c2, guard, handler, {0, 0}};
			known = false;
			continue;
		}
		TSNode name = is(c2, "aliased_import") ? field(c2, "name") : c2;
		TSNode alias = is(c2, "aliased_import") ? field(c2, "alias") : name;
		if (!is(name, "dotted_name") || ts_node_is_null(alias) || *n_imps >= cap_imps)
			continue;
		const char *nm = text(c->a, buf, name), *local = text(c->a, buf, alias);
		if (from)
			imps[(*n_imps)++] = (struct imp){local, module, nm, level, c2, guard, handler, {0, 0}};
		else if (is(c2, "aliased_import"))
			imps[(*n_imps)++] = (struct imp){local, nm, NULL, 0, c2, guard, handler, {0, 0}};
		else                    /* import a.b: binds 'a' */
			imps[(*n_imps)++] = (struct imp){arena_strndup(c->a, nm, strcspn(nm, ".")),
							 arena_strndup(c->a, nm, strcspn(nm, ".")), NULL, 0, c2, guard,
							 handler, {0, 0}};
	}
	return known;
}

static void statements(struct py_session *c, struct mod *m, TSNode block, unsigned guard, bool handler, size_t cap_imps)
{
	struct py_kids it;
	for (py_kids_start(&it, block); py_kids_next(&it);)
		if (!statement(c, m, it.node, guard, handler, cap_imps)) {
			m->opaque = true;
			if (guard)      /* the try binds what cglint does not see: neither branch is known */
				m->guards[guard - 1] = (struct guard){.st = m->guards[guard - 1].st, .state = 2,
								      .body = TRI_UNKNOWN,
								      .why = "under a 'try:' cglint does not read whole"};
		}
	py_kids_end(&it);
}

/* Statements that hold blocks, where a function's imports may be. */
static bool holds_blocks(TSNode n)
{
	static const char *const types[] = {"block", "if_statement", "elif_clause", "else_clause", "try_statement",
					    "except_clause", "finally_clause", "with_statement", "for_statement",
					    "while_statement", "decorated_definition", "class_definition"};
	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++)
		if (is(n, types[k]))
			return true;
	return false;
}

/* Whether node 'n' may hold an import statement: each one spells 'import' (most functions do
 * not, and are not walked). */
static bool spells_import(const struct mod *m, TSNode n)
{
	uint32_t from = ts_node_start_byte(n), to = ts_node_end_byte(n);
	return to <= m->len && from < to && memmem(m->src + from, to - from, "import", 6);
}

/* The imports in the functions under 'n' (in 'fn', the innermost function around it, or none). */
static void local_imports(struct py_session *c, struct mod *m, TSNode n, TSNode fn, size_t *cap, unsigned depth)
{
	if (depth > 64)
		return;
	struct py_kids it;
	for (py_kids_start(&it, n); py_kids_next(&it);) {
		TSNode d = it.node;
		if (!spells_import(m, d))
			continue;
		if (is(d, "function_definition")) {
			local_imports(c, m, field(d, "body"), d, cap, depth + 1);
		} else if ((is(d, "import_from_statement") || is(d, "import_statement")) && !ts_node_is_null(fn)) {
			size_t at = m->n_locals, need = at + ts_node_named_child_count(d);
			if (need > *cap) {
				*cap = need * 2;
				struct imp *more = arena_alloc(c->a, *cap * sizeof(*more));
				if (at)
					memcpy(more, m->locals, at * sizeof(*more));
				m->locals = more;
			}
			imports(c, m, d, m->locals, &m->n_locals, *cap, 0, false);
			for (size_t i = at; i < m->n_locals; i++) {
				m->locals[i].scope[0] = ts_node_start_byte(fn);
				m->locals[i].scope[1] = ts_node_end_byte(fn);
			}
		} else if (holds_blocks(d)) {
			local_imports(c, m, d, fn, cap, depth + 1);
		}
	}
	py_kids_end(&it);
}

const struct imp *fe_py_mod_import_at(struct mod *m, const char *local, uint32_t at, bool inner)
{
	const struct imp *best = NULL;
	for (size_t k = 0; k < m->n_locals; k++) {
		const struct imp *im = &m->locals[k];
		if (strcmp(im->local, local) || at < im->scope[0] || at >= im->scope[1])
			continue;
		if (!best || im->scope[0] > best->scope[0] ||
		    (im->scope[0] == best->scope[0] && ts_node_start_byte(im->at) < at))
			best = im;      /* the innermost function's; there, the last one before 'at' */
	}
	return best || inner ? best : fe_py_mod_import(m, local);
}

struct mod *fe_py_mod_add(struct py_session *c, const char *path, const char *buf, size_t len, bool from_disk)
{
	size_t same;    /* the same text parses to the same tree, which trees share */
	bool seen = strmap_get(&c->texts, buf, len, &same);
	TSTree *tree = seen ? ts_tree_copy(c->mods[same]->tree)
			    : ts_parser_parse_string(c->parser, NULL, buf, (uint32_t)len);
	if (!tree)
		return NULL;
	struct mod *m = arena_alloc(c->a, sizeof(*m));
	*m = (struct mod){.path = path, .src = buf, .len = len, .tree = tree, .from_disk = from_disk, .session = c};
	TSNode root = ts_tree_root_node(tree);
	/* a statement imports several names ("from x import A, B"): room for every one */
	struct caps cp = {1, 1};
	count(root, &cp, 0);
	m->defs = arena_alloc(c->a, cp.stmts * sizeof(*m->defs));
	m->globs = arena_alloc(c->a, cp.stmts * sizeof(*m->globs));
	m->classes = arena_alloc(c->a, cp.stmts * sizeof(*m->classes));
	m->guards = arena_alloc(c->a, cp.stmts * sizeof(*m->guards));
	m->imps = arena_alloc(c->a, cp.imps * sizeof(*m->imps));
	statements(c, m, root, 0, false, cp.imps);
	size_t cap_locals = 0;
	local_imports(c, m, root, (TSNode){0}, &cap_locals, 0);
	for (size_t k = 0; k + 9 <= len && !m->opaque; k++)
		m->opaque = buf[k] == 'g' && !memcmp(buf + k, "globals()", 9);
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->mods = mem_realloc(c->mods, c->cap * sizeof(*c->mods));
	}
	if (!seen)
		strmap_put(&c->texts, buf, len, c->n);
	c->mods[c->n++] = m;
	return m;
}

/* A module imported from 'from', read and parsed once a run; NULL when it is not on disk, not
 * readable, or past the budget. */
/* py_mod_find, asked once a run for each folder, module and level */
static const char *find(struct py_session *c, const char *from, const char *name, unsigned level)
{
	const char *slash = strrchr(from, '/');
	int dir = slash ? (int)(slash - from) : 0;
	char buf[1024];
	int len = snprintf(buf, sizeof(buf), "%u:%.*s\n%s", level, dir, from, name);
	size_t at;
	if (len < 0 || (size_t)len >= sizeof(buf))
		return py_mod_find(c->a, from, name, level);
	if (strmap_get(&c->found, buf, (size_t)len, &at))
		return c->found_at[at];
	const char *key = arena_strndup(c->a, buf, (size_t)len);   /* the map borrows its keys */
	if (c->n_found == c->cap_found)
		c->found_at = mem_realloc(c->found_at, (c->cap_found = c->cap_found ? 2 * c->cap_found : 64) *
							       sizeof(*c->found_at));
	c->found_at[c->n_found] = py_mod_find(c->a, from, name, level);
	strmap_put(&c->found, key, (size_t)len, c->n_found);
	return c->found_at[c->n_found++];
}

static const char *undotted(const char *path)
{
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	return path;
}

bool fe_py_mod_named(const struct mod *m, const char *path)
{
	return !strcmp(undotted(m->path), undotted(path));
}

struct mod *fe_py_mod_load(struct py_session *c, const struct mod *from, const char *name, unsigned level)
{
	const char *path = find(c, from->path, name, level);
	if (!path)
		return NULL;
	for (size_t k = c->n; k-- > 0;)
		if (fe_py_mod_named(c->mods[k], path))
			return c->mods[k];
	if (c->files >= FE_PY_MAX_FILES) {
		c->full = true;
		return NULL;
	}
	FILE *fp = fopen(path, "rb");
	struct stat st;
	if (!fp)
		return NULL;
	if (fstat(fileno(fp), &st))
		st = (struct stat){0};
	c->files++;
	struct sbuf sb;
	sbuf_init(&sb);
	char chunk[65536];
	size_t got;
	while ((got = fread(chunk, 1, sizeof(chunk), fp)) > 0 && c->bytes + sb.len + got <= FE_PY_MAX_BYTES)
		sbuf_addn(&sb, chunk, got);
	bool whole = feof(fp) && !ferror(fp);
	c->full |= !whole && !ferror(fp);
	fclose(fp);
	struct mod *m = NULL;
	if (whole) {
		c->bytes += sb.len;
		char *buf = arena_alloc(c->a, sb.len + 1);
		memcpy(buf, sb.buf ? sb.buf : "", sb.len);
		buf[sb.len] = '\0';
		m = fe_py_mod_add(c, path, buf, sb.len, true);
		if (m) {
			m->disk_size = (long long)st.st_size;
			m->disk_mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
		}
	}
	sbuf_release(&sb);
	return m;
}

/* The module-level function (or class: 'classes') 'name' of 'm', through its imports (a
 * re-export of a re-export). */
static bool lookup(struct py_session *c, struct mod *m, const char *name, unsigned hops, bool classes,
		   struct mod **out, size_t *at)
{
	size_t n = classes ? m->n_classes : m->n_defs;
	for (size_t k = n; k-- > 0;)
		if (!strcmp(classes ? m->classes[k].name : m->defs[k].name, name)) {
			*out = m;
			*at = k;
			return true;
		}
	for (size_t k = m->n_imps; hops < FE_PY_MAX_DEPTH && k-- > 0;) {
		const struct imp *im = &m->imps[k];
		if (!im->attr || strcmp(im->local, name) || fe_py_mod_live(m, im->guard, im->handler, NULL) == TRI_FALSE)
			continue;
		struct mod *next = fe_py_mod_load(c, m, im->module, im->level);
		return next && lookup(c, next, im->attr, hops + 1, classes, out, at);
	}
	/* 'from x import *' binds x's public names; the last such import wins, as in Python */
	for (size_t k = m->n_imps; name[0] != '_' && hops < FE_PY_MAX_DEPTH && k-- > 0;) {
		const struct imp *im = &m->imps[k];
		if (strcmp(im->local, "*") || fe_py_mod_live(m, im->guard, im->handler, NULL) == TRI_FALSE)
			continue;
		struct mod *next = fe_py_mod_load(c, m, im->module, im->level);
		if (next && lookup(c, next, name, hops + 1, classes, out, at))
			return true;
	}
	return false;
}

bool fe_py_mod_lookup(struct py_session *c, struct mod *m, const char *name, unsigned hops, struct mod **out,
		      size_t *def)
{
	return lookup(c, m, name, hops, false, out, def);
}

bool fe_py_mod_class(struct py_session *c, struct mod *m, const char *name, unsigned hops, struct mod **out,
		     size_t *cls)
{
	return lookup(c, m, name, hops, true, out, cls);
}

const struct imp *fe_py_mod_import(struct mod *m, const char *local)
{
	for (size_t k = m->n_imps; k-- > 0;)
		if (!strcmp(m->imps[k].local, local) &&
		    fe_py_mod_live(m, m->imps[k].guard, m->imps[k].handler, NULL) != TRI_FALSE)
			return &m->imps[k];
	return NULL;
}

/* ---- module-level try/except ImportError ---- */

/* One binding of a name met: '*out' what is known of it so far; true once one surely holds. */
static bool binding(struct mod *m, unsigned guard, bool handler, enum tri *out)
{
	enum tri t = fe_py_mod_live(m, guard, handler, NULL);
	if (t != TRI_FALSE)
		*out = t;
	return t == TRI_TRUE;
}

enum tri fe_py_mod_binds(struct mod *m, const char *name)
{
	for (size_t k = 0; k < m->n_defs; k++)
		if (!strcmp(m->defs[k].name, name))
			return TRI_TRUE;
	for (size_t k = 0; k < m->n_classes; k++)
		if (!strcmp(m->classes[k].name, name))
			return TRI_TRUE;
	enum tri out = m->opaque ? TRI_UNKNOWN : TRI_FALSE;
	for (size_t k = 0; k < m->n_globs; k++)
		if (!strcmp(m->globs[k].name, name) && binding(m, m->globs[k].guard, m->globs[k].handler, &out))
			return TRI_TRUE;
	for (size_t k = 0; k < m->n_imps; k++)
		if (!strcmp(m->imps[k].local, name) && binding(m, m->imps[k].guard, m->imps[k].handler, &out))
			return TRI_TRUE;
	return out;
}

/* Whether one import of a try's body succeeds: its module is found and read, and for 'from m
 * import a', 'm' binds 'a' or has a submodule 'a'. */
static enum tri import_ok(struct py_session *c, struct mod *m, const struct imp *im, const char **why)
{
	const char *dots = arena_printf(c->a, "%.*s%s", (int)im->level, "..........", im->module);
	if (!py_mod_find(c->a, m->path, im->module, im->level)) {
		*why = arena_printf(c->a, "'%s' is not found above the file or on the Python path", dots);
		return TRI_FALSE;
	}
	struct mod *next = fe_py_mod_load(c, m, im->module, im->level);
	if (!next) {
		*why = arena_printf(c->a, "'%s' is past what cglint reads", dots);
		return TRI_UNKNOWN;
	}
	if (!im->attr)
		return TRI_TRUE;
	const char *sub = *im->module ? arena_join(c->a, im->module, ".", im->attr) : im->attr;
	if (py_mod_find(c->a, m->path, sub, im->level))
		return TRI_TRUE;
	enum tri t = fe_py_mod_binds(next, im->attr);
	if (t == TRI_FALSE)
		*why = arena_printf(c->a, "'%s' has no '%s'", dots, im->attr);
	else if (t == TRI_UNKNOWN)
		*why = arena_printf(c->a, "'%s' may or may not bind '%s'", dots, im->attr);
	return t;
}

static void decide(struct py_session *c, struct mod *m, unsigned guard)
{
	struct guard *g = &m->guards[guard - 1];
	g->state = 1;
	enum tri body = TRI_TRUE;
	const char *why = NULL;
	for (size_t k = 0; k < m->n_imps && body == TRI_TRUE; k++)
		if (m->imps[k].guard == guard && !m->imps[k].handler)
			body = import_ok(c, m, &m->imps[k], &why);
	TSPoint at = ts_node_start_point(g->st);
	if (body == TRI_TRUE)
		why = arena_printf(c->a, "the 'try:' at line %u: its imports succeed", at.row + 1);
	else if (body == TRI_FALSE)
		why = arena_printf(c->a, "the 'except ImportError:' of line %u: %s", at.row + 1, why);
	else
		why = arena_printf(c->a, "the 'try:' at line %u, which cglint cannot decide: %s", at.row + 1, why);
	g->body = body;
	g->why = why;
	g->state = 2;
}

enum tri fe_py_mod_live(struct mod *m, unsigned guard, bool handler, const char **why)
{
	if (!guard)
		return TRI_TRUE;
	struct guard *g = &m->guards[guard - 1];
	if (g->state == 0 && m->session)
		decide(m->session, m, guard);
	if (g->state != 2) {    /* a try whose import leads back to it */
		if (why)
			*why = "a 'try:' whose imports lead back to it";
		return TRI_UNKNOWN;
	}
	if (why)
		*why = g->why;
	return g->body == TRI_UNKNOWN ? TRI_UNKNOWN : (g->body == TRI_TRUE) != handler ? TRI_TRUE : TRI_FALSE;
}

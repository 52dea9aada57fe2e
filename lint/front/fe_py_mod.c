/* SPDX-License-Identifier: MIT */
/* fe_py_mod: the modules a run parses, their functions and imports (see fe_py_mod.h). */
#include "front/fe_py_mod.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "front/py_mod.h"

static bool is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

static const char *text(struct arena *a, const char *src, TSNode n)
{
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	return arena_strndup(a, src + s, e - s);
}

static TSNode field(TSNode n, const char *name)
{
	return ts_node_child_by_field_name(n, name, (uint32_t)strlen(name));
}

struct mod *fe_py_mod_add(struct py_cache *c, const char *path, const char *buf, size_t len, bool from_disk)
{
	TSTree *tree = ts_parser_parse_string(c->parser, NULL, buf, (uint32_t)len);
	if (!tree)
		return NULL;
	struct mod *m = arena_alloc(c->a, sizeof(*m));
	*m = (struct mod){.path = path, .src = buf, .len = len, .tree = tree, .from_disk = from_disk};
	TSNode root = ts_tree_root_node(tree);
	uint32_t n = ts_node_named_child_count(root);
	/* a statement imports several names ("from x import A, B"): room for every one */
	size_t cap_imps = 1;
	for (uint32_t k = 0; k < n; k++) {
		TSNode d = ts_node_named_child(root, k);
		if (is(d, "import_from_statement") || is(d, "import_statement"))
			cap_imps += ts_node_named_child_count(d);
	}
	m->defs = arena_alloc(c->a, (n ? n : 1) * sizeof(*m->defs));
	m->globs = arena_alloc(c->a, (n ? n : 1) * sizeof(*m->globs));
	m->classes = arena_alloc(c->a, (n ? n : 1) * sizeof(*m->classes));
	m->imps = arena_alloc(c->a, cap_imps * sizeof(*m->imps));
	for (uint32_t k = 0; k < n; k++) {
		TSNode d = ts_node_named_child(root, k);
		if (is(d, "decorated_definition"))
			d = field(d, "definition");
		if (is(d, "function_definition") && !ts_node_is_null(field(d, "name"))) {
			m->defs[m->n_defs++] = (struct def){.name = text(c->a, buf, field(d, "name")), .node = d};
			continue;
		}
		if (is(d, "class_definition") && !ts_node_is_null(field(d, "name"))) {
			m->classes[m->n_classes++] = (struct klass){.name = text(c->a, buf, field(d, "name")), .node = d};
			continue;
		}
		if (is(d, "expression_statement") && ts_node_named_child_count(d) == 1 &&
		    is(ts_node_named_child(d, 0), "assignment")) {
			TSNode as = ts_node_named_child(d, 0), left = field(as, "left"), right = field(as, "right");
			if (is(left, "identifier") && !ts_node_is_null(right) && !is(right, "assignment"))
				m->globs[m->n_globs++] = (struct glob){.name = text(c->a, buf, left), .value = right};
			continue;
		}
		bool from = is(d, "import_from_statement");
		if (!from && !is(d, "import_statement"))
			continue;
		const char *module = NULL;
		unsigned level = 0;
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
			if (from && is(c2, "wildcard_import") && m->n_imps < cap_imps) {   /* from x import * */
				m->imps[m->n_imps++] = (struct imp){"*", module, "*", level, c2};
				continue;
			}
			TSNode name = is(c2, "aliased_import") ? field(c2, "name") : c2;
			TSNode alias = is(c2, "aliased_import") ? field(c2, "alias") : name;
			if (!is(name, "dotted_name") || ts_node_is_null(alias) || m->n_imps >= cap_imps)
				continue;
			const char *nm = text(c->a, buf, name), *local = text(c->a, buf, alias);
			if (from)
				m->imps[m->n_imps++] = (struct imp){local, module, nm, level, c2};
			else if (is(c2, "aliased_import"))
				m->imps[m->n_imps++] = (struct imp){local, nm, NULL, 0, c2};
			else                    /* import a.b: binds 'a' */
				m->imps[m->n_imps++] = (struct imp){arena_strndup(c->a, nm, strcspn(nm, ".")),
								    arena_strndup(c->a, nm, strcspn(nm, ".")), NULL, 0, c2};
		}
	}
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->mods = mem_realloc(c->mods, c->cap * sizeof(*c->mods));
	}
	c->mods[c->n++] = m;
	return m;
}

/* A module imported from 'from', read and parsed once a run; NULL when it is not on disk, not
 * readable, or past the budget. */
struct mod *fe_py_mod_load(struct py_cache *c, const struct mod *from, const char *name, unsigned level)
{
	const char *path = py_mod_find(c->a, from->path, name, level);
	if (!path)
		return NULL;
	for (size_t k = c->n; k-- > 0;)
		if (!strcmp(c->mods[k]->path, path))
			return c->mods[k];
	if (c->files >= FE_PY_MAX_FILES)
		return NULL;
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	c->files++;
	struct sbuf sb;
	sbuf_init(&sb);
	char chunk[65536];
	size_t got;
	while ((got = fread(chunk, 1, sizeof(chunk), fp)) > 0 && c->bytes + sb.len + got <= FE_PY_MAX_BYTES)
		sbuf_addn(&sb, chunk, got);
	bool whole = feof(fp) && !ferror(fp);
	fclose(fp);
	struct mod *m = NULL;
	if (whole) {
		c->bytes += sb.len;
		char *buf = arena_alloc(c->a, sb.len + 1);
		memcpy(buf, sb.buf ? sb.buf : "", sb.len);
		buf[sb.len] = '\0';
		m = fe_py_mod_add(c, path, buf, sb.len, true);
	}
	sbuf_release(&sb);
	return m;
}

/* The module-level function (or class: 'classes') 'name' of 'm', through its imports (a
 * re-export of a re-export). */
static bool lookup(struct py_cache *c, struct mod *m, const char *name, unsigned hops, bool classes,
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
		if (!im->attr || strcmp(im->local, name))
			continue;
		struct mod *next = fe_py_mod_load(c, m, im->module, im->level);
		return next && lookup(c, next, im->attr, hops + 1, classes, out, at);
	}
	/* 'from x import *' binds x's public names; the last such import wins, as in Python */
	for (size_t k = m->n_imps; name[0] != '_' && hops < FE_PY_MAX_DEPTH && k-- > 0;) {
		const struct imp *im = &m->imps[k];
		if (strcmp(im->local, "*"))
			continue;
		struct mod *next = fe_py_mod_load(c, m, im->module, im->level);
		if (next && lookup(c, next, name, hops + 1, classes, out, at))
			return true;
	}
	return false;
}

bool fe_py_mod_lookup(struct py_cache *c, struct mod *m, const char *name, unsigned hops, struct mod **out,
		      size_t *def)
{
	return lookup(c, m, name, hops, false, out, def);
}

bool fe_py_mod_class(struct py_cache *c, struct mod *m, const char *name, unsigned hops, struct mod **out,
		     size_t *cls)
{
	return lookup(c, m, name, hops, true, out, cls);
}

const struct imp *fe_py_mod_import(const struct mod *m, const char *local)
{
	for (size_t k = m->n_imps; k-- > 0;)
		if (!strcmp(m->imps[k].local, local))
			return &m->imps[k];
	return NULL;
}

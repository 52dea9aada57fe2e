/* SPDX-License-Identifier: MIT */
/* py_session: the Python front-end's state for a run (see py_session.h and fe_py.h). */
#include "front/py/py_session.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "base/mem.h"
#include "front/py/py_node.h"

struct py_session *fe_py_session_new(struct arena *a)
{
	struct py_session *c = mem_alloc(sizeof(*c));
	*c = (struct py_session){.a = a, .parser = ts_parser_new()};
	if (c->parser && !ts_parser_set_language(c->parser, tree_sitter_python())) {
		ts_parser_delete(c->parser);
		c->parser = NULL;
	}
	return c;
}

void fe_py_session_free(struct py_session *c)
{
	if (!c)
		return;
	for (size_t k = 0; k < c->n; k++) {
		ts_tree_delete(c->mods[k]->tree);
		free(c->mods[k]->notes);
	}
	free(c->mods);
	free(c->found_at);
	strmap_release(&c->found);
	strmap_release(&c->texts);
	if (c->parser)
		ts_parser_delete(c->parser);
	free(c);
}

void fe_py_session_replayed(struct py_session *c, const char *const *fields, size_t n)
{
	c->replayed = arena_alloc(c->a, (n ? n : 1) * sizeof(*c->replayed));
	for (size_t k = 0; k < n; k++)
		c->replayed[k] = arena_strdup(c->a, fields[k]);
	c->n_replayed = n;
}

bool fe_py_session_current(const struct py_session *c, size_t max_texts)
{
	size_t texts = 0;
	for (size_t k = 0; k < c->n && !c->full && texts <= max_texts; k++) {
		const struct mod *m = c->mods[k];
		struct stat st;
		if (!m->from_disk) {
			texts++;
			continue;
		}
		if (stat(m->path, &st) || (long long)st.st_size != m->disk_size ||
		    (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec != m->disk_mtime_ns)
			return false;
	}
	return !c->full && texts <= max_texts;
}

bool fe_py_session_full(const struct py_session *c)
{
	return c && c->full;
}

size_t fe_py_session_count(const struct py_session *c)
{
	size_t n = 0;
	for (size_t k = 0; c && k < c->n; k++)
		n += c->mods[k]->from_disk;
	return n;
}

void fe_py_session_file(const struct py_session *c, size_t k, const char **path, const char **buf, size_t *len)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->mods[i]->from_disk && k-- == 0) {
			*path = c->mods[i]->path;
			*buf = c->mods[i]->src;
			*len = c->mods[i]->len;
			return;
		}
}


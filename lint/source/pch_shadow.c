/* SPDX-License-Identifier: MIT */
/* pch_shadow: the folders whose change may put a file ahead of a preamble's headers (see pch_shadow.h). */
#include "source/pch_shadow.h"

#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "base/mem.h"
#include "base/strmap.h"
#include "source/cflags.h"

/* A folder named twice counts where first seen. */
size_t pch_shadow_search_path(struct arena *a, const struct cflags *f, const char ***out)
{
	static const char *const order[] = {"-iquote", "-I", "-isystem", NULL, "-idirafter"};
	static const char *const sys[] = {"/usr/local/include", "/usr/include"};
	size_t nf = f ? f->n : 0, n = 0;
	const char **dirs = arena_alloc(a, (nf + 3) * sizeof(*dirs));
	struct strmap seen = {0};
	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]); o++)
		for (size_t i = 0; i < (order[o] ? nf : 2); i++) {
			const char *d = order[o] ? (i + 1 < nf && !strcmp(f->v[i], order[o]) ? f->v[i + 1] : NULL) : sys[i];
			size_t len = d ? strlen(d) : 0;
			while (len > 1 && d[len - 1] == '/')
				len--;
			if (!len || strmap_get(&seen, d, len, &(size_t){0}))
				continue;
			dirs[n] = arena_strndup(a, d, len);
			strmap_put(&seen, dirs[n], len, n);
			n++;
		}
	strmap_release(&seen);
	*out = dirs;
	return n;
}

struct found {
	struct arena *a;
	struct strmap known;    /* a folder looked at -> 1 + index in 'dirs', 0: not there */
	const char **dirs;      /* in the arena */
	size_t n, cap;
};

/* The nearest folder that is there at or above the one that would hold 'path' (its last part cut). */
static void keep_nearest(struct found *fd, const char *path)
{
	char *p = arena_strdup(fd->a, path);
	for (char *slash; (slash = strrchr(p, '/')) && slash > p;) {
		*slash = '\0';
		size_t len = (size_t)(slash - p), at;
		if (strmap_get(&fd->known, p, len, &at)) {
			if (at)
				return;         /* there, and kept already */
			continue;       /* not there: look above */
		}
		struct stat st;
		const char *dir = arena_strndup(fd->a, p, len);        /* p is cut further */
		if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
			strmap_put(&fd->known, dir, len, 0);
			continue;
		}
		fd->dirs = arena_grow(fd->a, fd->dirs, fd->n, &fd->cap, sizeof(*fd->dirs));
		fd->dirs[fd->n++] = dir;
		strmap_put(&fd->known, dir, len, fd->n);
		return;
	}
}

size_t pch_shadow_dirs(struct arena *a, const struct cflags *f, const char *const *files, size_t n, const char ***out)
{
	const char **dirs;
	size_t n_dirs = pch_shadow_search_path(a, f, &dirs), *lens = arena_alloc(a, (n_dirs + 1) * sizeof(*lens));
	for (size_t j = 0; j < n_dirs; j++)
		lens[j] = strlen(dirs[j]);
	struct found fd = {.a = a};
	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j < n_dirs; j++) {
			if (strncmp(files[k], dirs[j], lens[j]) || files[k][lens[j]] != '/')
				continue;
			const char *name = files[k] + lens[j] + 1;      /* as if found here: what came before */
			for (size_t i = 0; i < j; i++)
				if (dirs[i][0] == '/')  /* a relative one would be read from the run's folder */
					keep_nearest(&fd, arena_join(a, dirs[i], "/", name));
		}
	strmap_release(&fd.known);
	*out = fd.dirs;
	return fd.n;
}

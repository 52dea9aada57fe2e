/* SPDX-License-Identifier: MIT */
/* walk: files and folders named on the command line, to inputs. */
#include "input/walk.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/diag.h"
#include "base/mem.h"
#include "input/read.h"

struct dir_chain {
	const struct dir_chain *up;
	dev_t dev;
	ino_t ino;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk(struct diag_list *d, struct arena *a, const char *path, const struct walk_visit *v,
		 const struct dir_chain *up, unsigned depth)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		diag_input(d, "CG904", (struct loc){path, 0, 0}, "cannot open: %s", read_strerror(errno));
		return;
	}
	if (v->excluded(v->ctx, path))
		return;
	if (!S_ISDIR(st.st_mode)) {
		v->file(v->ctx, path, S_ISREG(st.st_mode));
		return;
	}
	for (const struct dir_chain *c = up; c; c = c->up)
		if (c->dev == st.st_dev && c->ino == st.st_ino) {
			diag_input(d, "CG904", (struct loc){path, 0, 0},
				   "folder loop: this folder contains itself through a symbolic link");
			return;
		}
	if (depth > WALK_MAX_DEPTH) {
		diag_input(d, "CG903", (struct loc){path, 0, 0}, "folders nested deeper than %d", WALK_MAX_DEPTH);
		return;
	}
	DIR *dir = opendir(path);
	if (!dir) {
		diag_input(d, "CG904", (struct loc){path, 0, 0}, "cannot open folder: %s", strerror(errno));
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	for (struct dirent *de; (de = readdir(dir));) {
		if (de->d_name[0] == '.')
			continue;       /* ., .., and hidden folders such as .git */
		if (n == cap)
			names = mem_realloc(names, (cap = cap ? cap * 2 : 32) * sizeof(*names));
		names[n++] = mem_strdup(de->d_name);
	}
	closedir(dir);
	qsort(names, n, sizeof(*names), cmp_str);
	struct dir_chain here = {up, st.st_dev, st.st_ino};
	for (size_t k = 0; k < n; k++) {
		const char *child = arena_printf(a, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", names[k]);
		struct stat cst;
		if (stat(child, &cst) < 0 || S_ISDIR(cst.st_mode))
			walk(d, a, child, v, &here, depth + 1);       /* errors are reported there */
		else if (v->wanted(names[k]) && !v->excluded(v->ctx, child))
			v->file(v->ctx, child, S_ISREG(cst.st_mode));
		free(names[k]);
	}
	free(names);
}

void walk_path(struct diag_list *d, struct arena *a, const char *path, const struct walk_visit *v)
{
	walk(d, a, arena_strdup(a, path), v, NULL, 0);
}

/* SPDX-License-Identifier: MIT */
/* walk: files and folders named on the command line, to inputs. */
#include "input/walk.h"

#define _DEFAULT_SOURCE /* realpath */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/diag.h"
#include "base/mem.h"
#include "input/ignore.h"
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

/* git's ignore rules for a folder's entries: 'abs' is the folder as the work tree spells it. */
struct git_view {
	struct ignore *ig;              /* NULL: nothing is ignored here */
	const char *abs;
};

/* A folder that holds '.git' is a repository of its own (a submodule, a vendored clone). */
static struct git_view nested(struct arena *a, const char *path, struct git_view up, bool no_ignore)
{
	struct stat st;
	char buf[PATH_MAX];
	if (no_ignore || stat(arena_printf(a, "%s/.git", path), &st) < 0 || !realpath(path, buf))
		return up;
	struct ignore *ig = ignore_open(buf);
	if (!ig)
		return up;
	return (struct git_view){ig, arena_strdup(a, buf)};
}

static void walk(struct diag_list *d, struct arena *a, const char *path, const struct walk_visit *v,
		 const struct dir_chain *up, unsigned depth, struct git_view git)
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
	if (n > 1)      /* an empty folder has no array, which qsort must not get */
		qsort(names, n, sizeof(*names), cmp_str);
	struct dir_chain here = {up, st.st_dev, st.st_ino};
	struct git_view in = depth ? nested(a, path, git, v->no_ignore) : git;
	for (size_t k = 0; k < n; k++) {
		const char *child = arena_printf(a, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", names[k]);
		const char *child_abs = in.ig ? arena_printf(a, "%s/%s", strcmp(in.abs, "/") ? in.abs : "", names[k]) : NULL;
		struct stat cst;
		if (in.ig && ignore_path(in.ig, child_abs))
			;       /* git ignores it */
		else if (stat(child, &cst) < 0 || S_ISDIR(cst.st_mode))
			walk(d, a, child, v, &here, depth + 1, (struct git_view){in.ig, child_abs});
		else if (v->wanted(names[k]) && !v->excluded(v->ctx, child))
			v->file(v->ctx, child, S_ISREG(cst.st_mode));
		free(names[k]);
	}
	free(names);
	if (in.ig != git.ig)
		ignore_close(in.ig);
}

void walk_path(struct diag_list *d, struct arena *a, const char *path, const struct walk_visit *v)
{
	struct git_view git = {0};
	struct stat st;
	char buf[PATH_MAX];
	if (!v->no_ignore && stat(path, &st) == 0 && S_ISDIR(st.st_mode) && realpath(path, buf) &&
	    (git.ig = ignore_open(buf))) {
		git.abs = arena_strdup(a, buf);
		if (ignore_path(git.ig, git.abs)) {     /* a folder named on purpose is walked whole */
			ignore_close(git.ig);
			git = (struct git_view){0};
		}
	}
	walk(d, a, arena_strdup(a, path), v, NULL, 0, git);
	ignore_close(git.ig);
}

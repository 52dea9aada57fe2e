/* SPDX-License-Identifier: MIT */
/*
 * walk: a path named on the command line, a file or a folder walked in name order (hidden
 * entries skipped, symbolic-link loops and depth bounded), handed file by file to the caller.
 * Inside a git work tree, what git ignores is not walked (ignore.h): .gitignore files,
 * .git/info/exclude and the global excludes; a nested repository's own rules apply in it. A
 * path named on the command line is never ignored, nor is anything in a named folder git ignores.
 */
#ifndef CGLINT_WALK_H
#define CGLINT_WALK_H

#include <stdbool.h>

struct arena;
struct diag_list;

#define WALK_MAX_DEPTH 64

/* What the walk asks of its caller; 'ctx' is passed back. */
struct walk_visit {
	void *ctx;
	/* Whether a project config excludes 'path'. Named files are asked too: pre-commit names
	 * every staged file. */
	bool (*excluded)(void *ctx, const char *path);
	/* Whether a folder entry with this name is an input; a named file always is. */
	bool (*wanted)(const char *name);
	/* One input; 'regular' is false for a FIFO or device named explicitly. 'path' lives in 'a'. */
	void (*file)(void *ctx, const char *path, bool regular);
	bool no_ignore;                 /* --no-ignore: walk what git ignores too */
};

/* Problems (CG903 too deep, CG904 unreadable or a folder loop) are reported into 'd'. */
void walk_path(struct diag_list *d, struct arena *a, const char *path, const struct walk_visit *v);

#endif

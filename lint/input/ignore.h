/* SPDX-License-Identifier: MIT */
/*
 * ignore: what git leaves out of a work tree (.gitignore files, .git/info/exclude, the global
 * excludes file: core.excludesFile, else $XDG_CONFIG_HOME/git/ignore), asked of libgit2, so
 * a folder walk does not lint build trees and virtual environments. The only file that sees
 * libgit2. Outside a repository nothing is ignored.
 */
#ifndef CGLINT_IGNORE_H
#define CGLINT_IGNORE_H

#include <stdbool.h>

struct ignore;

/* The repository holding folder 'dir' (searched upward), or NULL when there is none. */
struct ignore *ignore_open(const char *dir);
/* The work tree's absolute path, with a trailing '/'. */
const char *ignore_workdir(const struct ignore *ig);
/* Whether git ignores 'abs', an absolute path (symbolic links resolved) in the work tree. */
bool ignore_path(struct ignore *ig, const char *abs);
void ignore_close(struct ignore *ig);

#endif

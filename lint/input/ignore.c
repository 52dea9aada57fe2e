/* SPDX-License-Identifier: MIT */
/* ignore: git's ignore rules through libgit2 (see ignore.h). */
#include "input/ignore.h"

#include <stdlib.h>
#include <string.h>
#include <git2.h>

#include "base/mem.h"

struct ignore {
	git_repository *repo;
	const char *workdir;
	size_t n_workdir;
};

struct ignore *ignore_open(const char *dir)
{
	git_libgit2_init();
	git_repository *repo = NULL;
	if (git_repository_open_ext(&repo, dir, 0, NULL) || !git_repository_workdir(repo)) {
		git_repository_free(repo);      /* none, a bare one, or one libgit2 refuses */
		git_libgit2_shutdown();
		return NULL;
	}
	struct ignore *ig = mem_alloc(sizeof(*ig));
	ig->repo = repo;
	ig->workdir = git_repository_workdir(repo);
	ig->n_workdir = strlen(ig->workdir);
	return ig;
}

const char *ignore_workdir(const struct ignore *ig)
{
	return ig->workdir;
}

bool ignore_path(struct ignore *ig, const char *abs)
{
	if (strncmp(abs, ig->workdir, ig->n_workdir) || !abs[ig->n_workdir])
		return false;   /* outside the work tree (a symbolic link out), or its root */
	int ignored = 0;
	return !git_ignore_path_is_ignored(&ignored, ig->repo, abs + ig->n_workdir) && ignored;
}

void ignore_close(struct ignore *ig)
{
	if (!ig)
		return;
	git_repository_free(ig->repo);
	free(ig);
	git_libgit2_shutdown();
}

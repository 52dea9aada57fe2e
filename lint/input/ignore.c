/* SPDX-License-Identifier: MIT */
/* ignore: git's ignore rules through libgit2 (see ignore.h). */
#define _XOPEN_SOURCE 700   /* realpath */
#include "input/ignore.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <git2.h>
#include <sys/stat.h>

#include "base/mem.h"

/* libgit2 (and the dozen libraries it needs) is loaded on the first folder walk, not linked:
 * a run over named files never pays for it. */
#define GIT_FUNCTIONS(FN) FN(libgit2_init) FN(libgit2_shutdown) FN(repository_open_ext) \
	FN(repository_workdir) FN(repository_free) FN(ignore_path_is_ignored)
static struct {
#define FN(name) __typeof__(git_##name) *name;
	GIT_FUNCTIONS(FN)
#undef FN
} git;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;

static void load(void)
{
	void *h = dlopen(CGLINT_LIBGIT2_PATH, RTLD_NOW | RTLD_LOCAL);
	bool ok = h != NULL;
#define FN(name) ok = ok && (*(void **)&git.name = dlsym(h, "git_" #name));
	GIT_FUNCTIONS(FN)
#undef FN
	if (!ok) {
		fprintf(stderr, "cglint: warning: %s cannot be loaded: .gitignore files are not honoured (--no-ignore says so)\n",
			CGLINT_LIBGIT2_PATH);
		if (h)
			dlclose(h);
	}
	loaded = ok;
}

struct ignore {
	git_repository *repo;
	const char *workdir;
	size_t n_workdir;
};

/* Whether a '.git' (a folder, or a worktree's or submodule's file) is in 'dir' or above it, where
 * libgit2's search would find the repository: without one there is none to open, and loading
 * libgit2 (which reads every CA certificate of the system as it starts: 7 ms) would cost a
 * folder of a few files several times its work. Unsure (no real path): yes. */
static bool under_git(const char *dir)
{
	char path[PATH_MAX + sizeof("/.git")];
	if (!realpath(dir, path))
		return true;
	for (size_t n = strlen(path);;) {      /* path[0..n): a folder, "/" or "/a/b" */
		struct stat st;
		strcpy(path + n, n == 1 ? ".git" : "/.git");
		if (!stat(path, &st))
			return true;
		if (n == 1)
			return false;
		path[n] = '\0';
		n = (size_t)(strrchr(path, '/') - path);
		n += !n;        /* "/a" -> "/" */
		path[n] = '\0';
	}
}

struct ignore *ignore_open(const char *dir)
{
	if (!under_git(dir))
		return NULL;
	pthread_once(&once, load);
	if (!loaded)
		return NULL;
	git.libgit2_init();
	git_repository *repo = NULL;
	if (git.repository_open_ext(&repo, dir, 0, NULL) || !git.repository_workdir(repo)) {
		git.repository_free(repo);      /* none, a bare one, or one libgit2 refuses */
		git.libgit2_shutdown();
		return NULL;
	}
	struct ignore *ig = mem_alloc(sizeof(*ig));
	ig->repo = repo;
	ig->workdir = git.repository_workdir(repo);
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
	return !git.ignore_path_is_ignored(&ignored, ig->repo, abs + ig->n_workdir) && ignored;
}

void ignore_close(struct ignore *ig)
{
	if (!ig)
		return;
	git.repository_free(ig->repo);
	free(ig);
	git.libgit2_shutdown();
}

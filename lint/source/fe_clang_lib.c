/* SPDX-License-Identifier: MIT */
/* fe_clang_lib: libclang found and loaded on first use. */
#include "source/fe_clang_lib.h"

#include <dlfcn.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"

struct fe_clang_lib fe_clang_lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[1024];          /* empty once loaded */

/* Resolve every function of the table from 'h'; the name of the first missing one, or NULL. */
static const char *resolve(void *h)
{
#define FN(name)                                                                    \
	if (!(*(void **)&fe_clang_lib.name = dlsym(h, "clang_" #name)))             \
		return "clang_" #name;
#include "source/fe_clang_lib.def"
#undef FN
	return NULL;
}

static int try_path(const char *path, char *tried, size_t size)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	const char *missing = h ? resolve(h) : NULL;
	if (h && !missing)
		return 0;
	size_t n = strlen(tried);
	snprintf(tried + n, size - n, "%s%s (%s)", n ? "; " : "", path,
		 missing ? "lacks a function cglint calls" : "cannot be loaded");
	if (h)
		dlclose(h);
	return -1;
}

/* The libclang package beside the Python environment's bin/ that holds this executable. */
static int try_python_env(char *tried, size_t size)
{
	char exe[PATH_MAX], pat[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	snprintf(pat, sizeof(pat), "%s/../lib/python3*/site-packages/clang/native/libclang*.so*", exe);
	glob_t g;
	int rc = -1;
	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t k = 0; k < g.gl_pathc && rc; k++)
			rc = try_path(g.gl_pathv[k], tried, size);
		globfree(&g);
	}
	return rc;
}

static void load(void)
{
	char tried[768] = "";
	const char *env = getenv("CGLINT_LIBCLANG");
	if (env && *env) {
		if (try_path(env, tried, sizeof(tried)) == 0)
			return;
		snprintf(why, sizeof(why), "libclang not loaded from $CGLINT_LIBCLANG: %s", tried);
		return;
	}
	if (try_path(CGLINT_LIBCLANG_PATH, tried, sizeof(tried)) == 0 || try_python_env(tried, sizeof(tried)) == 0)
		return;
	snprintf(why, sizeof(why),
		 "libclang not found (tried %s)", tried);
}

const char *fe_clang_lib_load(void)
{
	pthread_once(&once, load);
	return why[0] ? why : NULL;
}

const char *fe_clang_lib_str(struct arena *a, CXString s)
{
	const char *c = fe_clang_lib.getCString(s);
	const char *r = arena_strdup(a, c ? c : "");
	fe_clang_lib.disposeString(s);
	return r;
}

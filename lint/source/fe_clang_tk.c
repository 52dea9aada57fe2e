/* SPDX-License-Identifier: MIT */
/* fe_clang_tk: which CUDA toolkit's headers to parse against (see fe_clang_tk.h). */
#define _XOPEN_SOURCE 700   /* realpath */
#include "source/fe_clang_tk.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"

static bool readable(const char *dir, const char *file)
{
	char p[PATH_MAX];
	return snprintf(p, sizeof(p), "%s/%s", dir, file) < (int)sizeof(p) && access(p, R_OK) == 0;
}

bool fe_clang_tk_is_include(const char *dir)
{
	return readable(dir, "cuda_runtime.h") && readable(dir, "crt/host_config.h");
}

char *fe_clang_tk_root_of(const char *include_dir)
{
	char *r = mem_strdup(include_dir);
	size_t n = strlen(r);
	while (n > 1 && r[n - 1] == '/')
		r[--n] = 0;
	char *s = strrchr(r, '/');
	if (s && !strcmp(s, "/include"))
		*s = 0;
	/* <root>/targets/x86_64-linux/include */
	if ((s = strrchr(r, '/')) && s > r) {
		char *t = s - 1;
		while (t > r && *t != '/')
			t--;
		if (!strncmp(t, "/targets/", 9))
			*t = 0;
	}
	return r;
}

static const char *found;

static void find(void)
{
	const char *env[] = {getenv("CUDA_PATH"), getenv("CUDA_HOME"), "/usr/local/cuda"};
	for (size_t k = 0; k < 3; k++)
		if (env[k] && *env[k] && readable(env[k], "include/cuda_runtime.h")) {
			found = mem_strdup(env[k]);
			return;
		}
	const char *path = getenv("PATH");
	for (const char *p = path; p && *p;) {
		size_t n = strcspn(p, ":");
		char nvcc[PATH_MAX], real[PATH_MAX];
		if (n && snprintf(nvcc, sizeof(nvcc), "%.*s/nvcc", (int)n, p) < (int)sizeof(nvcc) &&
		    access(nvcc, X_OK) == 0 && realpath(nvcc, real)) {
			char *bin = strrchr(real, '/');
			*bin = 0;
			char *root = strrchr(real, '/');
			if (root && root != real) {
				*root = 0;
				if (readable(real, "include/cuda_runtime.h")) {
					found = mem_strdup(real);
					return;
				}
			}
		}
		p += n + (p[n] == ':');
	}
}

static const char *given_or_env(const char *given)
{
	if (given && strcmp(given, "auto"))
		return given;
	const char *env = getenv("CGLINT_CUDA_PATH");
	return env && *env ? env : given;
}

bool fe_clang_tk_refused(const char *given)
{
	const char *g = given_or_env(given);
	return g && !strcmp(g, FE_CLANG_TK_NONE);
}

const char *fe_clang_tk_pick(const char *given, const char *from_db)
{
	const char *g = given_or_env(given);
	if (g && !strcmp(g, FE_CLANG_TK_NONE))
		return NULL;
	if (g && strcmp(g, "auto"))
		return g;
	if (from_db)
		return from_db;
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, find);
	return found;
}

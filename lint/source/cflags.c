/* SPDX-License-Identifier: MIT */
/* cflags: compile-command flags that matter for parsing. */
#include "source/cflags.h"

#include <string.h>

#include "base/mem.h"

void cflags_add(struct arena *a, struct cflags *f, const char *arg)
{
	if (f->n + 1 >= f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 32;
		const char **v = arena_alloc(a, cap * sizeof(*v));
		if (f->n)
			memcpy(v, f->v, f->n * sizeof(*v));
		f->v = v;
		f->cap = cap;
	}
	f->v[f->n++] = arg;
	f->v[f->n] = NULL;
}

/* Flags that take a path or a value, in both spellings: "-I dir" and "-Idir". 'clang' is
 * what libclang gets; nvcc's long forms map onto it. */
static const struct {
	const char *flag, *clang;
	bool path;
} valued[] = {
	{"-D", "-D", false},          {"--define-macro", "-D", false},
	{"-U", "-U", false},          {"--undefine-macro", "-U", false},
	{"-I", "-I", true},           {"--include-path", "-I", true},
	{"-isystem", "-isystem", true}, {"--system-include", "-isystem", true},
	{"-iquote", "-iquote", true}, {"-idirafter", "-idirafter", true},
	{"-include", "-include", true}, {"--pre-include", "-include", true},
};

static const char *absolute(struct arena *a, const char *p, const char *dir)
{
	if (p[0] == '/' || !dir || !*dir)
		return p;
	return arena_printf(a, "%s/%s", dir, p);
}

static void keep(struct arena *a, struct cflags *f, const char *clang, const char *val, bool path, const char *dir)
{
	if (path) {
		cflags_add(a, f, clang);
		cflags_add(a, f, absolute(a, val, dir));
	} else {
		cflags_add(a, f, arena_printf(a, "%s%s", clang, val));
	}
	if (!strcmp(clang, "-D") && !strncmp(val, "CUDA_API_PER_THREAD_DEFAULT_STREAM", 34) &&
	    (val[34] == 0 || val[34] == '='))
		f->per_thread_stream = true;
}

void cflags_from_command(struct arena *a, struct cflags *out, const char *const *argv, size_t argc,
			 const char *dir)
{
	for (size_t i = 1; i < argc; i++) {
		const char *s = argv[i];
		bool done = false;
		for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]) && !done; k++) {
			size_t m = strlen(valued[k].flag);
			if (strncmp(s, valued[k].flag, m))
				continue;
			const char *val = NULL;
			if (s[m] == 0 && i + 1 < argc)
				val = argv[++i];
			else if (s[m] == '=' && s[1] == '-')
				val = s + m + 1;        /* nvcc's --flag=value */
			else if (s[m] && s[1] != '-' && (m == 2 || s[m] == '='))
				val = s + m + (s[m] == '=');
			if (val) {
				keep(a, out, valued[k].clang, val, valued[k].path, dir);
				done = true;
			}
		}
		if (done)
			continue;
		if (!strncmp(s, "-std=", 5) || !strncmp(s, "--std=", 6)) {
			cflags_add(a, out, arena_printf(a, "-std=%s", strchr(s, '=') + 1));
		} else if ((!strcmp(s, "--std") || !strcmp(s, "-std")) && i + 1 < argc) {
			cflags_add(a, out, arena_printf(a, "-std=%s", argv[++i]));
		} else if ((!strcmp(s, "--default-stream") || !strcmp(s, "-default-stream")) && i + 1 < argc) {
			if (!strcmp(argv[++i], "per-thread"))
				keep(a, out, "-D", "CUDA_API_PER_THREAD_DEFAULT_STREAM=1", false, dir);
		} else if (!strcmp(s, "--default-stream=per-thread") || !strcmp(s, "-default-stream=per-thread")) {
			keep(a, out, "-D", "CUDA_API_PER_THREAD_DEFAULT_STREAM=1", false, dir);
		}
	}
}

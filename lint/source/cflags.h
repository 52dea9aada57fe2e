/* SPDX-License-Identifier: MIT */
/*
 * cflags: from a compile command (gcc, clang or nvcc, as compile_commands.json records it), the
 * flags that change how a file parses: macros, include paths, forced includes, the language
 * standard, and nvcc's per-thread default stream. Everything else (optimisation, code
 * generation, warnings, nvcc's arch lists) is dropped, so a gcc- or nvcc-only flag never stops
 * libclang. Response files (--options-file, -optf, @file; relative to the entry's folder) and
 * -Xcompiler's comma-separated host flags are read as if written in place.
 */
#ifndef CGLINT_CFLAGS_H
#define CGLINT_CFLAGS_H

#include <stdbool.h>
#include <stddef.h>

struct arena;

struct cflags {
	const char **v;                 /* kept arguments, in 'a' */
	size_t n, cap;
	bool per_thread_stream;         /* -DCUDA_API_PER_THREAD_DEFAULT_STREAM or --default-stream per-thread */
	const char **drop;              /* the command's options left out, NULL-terminated (NULL: none) */
	size_t n_drop, cap_drop;
};

/* argv[0] is the compiler; relative include paths are made absolute against 'dir'. */
void cflags_from_command(struct arena *a, struct cflags *out, const char *const *argv, size_t argc,
			 const char *dir);
void cflags_add(struct arena *a, struct cflags *f, const char *arg);

#endif

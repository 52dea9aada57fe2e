/* SPDX-License-Identifier: MIT */
/*
 * pch_shadow: where a file put since would take the place of a header a preamble holds. Each
 * header was found under one include folder; the same name under a folder clang searches before
 * it (-iquote, -I, -isystem, /usr/local/include, /usr/include, -idirafter, in that order) would
 * be read instead: a header generated or installed since, a package that now stands in for the
 * shim. Such a file changes the folder that would hold it, or the nearest folder above that is
 * there, so those folders and their modification times are what a preamble's list records
 * (pch_cache_put_list) and checks (pch_cache_fresh). Not covered: the includer's own folder,
 * which "quoted" includes search first.
 */
#ifndef CGLINT_PCH_SHADOW_H
#define CGLINT_PCH_SHADOW_H

#include <stddef.h>

struct arena;
struct cflags;

/* The folders clang looks in for <name> with the flags 'f' (NULL: none), in order, each once:
 * -iquote (for "name" only; taken as searched first), -I, -isystem, /usr/local/include,
 * /usr/include, -idirafter. Into *out (in 'a'); returns how many. */
size_t pch_shadow_search_path(struct arena *a, const struct cflags *f, const char ***out);

/* The folders (in 'a') whose change may put a file ahead of one of files[0..n) on the include
 * path of 'f', each once, into *out; returns how many. */
size_t pch_shadow_dirs(struct arena *a, const struct cflags *f, const char *const *files, size_t n, const char ***out);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * fe_clang_tu: between fe_clang.c (which picks a file's flags) and fe_clang_tu.c (which parses
 * it through libclang). A parse starts from a precompiled preamble in o->pch_dir when one
 * applies: for a CUDA parse, what clang includes before the file's first line, made once per
 * set of flags; with o->file_preambles or o->share_preamble, the file's own leading directives
 * too (preamble.h), made once per file (the language server, across edits) or once per run for
 * the files that share them. The lines a preamble stands for are blanked in the file's parse,
 * so that lines and columns stay the same. With o->pch_cache the folder is the cache kept
 * between runs (pch_cache.h), its preambles checked against the files they hold before use.
 */
#ifndef CGLINT_FE_CLANG_TU_H
#define CGLINT_FE_CLANG_TU_H

#include <stddef.h>
#include <stdint.h>

struct arena;
struct cflags;
struct fe_clang_opts;
struct sir_tu;
struct CXTranslationUnitImpl;   /* libclang's CXTranslationUnit; see fe_clang_walk.h */

#define FE_CLANG_STUB_DIR FE_CLANG_SHIM_DIR "/stub"  /* with a toolkit: what nvcc gives that clang does not (shim/stub/) */

/* Make the process's index now (libclang's targets are set up with it), so that workers forked
 * after share it. */
void fe_clang_tu_index(void);

/* Parse abspath (text buf[0..len)) with flags f, the shim served from memory. *rc: libclang's
 * CXErrorCode; *pch: the preamble the unit was parsed from, or NULL, and *pre the n_pre errors it
 * was saved with (a header not found in it), for fe_clang_err_read. NULL when libclang made
 * no unit. The caller gives the unit back with fe_clang_tu_release. With o->keep_unit (the
 * language server's worker, between edits) the process keeps its last unit, and the next parse
 * of the same file with the same flags and preamble reparses it: libclang then reuses the
 * compiler's set-up (the driver's search for the toolchain) and the pages it has touched. */
struct fe_clang_err_item;
struct CXTranslationUnitImpl *fe_clang_tu_parse(struct arena *a, const char *abspath, const char *buf, size_t len,
						const struct cflags *f, const struct fe_clang_opts *o, int *rc,
						const char **pch, struct fe_clang_err_item **pre, size_t *n_pre);

void fe_clang_tu_release(struct CXTranslationUnitImpl *tu);

/* The files the unit included, its preamble's among them, into t->included. */
void fe_clang_tu_included(struct arena *a, struct CXTranslationUnitImpl *tu, const char *pch, struct sir_tu *t);

/* What decides whether files can share a preamble of their first k leading directive lines, for
 * each k: keys[k - 1] hashes the flags, the folder and those lines, 0 where the block cannot be
 * cut after line k (an #if open, or #defines after the last #include). Fills keys for the
 * n lines of the block, the first 'max' of them keyed, and returns n. */
size_t fe_clang_tu_preamble_keys(struct arena *a, const char *abspath, const char *buf, size_t len,
				 const struct cflags *f, uint64_t *keys, size_t max);

#endif

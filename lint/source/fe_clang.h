/* SPDX-License-Identifier: MIT */
/*
 * fe_clang: C, C++ and CUDA sources through libclang, into a sir_tu (sir.h). Its files,
 * fe_clang.c (the translation unit), fe_clang_walk.c (the AST walk) and fe_clang_expr.c (its
 * expressions), alone include libclang.
 *
 * A file is parsed once, as CUDA host code when it is .cu/.cuh (or holds a launch or a CUDA
 * keyword, or is a header among .cu sources: its compile database's, else its folder's), with
 * the flags its compile_commands.json gives (found with -p or upward from the file; a header
 * takes its nearest source's) kept to those that change parsing. The CUDA headers are a toolkit's when one is given or found
 * (fe_clang_tk.h), else cglint's shim (lint/source/shim/, embedded, served to libclang from
 * memory); never both. A real-header parse with errors in an included header is reported
 * (CG912) and retried with the shim. Errors that are missing declarations leave the file
 * analysed in part (CG919); a function with another error in its body is left out; a file with
 * nothing left is refused (CG911). See fe_clang_err.h. What a parse includes before the file's
 * own code is parsed once and saved in pch_dir (a precompiled preamble) for the parses that
 * start the same way (fe_clang_tu.h).
 */
#ifndef CGLINT_FE_CLANG_H
#define CGLINT_FE_CLANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct diag_list;
struct sir_tu;

/* Compile databases read once per folder for a run, shared by its threads and workers. */
struct fe_clang_cdbs;
struct fe_clang_cdbs *fe_clang_cdbs_new(void);
void fe_clang_cdbs_free(struct fe_clang_cdbs *c);

struct fe_clang_opts {
	const char *cuda_path;          /* toolkit root, "none" (the shim only), or NULL/"auto": found */
	const char *cdb_dir;            /* -p: folder of compile_commands.json; NULL: search upward */
	struct fe_clang_cdbs *cdbs;     /* where databases are kept; required */
	unsigned mem_mib;               /* the worker's memory limit, 0: none; a crash near it is CG920 */
	const char *pch_dir;            /* a private folder for precompiled preambles, shared by the
					   run's workers; NULL: none are made */
	bool file_preambles;            /* a preamble of each file's own #includes (language server) */
	bool share_preamble;            /* this file's #includes, made once for the run's files that
					   share them (same block, flags and folder: fe_clang_preamble_keys) */
	size_t share_lines;             /* with share_preamble: only the block's first share_lines
					   directive lines, which other files of the run begin with too
					   (0: all); the rest is parsed with the file */
	bool pch_cache;                 /* pch_dir is the cache kept between runs (pch_cache.h): names
					   salted with libclang's version and the shim, a preamble used
					   only while the files it holds are unchanged */
	bool keep_unit;                 /* keep the unit for the next parse of the file (fe_clang_tu.h);
					   one per process: a single-threaded worker's only */
};

/* Read the compile database that applies to 'path' now, so that workers forked after share it. */
void fe_clang_cdbs_prime(const struct fe_clang_opts *o, const char *path);

/* In a worker process (src.h): let a crash or an allocation refused under its limit end the
 * process, for the parent to report, rather than have libclang turn it into a failed parse. */
void fe_clang_worker(void);

/* Whether a file name is a source cglint scans: .c .cc .cpp .cxx .cu .cuh .h .hpp */
bool fe_clang_is_source(const char *path);

/*
 * Parse 'path', whose text is buf[0..len), into *out (allocated in 'a'). Problems go to 'd'.
 * Returns 0, or -1 when the file could not be analysed (*out is then NULL). Safe to call from
 * several threads at once with different arenas and lists.
 */
int fe_clang_parse(struct arena *a, struct diag_list *d, const char *path, const char *buf, size_t len,
		   const struct fe_clang_opts *o, struct sir_tu **out);

/* The arguments fe_clang_parse gives libclang for 'path' (first mode tried, less the
 * precompiled preamble), NULL-terminated, in 'a'; *shim says whether they name the virtual shim
 * folder FE_CLANG_SHIM_DIR; *dropped (NULL-terminated) the compile command's options left out. */
#define FE_CLANG_SHIM_DIR "/cglint-shim"
const char **fe_clang_args(struct arena *a, const char *path, const char *buf, size_t len,
			   const struct fe_clang_opts *o, bool *shim, const char ***dropped);

/* What decides whether files can share a preamble of the first k lines of their leading block
 * of directives: those lines, the flags and the folder; keys[k - 1] for each k, 0 where the block
 * cannot be cut there (fe_clang_tu_preamble_keys). Returns the block's lines (the first 'max'
 * keyed); 0 when 'path' has no such block. */
size_t fe_clang_preamble_keys(struct arena *a, const char *path, const char *buf, size_t len,
			      const struct fe_clang_opts *o, uint64_t *keys, size_t max);

/* Load libclang now, so that worker processes forked after share it (the language server). */
void fe_clang_preload(void);

/* "libclang 19.1.7" */
const char *fe_clang_version(struct arena *a);

#endif

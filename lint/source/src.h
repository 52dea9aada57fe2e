/* SPDX-License-Identifier: MIT */
/*
 * src: the source scanner's driver. C, C++ and CUDA files are queued while inputs are walked,
 * then parsed (fe_clang) and checked (cap) in up to 'jobs' worker processes, one file per
 * task (jobs.h): libclang has no limits of its own, so each file is parsed where a deadline and
 * a memory limit can stop it (CG920). A queued header is checked through the first queued file
 * whose unit includes it (with that file's flags and macros), else on its own after the others.
 * Diagnostics join the run's list in queue order, so the output does not depend on -j. Call
 * src_run before starting any thread.
 *
 * The queue owns the per-file arenas the moved diagnostics point into: free it after output.
 */
#ifndef CGLINT_SRC_H
#define CGLINT_SRC_H

#include <stdbool.h>
#include <stddef.h>

struct diag_filter;
struct diag_list;
struct pack;

struct src_opts {
	const char *cuda_path;          /* a toolkit, "none" (the shim), NULL: found (fe_clang_tk.h) */
	const char *cdb_dir;            /* -p */
	unsigned jobs;                  /* 0: one per CPU */
	unsigned timeout_s;             /* per file; 0: SRC_TIMEOUT_S (--source-timeout) */
	unsigned memory_mib;            /* per file; 0: SRC_MEMORY_MIB (--source-memory) */
	bool in_process;                /* parse here, unbounded: for fuzzing */
	bool in_worker;                 /* parse here: this process is already a worker under these
					   limits (the language server's, base/jobs.h) */
	const char *pch_dir;            /* precompiled preambles kept across runs (src_pch_dir_new);
					 * NULL: the cache's (pch_cache.h), else a run of two files or
					 * more makes its own */
	bool no_cache;                  /* --no-cache: neither read nor write the cache */
};

enum { SRC_TIMEOUT_S = 60, SRC_MEMORY_MIB = 4096 };

static inline unsigned src_timeout(const struct src_opts *o)
{
	return o->timeout_s ? o->timeout_s : SRC_TIMEOUT_S;
}

static inline unsigned src_memory(const struct src_opts *o)
{
	return o->memory_mib ? o->memory_mib : SRC_MEMORY_MIB;
}

struct src_queue;

/* A private folder for precompiled preambles (fe_clang.h), or NULL when none can be made; the
 * language server keeps one for its lifetime, so an edit's re-check reuses its file's preamble.
 * src_pch_dir_remove deletes it with what it holds and frees the name. */
char *src_pch_dir_new(void);
void src_pch_dir_remove(char *dir);

struct src_queue *src_queue_new(void);
void src_queue_free(struct src_queue *q);
/* Queue a file by path ('buf' NULL), or text already read ('buf' is copied). 'path' must
 * outlive the queue. */
void src_add(struct src_queue *q, const char *path, const char *buf, size_t len);
struct jobs_result;
/* Report (CG920) why the worker that analysed 'path' stopped without a report. */
void src_stopped(struct diag_list *l, const char *path, const struct jobs_result *r, const struct src_opts *o);

struct text_store;
/* Record every checked file's text (valid until the queue is freed). */
void src_texts(const struct src_queue *q, struct text_store *s);
/* Returns the number of files checked. */
size_t src_run(struct src_queue *q, const struct pack *p, const struct diag_filter *f, const struct src_opts *o,
	       struct diag_list *out);

#endif

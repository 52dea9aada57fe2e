/* SPDX-License-Identifier: MIT */
/*
 * src: the source scanner's driver. C, C++ and CUDA files are queued while inputs are walked,
 * then parsed (fe_clang) and checked (cap) on up to 'jobs' threads, one file per task, each
 * with its own arena and list; their diagnostics join the run's list in queue order, so the
 * output does not depend on -j.
 *
 * The queue owns the per-file arenas the moved diagnostics point into: free it after output.
 */
#ifndef CGLINT_SRC_H
#define CGLINT_SRC_H

#include <stddef.h>

struct diag_filter;
struct diag_list;
struct pack;

struct src_opts {
	const char *cuda_path;          /* a toolkit, "none" (the shim), NULL: found (fe_clang_tk.h) */
	const char *cdb_dir;            /* -p */
	unsigned jobs;                  /* 0: one per CPU */
};

struct src_queue;

struct src_queue *src_queue_new(void);
void src_queue_free(struct src_queue *q);
/* Queue a file by path ('buf' NULL), or text already read ('buf' is copied). 'path' must
 * outlive the queue. */
void src_add(struct src_queue *q, const char *path, const char *buf, size_t len);
struct text_store;
/* Record every checked file's text (valid until the queue is freed). */
void src_texts(const struct src_queue *q, struct text_store *s);
/* Returns the number of files checked. */
size_t src_run(struct src_queue *q, const struct pack *p, const struct diag_filter *f, const struct src_opts *o,
	       struct diag_list *out);

#endif

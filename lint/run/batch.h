/* SPDX-License-Identifier: MIT */
/*
 * batch: the configs, Python recipes and launch scripts of a run, queued as the walk finds
 * them and checked when it ends (lint_finish). A config takes a fraction of a millisecond,
 * less than a worker process costs, so with -j the queue is cut into contiguous chunks of
 * about equal size, one worker process each (base/jobs.h), and only as many as there is work
 * for (BATCH_CHUNK_BYTES a chunk); a small queue is checked here. What each file gave -- its
 * findings, normalization notes, -v lines, the modules read to follow its calls -- comes back
 * and goes where checking it here would have put it, so the output does not depend on -j.
 */
#ifndef CGLINT_BATCH_H
#define CGLINT_BATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "config/target.h"

struct lint_run;

/* What an input is read as (lint.h): it decides what checking it costs. */
enum batch_kind { BATCH_YAML, BATCH_SCRIPT, BATCH_PYTHON };

struct batch_item {
	const char *path;
	const char *buf;                /* its text, kept by the run */
	size_t len;
	struct target target;           /* what it is judged against, resolved when queued */
	enum batch_kind kind;           /* a recipe follows calls into modules, under the run's budget */
	bool named;                     /* the path named on the command line */
	bool on_disk;                   /* the text is the file's (not stdin's or an editor's buffer) */
	size_t at;                      /* how many diagnostics the run had when it was queued */
};

/* Check one item here: its findings to r->diags, as lint_buffer always did. */
typedef void batch_check_fn(struct lint_run *r, const struct batch_item *it);

/*
 * The least work a worker is started for, in bytes of YAML: a worker costs about as much as
 * checking 3 configs, and a chunk of this size takes about 10 of them (CHANGELOG: Measurements). A
 * byte of a script costs about 2 of YAML, one of a recipe 4, and a file 2 KiB more.
 */
enum { BATCH_CHUNK_BYTES = 128 << 10, BATCH_FILE_BYTES = 2 << 10 };

struct batch;
struct batch *batch_new(void);
void batch_free(struct batch *b);
void batch_add(struct batch *b, const struct batch_item *it);
size_t batch_count(const struct batch *b);
/*
 * Check every item in queue order, in at most 'parallel' workers (0: one per CPU; 1 or
 * 'in_process': none), and empty the queue. Each item's text goes to the run's text store; a
 * named recipe or script that gave nothing is noted (r->silent). Call before starting any thread.
 */
void batch_run(struct batch *b, struct lint_run *r, unsigned parallel, bool in_process, batch_check_fn *check);

#endif

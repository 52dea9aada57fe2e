/* SPDX-License-Identifier: MIT */
/*
 * jobs: work that may not end, run where it can be stopped. Each task runs in a child process
 * forked from this one, under a deadline and an address-space limit; what it writes comes back
 * to the parent as bytes. A task that overruns is killed; one that dies (a crash, an abort on
 * an allocation the limit refused) is reported as such, never waited on forever. Children
 * serve task after task (so a task sees this process as it was when its child was forked, not
 * when the task began); a child that ended a task any other way than by returning is replaced,
 * and so is one grown past half its memory limit.
 *
 * Fork before starting threads: the caller must be single-threaded when jobs_run() is called.
 * With 'in_process' set (fuzzing, debugging) tasks run here, one after another, unbounded.
 */
#ifndef CGLINT_JOBS_H
#define CGLINT_JOBS_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf;

struct jobs_limits {
	unsigned parallel;              /* tasks at once; 0 means 1 */
	unsigned seconds;               /* per task, wall clock; 0: none */
	unsigned mem_mib;               /* per task, address space; 0: none */
	bool in_process;
};

enum jobs_end {
	JOBS_DONE,                      /* the task returned; 'out' is all it wrote */
	JOBS_TIMEOUT,                   /* killed at its deadline */
	JOBS_DIED,                      /* killed by 'signal', or exited without finishing */
	JOBS_NO_FORK,                   /* no process could be started ('err' says why) */
};

struct jobs_result {
	enum jobs_end end;
	int signal;                     /* JOBS_DIED: the signal, 0 when it exited */
	int code;                       /* JOBS_DIED: the exit status when it exited */
	const char *out;                /* what the task wrote to 'out' (JOBS_DONE only) */
	size_t out_len;
	const char *err;                /* the first bytes the child wrote to stderr, NUL-terminated */
	double seconds;                 /* wall clock */
};

/* In the child: do task k, writing its result to 'out'. */
typedef void jobs_work_fn(void *ctx, size_t k, struct sbuf *out);
/* In the parent, in any order: task k ended as 'r' (valid for this call only). */
typedef void jobs_done_fn(void *ctx, size_t k, const struct jobs_result *r);

/* In a task: this process's peak address space in MiB (VmPeak), 0 when unknown. A library that
 * turns a refused allocation into an error return (libclang does) is told apart from one that
 * failed on its own by how close this is to the limit. */
unsigned jobs_peak_mib(void);
/* Its address space now, in MiB (VmSize), 0 when unknown. */
unsigned jobs_size_mib(void);

/* Run tasks 0..n-1, 'parallel' at a time, and return when every one has been reported. */
void jobs_run(size_t n, const struct jobs_limits *lim, jobs_work_fn *work, jobs_done_fn *done, void *ctx);

/*
 * A worker its owner keeps and steps from its own poll loop (the language server's, one per
 * source document: it must keep answering while a task runs). job_start forks it, idle; each
 * job_send gives it a task as bytes, which 'serve' gets in the child, and the child keeps what
 * it made between tasks (a parsed unit), so that a task after the first costs no fork. Poll
 * job_fds() for reading, waking in job_ms_left() at the latest (the deadline is per task); then
 * job_step() reads what is there and returns true once the task has ended, *r filled (valid
 * until the next job_send or job_free). A worker lives on after JOBS_DONE unless it retired (grown
 * past half its memory limit) and goes after any other end: job_send returns false to one that
 * has gone, or is busy. job_start returns NULL when no child could be made (*why says why). A
 * worker freed mid-task is killed, and its own children with it.
 */
typedef void jobs_serve_fn(void *ctx, const char *in, size_t len, struct sbuf *out);
struct job;
struct job *job_start(const struct jobs_limits *lim, jobs_serve_fn *serve, void *ctx, const char **why);
bool job_send(struct job *j, const char *in, size_t len);
/* Send to *j, or, when it is NULL or has gone, to a fresh worker put in its place (*j must not be
 * busy); false, with *j NULL and *why set, when none could be made. */
bool job_give(struct job **j, const struct jobs_limits *lim, jobs_serve_fn *serve, void *ctx, const char *in,
	      size_t len, const char **why);
bool job_busy(const struct job *j);
size_t job_fds(const struct job *j, int fds[2]);
int job_ms_left(const struct job *j);   /* -1: no task or no deadline */
bool job_step(struct job *j, struct jobs_result *r);
void job_free(struct job *j);

#endif

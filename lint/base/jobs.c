/* SPDX-License-Identifier: MIT */
/* jobs: tasks in forked children, each under a deadline and a memory limit (see jobs.h). */
#include "base/jobs.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/mem.h"

/* AddressSanitizer reserves terabytes of address space up front: no RLIMIT_AS under it. */
#if defined(__SANITIZE_ADDRESS__)
#define CG_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CG_ASAN 1
#endif
#endif
#ifdef CG_ASAN
enum { LIMIT_AS = 0 };
#else
enum { LIMIT_AS = 1 };
#endif

enum { ERR_KEEP = 512 };

struct job {
	pid_t pid;                      /* 0 once reaped */
	int fd[2];                      /* the task's output, its stderr; -1 once at end of file */
	unsigned seconds;
	struct sbuf out;
	char err[ERR_KEEP];
	size_t err_len;
	double start;
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(4);
		p += w;
		n -= (size_t)w;
	}
}

/* In a new child: die with the parent, write errors to 'err', live under the memory limit. */
static void child_setup(const struct jobs_limits *lim, int err)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);       /* a killed parent takes its workers with it */
	dup2(err, STDERR_FILENO);
	if (LIMIT_AS && lim->mem_mib) {
		rlim_t b = (rlim_t)lim->mem_mib << 20;
		setrlimit(RLIMIT_AS, &(struct rlimit){b, b});
	}
}

static void run_child(const struct jobs_limits *lim, jobs_work_fn *work, void *ctx, size_t k, int out, int err)
{
	child_setup(lim, err);
	struct sbuf sb;
	sbuf_init(&sb);
	work(ctx, k, &sb);
	write_all(out, sb.buf, sb.len);
	_exit(0);       /* no atexit handlers: they belong to the parent */
}

static int cloexec_pipe(int fd[2])
{
	if (pipe(fd))
		return -1;
	fcntl(fd[0], F_SETFD, FD_CLOEXEC);
	fcntl(fd[1], F_SETFD, FD_CLOEXEC);
	return 0;
}

struct job *job_start(const struct jobs_limits *lim, jobs_work_fn *work, void *ctx, size_t k, const char **why)
{
	int out[2], err[2];
	pid_t pid = -1;
	if (cloexec_pipe(out) == 0) {
		if (cloexec_pipe(err) == 0) {
			pid = fork();
			if (pid == 0)
				run_child(lim, work, ctx, k, out[1], err[1]);
			close(err[1]);
			if (pid < 0)
				close(err[0]);
		}
		close(out[1]);
		if (pid < 0)
			close(out[0]);
	}
	if (pid < 0) {
		*why = strerror(errno);
		return NULL;
	}
	struct job *j = mem_alloc(sizeof(*j));
	*j = (struct job){.pid = pid, .fd = {out[0], err[0]}, .seconds = lim->seconds, .start = now()};
	sbuf_init(&j->out);
	return j;
}

size_t job_fds(const struct job *j, int fds[2])
{
	size_t n = 0;
	for (int i = 0; i < 2; i++)
		if (j->fd[i] >= 0)
			fds[n++] = j->fd[i];
	return n;
}

int job_ms_left(const struct job *j)
{
	if (!j->seconds)
		return -1;
	double left = j->start + j->seconds - now();
	return left > 0 ? (int)(left * 1000) + 1 : 0;
}

/* Read what is ready; a file that ends is closed. */
static void drain(struct job *j, int i)
{
	char buf[65536];
	ssize_t r = read(j->fd[i], buf, sizeof(buf));
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (r <= 0) {
		close(j->fd[i]);
		j->fd[i] = -1;
	} else if (i == 0) {
		sbuf_addn(&j->out, buf, (size_t)r);
	} else {
		size_t keep = (size_t)r < ERR_KEEP - 1 - j->err_len ? (size_t)r : ERR_KEEP - 1 - j->err_len;
		memcpy(j->err + j->err_len, buf, keep);
		j->err_len += keep;
	}
}

static void reap(struct job *j, enum jobs_end end, struct jobs_result *r)
{
	int status = 0;
	if (end != JOBS_DONE)
		kill(j->pid, SIGKILL);
	while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
		;
	j->pid = 0;
	for (int i = 0; i < 2; i++)
		if (j->fd[i] >= 0) {
			close(j->fd[i]);
			j->fd[i] = -1;
		}
	if (end == JOBS_DONE && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		end = JOBS_DIED;
	j->err[j->err_len] = '\0';
	*r = (struct jobs_result){
		.end = end,
		.signal = end == JOBS_DIED && WIFSIGNALED(status) ? WTERMSIG(status) : 0,
		.code = WIFEXITED(status) ? WEXITSTATUS(status) : 0,
		.out = end == JOBS_DONE ? j->out.buf : NULL,
		.out_len = end == JOBS_DONE ? j->out.len : 0,
		.err = j->err,
		.seconds = now() - j->start,
	};
}

bool job_step(struct job *j, struct jobs_result *r)
{
	if (!j->pid)
		return false;
	struct pollfd pf[2];
	int fds[2];
	size_t n = job_fds(j, fds);
	for (size_t i = 0; i < n; i++)
		pf[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
	if (n && poll(pf, n, 0) > 0)
		for (size_t i = 0; i < n; i++)
			if (pf[i].revents)
				drain(j, fds[i] == j->fd[0] ? 0 : 1);
	if (j->fd[0] < 0 && j->fd[1] < 0)
		reap(j, JOBS_DONE, r);          /* both ends closed: it exited */
	else if (job_ms_left(j) == 0)
		reap(j, JOBS_TIMEOUT, r);
	else
		return false;
	return true;
}

void job_free(struct job *j)
{
	if (!j)
		return;
	if (j->pid) {
		struct jobs_result r;
		reap(j, JOBS_DIED, &r);
	}
	sbuf_release(&j->out);
	free(j);
}

/* The "FIELD: N kB" line of /proc/self/status, in MiB; 0 when unknown. */
static unsigned status_mib(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long kib = 0;
	size_t n = strlen(field);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':' && sscanf(line + n + 1, "%lu", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return (unsigned)(kib >> 10);
}

unsigned jobs_peak_mib(void)
{
	return status_mib("VmPeak");
}

unsigned jobs_size_mib(void)
{
	return status_mib("VmSize");
}

static void in_process(size_t n, jobs_work_fn *work, jobs_done_fn *done, void *ctx)
{
	for (size_t k = 0; k < n; k++) {
		struct sbuf sb;
		sbuf_init(&sb);
		double t = now();
		work(ctx, k, &sb);
		done(ctx, k, &(struct jobs_result){.end = JOBS_DONE, .out = sb.buf, .out_len = sb.len, .err = "",
						   .seconds = now() - t});
		sbuf_release(&sb);
	}
}

/*
 * The pool jobs_run keeps: each worker is forked once and serves tasks one after another, as
 * long as it lives, so that what the parent had loaded (libclang) and what the worker's heap
 * grew to are paid for once. The parent writes a task's number to the worker; the worker
 * answers with the task's output as one frame (its length, with LAST set when it retires after
 * it, then its bytes). A worker that overruns a task's deadline is killed, one that dies is
 * reported for the task it was on, and the next task gets a fresh worker. One that has grown
 * past half its limit retires after a task, so that no task inherits another's memory.
 */
#define LAST ((uint64_t)1 << 63)

struct worker {
	struct job j;                   /* the process, its output and stderr, the task's start */
	int task;                       /* where tasks are sent (a socket); -1: no worker */
	bool busy;
	bool retiring;                  /* said its last frame was its last */
	size_t k;                       /* the task it is on */
};

static bool read_all(int fd, void *p, size_t n)
{
	while (n) {
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p = (char *)p + r;
		n -= (size_t)r;
	}
	return true;
}

static void serve(const struct jobs_limits *lim, jobs_work_fn *work, void *ctx, int task, int out, int err)
{
	child_setup(lim, err);
	uint64_t k;
	while (read_all(task, &k, sizeof(k))) {
		struct sbuf sb;
		sbuf_init(&sb);
		work(ctx, (size_t)k, &sb);
		bool last = LIMIT_AS && lim->mem_mib && jobs_size_mib() > lim->mem_mib / 2;
		uint64_t len = sb.len | (last ? LAST : 0);
		write_all(out, (const char *)&len, sizeof(len));
		write_all(out, sb.buf, sb.len);
		sbuf_release(&sb);
		if (last)
			break;
	}
	_exit(0);
}

/* Fork a worker into w; false (with *why) when none could be made. The child closes the
 * parent's ends of every other worker's pipes, so that each sees its own end of tasks. */
static bool worker_start(struct worker *w, struct worker *all, size_t n, const struct jobs_limits *lim,
			 jobs_work_fn *work, void *ctx, const char **why)
{
	int task[2], out[2], err[2];
	bool ok = false;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, task) == 0) {
		if (cloexec_pipe(out) == 0) {
			if (cloexec_pipe(err) == 0) {
				pid_t pid = fork();
				if (pid == 0) {
					for (size_t i = 0; i < n; i++)
						if (all[i].task >= 0) {
							close(all[i].task);
							close(all[i].j.fd[0]);
							close(all[i].j.fd[1]);
						}
					close(task[1]);
					close(out[0]);
					close(err[0]);
					serve(lim, work, ctx, task[0], out[1], err[1]);
				}
				ok = pid > 0;
				if (ok)
					w->j = (struct job){.pid = pid, .fd = {out[0], err[0]}, .seconds = lim->seconds};
				else
					close(err[0]);
				close(err[1]);
			}
			if (!ok)
				close(out[0]);
			close(out[1]);
		}
		close(task[0]);
		if (ok)
			w->task = task[1];
		else
			close(task[1]);
	}
	if (!ok) {
		*why = strerror(errno);
		return false;
	}
	sbuf_init(&w->j.out);
	w->busy = w->retiring = false;
	return true;
}

/* Its task's output, once the whole frame is there: its length in *len, else NULL. */
static const char *frame(const struct job *j, size_t *len, bool *last)
{
	uint64_t n;
	if (j->out.len < sizeof(n))
		return NULL;
	memcpy(&n, j->out.buf, sizeof(n));
	*last = n & LAST;
	n &= ~LAST;
	if (j->out.len - sizeof(n) < n)
		return NULL;
	*len = (size_t)n;
	return j->out.buf + sizeof(n);
}

static void worker_stop(struct worker *w)
{
	close(w->task);
	w->task = -1;
	if (w->j.pid) {
		struct jobs_result r;
		reap(&w->j, w->busy ? JOBS_DIED : JOBS_DONE, &r);
	}
	sbuf_release(&w->j.out);
	w->busy = false;
}

/* Step worker w after a poll: read what is there; true, with *r, when its task ended. */
static bool worker_step(struct worker *w, struct jobs_result *r)
{
	int fds[2];
	struct pollfd pf[2];
	size_t n = job_fds(&w->j, fds);
	for (size_t i = 0; i < n; i++)
		pf[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
	if (n && poll(pf, n, 0) > 0)
		for (size_t i = 0; i < n; i++)
			if (pf[i].revents)
				drain(&w->j, fds[i] == w->j.fd[0] ? 0 : 1);
	size_t len;
	const char *out = w->busy ? frame(&w->j, &len, &w->retiring) : NULL;
	if (out) {
		w->j.err[w->j.err_len] = '\0';
		*r = (struct jobs_result){.end = JOBS_DONE, .out = out, .out_len = len, .err = w->j.err,
					  .seconds = now() - w->j.start};
		return true;
	}
	bool ended = w->j.fd[0] < 0;    /* it exited (or closed its output): no more frames */
	if (!ended && !(w->busy && job_ms_left(&w->j) == 0))
		return false;
	if (w->busy) {
		reap(&w->j, ended ? JOBS_DONE : JOBS_TIMEOUT, r);
		if (r->end == JOBS_DONE)        /* exited mid-task without its frame */
			*r = (struct jobs_result){.end = JOBS_DIED, .code = r->code, .err = r->err, .seconds = r->seconds};
		return true;
	}
	worker_stop(w);                 /* retired between tasks */
	return false;
}

void jobs_run(size_t n, const struct jobs_limits *lim, jobs_work_fn *work, jobs_done_fn *done, void *ctx)
{
	if (lim->in_process) {
		in_process(n, work, done, ctx);
		return;
	}
	size_t par = lim->parallel ? lim->parallel : 1, next = 0, active = 0;
	par = par < n ? par : n ? n : 1;
	struct worker *w = mem_alloc(par * sizeof(*w));
	for (size_t s = 0; s < par; s++)
		w[s].task = -1;
	struct pollfd *pf = mem_alloc(2 * par * sizeof(*pf));
	while (next < n || active) {
		for (size_t s = 0; s < par && next < n; s++) {
			const char *why;
			if (w[s].busy)
				continue;
			if (w[s].task < 0 && !worker_start(&w[s], w, par, lim, work, ctx, &why)) {
				done(ctx, next++, &(struct jobs_result){.end = JOBS_NO_FORK, .err = why});
				continue;
			}
			uint64_t k = next;
			w[s].k = next++;
			w[s].busy = true;
			w[s].j.start = now();
			w[s].j.err_len = 0;
			w[s].j.out.len = 0;
			/* a worker that died already is reported as such when stepped */
			(void)!send(w[s].task, &k, sizeof(k), MSG_NOSIGNAL);
			active++;
		}
		size_t np = 0;
		int wait = -1;
		for (size_t s = 0; s < par; s++) {
			if (w[s].task < 0)
				continue;
			int fds[2], left = w[s].busy ? job_ms_left(&w[s].j) : -1;
			for (size_t i = 0, m = job_fds(&w[s].j, fds); i < m; i++)
				pf[np++] = (struct pollfd){.fd = fds[i], .events = POLLIN};
			if (left >= 0 && (wait < 0 || left < wait))
				wait = left;
		}
		if (np)
			poll(pf, np, wait);     /* EINTR or not: every worker is stepped below */
		for (size_t s = 0; s < par; s++) {
			struct jobs_result r;
			if (w[s].task < 0 || !worker_step(&w[s], &r))
				continue;
			w[s].busy = false;
			active--;
			done(ctx, w[s].k, &r);
			if (r.end != JOBS_DONE || w[s].retiring)
				worker_stop(&w[s]);
		}
	}
	for (size_t s = 0; s < par; s++)
		if (w[s].task >= 0)
			worker_stop(&w[s]);
	free(pf);
	free(w);
}

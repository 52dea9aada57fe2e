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
enum { LIMIT_AS = !MEM_CHECKED };

enum { ERR_KEEP = 512 };

/*
 * A worker is forked once and serves tasks one after another, as long as it lives, so that what
 * the parent had loaded (libclang) and what the worker made or grew to are paid for once. The
 * parent writes a task to the worker's socket as one frame (its length, then its bytes); the
 * worker answers on its pipe with the task's output as one frame (its length, with LAST set when
 * it retires after it, then its bytes). One that has grown past half its memory limit retires
 * after a task, so that no task inherits another's memory.
 */
#define LAST ((uint64_t)1 << 63)

struct job {
	pid_t pid;                      /* 0 once reaped */
	int task;                       /* where tasks are sent; -1 once the worker has gone */
	int fd[2];                      /* its output, its stderr; -1 once at end of file */
	unsigned seconds;
	bool busy;
	bool retiring;                  /* said its last frame was its last */
	struct sbuf out;
	char err[ERR_KEEP];
	size_t err_len;
	double start;                   /* the task's */
	struct job *next;               /* in 'live' */
};

/* Every worker of this process: a new child closes their parent-side ends, so that each worker
 * alone holds its own. */
static struct job *live;

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

/* In a new worker: die with the parent, write errors to 'err', live under the memory limit,
 * then serve tasks from 'task' until it closes or the worker retires. */
static void serve(const struct jobs_limits *lim, jobs_serve_fn *fn, void *ctx, int task, int out, int err)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);       /* a killed parent takes its workers with it */
	dup2(err, STDERR_FILENO);
	if (LIMIT_AS && lim->mem_mib) {
		rlim_t b = (rlim_t)lim->mem_mib << 20;
		setrlimit(RLIMIT_AS, &(struct rlimit){b, b});
	}
	uint64_t n;
	while (read_all(task, &n, sizeof(n))) {
		char *in = mem_alloc(n + 1);
		if (!read_all(task, in, n))
			break;
		in[n] = '\0';
		struct sbuf sb;
		sbuf_init(&sb);
		fn(ctx, in, n, &sb);
		free(in);
		bool last = LIMIT_AS && lim->mem_mib && jobs_size_mib() > lim->mem_mib / 2;
		uint64_t len = sb.len | (last ? LAST : 0);
		write_all(out, (const char *)&len, sizeof(len));
		write_all(out, sb.buf, sb.len);
		sbuf_release(&sb);
		if (last)
			break;
	}
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

struct job *job_start(const struct jobs_limits *lim, jobs_serve_fn *fn, void *ctx, const char **why)
{
	int task[2], out[2], err[2];
	pid_t pid = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, task) == 0) {
		if (cloexec_pipe(out) == 0) {
			if (cloexec_pipe(err) == 0) {
				pid = fork();
				if (pid == 0) {
					for (struct job *o = live; o; o = o->next) {
						close(o->task);
						for (int i = 0; i < 2; i++)
							if (o->fd[i] >= 0)
								close(o->fd[i]);
					}
					close(task[1]);
					close(out[0]);
					close(err[0]);
					serve(lim, fn, ctx, task[0], out[1], err[1]);
				}
				if (pid < 0)
					close(err[0]);
				close(err[1]);
			}
			if (pid < 0)
				close(out[0]);
			close(out[1]);
		}
		close(task[0]);
		if (pid < 0)
			close(task[1]);
	}
	if (pid < 0) {
		*why = strerror(errno);
		return NULL;
	}
	struct job *j = mem_alloc(sizeof(*j));
	*j = (struct job){.pid = pid, .task = task[1], .fd = {out[0], err[0]}, .seconds = lim->seconds, .next = live};
	sbuf_init(&j->out);
	live = j;
	return j;
}

static bool send_all(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p = (const char *)p + w;
		n -= (size_t)w;
	}
	return true;
}

bool job_send(struct job *j, const char *in, size_t len)
{
	if (j->busy || j->retiring || j->task < 0)
		return false;
	uint64_t n = len;
	j->out.len = 0;
	j->err_len = 0;
	j->start = now();
	/* a worker that died is reported as such when stepped */
	if (send_all(j->task, &n, sizeof(n)))
		send_all(j->task, in, len);
	j->busy = true;
	return true;
}

bool job_give(struct job **j, const struct jobs_limits *lim, jobs_serve_fn *fn, void *ctx, const char *in,
	      size_t len, const char **why)
{
	if (*j && job_send(*j, in, len))
		return true;
	job_free(*j);           /* it retired, or died between tasks */
	*j = job_start(lim, fn, ctx, why);
	return *j && job_send(*j, in, len);
}

bool job_busy(const struct job *j)
{
	return j->busy;
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
	if (!j->busy || !j->seconds)
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

/* The worker goes: killed, waited for, its files closed. Its exit status into *status. */
static void reap(struct job *j, int *status)
{
	*status = 0;
	if (j->pid) {
		kill(j->pid, SIGKILL);
		while (waitpid(j->pid, status, 0) < 0 && errno == EINTR)
			;
		j->pid = 0;
	}
	if (j->task >= 0)
		close(j->task);
	j->task = -1;
	for (int i = 0; i < 2; i++)
		if (j->fd[i] >= 0) {
			close(j->fd[i]);
			j->fd[i] = -1;
		}
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

bool job_step(struct job *j, struct jobs_result *r)
{
	int fds[2];
	struct pollfd pf[2];
	size_t n = job_fds(j, fds);
	for (size_t i = 0; i < n; i++)
		pf[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
	if (n && poll(pf, n, 0) > 0)
		for (size_t i = 0; i < n; i++)
			if (pf[i].revents)
				drain(j, fds[i] == j->fd[0] ? 0 : 1);
	j->err[j->err_len] = '\0';
	size_t len;
	const char *out = j->busy ? frame(j, &len, &j->retiring) : NULL;
	if (out) {
		j->busy = false;
		*r = (struct jobs_result){.end = JOBS_DONE, .out = out, .out_len = len, .err = j->err,
					  .seconds = now() - j->start};
		return true;
	}
	bool ended = j->fd[0] < 0;      /* it exited (or closed its output): no more frames */
	bool late = j->busy && job_ms_left(j) == 0;
	if (!ended && !late)
		return false;
	int status;
	reap(j, &status);
	if (!j->busy)
		return false;           /* gone between tasks: retired, or killed from outside */
	j->busy = false;
	*r = (struct jobs_result){
		.end = ended ? JOBS_DIED : JOBS_TIMEOUT,
		.signal = ended && WIFSIGNALED(status) ? WTERMSIG(status) : 0,
		.code = ended && WIFEXITED(status) ? WEXITSTATUS(status) : 0,
		.err = j->err,
		.seconds = now() - j->start,
	};
	return true;
}

void job_free(struct job *j)
{
	if (!j)
		return;
	int status;
	reap(j, &status);
	for (struct job **p = &live; *p; p = &(*p)->next)
		if (*p == j) {
			*p = j->next;
			break;
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

/* jobs_run's workers: a task is its number. */
struct pool {
	jobs_work_fn *work;
	void *ctx;
};

static void pool_serve(void *ctx, const char *in, size_t len, struct sbuf *out)
{
	const struct pool *p = ctx;
	uint64_t k;
	if (len == sizeof(k)) {
		memcpy(&k, in, sizeof(k));
		p->work(p->ctx, (size_t)k, out);
	}
}

void jobs_run(size_t n, const struct jobs_limits *lim, jobs_work_fn *work, jobs_done_fn *done, void *ctx)
{
	if (lim->in_process) {
		in_process(n, work, done, ctx);
		return;
	}
	struct pool pool = {work, ctx};
	size_t par = lim->parallel ? lim->parallel : 1, next = 0, active = 0;
	par = par < n ? par : n ? n : 1;
	struct job **w = mem_alloc(par * sizeof(*w));
	size_t *on = mem_alloc(par * sizeof(*on));      /* the task each is on */
	memset(w, 0, par * sizeof(*w));
	struct pollfd *pf = mem_alloc(2 * par * sizeof(*pf));
	while (next < n || active) {
		for (size_t s = 0; s < par && next < n; s++) {
			const char *why;
			if (w[s] && job_busy(w[s]))
				continue;
			uint64_t k = next;
			if (!job_give(&w[s], lim, pool_serve, &pool, (const char *)&k, sizeof(k), &why)) {
				done(ctx, next++, &(struct jobs_result){.end = JOBS_NO_FORK, .err = why});
				continue;
			}
			on[s] = next++;
			active++;
		}
		size_t np = 0;
		int wait = -1;
		for (size_t s = 0; s < par; s++) {
			if (!w[s])
				continue;
			int fds[2], left = job_ms_left(w[s]);
			for (size_t i = 0, m = job_fds(w[s], fds); i < m; i++)
				pf[np++] = (struct pollfd){.fd = fds[i], .events = POLLIN};
			if (left >= 0 && (wait < 0 || left < wait))
				wait = left;
		}
		if (np)
			poll(pf, np, wait);     /* EINTR or not: every worker is stepped below */
		for (size_t s = 0; s < par; s++) {
			struct jobs_result r;
			if (!w[s] || !job_step(w[s], &r))
				continue;
			active--;
			done(ctx, on[s], &r);
			if (r.end != JOBS_DONE) {
				job_free(w[s]);
				w[s] = NULL;
			}
		}
	}
	for (size_t s = 0; s < par; s++)
		job_free(w[s]);
	free(pf);
	free(on);
	free(w);
}

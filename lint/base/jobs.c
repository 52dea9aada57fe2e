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
#include <sys/resource.h>
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

static void run_child(const struct jobs_limits *lim, jobs_work_fn *work, void *ctx, size_t k, int out, int err)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);       /* a killed parent takes its workers with it */
	dup2(err, STDERR_FILENO);
	if (LIMIT_AS && lim->mem_mib) {
		rlim_t b = (rlim_t)lim->mem_mib << 20;
		setrlimit(RLIMIT_AS, &(struct rlimit){b, b});
	}
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

unsigned jobs_peak_mib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long kib = 0;
	while (f && fgets(line, sizeof(line), f) && sscanf(line, "VmPeak: %lu kB", &kib) != 1)
		;
	if (f)
		fclose(f);
	return (unsigned)(kib >> 10);
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

void jobs_run(size_t n, const struct jobs_limits *lim, jobs_work_fn *work, jobs_done_fn *done, void *ctx)
{
	if (lim->in_process) {
		in_process(n, work, done, ctx);
		return;
	}
	size_t par = lim->parallel ? lim->parallel : 1, next = 0, active = 0;
	struct job **run = mem_alloc(par * sizeof(*run));
	size_t *task = mem_alloc(par * sizeof(*task));
	struct pollfd *pf = mem_alloc(2 * par * sizeof(*pf));
	while (next < n || active) {
		for (size_t s = 0; s < par && next < n; s++) {
			const char *why;
			if (run[s])
				continue;
			task[s] = next++;
			if ((run[s] = job_start(lim, work, ctx, task[s], &why)))
				active++;
			else
				done(ctx, task[s], &(struct jobs_result){.end = JOBS_NO_FORK, .err = why});
		}
		size_t np = 0;
		int wait = -1;
		for (size_t s = 0; s < par; s++) {
			if (!run[s])
				continue;
			int fds[2], left = job_ms_left(run[s]);
			for (size_t i = 0, m = job_fds(run[s], fds); i < m; i++)
				pf[np++] = (struct pollfd){.fd = fds[i], .events = POLLIN};
			if (left >= 0 && (wait < 0 || left < wait))
				wait = left;
		}
		if (np)
			poll(pf, np, wait);     /* EINTR or not: every job is stepped below */
		for (size_t s = 0; s < par; s++) {
			struct jobs_result r;
			if (run[s] && job_step(run[s], &r)) {
				done(ctx, task[s], &r);
				job_free(run[s]);
				run[s] = NULL;
				active--;
			}
		}
	}
	free(pf);
	free(task);
	free(run);
}

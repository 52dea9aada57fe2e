/* SPDX-License-Identifier: MIT */
/* pyenv: Python's module search path, asked of the user's interpreter once (see pyenv.h). */
#define _XOPEN_SOURCE 700   /* realpath */
#include "input/pyenv.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/mem.h"

extern char **environ;

enum { ASK_MS = 10000, MAX_DIRS = 4096, MAX_OUT = 1 << 20 };

struct list {
	char **items;
	size_t n;
};

static struct list extra, path;
static bool done;
static size_t placed;           /* extra folders at the head of 'path' */
static char desc[PATH_MAX + 128];

static void push(struct list *l, const char *s, size_t len)
{
	for (size_t k = 0; k < l->n; k++)
		if (strlen(l->items[k]) == len && !memcmp(l->items[k], s, len))
			return;
	if (l->n == MAX_DIRS)
		return;
	l->items = mem_realloc(l->items, (l->n + 1) * sizeof(*l->items));
	char *c = mem_alloc(len + 1);
	memcpy(c, s, len);
	l->items[l->n++] = c;
}

static void push_dirs(struct list *l, const char *text, char sep)
{
	for (const char *p = text; p && *p;) {
		const char *e = strchr(p, sep);
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len)
			push(l, p, len);
		p = e ? e + 1 : NULL;
	}
}

void pyenv_add(const char *dir)
{
	size_t n = path.n;
	push(&extra, dir, strlen(dir));
	if (!done)
		return;
	push(&path, dir, strlen(dir));  /* added once the path was made: still before the rest */
	if (path.n > n) {
		char *d = path.items[n];
		memmove(path.items + placed + 1, path.items + placed, (n - placed) * sizeof(*path.items));
		path.items[placed++] = d;
	}
}

size_t pyenv_added(void)
{
	return extra.n;
}

static bool executable(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISREG(st.st_mode) && !access(p, X_OK);
}

/* The interpreter of the user's environment, or NULL (none, or CGLINT_PYTHON=none). */
static const char *interpreter(char *buf, size_t size)
{
	const char *p = getenv("CGLINT_PYTHON");
	if (p && *p)
		return strcmp(p, "none") ? p : NULL;
	const char *envs[] = {"VIRTUAL_ENV", "CONDA_PREFIX"};
	for (size_t k = 0; k < 2; k++)
		if ((p = getenv(envs[k])) && *p) {
			snprintf(buf, size, "%s/bin/python", p);
			if (executable(buf))
				return buf;
		}
	const char *dirs = getenv("PATH");
	for (const char *d = dirs; d && *d;) {
		const char *e = strchr(d, ':');
		int len = e ? (int)(e - d) : (int)strlen(d);
		snprintf(buf, size, "%.*s/python3", len, d);
		if (len && executable(buf))
			return buf;
		d = e ? e + 1 : NULL;
	}
	return NULL;
}

/* What the interpreter prints for sys.path, one folder a line; false if it could not say in time. */
static bool ask(const char *py, struct list *out)
{
	int fd[2];
	if (pipe(fd))
		return false;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	char prog[PATH_MAX], dash_c[] = "-c", code[] = "import sys\nfor p in sys.path: print(p)";
	snprintf(prog, sizeof(prog), "%s", py);
	char *argv[] = {prog, dash_c, code, NULL};
	pid_t pid;
	int rc = posix_spawn(&pid, py, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (rc) {
		close(fd[0]);
		return false;
	}
	char *buf = mem_alloc(MAX_OUT + 1);
	size_t n = 0;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	bool ok = true;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		long left = ASK_MS - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		struct pollfd p = {fd[0], POLLIN, 0};
		if (left <= 0 || poll(&p, 1, (int)left) <= 0) {
			ok = false;     /* a hung interpreter is not waited for */
			break;
		}
		ssize_t got = read(fd[0], buf + n, MAX_OUT - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0 || (n += (size_t)got) == MAX_OUT)
			break;
	}
	close(fd[0]);
	if (!ok)
		kill(pid, SIGKILL);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	ok = ok && WIFEXITED(st) && !WEXITSTATUS(st);
	buf[n] = '\0';
	if (ok)
		push_dirs(out, buf, '\n');
	free(buf);
	return ok;
}

static long long mtime_of(const char *p)
{
	struct stat st;
	return stat(p, &st) ? -1 : (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

/* $XDG_CACHE_HOME/cglint/pypath-HASH, HASH of the interpreter's path; false if no home. */
static bool cache_file(const char *real, char *buf, size_t size)
{
	uint64_t h = 1469598103934665603ULL;
	for (const char *p = real; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n = x && *x ? snprintf(buf, size, "%s/cglint", x) : home && *home ? snprintf(buf, size, "%s/.cache/cglint", home) : -1;
	if (n < 0 || (size_t)n >= size)
		return false;
	snprintf(buf + n, size - (size_t)n, "/pypath-%016llx", (unsigned long long)h);
	return true;
}

/* The cached answer, if the interpreter and every folder it named are as they were. */
static bool cache_load(const char *file, const char *real, struct list *out)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return false;
	char line[PATH_MAX + 64], head[PATH_MAX + 64];
	snprintf(head, sizeof(head), "cglint-pypath 1 %lld %s\n", mtime_of(real), real);
	bool ok = fgets(line, sizeof(line), f) && !strcmp(line, head);
	struct list got = {0};
	while (ok && fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' ');
		size_t len = strlen(line);
		if (!sp || line[len - 1] != '\n') {
			ok = false;
			break;
		}
		line[len - 1] = '\0';
		ok = atoll(line) == mtime_of(sp + 1);
		push(&got, sp + 1, strlen(sp + 1));
	}
	fclose(f);
	for (size_t k = 0; k < got.n; k++) {
		if (ok)
			push(out, got.items[k], strlen(got.items[k]));
		free(got.items[k]);
	}
	free(got.items);
	return ok;
}

/* Written whole or not at all: a temporary file renamed over the old one. */
static void cache_store(const char *file, const char *real, const struct list *dirs)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 32];
	snprintf(dir, sizeof(dir), "%s", file);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return;
	*slash = '\0';
	char *up = strrchr(dir, '/');
	if (up) {               /* ~/.cache, then ~/.cache/cglint */
		*up = '\0';
		mkdir(dir, 0755);
		*up = '/';
	}
	mkdir(dir, 0755);
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", file, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "cglint-pypath 1 %lld %s\n", mtime_of(real), real);
	for (size_t k = 0; k < dirs->n; k++)
		fprintf(f, "%lld %s\n", mtime_of(dirs->items[k]), dirs->items[k]);
	if (fclose(f) || rename(tmp, file))
		unlink(tmp);
}

static void compute(void)
{
	for (size_t k = 0; k < extra.n; k++)
		push(&path, extra.items[k], strlen(extra.items[k]));
	placed = path.n;
	push_dirs(&path, getenv("PYTHONPATH"), ':');
	char buf[PATH_MAX], real[PATH_MAX], file[PATH_MAX] = "";
	const char *py = interpreter(buf, sizeof(buf));
	if (!py || !realpath(py, real)) {
		snprintf(desc, sizeof(desc), "no Python interpreter asked%s", py ? " (not found)" : "");
		return;
	}
	/* a virtual environment's python is a link to the base interpreter, and it is the link's
	 * place (its pyvenv.cfg) that makes the environment: the path as found names the cache */
	if (py[0] == '/')
		snprintf(real, sizeof(real), "%s", py);
	struct list sys = {0};
	bool cached = cache_file(real, file, sizeof(file)) && cache_load(file, real, &sys);
	bool asked = cached || ask(py, &sys);
	if (asked && !cached && *file)
		cache_store(file, real, &sys);
	for (size_t k = 0; k < sys.n; k++) {
		push(&path, sys.items[k], strlen(sys.items[k]));
		free(sys.items[k]);
	}
	free(sys.items);
	snprintf(desc, sizeof(desc), "sys.path of %s%s", py, cached ? " (cached)" : asked ? "" : " (it did not answer)");
}

const char *const *pyenv_path(size_t *n)
{
	if (!done) {
		done = true;
		compute();
	}
	*n = path.n;
	return (const char *const *)path.items;
}

const char *pyenv_describe(void)
{
	return done ? desc : "not needed";
}

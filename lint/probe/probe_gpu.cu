/* SPDX-License-Identifier: MIT */
/*
 * probe_gpu: cglint's GPU probe: records what the installed driver really does with each
 * capture hazard that rules/capture.yaml makes claims about (reference: capture-hazards.md §6).
 * This file is the harness (options, children, output order); the rows are probe_rows.cu's,
 * the capture/bench/memory lines probe_bench.cu's.
 *
 * Output: JSON lines on stdout (identity, capture, bench, memory, row); `cglint probe` compares
 * them with the rules. The probe only records; judging is the driver's job.
 *
 * Process model: the parent never initialises CUDA (a CUDA context does not survive fork, and a
 * hazard can poison the context). Identity, bench and every row cell run in a child spawned from
 * /proc/self/exe with internal options; the parent re-emits the child's lines in a fixed order.
 * --jobs N (an addition to the agreed command line, default 1) runs N row cells at once; each is
 * still its own process and the output order does not change.
 *
 * Build (no -lcuda: the few driver entry points are fetched at run time so that the binary loads,
 * and reports "no device", on machines without libcuda.so.1):
 *   nvcc -O2 -std=c++17 -arch=sm_90 -Ilint lint/probe/probe_gpu.cu lint/probe/probe_rows.cu \
 *        lint/probe/probe_bench.cu lint/probe/probe_ranks.cu lint/probe/probe_nccl.cu \
 *        -o cglint-probe -ldl -lpthread
 */
#include "probe/probe_gpu.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---------------------------------------------------------------- JSON line builder */

static void js_raw(Js *j, const char *s)
{
	size_t l = strlen(s);
	if (j->n + l >= sizeof(j->b))
		l = sizeof(j->b) - 1 - j->n; /* truncation only on absurd input */
	memcpy(j->b + j->n, s, l);
	j->n += l;
	j->b[j->n] = 0;
}

static void js_fmt(Js *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void js_fmt(Js *j, const char *fmt, ...)
{
	char t[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t, sizeof(t), fmt, ap);
	va_end(ap);
	js_raw(j, t);
}

void js_open(Js *j)
{
	j->n = 0;
	j->b[0] = 0;
	j->first = true;
	js_raw(j, "{");
}

static void js_key(Js *j, const char *k)
{
	if (!j->first)
		js_raw(j, ",");
	j->first = false;
	js_fmt(j, "\"%s\":", k);
}

/* 'v' as a JSON string, or null. */
static void js_quote(Js *j, const char *v)
{
	if (!v) {
		js_raw(j, "null");
		return;
	}
	js_raw(j, "\"");
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		char t[8];
		if (*p == '"' || *p == '\\')
			snprintf(t, sizeof(t), "\\%c", *p);
		else if (*p < 0x20)
			snprintf(t, sizeof(t), "\\u%04x", *p);
		else
			snprintf(t, sizeof(t), "%c", *p);
		js_raw(j, t);
	}
	js_raw(j, "\"");
}

void js_str(Js *j, const char *k, const char *v)
{
	js_key(j, k);
	js_quote(j, v);
}

void js_int(Js *j, const char *k, long long v)
{
	js_key(j, k);
	if (v == NUL)
		js_raw(j, "null");
	else
		js_fmt(j, "%lld", v);
}

void js_bool(Js *j, const char *k, int v) /* -1 = null */
{
	js_key(j, k);
	js_raw(j, v < 0 ? "null" : v ? "true" : "false");
}

void js_num(Js *j, const char *k, double v, bool ok)
{
	js_key(j, k);
	if (ok)
		js_fmt(j, "%.4f", v);
	else
		js_raw(j, "null");
}

/* "k":[items], each item raw JSON (raw) or a string to escape. */
void js_array(Js *j, const char *k, const char *const *items, int n, bool raw)
{
	js_key(j, k);
	js_raw(j, "[");
	for (int i = 0; i < n; i++) {
		if (i)
			js_raw(j, ",");
		if (raw)
			js_raw(j, items[i]);
		else
			js_quote(j, items[i]);
	}
	js_raw(j, "]");
	j->first = false;
}

void js_obj(Js *j, const char *k)
{
	js_key(j, k);
	js_raw(j, "{");
	j->first = true;
}

void js_end(Js *j)
{
	js_raw(j, "}");
	j->first = false;
}

/* The device tool keeps partial output: one line, then flush. */
void js_print(Js *j)
{
	js_raw(j, "}");
	fputs(j->b, stdout);
	fputc('\n', stdout);
	fflush(stdout);
}

/* ---------------------------------------------------------------- NCCL (dlopen, own prototypes) */

char g_reason[1024];

/* Returns NULL when loaded, else why not (in g_reason). */
const char *nccl_open(Nccl *n)
{
	const char *lib = getenv("CGLINT_NCCL_LIB");
	if (!lib || !*lib)
		lib = "libnccl.so.2";
	memset(n, 0, sizeof(*n));
	n->h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!n->h) {
		const char *e = dlerror();
		snprintf(g_reason, sizeof(g_reason), "NCCL not found: %s", e ? e : lib);
		return g_reason;
	}
	n->version = (nccl_version_fn)dlsym(n->h, "ncclGetVersion");
	n->init_all = (nccl_initall_fn)dlsym(n->h, "ncclCommInitAll");
	n->all_reduce = (nccl_allreduce_fn)dlsym(n->h, "ncclAllReduce");
	if (!n->version || !n->init_all || !n->all_reduce) {
		snprintf(g_reason, sizeof(g_reason), "%s lacks ncclGetVersion/ncclCommInitAll/ncclAllReduce", lib);
		return g_reason;
	}
	return NULL;
}

const char *nccl_name(int r)
{
	static const char *const names[] = {"ncclSuccess", "ncclUnhandledCudaError", "ncclSystemError",
					    "ncclInternalError", "ncclInvalidArgument", "ncclInvalidUsage",
					    "ncclRemoteError", "ncclInProgress"};
	return r >= 0 && r < 8 ? names[r] : "ncclUnknownResult";
}

/* ---------------------------------------------------------------- identity child */

/* The no-device identity line; rc NUL when no CUDA call produced one (the child died). */
static int print_nodev(const char *why, int rc)
{
	Js j;
	js_open(&j);
	js_str(&j, "kind", "identity");
	js_int(&j, "probe", PROBE_VERSION);
	js_str(&j, "device", NULL);
	js_str(&j, "error", why);
	js_int(&j, "cuda_rc", rc);
	js_str(&j, "cuda_err", rc == NUL ? NULL : cudaGetErrorName((cudaError_t)rc));
	js_print(&j);
	return EXIT_NODEV;
}

static int child_identity(void)
{
	Js j;
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n < 1)
		return print_nodev("no CUDA device", e != cudaSuccess ? (int)e : (int)cudaErrorNoDevice);
	int dev = 0, drv = 0, rt = 0;
	cudaDeviceProp p;
	memset(&p, 0, sizeof(p));
	cudaError_t e1 = cudaGetDevice(&dev);
	cudaError_t e2 = cudaGetDeviceProperties(&p, dev);
	cudaError_t e3 = cudaDriverGetVersion(&drv);
	cudaError_t e4 = cudaRuntimeGetVersion(&rt);
	if (e1 != cudaSuccess || e2 != cudaSuccess)
		return print_nodev("no CUDA device", (int)(e1 != cudaSuccess ? e1 : e2));
	Nccl nc;
	int nver = NUL;
	const char *note = nccl_open(&nc);
	if (!note) {
		int v = 0, r = nc.version(&v);
		if (r == 0)
			nver = v;
		else {
			snprintf(g_reason, sizeof(g_reason), "ncclGetVersion returned %s", nccl_name(r));
			note = g_reason;
		}
	}
	js_open(&j);
	js_str(&j, "kind", "identity");
	js_int(&j, "probe", PROBE_VERSION);
	js_str(&j, "device", p.name);
	js_int(&j, "cc_major", p.major);
	js_int(&j, "cc_minor", p.minor);
	js_int(&j, "sms", p.multiProcessorCount);
	js_int(&j, "driver", e3 == cudaSuccess ? drv : NUL);
	js_int(&j, "runtime", e4 == cudaSuccess ? rt : NUL);
	js_int(&j, "nccl", nver);
	js_str(&j, "nccl_note", note);
	js_obj(&j, "env");
	static const char *const env[] = {"NCCL_GRAPH_REGISTER", "PYTORCH_CUDA_ALLOC_CONF",
					  "CUDA_MODULE_LOADING", "CUDA_LAUNCH_BLOCKING"};
	for (const char *k : env)
		js_str(&j, k, getenv(k));
	js_end(&j);
	js_print(&j);
	return EXIT_OK;
}

/* ---------------------------------------------------------------- parent: children */

char g_exe[4096] = "/proc/self/exe";
int g_timeout = 30;

double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* posix_spawn /proc/self/exe with stdout on a pipe; the child's alarm() bounds it, the parent's
 * deadline (timeout + grace) bounds a child that ignores it. */
int kid_start(Kid *k, char *const argv[], char *const envp[])
{
	int p[2];
	memset(k, 0, sizeof(*k));
	if (pipe2(p, O_CLOEXEC) != 0) /* CLOEXEC: parallel children must not inherit each other's pipes */
		return -1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	int r = posix_spawn(&k->pid, g_exe, &fa, NULL, argv, envp ? envp : environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (r != 0) {
		close(p[0]);
		errno = r;
		return -1;
	}
	k->fd = p[0];
	k->deadline = now_s() + g_timeout + 5;
	return 0;
}

void kid_read(Kid *k)
{
	char buf[4096];
	ssize_t n = read(k->fd, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		k->eof = true;
		close(k->fd);
		k->fd = -1;
		return;
	}
	if (k->len + (size_t)n + 1 > k->cap) {
		size_t nc = (k->cap ? k->cap * 2 : 8192) + (size_t)n;
		char *o = (char *)realloc(k->out, nc);
		if (!o)
			return; /* drop output rather than die: the row then reads as unparseable */
		k->out = o;
		k->cap = nc;
	}
	memcpy(k->out + k->len, buf, (size_t)n);
	k->len += (size_t)n;
	k->out[k->len] = 0;
}

/* Advance one child: kill it past its deadline, reap it once its stdout is closed. */
void kid_poll(Kid *k)
{
	if (k->done)
		return;
	if (!k->killed && now_s() > k->deadline) {
		kill(k->pid, SIGKILL);
		k->killed = true;
	}
	if (!k->eof)
		return;
	pid_t w = waitpid(k->pid, &k->status, WNOHANG);
	if (w == k->pid)
		k->done = true;
}

void exit_string(const Kid *k, char *buf, size_t n)
{
	if (k->killed || (WIFSIGNALED(k->status) && WTERMSIG(k->status) == SIGALRM))
		snprintf(buf, n, "timeout");
	else if (WIFSIGNALED(k->status))
		snprintf(buf, n, "signal %d", WTERMSIG(k->status));
	else if (WEXITSTATUS(k->status) != 0)
		snprintf(buf, n, "status %d", WEXITSTATUS(k->status));
	else
		snprintf(buf, n, "ok");
}

/* Runs njobs children, at most `par` at a time; done() sees them strictly in job order. */
typedef void (*argv_fn)(int job, char **argv, char (*store)[64]);
typedef void (*done_fn)(int job, const char *out, const char *exit_s);

static int run_jobs(int njobs, int par, argv_fn mkargv, done_fn done)
{
	Kid *kids = (Kid *)calloc((size_t)njobs, sizeof(Kid));
	bool *started = (bool *)calloc((size_t)njobs, sizeof(bool));
	struct pollfd *pf = (struct pollfd *)calloc((size_t)njobs, sizeof(struct pollfd));
	int *pj = (int *)calloc((size_t)njobs, sizeof(int));
	if (!kids || !started || !pf || !pj)
		return EXIT_INTERNAL;
	int next = 0, emit = 0, active = 0;
	while (emit < njobs) {
		while (active < par && next < njobs) {
			char *argv[16];
			char store[16][64];
			mkargv(next, argv, store);
			if (kid_start(&kids[next], argv, NULL) != 0) {
				fprintf(stderr, "cglint-probe: cannot spawn %s: %s\n", g_exe, strerror(errno));
				return EXIT_INTERNAL;
			}
			started[next++] = true;
			active++;
		}
		int np = 0;
		double wait_until = now_s() + 1.0;
		for (int i = 0; i < next; i++) {
			if (kids[i].done || !started[i])
				continue;
			if (!kids[i].eof) {
				pf[np].fd = kids[i].fd;
				pf[np].events = POLLIN;
				pf[np].revents = 0;
				pj[np++] = i;
			} else {
				wait_until = now_s() + 0.01; /* stdout closed, waiting for the exit */
			}
			if (kids[i].deadline < wait_until)
				wait_until = kids[i].deadline;
		}
		int ms = (int)((wait_until - now_s()) * 1000.0);
		if (ms < 0)
			ms = 0;
		if (poll(np ? pf : NULL, (nfds_t)np, ms) > 0)
			for (int i = 0; i < np; i++)
				if (pf[i].revents)
					kid_read(&kids[pj[i]]);
		for (int i = 0; i < next; i++)
			if (started[i] && !kids[i].done) {
				kid_poll(&kids[i]);
				if (kids[i].done)
					active--;
			}
		while (emit < next && kids[emit].done) {
			char ex[64];
			exit_string(&kids[emit], ex, sizeof(ex));
			done(emit, kids[emit].out ? kids[emit].out : "", ex);
			free(kids[emit].out);
			kids[emit].out = NULL;
			emit++;
		}
	}
	free(kids);
	free(started);
	free(pf);
	free(pj);
	return EXIT_OK;
}

/* Calls fn for each complete line of out that is one of our JSON objects; others go to other, or
 * to stderr (NCCL_DEBUG, for one, logs to stdout). */
void each_json_line(const char *out, void (*fn)(const char *line, void *ctx), void *ctx,
		    void (*other)(const char *line, void *ctx))
{
	while (*out) {
		const char *nl = strchr(out, '\n');
		size_t l = nl ? (size_t)(nl - out) : strlen(out);
		char *line = (char *)malloc(l + 1);
		if (!line)
			return;
		memcpy(line, out, l);
		line[l] = 0;
		if (nl && !strncmp(line, "{\"kind\":\"", 9) && l > 1 && line[l - 1] == '}')
			fn(line, ctx);
		else if (l && other)
			other(line, ctx);
		else if (l)
			fprintf(stderr, "%s\n", line);
		free(line);
		out += l + (nl ? 1 : 0);
	}
}

/* ---------------------------------------------------------------- parent: phases */

static int g_nodev;
static int g_cells[R_COUNT * 6][3]; /* row, mode, stream */
static int g_ncells;
static char g_tbuf[16];

static void set_arg(char **argv, char (*store)[64], int i, const char *s)
{
	snprintf(store[i], 64, "%s", s);
	argv[i] = store[i];
}

static void argv_identity(int, char **argv, char (*store)[64])
{
	set_arg(argv, store, 0, "cglint-probe");
	set_arg(argv, store, 1, "--child");
	set_arg(argv, store, 2, "identity");
	set_arg(argv, store, 3, "--timeout");
	set_arg(argv, store, 4, g_tbuf);
	argv[5] = NULL;
}

static void argv_bench(int job, char **argv, char (*store)[64])
{
	argv_identity(job, argv, store);
	set_arg(argv, store, 2, "bench");
}

static void argv_row(int job, char **argv, char (*store)[64])
{
	set_arg(argv, store, 0, "cglint-probe");
	set_arg(argv, store, 1, "--row");
	set_arg(argv, store, 2, ROWS[g_cells[job][0]].id);
	set_arg(argv, store, 3, "--mode");
	set_arg(argv, store, 4, MODE_NAMES[g_cells[job][1]]);
	set_arg(argv, store, 5, "--stream");
	set_arg(argv, store, 6, STREAM_NAMES[g_cells[job][2]]);
	set_arg(argv, store, 7, "--timeout");
	set_arg(argv, store, 8, g_tbuf);
	argv[9] = NULL;
}

static void emit_line(const char *line, void *ctx)
{
	int *count = (int *)ctx;
	puts(line);
	fflush(stdout);
	if (!strncmp(line, "{\"kind\":\"identity\"", 18) && strstr(line, "\"device\":null"))
		g_nodev = 1;
	(*count)++;
}

static void done_identity(int, const char *out, const char *exit_s)
{
	int n = 0;
	each_json_line(out, emit_line, &n, NULL);
	if (n == 0) { /* the child died before it could say anything */
		char why[128];
		snprintf(why, sizeof(why), "identity child: %s", exit_s);
		print_nodev(why, NUL);
		g_nodev = 1;
	}
}

static void done_bench(int, const char *out, const char *exit_s)
{
	int n = 0;
	each_json_line(out, emit_line, &n, NULL);
	if (strcmp(exit_s, "ok") != 0) { /* say so; the lines above (if any) are what it finished */
		Js j;
		js_open(&j);
		js_str(&j, "kind", "child");
		js_str(&j, "child", "bench");
		js_str(&j, "exit", exit_s);
		js_print(&j);
	}
}

struct RowFound {
	char *line;
};

static void find_row(const char *line, void *ctx)
{
	RowFound *f = (RowFound *)ctx;
	if (!f->line && !strncmp(line, "{\"kind\":\"row\"", 13))
		f->line = strdup(line);
}

/* Re-emits the child's row line with the parent's exit verdict; a child that printed no
 * complete row line gets one from the parent with null observations. */
static void done_row(int job, const char *out, const char *exit_s)
{
	static const char suffix[] = ",\"exit\":\"ok\"}";
	RowFound f = {NULL};
	each_json_line(out, find_row, &f, NULL);
	size_t l = f.line ? strlen(f.line) : 0, sl = sizeof(suffix) - 1;
	if (f.line && l > sl && !strcmp(f.line + l - sl, suffix)) {
		/* Observations kept even if the process died after printing (e.g. at exit). */
		f.line[l - sl] = 0;
		printf("%s,\"exit\":\"%s\"}\n", f.line, exit_s);
		fflush(stdout);
	} else {
		char ex[64];
		snprintf(ex, sizeof(ex), "%s", strcmp(exit_s, "ok") ? exit_s : "status 0");
		print_row_null(g_cells[job][0], g_cells[job][1], g_cells[job][2], ex);
	}
	free(f.line);
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cglint-probe [--identity | --bench | --rows | --list] [--only ID[,ID]...]\n"
		"                    [--timeout S] [--jobs N]\n"
		"       cglint-probe --row ID --mode global|thread_local|relaxed --stream blocking|nonblocking\n"
		"  (no option)  identity, capture/bench/memory, then every row cell\n"
		"  --identity   only the identity line\n"
		"  --bench      identity + capture + bench + memory lines\n"
		"  --rows       identity + the row cells only\n"
		"  --only IDs   restrict rows to these ids\n"
		"  --list       row ids and descriptions as JSON lines (no CUDA)\n"
		"  --row ...    run one cell in this process (internal)\n"
		"  --timeout S  per child process, default 30\n"
		"  --jobs N     row cells run N at a time, default 1 (output order unchanged)\n"
		"  --ranks N    instead of the one-GPU sections: identity, then NCCL collectives captured\n"
		"               and replayed on N GPUs, one process each (--only RANKS-... restricts them)\n"
		"exit: 0 done, 2 usage, 3 internal error, 4 no CUDA device, 5 fewer GPUs than --ranks\n");
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *e;
	long v = s ? strtol(s, &e, 10) : 0;
	if (!s || !*s || *e || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static int index_of(const char *const *names, int n, const char *s)
{
	for (int i = 0; s && i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	enum { DO_ALL, DO_IDENTITY, DO_BENCH, DO_ROWS, DO_LIST, DO_ROW, DO_CHILD, DO_RANKS, DO_RANK } what = DO_ALL;
	const char *only = NULL, *row_id = NULL, *mode_s = NULL, *stream_s = NULL, *child = NULL;
	int jobs = 1, nwhat = 0, nranks = 0;
	RankArgs ra = {-1, -1, -1, -1, 0, NULL};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help")) {
			usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "--identity")) {
			what = DO_IDENTITY, nwhat++;
		} else if (!strcmp(a, "--bench")) {
			what = DO_BENCH, nwhat++;
		} else if (!strcmp(a, "--rows")) {
			what = DO_ROWS, nwhat++;
		} else if (!strcmp(a, "--list")) {
			what = DO_LIST, nwhat++;
		} else if (!strcmp(a, "--only") && v) {
			only = v, i++;
		} else if (!strcmp(a, "--row") && v) {
			what = DO_ROW, nwhat++, row_id = v, i++;
		} else if (!strcmp(a, "--mode") && v) {
			mode_s = v, i++;
		} else if (!strcmp(a, "--stream") && v) {
			stream_s = v, i++;
		} else if (!strcmp(a, "--child") && v) {
			what = DO_CHILD, nwhat++, child = v, i++;
		} else if (!strcmp(a, "--timeout") && v && parse_int(v, 1, 86400, &g_timeout) == 0) {
			i++;
		} else if (!strcmp(a, "--jobs") && v && parse_int(v, 1, 64, &jobs) == 0) {
			i++;
		} else if (!strcmp(a, "--ranks") && v && parse_int(v, 2, 64, &nranks) == 0) {
			i++;
		} else if (!strcmp(a, "--rank-cell") && v) { /* internal: one rank of one cell */
			what = DO_RANK, nwhat++, ra.coll = ranks_coll_find(v), i++;
		} else if (!strcmp(a, "--mem") && v) {
			ra.mem = index_of(RANKS_MEMS, RANKS_N_MEMS, v), i++;
		} else if (!strcmp(a, "--register") && v && parse_int(v, 0, 1, &ra.reg) == 0) {
			i++;
		} else if (!strcmp(a, "--rank") && v && parse_int(v, 0, 63, &ra.rank) == 0) {
			i++;
		} else if (!strcmp(a, "--uid") && v) {
			ra.uid_path = v, i++;
		} else {
			fprintf(stderr, "cglint-probe: bad argument '%s'\n", a);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (nranks && what == DO_ALL)
		what = DO_RANKS;
	if (nwhat > 1 || (nranks && what != DO_RANKS && what != DO_RANK && what != DO_CHILD) ||
	    ((what == DO_RANK || (what == DO_CHILD && !strcmp(child, "ranks"))) && !nranks) ||
	    (only && what != DO_ALL && what != DO_ROWS && what != DO_RANKS) ||
	    ((mode_s || stream_s) && what != DO_ROW) ||
	    (what == DO_RANK && (ra.coll < 0 || ra.mem < 0 || ra.reg < 0 || ra.rank < 0 || !ra.uid_path ||
				 ra.rank >= nranks))) {
		fprintf(stderr, "cglint-probe: conflicting options\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	snprintf(g_tbuf, sizeof(g_tbuf), "%d", g_timeout);

	if (what == DO_LIST) {
		for (int r = 0; r < R_COUNT; r++) {
			Js j;
			js_open(&j);
			js_str(&j, "kind", "rowdef");
			js_str(&j, "id", ROWS[r].id);
			js_str(&j, "does", ROWS[r].does);
			js_print(&j);
		}
		for (int c = 0; c < RANKS_N_COLLS; c++) { /* the multi-GPU section's rows (--ranks N) */
			Js j;
			js_open(&j);
			js_str(&j, "kind", "rowdef");
			js_str(&j, "id", RANKS_COLLS[c]);
			js_str(&j, "does", RANKS_DOES[c]);
			js_bool(&j, "ranks", 1);
			js_print(&j);
		}
		return EXIT_OK;
	}
	if (what == DO_RANK) {
		alarm((unsigned)g_timeout); /* a hung collective ends here: the parent calls it a hang */
		ra.nranks = nranks;
		int rc = child_rank(&ra);
		fflush(stdout);
		_exit(rc); /* no NCCL or runtime teardown: a peer may be gone */
	}
	if (what == DO_ROW || what == DO_CHILD) {
		/* In-process work (normally a child of ours): SIGALRM's default action ends a hang. */
		alarm((unsigned)g_timeout);
		int rc;
		if (what == DO_CHILD) {
			if (!strcmp(child, "identity"))
				rc = child_identity();
			else if (!strcmp(child, "bench"))
				rc = child_bench();
			else if (!strcmp(child, "ranks") && nranks)
				rc = child_ranks_info(nranks);
			else {
				fprintf(stderr, "cglint-probe: unknown child '%s'\n", child);
				return EXIT_USAGE;
			}
		} else {
			int r = row_find(row_id), m = index_of(MODE_NAMES, 3, mode_s), s = index_of(STREAM_NAMES, 2, stream_s);
			if (r < 0 || m < 0 || s < 0) {
				fprintf(stderr, "cglint-probe: --row needs a known ID, --mode and --stream\n");
				return EXIT_USAGE;
			}
			rc = child_row(r, m, s);
		}
		/* _exit: no runtime teardown after a row that may have left the context odd;
		 * the verdict is already printed. */
		fflush(stdout);
		_exit(rc);
	}

	/* Parent: no CUDA here, ever. */
	bool want[R_COUNT];
	for (int r = 0; r < R_COUNT; r++)
		want[r] = only == NULL;
	if (only && what != DO_RANKS) {
		char *ids = strdup(only), *save = NULL;
		for (char *t = strtok_r(ids, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			int r = row_find(t);
			if (r < 0) {
				fprintf(stderr, "cglint-probe: unknown row id '%s' (see --list)\n", t);
				free(ids);
				return EXIT_USAGE;
			}
			want[r] = true;
		}
		free(ids);
	} else if (only) { /* --ranks: collectives' ids */
		char *ids = strdup(only), *save = NULL;
		for (char *t = strtok_r(ids, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (ranks_coll_find(t) < 0) {
				fprintf(stderr, "cglint-probe: unknown multi-GPU row id '%s' (RANKS-ALLREDUCE, RANKS-ALLGATHER, "
						"RANKS-REDUCESCATTER, RANKS-SENDRECV)\n", t);
				free(ids);
				return EXIT_USAGE;
			}
		free(ids);
	}
	signal(SIGPIPE, SIG_IGN);
	ssize_t n = readlink("/proc/self/exe", g_exe, sizeof(g_exe) - 1);
	if (n > 0)
		g_exe[n] = 0;
	else
		snprintf(g_exe, sizeof(g_exe), "/proc/self/exe");

	if (run_jobs(1, 1, argv_identity, done_identity) != EXIT_OK)
		return EXIT_INTERNAL;
	if (g_nodev)
		return EXIT_NODEV;
	if (what == DO_RANKS)
		return ranks_run(nranks, only);
	if (what == DO_ALL || what == DO_BENCH)
		if (run_jobs(1, 1, argv_bench, done_bench) != EXIT_OK)
			return EXIT_INTERNAL;
	if (what == DO_ALL || what == DO_ROWS) {
		/* rows outer, modes middle, stream kinds inner */
		for (int r = 0; r < R_COUNT; r++)
			for (int m = 0; m < 3 && want[r]; m++)
				for (int s = 0; s < 2; s++) {
					g_cells[g_ncells][0] = r;
					g_cells[g_ncells][1] = m;
					g_cells[g_ncells][2] = s;
					g_ncells++;
				}
		if (g_ncells && run_jobs(g_ncells, jobs, argv_row, done_row) != EXIT_OK)
			return EXIT_INTERNAL;
	}
	return EXIT_OK;
}

/* SPDX-License-Identifier: MIT */
/*
 * jobs: the worker processes that bound libclang (base/jobs.h), and the wire that brings a
 * worker's diagnostics back (base/diag_wire.h). A task that runs for ever is killed at its
 * deadline, one that crashes is reported with its signal, an allocation past the limit is
 * refused, and large outputs from several workers at once arrive whole and once each.
 */
#include <criterion/criterion.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/diag_wire.h"
#include "base/jobs.h"
#include "base/mem.h"
#include "config/pack.h"

struct seen {
	struct jobs_result r[8];
	char *out[8];
	unsigned calls[8];
};

static void record(void *ctx, size_t k, const struct jobs_result *r)
{
	struct seen *s = ctx;
	s->calls[k]++;
	s->r[k] = *r;
	s->out[k] = r->out ? strndup(r->out, r->out_len) : NULL;
	s->r[k].err = NULL;     /* valid for the call only */
}

static void work(void *ctx, size_t k, struct sbuf *out)
{
	(void)ctx;
	switch (k) {
	case 0:
		for (;;)
			pause();
	case 1:
		signal(SIGSEGV, SIG_DFL);       /* AddressSanitizer's handler would exit instead */
		raise(SIGSEGV);
		break;
	case 2:
		fputs("to stderr\n", stderr);
		exit(7);
	case 3: {
		void *volatile p = malloc((size_t)1 << 30);     /* 1 GiB, past the 256 MiB limit; volatile:
								 * clang may drop an unused malloc/free pair */
		sbuf_adds(out, p ? "allocated" : "refused");
		free(p);
		break;
	}
	default:
		for (size_t i = 0; i < 200000; i++)     /* 1 MB: far past a pipe's buffer */
			sbuf_printf(out, "%zu:%02zu|", k, i % 100);
	}
}

Test(jobs, deadline_crash_exit_limit_and_large_outputs)
{
	struct seen s = {0};
	struct jobs_limits lim = {.parallel = 3, .seconds = 2, .mem_mib = 256};
	time_t t0 = time(NULL);
	jobs_run(7, &lim, work, record, &s);
	cr_expect_leq(time(NULL) - t0, 10, "the endless task was not stopped at its deadline");
	for (size_t k = 0; k < 7; k++)
		cr_expect_eq(s.calls[k], 1, "task %zu reported %u times", k, s.calls[k]);
	cr_expect_eq(s.r[0].end, JOBS_TIMEOUT);
	cr_expect_geq(s.r[0].seconds, 1.9);
	cr_expect_eq(s.r[1].end, JOBS_DIED);
	cr_expect_eq(s.r[1].signal, SIGSEGV);
	cr_expect_eq(s.r[2].end, JOBS_DIED);
	cr_expect_eq(s.r[2].signal, 0);
	cr_expect_eq(s.r[2].code, 7);
	cr_expect_eq(s.r[3].end, JOBS_DONE);
#if !defined(__SANITIZE_ADDRESS__)
	cr_expect_str_eq(s.out[3], "refused");
#endif
	for (size_t k = 4; k < 7; k++) {
		cr_assert_eq(s.r[k].end, JOBS_DONE);
		cr_expect_eq(s.r[k].out_len, 200000 * 5);
		char want[16];
		snprintf(want, sizeof(want), "%zu:99|", k);
		cr_expect_str_eq(s.out[k] + s.r[k].out_len - strlen(want), want);
	}
	for (size_t k = 0; k < 7; k++)
		free(s.out[k]);
}

static void stderr_work(void *ctx, size_t k, struct sbuf *out)
{
	(void)ctx, (void)k, (void)out;
	fputs("LLVM ERROR: out of memory\n", stderr);
	abort();
}

struct died {
	struct jobs_result r;
	char *err;
};

static void keep_err(void *ctx, size_t k, const struct jobs_result *r)
{
	struct died *d = ctx;
	(void)k;
	d->r = *r;
	d->err = strdup(r->err);
}

Test(jobs, a_dying_task_says_why_on_stderr)
{
	struct died d = {0};
	jobs_run(1, &(struct jobs_limits){.parallel = 1, .seconds = 30}, stderr_work, keep_err, &d);
	cr_expect_eq(d.r.end, JOBS_DIED);
	cr_expect_eq(d.r.signal, SIGABRT);
	cr_expect_str_eq(d.err, "LLVM ERROR: out of memory\n");
	free(d.err);
}

static void pid_work(void *ctx, size_t k, struct sbuf *out)
{
	(void)ctx, (void)k;
	sbuf_printf(out, "%ld", (long)getpid());
}

void *volatile kept;

static void serial_work(void *ctx, size_t k, struct sbuf *out)
{
	(void)ctx;
	if (k == 2) {
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
	}
	if (k == 4)
		for (;;)
			pause();
	if (k == 6)     /* kept: the worker is now past half its limit */
		kept = malloc((size_t)150 << 20);
	sbuf_printf(out, "%ld", (long)getpid());
}

/* A worker serves tasks one after another. A task that crashes or overruns takes only its own
 * worker: the next task gets a fresh one. A worker grown past half its memory limit retires
 * after the task that grew it. */
Test(jobs, a_worker_serves_tasks_until_one_ends_it)
{
	struct seen s = {0};
	struct jobs_limits lim = {.parallel = 1, .seconds = 1, .mem_mib = 2 * jobs_size_mib() + 200};
	jobs_run(8, &lim, serial_work, record, &s);
	for (size_t k = 0; k < 8; k++)
		cr_expect_eq(s.calls[k], 1, "task %zu reported %u times", k, s.calls[k]);
	cr_expect_eq(s.r[2].end, JOBS_DIED);
	cr_expect_eq(s.r[2].signal, SIGSEGV);
	cr_expect_eq(s.r[4].end, JOBS_TIMEOUT);
	static const size_t done[] = {0, 1, 3, 5, 6, 7};
	for (size_t i = 0; i < sizeof(done) / sizeof(done[0]); i++)
		cr_assert_eq(s.r[done[i]].end, JOBS_DONE, "task %zu", done[i]);
	cr_expect_str_eq(s.out[0], s.out[1], "one worker for tasks 0 and 1");
	cr_expect_str_neq(s.out[3], s.out[1], "a fresh worker after the crash");
	cr_expect_str_neq(s.out[5], s.out[3], "a fresh worker after the timeout");
	cr_expect_str_eq(s.out[6], s.out[5]);
#if !defined(__SANITIZE_ADDRESS__)     /* no address-space limit under AddressSanitizer */
	cr_expect_str_neq(s.out[7], s.out[6], "the worker that grew past half its limit retired");
#endif
	for (size_t k = 0; k < 8; k++)
		free(s.out[k]);
}

/* A kept worker's task: "count" answers how many tasks this worker has served and its pid,
 * "crash" crashes, "hang" runs for ever, "grow" keeps 150 MiB; the bytes arrive whole. */
static void kept_serve(void *ctx, const char *in, size_t len, struct sbuf *out)
{
	static unsigned served;
	(void)ctx;
	served++;
	if (!strcmp(in, "crash")) {
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
	}
	if (!strcmp(in, "hang"))
		for (;;)
			pause();
	if (!strcmp(in, "grow"))
		kept = malloc((size_t)150 << 20);
	sbuf_printf(out, "%zu %u %ld", len, served, (long)getpid());
}

/* Step j until its task ends (each wait bounded by the poll and the task's deadline). */
static struct jobs_result kept_wait(struct job *j, char **out)
{
	struct jobs_result r;
	for (int spins = 0; !job_step(j, &r); spins++) {
		cr_assert_lt(spins, 100000, "the task never ended");
		int fds[2];
		struct pollfd pf[2];
		size_t n = job_fds(j, fds);
		for (size_t i = 0; i < n; i++)
			pf[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
		poll(pf, n, job_ms_left(j) < 0 ? 1000 : job_ms_left(j));
	}
	*out = r.out ? strndup(r.out, r.out_len) : NULL;
	return r;
}

/* The language server's worker: one process serves task after task, keeping what it made; it
 * takes no task while busy; a crash or an overrun ends it (job_send then refuses), and so does
 * growing past half its limit, after the task that grew it. */
Test(jobs, a_kept_worker_keeps_its_state_between_tasks)
{
	struct jobs_limits lim = {.seconds = 1, .mem_mib = 2 * jobs_size_mib() + 200};
	const char *why;
	struct job *j = job_start(&lim, kept_serve, NULL, &why);
	cr_assert_not_null(j);
	cr_expect_eq(job_ms_left(j), -1, "no deadline before a task");
	char big[100000], *out[3];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	long pid[3];
	unsigned served[3];
	size_t len[3];
	for (int t = 0; t < 3; t++) {
		cr_assert(job_send(j, t == 1 ? big : "count", t == 1 ? sizeof(big) - 1 : 5));
		cr_expect(job_busy(j));
		cr_expect_not(job_send(j, "count", 5), "a busy worker takes no second task");
		cr_assert_eq(kept_wait(j, &out[t]).end, JOBS_DONE);
		cr_assert_eq(sscanf(out[t], "%zu %u %ld", &len[t], &served[t], &pid[t]), 3, "%s", out[t]);
		free(out[t]);
	}
	cr_expect_eq(len[1], sizeof(big) - 1, "the task's bytes arrived whole");
	cr_expect(served[0] == 1 && served[1] == 2 && served[2] == 3, "%u %u %u", served[0], served[1], served[2]);
	cr_expect(pid[0] == pid[1] && pid[1] == pid[2] && pid[0] != getpid(), "one worker, not this process");

	cr_assert(job_send(j, "crash", 5));
	struct jobs_result r = kept_wait(j, &out[0]);
	cr_expect_eq(r.end, JOBS_DIED);
	cr_expect_eq(r.signal, SIGSEGV);
	cr_expect_not(job_send(j, "count", 5), "a worker that crashed is gone");
	job_free(j);

	j = job_start(&lim, kept_serve, NULL, &why);
	cr_assert(job_send(j, "hang", 4));
	cr_expect_eq(kept_wait(j, &out[0]).end, JOBS_TIMEOUT);
	cr_expect_not(job_send(j, "count", 5), "a worker that overran is gone");
	job_free(j);

	j = job_start(&lim, kept_serve, NULL, &why);
	cr_assert(job_send(j, "grow", 4));
	cr_expect_eq(kept_wait(j, &out[0]).end, JOBS_DONE, "the task that grew it ends as done");
	free(out[0]);
#if !defined(__SANITIZE_ADDRESS__)     /* no address-space limit under AddressSanitizer */
	cr_expect_not(job_send(j, "count", 5), "the worker that grew past half its limit retired");
#endif
	job_free(j);
}

Test(jobs, in_process_runs_here)
{
	struct seen s = {0};
	jobs_run(2, &(struct jobs_limits){.in_process = true}, pid_work, record, &s);
	char me[32];
	snprintf(me, sizeof(me), "%ld", (long)getpid());
	cr_expect_str_eq(s.out[0], me);
	cr_expect_str_eq(s.out[1], me);
	free(s.out[0]);
	jobs_run(1, &(struct jobs_limits){.parallel = 1}, pid_work, record, &s);
	cr_expect_str_neq(s.out[0], me, "a bounded task ran in this process");
	for (size_t k = 0; k < 2; k++)
		free(s.out[k]);
}

Test(jobs, diagnostics_cross_the_wire_whole)
{
	struct pack *p = pack_new();
	pack_load_builtin(p);
	struct arena *a = arena_new(), *b = arena_new();
	struct diag_list src, dst;
	diag_init(&src, a, &p->lookup, NULL);
	diag_init(&dst, b, &p->lookup, NULL);
	const char *path = "k.cu";
	struct diag *d = diag_report(&src, pack_find(p, "CG301"), (struct loc){path, 7, 3}, "sync in capture", "move it",
				     "cuda_graphs.py:120");
	struct diag_note *n = arena_alloc(a, 2 * sizeof(*n));
	n[0] = (struct diag_note){{"h.cuh", 2, 1}, "capture began here"};
	n[1] = (struct diag_note){{path, 5, 9}, "called from here"};
	d->notes = n;
	d->n_notes = 2;
	d->key = "model.cuda_graph_impl";
	diag_input(&src, "CG911", (struct loc){path, 0, 0}, "not analysed: %s", "x");
	struct sbuf w;
	sbuf_init(&w);
	diag_wire_put(&w, &src);
	for (size_t cut = 0; cut < w.len; cut += 7)     /* any cut short is refused, leaving the list be */
		cr_assert_eq(diag_wire_get(&dst, w.buf, cut, path), -1, "a list cut at %zu bytes was taken", cut);
	cr_assert_eq(dst.n, 0);
	cr_assert_not(dst.input_error);
	cr_assert_eq(diag_wire_get(&dst, w.buf, w.len, path), 0);
	cr_assert_eq(dst.n, 2);
	cr_expect(dst.input_error, "CG911 makes the run's exit status 2 on this side too");
	const struct diag *g = &dst.items[0];
	cr_expect_eq(g->rule, pack_find(p, "CG301"));
	cr_expect_eq(g->loc.path, path, "the file's own positions point at its path");
	cr_expect_eq(g->loc.line, 7);
	cr_expect_eq(g->loc.col, 3);
	cr_expect_str_eq(g->message, "sync in capture");
	cr_expect_str_eq(g->fix, "move it");
	cr_expect_str_eq(g->mirrors, "cuda_graphs.py:120");
	cr_expect_str_eq(g->key, "model.cuda_graph_impl");
	cr_expect_null(g->fingerprint);
	cr_assert_eq(g->n_notes, 2);
	cr_expect_str_eq(g->notes[0].loc.path, "h.cuh");
	cr_expect_eq(g->notes[0].loc.line, 2);
	cr_expect_str_eq(g->notes[1].message, "called from here");
	cr_expect_str_eq(dst.items[1].message, "not analysed: x");
	sbuf_release(&w);
	diag_release(&src);
	diag_release(&dst);
	arena_free(a);
	arena_free(b);
	pack_free(p);
}

/* A rule pack holds one rule per version range under one id: the list keeps which one. */
Test(jobs, rule_variants_cross_the_wire)
{
	struct pack *p = pack_new();
	pack_load_builtin(p);
	const struct rule *later = NULL;
	for (size_t k = 0; k < p->n_rules && !later; k++)
		if (!strcmp(p->rules[k]->head.id, "CG104") && p->rules[k] != pack_find(p, "CG104"))
			later = p->rules[k];
	cr_assert_not_null(later, "CG104 has a rule for each of several releases");
	struct arena *a = arena_new();
	struct diag_list src, dst;
	diag_init(&src, a, &p->lookup, NULL);
	diag_init(&dst, a, &p->lookup, NULL);
	diag_report(&src, later, (struct loc){"r.yaml", 3, 3}, "moe and moe_router", NULL, NULL);
	struct sbuf w;
	sbuf_init(&w);
	diag_wire_put(&w, &src);
	cr_assert_eq(diag_wire_get(&dst, w.buf, w.len, NULL), 0);
	cr_assert_eq(dst.n, 1);
	cr_expect_eq(dst.items[0].rule, later, "the release's own rule, not the first of its id");
	sbuf_release(&w);
	diag_release(&src);
	diag_release(&dst);
	arena_free(a);
	pack_free(p);
}

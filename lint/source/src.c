/* SPDX-License-Identifier: MIT */
/* src: queued sources, parsed and checked in worker processes (see src.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "source/src.h"

#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/diag_wire.h"
#include "base/jobs.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "input/read.h"
#include "input/text.h"
#include "source/cap.h"
#include "source/cap_cond.h"
#include "source/cap_graph.h"
#include "source/cap_guard.h"
#include "source/fe_clang.h"
#include "source/pch_cache.h"

struct src_job {
	const char *path;
	char *buf;                      /* NULL: read from path */
	size_t len;
	const char *text;               /* what was checked, NULL if unreadable */
	struct arena *arena;
	struct diag_list diags;
	bool header;                    /* checked through a file including it, else after the others */
	bool share;                     /* its leading #includes are another job's too: one preamble */
	size_t share_lines;             /* of them, the first share_lines (0: all; fe_clang.h) */
	size_t owner;                   /* a header: the first job whose unit included it, or SIZE_MAX */
	char *found;                    /* a header: what the owner's worker found in it (diag_wire) */
	size_t found_len;
};

struct src_queue {
	struct src_job *jobs;
	size_t n, cap;
};

struct src_queue *src_queue_new(void)
{
	return mem_alloc(sizeof(struct src_queue));
}

void src_queue_free(struct src_queue *q)
{
	if (!q)
		return;
	for (size_t k = 0; k < q->n; k++) {
		free(q->jobs[k].buf);
		diag_release(&q->jobs[k].diags);
		if (q->jobs[k].arena)
			arena_free(q->jobs[k].arena);
	}
	free(q->jobs);
	free(q);
}

void src_add(struct src_queue *q, const char *path, const char *buf, size_t len)
{
	if (q->n == q->cap)
		q->jobs = mem_realloc(q->jobs, (q->cap = q->cap ? q->cap * 2 : 16) * sizeof(*q->jobs));
	struct src_job *j = &q->jobs[q->n++];
	*j = (struct src_job){.path = path, .len = len};
	if (buf) {
		j->buf = mem_alloc(len + 1);
		memcpy(j->buf, buf, len);
	}
}

struct pool {
	struct src_queue *q;
	const struct pack *pack;
	const struct src_opts *opts;
	struct fe_clang_cdbs *cdbs;
	const struct diag_filter *filter;
	size_t *todo;                   /* the jobs a round checks, by task number */
	const char *pch_dir;            /* precompiled preambles (fe_clang.h), or NULL */
	bool cache;                     /* pch_dir is the cache kept between runs (pch_cache.h) */
	struct strmap headers;          /* each queued header's real path -> its job */
	bool claim;                     /* the round of sources: their units check the headers too */
};

/* Check the functions the unit defines in 'file' (NULL: the main file) as a main file's are. */
static void check_file(const struct cap *c, const char *file)
{
	const struct sir_tu *tu = c->tu;
	for (size_t f = 0; f < tu->n_fns; f++) {
		if (file ? tu->fns[f].in_main || strcmp(tu->fns[f].loc.path, file) : !tu->fns[f].in_main)
			continue;       /* a header's functions are followed from the regions that call them */
		size_t n;
		struct cap_region *regions = cap_regions(c, &tu->fns[f], &n);
		cap_graph_check(c, &tu->fns[f], regions, n);
		cap_cond_check(c, &tu->fns[f], regions, n);
		free(regions);
	}
	for (size_t f = 0; f < tu->n_fns; f++)
		if (file ? !tu->fns[f].in_main && !strcmp(tu->fns[f].loc.path, file) : tu->fns[f].in_main)
			cap_guarded(c, &tu->fns[f]);
}

/* In the worker: the queued headers the unit included, each checked into a list of its own,
 * written to 'out' as (job, list) records after their count. */
static void check_headers(struct pool *p, size_t self, const struct cap *main, struct sbuf *out)
{
	struct sbuf recs;
	sbuf_init(&recs);
	uint32_t n = 0;
	for (size_t i = 0; p->claim && p->headers.n && main->tu && i < main->tu->n_included; i++) {
		const char *file = main->tu->included[i];
		char real[PATH_MAX];
		size_t h;
		if (!realpath(file, real) || !strmap_get(&p->headers, real, strlen(real), &h) || h == self ||
		    p->q->jobs[h].owner < self)
			continue;       /* an earlier file's unit has it (as this worker was forked) */
		struct diag_list d;
		diag_init(&d, main->arena, &p->pack->lookup, p->filter);
		struct cap c = *main;
		c.diags = &d;
		check_file(&c, file);
		for (size_t k = 0; k < d.n; k++)        /* its findings take the name it was queued under */
			if (!strcmp(d.items[k].loc.path, file))
				d.items[k].loc.path = p->q->jobs[h].path;
		struct sbuf b;
		sbuf_init(&b);
		diag_wire_put(&b, &d);
		diag_wire_put_u32(&recs, (uint32_t)h);
		diag_wire_put_str(&recs, b.buf, b.len);
		sbuf_release(&b);
		diag_release(&d);
		n++;
	}
	diag_wire_put_u32(out, n);
	sbuf_addn(out, recs.buf, recs.len);
	sbuf_release(&recs);
}

/* Mark the sources whose leading #includes, flags and folder another source's share, so that
 * their workers precompile that block once for all of them: the longest run of leading lines
 * another file begins with too (files that include "../extensions.h" and then each a header of
 * their own share the first line's preamble, which holds most of what they include). Alone, a
 * file would pay for the preamble more than it saves, unless the cache keeps it for the next
 * run: then every source's block is precompiled, for the files of its folder that share it. */
enum { SHARE_MAX_LINES = 64 };

static void share_preambles(struct src_queue *q, const size_t *todo, size_t n, const struct src_opts *o,
			    struct fe_clang_cdbs *cdbs, bool cache)
{
	struct fe_clang_opts fo = {.cuda_path = o->cuda_path, .cdb_dir = o->cdb_dir, .cdbs = cdbs};
	struct strmap seen = {0};
	uint64_t *keys = mem_alloc((n ? n : 1) * SHARE_MAX_LINES * sizeof(*keys));
	size_t *lines = mem_alloc((n ? n : 1) * sizeof(*lines));
	for (size_t i = 0; i < n; i++) {        /* how many files begin with each run of lines */
		struct src_job *j = &q->jobs[todo[i]];
		uint64_t *ki = keys + i * SHARE_MAX_LINES;
		lines[i] = o->pch_dir || !j->text ? 0
			   : fe_clang_preamble_keys(j->arena, j->path, j->text, j->len, &fo, ki, SHARE_MAX_LINES);
		for (size_t k = 0; k < lines[i] && k < SHARE_MAX_LINES; k++) {
			size_t count = 0;
			if (!ki[k])
				continue;
			strmap_get(&seen, (const char *)&ki[k], sizeof(ki[k]), &count);
			strmap_put(&seen, (const char *)&ki[k], sizeof(ki[k]), count + 1);
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct src_job *j = &q->jobs[todo[i]];
		const uint64_t *ki = keys + i * SHARE_MAX_LINES;
		j->share = cache;
		j->share_lines = 0;
		for (size_t k = lines[i] < SHARE_MAX_LINES ? lines[i] : SHARE_MAX_LINES; k-- > 0;) {
			size_t count = 0;
			if (ki[k] && strmap_get(&seen, (const char *)&ki[k], sizeof(ki[k]), &count) && count > 1) {
				j->share = true;
				j->share_lines = k + 1 == lines[i] ? 0 : k + 1;
				break;
			}
		}
	}
	strmap_release(&seen);
	free(keys);
	free(lines);
}

/* In the worker process: parse and check one file, its diagnostics as bytes to 'out'. */
static void run_job(void *ctx, size_t k, struct sbuf *out)
{
	struct pool *p = ctx;
	size_t self = p->todo[k];
	struct src_job *j = &p->q->jobs[self];
	struct fe_clang_opts fo = {.cuda_path = p->opts->cuda_path, .cdb_dir = p->opts->cdb_dir, .cdbs = p->cdbs,
				   .mem_mib = p->opts->in_process ? 0 : src_memory(p->opts), .pch_dir = p->pch_dir,
				   .file_preambles = p->opts->pch_dir != NULL, .share_preamble = j->share,
				   .share_lines = j->share_lines,
				   .pch_cache = p->cache, .keep_unit = p->opts->in_worker};
	struct sir_tu *tu = NULL;
	if (!p->opts->in_process)
		fe_clang_worker();
	/* the task's own arena and list, freed here: a worker serves many tasks */
	struct arena *a = arena_new();
	struct diag_list d;
	diag_init(&d, a, &p->pack->lookup, p->filter);
	struct cap c = {NULL, p->pack, &d, a, NULL};
	if (!fe_clang_parse(a, &d, j->path, j->text, j->len, &fo, &tu)) {
		c.tu = tu;
		c.guard = cap_guard_new(a, p->pack, tu);
		check_file(&c, NULL);
	}
	check_headers(p, self, &c, out);
	diag_wire_put(out, &d);
	diag_release(&d);
	arena_free(a);
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGABRT: return "SIGABRT";
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGKILL: return "SIGKILL";
	default: return "a signal";
	}
}

void src_stopped(struct diag_list *l, const char *path, const struct jobs_result *r, const struct src_opts *o)
{
	struct loc at = {path, 1, 1};
	if (r->end == JOBS_TIMEOUT)
		diag_input(l, "CG920", at, "analysis stopped: not finished after %u s (--source-timeout)", src_timeout(o));
	else if (r->end == JOBS_NO_FORK)
		diag_input(l, "CG920", at, "analysis stopped: no worker process could be started: %s", r->err);
	else if (strstr(r->err, "out of memory") || strstr(r->err, "bad_alloc") || strstr(r->err, "Allocation failed"))
		diag_input(l, "CG920", at, "analysis stopped: out of memory under the %u MiB limit (--source-memory)",
			   src_memory(o));
	else if (r->signal)
		diag_input(l, "CG920", at, "analysis stopped: the parser died (%s, signal %d)%s%.*s",
			   signal_name(r->signal), r->signal, *r->err ? ": " : "", (int)strcspn(r->err, "\n"), r->err);
	else
		diag_input(l, "CG920", at, "analysis stopped: the worker ended without its report (exit status %d)",
			   r->code);
}

char *src_pch_dir_new(void)
{
	const char *tmp = getenv("TMPDIR");
	struct sbuf d;
	sbuf_init(&d);
	sbuf_printf(&d, "%s/cglint-pch-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(d.buf)) {
		sbuf_release(&d);
		return NULL;
	}
	return d.buf;
}

void src_pch_dir_remove(char *d)
{
	DIR *dir = d ? opendir(d) : NULL;
	for (struct dirent *e; dir && (e = readdir(dir));)
		if (e->d_name[0] != '.')
			unlinkat(dirfd(dir), e->d_name, 0);
	if (dir)
		closedir(dir);
	if (d)
		rmdir(d);
	free(d);
}

/* In this process: what the worker found, or why it stopped. A header it checked is kept for
 * the first job in the queue that included it, whatever order the workers end in. */
static void job_done(void *ctx, size_t k, const struct jobs_result *r)
{
	struct pool *p = ctx;
	size_t self = p->todo[k];
	struct src_job *j = &p->q->jobs[self];
	struct diag_wire_in in = {r->out, r->out + r->out_len, false};
	uint32_t n = r->end == JOBS_DONE ? diag_wire_get_u32(&in) : 0;
	for (uint32_t i = 0; i < n && !in.bad; i++) {
		uint32_t h = diag_wire_get_u32(&in);
		size_t len;
		const char *bytes = diag_wire_get_str(&in, &len);
		if (in.bad || h >= p->q->n || p->q->jobs[h].owner < self)
			continue;
		struct src_job *hj = &p->q->jobs[h];
		free(hj->found);
		hj->found = mem_alloc(len + 1);
		memcpy(hj->found, bytes, len);
		hj->found_len = len;
		hj->owner = self;
	}
	if (r->end != JOBS_DONE || in.bad || diag_wire_get(&j->diags, in.p, (size_t)(in.end - in.p), j->path))
		src_stopped(&j->diags, j->path, r, p->opts);
}

/* Of the names fe_clang_is_source takes, the headers. */
static bool is_header(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot && (!strcmp(dot, ".h") || !strcmp(dot, ".hpp") || !strcmp(dot, ".cuh"));
}

/* The largest files first, else in the queue's order: workers that take the longest parses
 * first end together (a 50 KB pybind11 module last in a folder left one CPU idle for its
 * 8 seconds). Which job owns a header does not depend on the order (job_done). */
struct by_size {
	size_t len, k;
};

static int larger_first(const void *x, const void *y)
{
	const struct by_size *a = x, *b = y;
	return a->len != b->len ? (a->len < b->len) - (a->len > b->len) : (a->k > b->k) - (a->k < b->k);
}

static void largest_first(const struct src_queue *q, size_t *todo, size_t n)
{
	struct by_size *v = mem_alloc((n ? n : 1) * sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = (struct by_size){q->jobs[todo[i]].len, todo[i]};
	qsort(v, n, sizeof(*v), larger_first);
	for (size_t i = 0; i < n; i++)
		todo[i] = v[i].k;
	free(v);
}

size_t src_run(struct src_queue *q, const struct pack *pk, const struct diag_filter *f, const struct src_opts *o,
	       struct diag_list *out)
{
	if (!q->n)
		return 0;
	struct pool p = {.q = q, .pack = pk, .opts = o, .filter = f, .cdbs = fe_clang_cdbs_new(),
			 .todo = mem_alloc(q->n * sizeof(size_t))};
	size_t n = 0, n_headers = 0;
	for (size_t k = 0; k < q->n; k++) {   /* read here, so the text stays for the output */
		struct src_job *j = &q->jobs[k];
		j->arena = arena_new();
		j->owner = SIZE_MAX;
		diag_init(&j->diags, j->arena, &pk->lookup, f);
		char *b = j->buf;
		if (!b && read_path(&j->diags, j->arena, j->path, &b, &j->len))
			continue;
		j->text = b;
		struct fe_clang_opts fo = {.cuda_path = o->cuda_path, .cdb_dir = o->cdb_dir, .cdbs = p.cdbs};
		fe_clang_cdbs_prime(&fo, j->path);      /* read once here, not once per worker */
		char real[PATH_MAX];
		if (is_header(j->path) && realpath(j->path, real)) {
			const char *key = arena_strdup(j->arena, real);
			strmap_put(&p.headers, key, strlen(key), k);
			j->header = true;
			n_headers++;
		} else {
			p.todo[n++] = k;
		}
	}
	char *cache = o->pch_dir || o->no_cache || o->in_process ? NULL : pch_cache_dir();
	p.cache = cache != NULL;
	share_preambles(q, p.todo, n, o, p.cdbs, p.cache);
	largest_first(q, p.todo, n);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct jobs_limits lim = {
		.parallel = o->jobs ? o->jobs : cpus > 0 ? (unsigned)cpus : 1,
		.seconds = src_timeout(o),
		.mem_mib = src_memory(o),
		.in_process = o->in_process || o->in_worker,
	};
	char *own = o->pch_dir || cache || n + n_headers < 2 ? NULL : src_pch_dir_new();  /* worth it for two files */
	p.pch_dir = o->pch_dir ? o->pch_dir : cache ? cache : own;
	if (!lim.in_process && n + n_headers > 0)
		fe_clang_preload();     /* once here: each worker inherits it mapped and relocated */
	/* sources first; then the headers none of them included, each on its own */
	p.claim = true;
	jobs_run(n, &lim, run_job, job_done, &p);
	p.claim = false;
	n = 0;
	for (size_t k = 0; k < q->n; k++) {
		struct src_job *j = &q->jobs[k];
		if (!j->header)
			continue;
		if (j->owner == SIZE_MAX || diag_wire_get(&j->diags, j->found, j->found_len, j->path))
			p.todo[n++] = k;
		free(j->found);
		j->found = NULL;
	}
	jobs_run(n, &lim, run_job, job_done, &p);
	src_pch_dir_remove(own);
	if (cache)
		pch_cache_clean(cache, time(NULL), PCH_CACHE_DAYS, (uint64_t)PCH_CACHE_MIB << 20);
	free(cache);
	strmap_release(&p.headers);
	free(p.todo);
	fe_clang_cdbs_free(p.cdbs);
	for (size_t k = 0; k < q->n; k++)
		diag_move(out, &q->jobs[k].diags);
	return q->n;
}

void src_texts(const struct src_queue *q, struct text_store *s)
{
	for (size_t k = 0; k < q->n; k++)
		if (q->jobs[k].text)
			text_put(s, q->jobs[k].path, q->jobs[k].text, q->jobs[k].len);
}

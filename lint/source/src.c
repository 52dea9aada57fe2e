/* SPDX-License-Identifier: MIT */
/* src: queued sources, parsed and checked on worker threads (see src.h). */
#include "source/src.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/mem.h"
#include "input/read.h"
#include "input/text.h"
#include "source/cap.h"
#include "source/cap_graph.h"
#include "source/fe_clang.h"

struct src_job {
	const char *path;
	char *buf;                      /* NULL: read from path */
	size_t len;
	const char *text;               /* what was checked, NULL if unreadable */
	struct arena *arena;
	struct diag_list diags;
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
	const struct diag_filter *filter;
	const struct src_opts *opts;
	struct fe_clang_cdbs *cdbs;
	pthread_mutex_t lock;
	size_t next;
};

static void run_job(struct pool *p, struct src_job *j)
{
	j->arena = arena_new();
	diag_init(&j->diags, j->arena, &p->pack->lookup, p->filter);
	const char *buf = j->buf;
	size_t len = j->len;
	if (!buf) {
		char *b;
		if (read_path(&j->diags, j->arena, j->path, &b, &len))
			return;
		buf = b;
	}
	j->text = buf;
	j->len = len;
	struct fe_clang_opts fo = {.cuda_path = p->opts->cuda_path, .cdb_dir = p->opts->cdb_dir, .cdbs = p->cdbs};
	struct sir_tu *tu;
	if (fe_clang_parse(j->arena, &j->diags, j->path, buf, len, &fo, &tu))
		return;
	struct cap c = {tu, p->pack, &j->diags, j->arena};
	for (size_t f = 0; f < tu->n_fns; f++) {
		if (!tu->fns[f].in_main)
			continue;       /* a header's functions are followed from the regions that call them */
		size_t n;
		struct cap_region *regions = cap_regions(&c, &tu->fns[f], &n);
		cap_graph_check(&c, &tu->fns[f], regions, n);
		free(regions);
	}
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t k = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (k >= p->q->n)
			return NULL;
		run_job(p, &p->q->jobs[k]);
	}
}

size_t src_run(struct src_queue *q, const struct pack *pk, const struct diag_filter *f, const struct src_opts *o,
	       struct diag_list *out)
{
	if (!q->n)
		return 0;
	struct pool p = {.q = q, .pack = pk, .filter = f, .opts = o, .cdbs = fe_clang_cdbs_new()};
	pthread_mutex_init(&p.lock, NULL);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t jobs = o->jobs ? o->jobs : cpus > 0 ? (size_t)cpus : 1;
	if (jobs > q->n)
		jobs = q->n;
	pthread_t *t = mem_alloc(jobs * sizeof(*t));
	size_t started = 0;
	for (size_t k = 1; k < jobs; k++)       /* this thread is the first worker */
		if (pthread_create(&t[started], NULL, worker, &p) == 0)
			started++;
	worker(&p);
	for (size_t k = 0; k < started; k++)
		pthread_join(t[k], NULL);
	free(t);
	pthread_mutex_destroy(&p.lock);
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

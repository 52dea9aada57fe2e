/* SPDX-License-Identifier: MIT */
/* batch: queued configs, recipes and scripts, checked here or by workers in chunks (see batch.h). */
#include "run/batch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/diag_wire.h"
#include "base/jobs.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "config/engine.h"
#include "front/py/fe_py.h"
#include "input/text.h"
#include "run/lint.h"

struct batch {
	struct batch_item *items;
	size_t n, cap;
};

struct batch *batch_new(void)
{
	return mem_alloc(sizeof(struct batch));
}

void batch_free(struct batch *b)
{
	if (b)
		free(b->items);
	free(b);
}

void batch_add(struct batch *b, const struct batch_item *it)
{
	if (b->n == b->cap)
		b->items = mem_realloc(b->items, (b->cap = b->cap ? 2 * b->cap : 64) * sizeof(*b->items));
	b->items[b->n++] = *it;
}

size_t batch_count(const struct batch *b)
{
	return b->n;
}

/*
 * What a worker sends for each item of its chunk, in order:
 *   its diagnostics (diag_wire, as one string), units judged, -v lines,
 *   notes: count, then path, line, column, text each; modules read: count, then path, text each.
 */
struct pool {
	struct batch *b;
	struct lint_run *r;
	batch_check_fn *check;
	size_t *lo;                     /* chunk c holds items lo[c] .. lo[c+1]-1 */
	char **out;                     /* per chunk: what its worker sent, NULL when it failed */
	size_t *out_len;
};

static void put_all(struct sbuf *o, const char *s)
{
	diag_wire_put_str(o, s, s ? strlen(s) : 0);
}

/* In the worker: check each item of chunk c, what each gave to 'out'. */
static void work(void *ctx, size_t c, struct sbuf *out)
{
	struct pool *p = ctx;
	struct lint_run *r = p->r;
	struct sbuf log, wire;
	sbuf_init(&log);
	sbuf_init(&wire);
	r->log = &log;
	for (size_t k = p->lo[c]; k < p->lo[c + 1]; k++) {
		diag_release(&r->diags);        /* the list of this item alone */
		r->diags.input_error = false;
		size_t units = r->units, notes = r->notes.n, logged = log.len;
		size_t mods = r->py ? fe_py_session_count(r->py) : 0;
		p->check(r, &p->b->items[k]);
		wire.len = 0;
		diag_wire_put(&wire, &r->diags);
		diag_wire_put_str(out, wire.buf, wire.len);
		diag_wire_put_u32(out, (uint32_t)(r->units - units));
		diag_wire_put_str(out, log.buf + logged, log.len - logged);
		diag_wire_put_u32(out, (uint32_t)(r->notes.n - notes));
		for (size_t i = notes; i < r->notes.n; i++) {
			const struct engine_note *n = &r->notes.items[i];
			put_all(out, n->loc.path);
			diag_wire_put_u32(out, n->loc.line);
			diag_wire_put_u32(out, n->loc.col);
			put_all(out, n->text);
		}
		size_t now = r->py ? fe_py_session_count(r->py) : 0;
		diag_wire_put_u32(out, (uint32_t)(now - mods));
		for (size_t i = mods; i < now; i++) {
			const char *path, *buf;
			size_t len;
			fe_py_session_file(r->py, i, &path, &buf, &len);
			put_all(out, path);
			diag_wire_put_str(out, buf, len);
		}
	}
	sbuf_release(&wire);
	sbuf_release(&log);
}

static void done(void *ctx, size_t c, const struct jobs_result *res)
{
	struct pool *p = ctx;
	if (res->end != JOBS_DONE)
		return;         /* its items are checked here, as -j 1 would: a crash is then this process's */
	p->out[c] = mem_alloc(res->out_len + 1);
	memcpy(p->out[c], res->out, res->out_len);
	p->out_len[c] = res->out_len;
}

/* The modules a recipe read to follow calls: the run's budget (fe_py.h) is kept by the workers
 * only when all of them together stay within it, as one process would have. */
struct budget {
	struct strmap seen;
	size_t files, bytes;
};

/* One item's record: skipped ('r' NULL: checked, modules counted in 'bu'), or replayed into the
 * run. Returns -1 when the record is not whole (replaying: its findings did not come back). */
static int item_record(struct diag_wire_in *in, struct lint_run *r, const struct batch_item *it, struct budget *bu)
{
	size_t n;
	const char *wire = diag_wire_get_str(in, &n);
	if (r && (!wire || diag_wire_get(&r->diags, wire, n, it->path)))
		return -1;
	uint32_t units = diag_wire_get_u32(in);
	const char *log = diag_wire_get_str(in, &n);
	if (r) {
		r->units += units;
		if (log)
			fwrite(log, 1, n, stderr);
	}
	for (uint32_t k = 0, notes = diag_wire_get_u32(in); k < notes && !in->bad; k++) {
		size_t pn, tn;
		const char *path = diag_wire_get_str(in, &pn);
		struct loc at = {NULL, diag_wire_get_u32(in), 0};
		at.col = diag_wire_get_u32(in);
		const char *text = diag_wire_get_str(in, &tn);
		if (r && text) {
			at.path = path ? (pn == strlen(it->path) && !memcmp(path, it->path, pn) ? it->path
							      : arena_strndup(r->arena, path, pn)) : NULL;
			engine_note_add(&r->notes, at, arena_strndup(r->arena, text, tn));
		}
	}
	for (uint32_t k = 0, mods = diag_wire_get_u32(in); k < mods && !in->bad; k++) {
		size_t pn, tn;
		const char *path = diag_wire_get_str(in, &pn), *text = diag_wire_get_str(in, &tn);
		if (!path || !text)
			in->bad = true;
		else if (r) {
			const char *mp = arena_strndup(r->arena, path, pn), *had;
			size_t had_len;
			if (!text_get(r->texts, mp, &had, &had_len))
				text_put(r->texts, mp, arena_strndup(r->arena, text, tn), tn);
		} else if (!strmap_get(&bu->seen, path, pn, &(size_t){0})) {
			strmap_put(&bu->seen, path, pn, 0);
			bu->files++;
			bu->bytes += tn;
		}
	}
	return in->bad ? -1 : 0;
}

/* Where each item's record lies in its chunk's bytes; a chunk that is not whole has none. */
static struct diag_wire_in *records(struct pool *p, size_t chunks, struct budget *bu)
{
	struct diag_wire_in *at = mem_alloc((p->b->n + 1) * sizeof(*at));
	for (size_t c = 0; c < chunks; c++) {
		if (!p->out[c])
			continue;
		struct diag_wire_in in = {p->out[c], p->out[c] + p->out_len[c], false};
		for (size_t k = p->lo[c]; k < p->lo[c + 1] && !in.bad; k++) {
			at[k].p = in.p;
			item_record(&in, NULL, &p->b->items[k], bu);
			at[k].end = in.p;
		}
		if (in.bad || in.p != in.end)
			for (size_t k = p->lo[c]; k < p->lo[c + 1]; k++)
				at[k] = (struct diag_wire_in){0};
	}
	return at;
}

static size_t weight(const struct batch_item *it)
{
	static const size_t per_byte[] = {[BATCH_YAML] = 1, [BATCH_SCRIPT] = 2, [BATCH_PYTHON] = 4};
	return it->len * per_byte[it->kind] + BATCH_FILE_BYTES;
}

/* Cut the queue into at most 'most' contiguous chunks of about equal weight; returns how many. */
static size_t cut(const struct batch *b, size_t most, size_t *lo)
{
	size_t total = 0, acc = 0, c = 0;
	for (size_t k = 0; k < b->n; k++)
		total += weight(&b->items[k]);
	lo[0] = 0;
	for (size_t k = 0; k < b->n; k++) {
		acc += weight(&b->items[k]);
		if (c + 1 < most && acc * most >= (c + 1) * total && k + 1 < b->n)
			lo[++c] = k + 1;
	}
	lo[++c] = b->n;
	return c;
}

static size_t chunks_for(const struct batch *b, unsigned parallel, bool in_process)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t par = parallel ? parallel : cpus > 0 ? (size_t)cpus : 1, work = 0;
	for (size_t k = 0; k < b->n; k++) {
		if (!b->items[k].on_disk)
			return 1;       /* a recipe read from stdin could be a module another one follows */
		work += weight(&b->items[k]);
	}
	size_t most = work / BATCH_CHUNK_BYTES;
	return in_process || par < 2 || most < 2 ? 1 : most < par ? most : par;
}

static void note_silent(struct lint_run *r, const char *path, const char *why)
{
	r->silent = mem_realloc(r->silent, (r->n_silent + 1) * sizeof(*r->silent));
	r->silent[r->n_silent++] = (struct lint_silent){path, why};
}

/* Check the chunks in workers: where each item's record lies (none for the items of a worker
 * that failed), and whether the recipes must be checked here after all. */
static struct diag_wire_in *in_workers(struct pool *p, struct lint_run *r, size_t most, bool *python_here)
{
	size_t chunks = cut(p->b, most, p->lo);
	fflush(NULL);   /* nothing buffered is written twice */
	jobs_run(chunks, &(struct jobs_limits){.parallel = (unsigned)chunks}, work, done, p);
	struct budget bu = {0};
	struct diag_wire_in *at = records(p, chunks, &bu);
	size_t files = r->py ? fe_py_session_count(r->py) : 0, bytes = 0;
	for (size_t k = 0; k < files; k++) {
		const char *path, *buf;
		size_t len;
		fe_py_session_file(r->py, k, &path, &buf, &len);
		bytes += len;
	}
	*python_here = files + bu.files > FE_PY_MAX_FILES || bytes + bu.bytes > FE_PY_MAX_BYTES;
	for (size_t k = 0; k < p->b->n; k++)     /* the modules a lost chunk read are not counted */
		*python_here |= p->b->items[k].kind == BATCH_PYTHON && !at[k].p;
	strmap_release(&bu.seen);
	return at;
}

void batch_run(struct batch *b, struct lint_run *r, unsigned parallel, bool in_process, batch_check_fn *check)
{
	if (!b->n)
		return;
	size_t most = chunks_for(b, parallel, in_process);
	struct pool p = {b, r, check, mem_alloc((most + 1) * sizeof(size_t)), mem_alloc(most * sizeof(char *)),
			 mem_alloc(most * sizeof(size_t))};
	bool python_here = false;
	struct diag_wire_in *at = most > 1 ? in_workers(&p, r, most, &python_here) : NULL;
	/* each item's findings go after the diagnostics the run had when it was queued */
	struct diag_list before = r->diags;
	diag_init(&r->diags, before.arena, before.rules, before.filter);
	r->diags.input_error = before.input_error;
	size_t from = 0;
	for (size_t k = 0; k < b->n; k++) {
		const struct batch_item *it = &b->items[k];
		for (; from < it->at; from++)
			diag_push(&r->diags, &before.items[from]);
		size_t units = r->units, diags = r->diags.n;
		text_put(r->texts, it->path, it->buf, it->len);
		if (!at || !at[k].p || (it->kind == BATCH_PYTHON && python_here) || item_record(&at[k], r, it, NULL))
			check(r, it);
		/* a recipe or script named on the command line is worth a word; walked ones stay quiet */
		if (it->named && it->kind != BATCH_YAML && r->units == units && r->diags.n == diags)
			note_silent(r, it->path, it->kind == BATCH_PYTHON ? "no CUDA-graph settings found" :
					"no launch command found (pretrain_*.py, run_recipe.py, run_script.py): nothing checked");
	}
	for (; from < before.n; from++)
		diag_push(&r->diags, &before.items[from]);
	diag_release(&before);
	for (size_t c = 0; c < most; c++)
		free(p.out[c]);
	free(at);
	free(p.out);
	free(p.out_len);
	free(p.lo);
	b->n = 0;
}

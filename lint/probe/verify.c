/* SPDX-License-Identifier: MIT */
/* verify: comparing probe cells with the rule docs' claims. */
#include "probe/verify.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "config/pack.h"
#include "probe/probe.h"

const char *const verify_verdict_names[] = {"match", "mismatch", "unclaimed", "skipped"};

const char *verify_code_str(int code, char *buf, size_t n)
{
	if (code == PACK_EXPECT_ERROR)
		snprintf(buf, n, "error");
	else if (code == PROBE_NULL || code == PACK_EXPECT_ANY)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%d", code);
	return buf;
}

static void miss(struct verify_cell *v, const char *field, const char *expected, const char *observed)
{
	struct verify_miss *m = &v->miss[v->n_miss++];
	m->field = field;
	snprintf(m->expected, sizeof(m->expected), "%s", expected);
	snprintf(m->observed, sizeof(m->observed), "%s", observed);
}

static void code(struct verify_cell *v, const char *field, int expected, int observed)
{
	if (expected == PACK_EXPECT_ANY)
		return;
	bool ok = expected == PACK_EXPECT_ERROR ? observed != 0 && observed != PROBE_NULL : observed == expected;
	char e[16], o[16];
	if (!ok)
		miss(v, field, verify_code_str(expected, e, sizeof(e)), verify_code_str(observed, o, sizeof(o)));
}

static void word(struct verify_cell *v, const char *field, const char *const *words, int expected, int observed)
{
	if (expected != PACK_EXPECT_ANY && expected != observed)
		miss(v, field, words[expected], observed >= 0 ? words[observed] : "-");
}

/* False, with the verdict set, for a skipped cell or one that no claim covers. */
static bool claimed(struct verify_cell *v)
{
	if (v->cell->skipped)
		v->verdict = VERDICT_SKIPPED;
	else if (!v->expect)
		v->verdict = VERDICT_UNCLAIMED;
	return !v->cell->skipped && v->expect;
}

static void judge(struct verify_cell *v)
{
	if (!claimed(v))
		return;
	const struct probe_cell *c = v->cell;
	const struct pack_expect *e = v->expect;
	if (strcmp(c->exit, "ok")) {
		miss(v, "exit", "ok", c->exit);     /* a row that crashed or hung contradicts any claim */
	} else {
		code(v, "call", e->call, c->call_rc);
		word(v, "status", pack_probe_status, e->status, c->status);
		code(v, "end", e->end, c->end_rc);
		word(v, "replay", pack_probe_replay, e->replay, c->replay);
		word(v, "at_capture", pack_probe_bools, e->at_capture, c->at_capture);
	}
	v->verdict = v->n_miss ? VERDICT_MISMATCH : VERDICT_MATCH;
}

/* A multi-GPU cell: a hang is an observation like the others; a crash or an eager run that
 * went wrong contradicts any claim (the replay has nothing sound to be compared with). */
static void judge_ranks(struct verify_cell *v)
{
	if (!claimed(v))
		return;
	const struct probe_cell *c = v->cell;
	const struct pack_expect *e = v->expect;
	if (strcmp(c->exit, "ok"))
		miss(v, "exit", "ok", c->exit);
	if (!c->hang && c->eager != 1)
		miss(v, "eager", "ok", c->eager >= 0 ? pack_probe_replay[c->eager] : "-");
	code(v, "call", e->call, c->call_rc);
	code(v, "end", e->end, c->end_rc);
	word(v, "replay", pack_probe_replay, e->replay, c->replay);
	word(v, "hang", pack_probe_bools, e->hang, c->hang);
	v->verdict = v->n_miss ? VERDICT_MISMATCH : VERDICT_MATCH;
}

static bool multi_gpu_row(const char *row)
{
	return !strncmp(row, "RANKS-", 6);
}

size_t verify_run(struct verify_report *r, const struct pack *p, const struct probe_run *run)
{
	*r = (struct verify_report){0};
	r->cells = mem_alloc((run->n_cells + 1) * sizeof(*r->cells));
	for (size_t k = 0; k < run->n_cells; k++) {
		struct verify_cell *v = &r->cells[r->n_cells++];
		v->cell = &run->cells[k];
		v->claim = pack_claim_find(p, v->cell->id);
		v->expect = v->claim ? pack_expect_for(v->claim, v->cell->mode, v->cell->stream) : NULL;
		judge(v);
		r->count[v->verdict]++;
	}
	r->nccl = mem_alloc((run->n_nccl + 1) * sizeof(*r->nccl));
	for (size_t k = 0; k < run->n_nccl; k++) {
		struct verify_cell *v = &r->nccl[r->n_nccl++];
		const struct probe_cell *c = &run->nccl[k];
		v->cell = c;
		v->claim = pack_claim_find(p, c->id);
		v->expect = v->claim ? pack_expect_for_ranks(v->claim, c->mem, c->graph_register, c->reg) : NULL;
		judge_ranks(v);
		r->count[v->verdict]++;
	}
	size_t n_claims;
	const struct pack_claim *claims = pack_claims(p, &n_claims);
	r->not_probed = mem_alloc((n_claims + 1) * sizeof(*r->not_probed));
	bool multi = run->ranks.present;
	for (size_t k = 0; k < n_claims && !run->partial; k++) {
		const char *row = claims[k].row;
		const struct probe_cell *cells = multi ? run->nccl : run->cells;
		size_t n = multi ? run->n_nccl : run->n_cells, i = 0;
		if (multi_gpu_row(row) != multi)
			continue;       /* the other section's row */
		while (i < n && strcmp(cells[i].id, row))
			i++;
		if (i == n)
			r->not_probed[r->n_not_probed++] = &claims[k];
	}
	return r->count[VERDICT_MISMATCH] + r->n_not_probed;
}

void verify_release(struct verify_report *r)
{
	free(r->cells);
	free(r->nccl);
	free(r->not_probed);
	*r = (struct verify_report){0};
}

/* SPDX-License-Identifier: MIT */
/* cap_graph: graph-API misuse judged over a function's shape (CG404-CG407, CG409, CG410). */
#include "source/cap_graph.h"

#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/pack.h"
#include "source/cap.h"
#include "source/cap_guard.h"

static bool loop_contains(const struct sir_tu *tu, int loop, unsigned off)
{
	return loop >= 0 && tu->loops[loop].begin <= off && off <= tu->loops[loop].end;
}

static bool has_update(const struct cap *c, const struct sir_fn *fn)
{
	for (size_t i = 0; i < fn->n_ev; i++)
		if (cap_role(c, &fn->ev[i], API_UPDATE))
			return true;
	return false;
}

/* Does an end of this capture, earlier in a block that holds the exit fn->ev[x], close it on
 * the exit's path? Earlier by event order: inside a macro every event has the same offset. */
static bool ended_before(const struct cap *c, const struct cap_region *r, size_t x)
{
	const struct sir_ev *e = &r->fn->ev[x];
	for (size_t j = r->begin + 1; j < x; j++) {
		const struct sir_ev *g = &r->fn->ev[j];
		if (cap_role(c, g, API_END) && g->blk_begin <= e->off && e->off <= g->blk_end)
			return true;
	}
	return false;
}

static const char *exit_words(const struct cap *c, const struct sir_ev *e)
{
	static const char *const words[] = {[EV_RETURN] = "this return", [EV_BREAK] = "this break",
					    [EV_CONTINUE] = "this continue", [EV_GOTO] = "this goto",
					    [EV_THROW] = "this throw"};
	if (e->macro)
		return arena_printf(c->arena, "%s (in macro %s)", words[e->kind], e->macro);
	return words[e->kind];
}

/* An exit in the statement right after the begin's, with nothing between (err = Begin(...);
 * if (err) return err;), is the begin's own failure check: no capture was started. */
static bool begin_check(const struct cap_region *r, size_t x)
{
	const struct sir_ev *e = &r->fn->ev[x], *b = &r->fn->ev[r->begin];
	/* the begin's result went into a variable: err = cudaStreamBeginCapture(...) */
	const struct sir_ev *w = r->begin ? &r->fn->ev[r->begin - 1] : NULL;
	if (!w || w->kind != EV_WRITE || !w->from_call || w->stmt_begin != b->stmt_begin || !e->cond)
		return false;
	for (size_t j = r->begin + 1; j < x; j++)
		if (r->fn->ev[j].off >= r->from && r->fn->ev[j].off < e->stmt_begin)
			return false;
	return true;
}

/* CG404/CG410: each exit from the region that skips its end, a finding of its own (a note
 * points at the begin). An exit written through a macro is an error check's failure path
 * (CHECK(x) returning or throwing): CG410, a warning; any other exit is CG404. */
static void check_left_open(const struct cap *c, const struct cap_region *r)
{
	const struct sir_ev *b = &r->fn->ev[r->begin];
	for (size_t j = r->begin + 1; j < r->end; j++) {
		const struct sir_ev *e = &r->fn->ev[j];
		if (e->off <= r->from || e->off >= r->to)
			continue;
		bool leaves;
		switch (e->kind) {
		case EV_RETURN:
		case EV_THROW:
			leaves = true;
			break;
		case EV_BREAK:
			leaves = loop_contains(c->tu, e->breakable, b->off);
			break;
		case EV_CONTINUE:
			leaves = loop_contains(c->tu, e->loop, b->off);
			break;
		case EV_GOTO:
			leaves = e->jump_to < r->from || e->jump_to > r->to;
			break;
		default:
			continue;
		}
		if (!leaves || ended_before(c, r, j) || begin_check(r, j))
			continue;
		struct diag *d = cap_report(c, pack_find(c->pack, e->macro ? "CG410" : "CG404"), e,
					    &(struct cap_words){.api = exit_words(c, e), .stream = cap_ref_name(c, &r->stream),
								.line = b->loc.line});
		if (d) {
			struct diag_note *note = arena_alloc(c->arena, sizeof(*note));
			*note = (struct diag_note){b->loc, "the capture begins here"};
			d->notes = note;
			d->n_notes = 1;
		}
	}
}

/* CG409: a launch argument the code changes after the capture ended. */
static void check_frozen(const struct cap *c, const struct cap_region *r, bool updates)
{
	if (updates)
		return;
	const struct rule *rule = pack_find(c->pack, "CG409");
	const struct sir_fn *fn = r->fn;
	const struct sir_ev *b = &fn->ev[r->begin];
	for (size_t j = r->begin + 1; j < r->end; j++) {
		const struct sir_ev *l = &fn->ev[j];
		if (l->kind != EV_LAUNCH)
			continue;
		for (unsigned k = 0; k < l->n_args; k++) {
			const struct sir_ref *a = &l->args[k];
			if (a->kind != REF_VAR || a->addr || a->elem || !c->tu->decls[a->decl].scalar)
				continue;
			for (size_t w = r->end + 1; w < fn->n_ev; w++) {
				const struct sir_ev *wr = &fn->ev[w];
				if (wr->kind != EV_WRITE || wr->target.decl != a->decl)
					continue;
				/* a write in a loop that also captures again is followed by a new capture */
				bool recaptured = false;
				for (int lp = b->loop; lp >= 0 && !recaptured; lp = c->tu->loops[lp].up)
					recaptured = loop_contains(c->tu, lp, wr->off);
				if (recaptured)
					continue;
				cap_report(c, rule, l,
					   &(struct cap_words){.api = arena_printf(c->arena, "the launch of '%s'", l->name),
							       .var = c->tu->decls[a->decl].name, .line = wr->loc.line});
				break;
			}
		}
	}
}

/* graphs[i] by a variable index: a loop over devices instantiates each graph once (nccl-tests). */
static bool per_element(const struct sir_ev *e)
{
	for (unsigned k = 0; k < e->n_args; k++)
		if (e->args[k].kind == REF_VAR && e->args[k].elem && !e->args[k].const_index)
			return true;
	return false;
}

/* CG405 and CG406: per call. */
static void check_calls(const struct cap *c, const struct sir_fn *fn, bool updates)
{
	for (size_t i = 0; i < fn->n_ev; i++) {
		const struct sir_ev *e = &fn->ev[i];
		if (e->kind != EV_CALL)
			continue;
		size_t n;
		const struct pack_api *a = e->name ? pack_api_find(c->pack, e->name, &n) : NULL;
		for (size_t k = 0; a && k < n; k++)
			if (a[k].must_use && !e->used) {
				cap_report(c, pack_find(c->pack, "CG405"), e, &(struct cap_words){.api = e->name});
				break;
			}
		if (!updates && e->loop >= 0 && e->cond == 0 && cap_role(c, e, API_INSTANTIATE) && !per_element(e))
			cap_report(c, pack_find(c->pack, "CG406"), e, &(struct cap_words){.api = e->name});
	}
}

/* References to a variable from the graph API's own calls; any other use lets it escape. */
static unsigned api_uses(const struct cap *c, int decl)
{
	unsigned n = 0;
	for (size_t f = 0; f < c->tu->n_fns; f++)
		for (size_t i = 0; i < c->tu->fns[f].n_ev; i++) {
			const struct sir_ev *e = &c->tu->fns[f].ev[i];
			size_t m;
			if (e->kind != EV_CALL || !e->name || !pack_api_find(c->pack, e->name, &m))
				continue;
			for (unsigned k = 0; k < e->n_args; k++)
				n += e->args[k].kind == REF_VAR && e->args[k].decl == decl;
		}
	return n;
}

/* Whether 't' tests 'decl' itself, or the result of a call that makes it (&decl, an out-argument). */
static bool names(const struct sir_cond *t, int decl)
{
	if (!t)
		return false;
	if (t->kind == COND_REF && t->ref.kind == REF_VAR && t->ref.decl == decl)
		return true;
	for (unsigned k = 0; k < t->n_args; k++)
		if (t->args[k].kind == REF_VAR && t->args[k].addr && t->args[k].decl == decl)
			return true;
	return names(t->a, decl) || names(t->b, decl);
}

/* The variable the result of fn->ev[i] went into (err = cudaGraphInstantiate(...)), or -1. */
static int result_of(const struct sir_fn *fn, size_t i)
{
	const struct sir_ev *w = i ? &fn->ev[i - 1] : NULL;
	return w && w->kind == EV_WRITE && w->from_call && w->stmt_begin == fn->ev[i].stmt_begin ? w->target.decl : -1;
}

static bool written_between(const struct sir_fn *fn, int decl, size_t from, size_t to)
{
	for (size_t j = from + 1; j < to && j < fn->n_ev; j++)
		if (fn->ev[j].kind == EV_WRITE && fn->ev[j].target.decl == decl)
			return true;
	return false;
}

/* Whether the destroy fn->ev[d] runs whenever the handle made at fn->ev[m] exists: every branch
 * that holds the destroy holds the making too, or tests the handle itself (if (exec)), or tests
 * whether the making succeeded (its result, or the call itself). */
static bool destroys_on_normal_path(const struct cap *c, const struct sir_fn *fn, size_t m, size_t d, int decl)
{
	int result = result_of(fn, m);
	for (int a = fn->ev[d].arm; a >= 0 && !cap_guard_inside(c->tu, fn->ev[m].arm, a); a = c->tu->arms[a].up) {
		const struct sir_arm *arm = &c->tu->arms[a];
		bool tests_result = result >= 0 && names(arm->cond, result) && !written_between(fn, result, m, arm->ev);
		if (!names(arm->cond, decl) && !tests_result)
			return false;
	}
	return true;
}

static bool destroyed_in(const struct cap *c, const struct sir_fn *fn, int decl)
{
	for (size_t d = 0; d < fn->n_ev; d++) {
		const struct pack_api *a = cap_role(c, &fn->ev[d], API_DESTROY);
		if (a && cap_arg(&fn->ev[d], a->graph).kind == REF_VAR && cap_arg(&fn->ev[d], a->graph).decl == decl)
			return true;
	}
	return false;
}

/* The destroy of 'decl' the handle made at fn->ev[m] gets: 1 on its normal path, 0 none, -1
 * only on a branch ('*branch' is the first such). */
static int destroy_after(const struct cap *c, const struct sir_fn *fn, size_t m, int decl, const struct sir_ev **branch)
{
	*branch = NULL;
	for (size_t d = m + 1; d < fn->n_ev; d++) {
		const struct pack_api *a = cap_role(c, &fn->ev[d], API_DESTROY);
		struct sir_ref h = a ? cap_arg(&fn->ev[d], a->graph) : (struct sir_ref){.kind = REF_NONE};
		if (h.kind != REF_VAR || h.decl != decl)
			continue;
		if (destroys_on_normal_path(c, fn, m, d, decl))
			return 1;
		if (!*branch)
			*branch = &fn->ev[d];
	}
	return *branch ? -1 : 0;
}

/* Whether the function captures into the graph 'decl' (cudaStreamBeginCaptureToGraph(s, g)):
 * the end of that capture hands back the graph it was given, made elsewhere or owned by a
 * conditional node (its body), not a new one. */
static bool captured_into(const struct cap *c, const struct sir_fn *fn, int decl)
{
	for (size_t i = 0; i < fn->n_ev; i++) {
		const struct pack_api *a = cap_role(c, &fn->ev[i], API_BEGIN);
		struct sir_ref g = a && a->graph >= 0 ? cap_arg(&fn->ev[i], a->graph) : (struct sir_ref){.kind = REF_NONE};
		if (g.kind == REF_VAR && g.decl == decl)
			return true;
	}
	return false;
}

/* CG407: a local graph or executable handle created here and not destroyed on the normal path
 * after it, nor passed on. A destroy on one branch does not clear another: jacobiCudaGraphs'
 * exec destroyed only when an update fails leaks when updates succeed. */
static void check_leaks(const struct cap *c, const struct sir_fn *fn)
{
	static const enum api_role makers[] = {API_END, API_CREATE, API_INSTANTIATE};
	for (size_t i = 0; i < fn->n_ev; i++) {
		const struct sir_ev *e = &fn->ev[i];
		for (size_t m = 0; m < 3; m++) {
			const struct pack_api *a = cap_role(c, e, makers[m]);
			struct sir_ref h = a ? cap_arg(e, makers[m] == API_INSTANTIATE ? a->exec : a->graph)
					     : (struct sir_ref){.kind = REF_NONE};
			if (h.kind != REF_VAR || !h.addr || h.elem)
				continue;
			const struct sir_decl *d = &c->tu->decls[h.decl];
			const struct sir_ev *branch;
			if (d->kind != DECL_LOCAL || d->uses > api_uses(c, h.decl) + d->tests ||
			    (makers[m] == API_END && captured_into(c, fn, h.decl)))
				continue;
			int found = destroy_after(c, fn, i, h.decl, &branch);
			if (found > 0)
				continue;
			const char *destroy = makers[m] == API_INSTANTIATE ? "cudaGraphExecDestroy" : "cudaGraphDestroy";
			const char *effect = arena_printf(c->arena, "is never destroyed (no %s)", destroy);
			if (branch)
				effect = arena_printf(c->arena, "is destroyed only on a branch the normal path skips (%s at line %u)",
						      branch->name, branch->loc.line);
			else if (destroyed_in(c, fn, h.decl))
				effect = arena_printf(c->arena, "is not destroyed after it is made (no %s follows)", destroy);
			struct diag *r = cap_report(c, pack_find(c->pack, "CG407"), e,
						    &(struct cap_words){.api = e->name, .var = arena_printf(c->arena, "'%s'", d->name),
									.effect = effect});
			if (r && branch) {
				struct diag_note *note = arena_alloc(c->arena, sizeof(*note));
				*note = (struct diag_note){branch->loc, "destroyed here, only when this branch is taken"};
				r->notes = note;
				r->n_notes = 1;
			}
		}
	}
}

void cap_graph_check(const struct cap *c, const struct sir_fn *fn, const struct cap_region *regions, size_t n)
{
	bool updates = has_update(c, fn);
	for (size_t k = 0; k < n; k++) {
		check_left_open(c, &regions[k]);
		check_frozen(c, &regions[k], updates);
	}
	check_calls(c, fn, updates);
	check_leaks(c, fn);
}

/* SPDX-License-Identifier: MIT */
/* cap_cond: NCCL in a graph with a conditional node, or in a conditional body (CG412; cap_cond.h). */
#include "source/cap_cond.h"

#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/pack.h"
#include "source/cap.h"
#include "source/cap_ref.h"

#define MAX_NODES 16            /* conditional nodes a function makes that are judged */
#define MAX_GRAPHS 8            /* names one capture's graph goes by */
#define MAX_TRACKED 16          /* streams in a capture, events recorded in it */
#define MAX_DEPTH 3             /* calls followed from a region into the unit's functions */

/* A conditional node the function makes: a handle created for a graph, or a node of
 * conditional type added to one. */
struct cond_node {
	const struct sir_ev *at;
	struct sir_ref graph;   /* the graph that holds it */
	int params;             /* an added node: its parameters' variable, whose phGraph_out are its
				 * bodies; -1 for a handle */
};

struct cond {
	const struct cap *c;
	const struct rule *rule;
	const struct sir_fn *fn;
	struct cond_node nodes[MAX_NODES];
	size_t n_nodes;
};

/* The streams of one capture (its origin and the streams forked from it through events) and the
 * events recorded on them, in the order the region runs. */
struct flow {
	struct sir_ref streams[MAX_TRACKED], events[MAX_TRACKED];
	size_t n_streams, n_events;
};

/* What a CG412 entry of the table is: its columns tell (rules/capture.yaml). */
enum cond_kind { NOT_OURS, MAKES_NODE, CAPTURE_INFO, NCCL_WORK };

static const struct pack_api *entry(const struct cond *k, const struct sir_ev *e)
{
	size_t n = 0;
	const struct pack_api *a = e->kind == EV_CALL && e->name ? pack_api_find(k->c->pack, e->name, &n) : NULL;
	for (size_t i = 0; a && i < n; i++)
		if (a[i].rule == k->rule)
			return &a[i];
	return NULL;
}

static enum cond_kind kind_of(const struct pack_api *a)
{
	if (!a)
		return NOT_OURS;
	if (a->graph < 0)
		return NCCL_WORK;
	return a->stream >= 0 ? CAPTURE_INFO : MAKES_NODE;
}

/* The variable a reference is, or is a field of: params in params.conditional.phGraph_out[0]. */
static int root_of(const struct sir_ref *r)
{
	while (r->base)
		r = r->base;
	return r->kind == REF_VAR ? r->decl : -1;
}

/* Whether a reference is the field 'field', or an element or a field of it. */
static bool through_field(const struct cap *c, const struct sir_ref *r, const char *field)
{
	for (; r; r = r->base)
		if (r->kind == REF_VAR && r->decl >= 0 && c->tu->decls[r->decl].kind == DECL_FIELD &&
		    !strcmp(c->tu->decls[r->decl].name, field))
			return true;
	return false;
}

static bool names_word(const struct sir_ref *r, const struct pack_api *a)
{
	for (size_t w = 0; r->text && w < a->n_when_arg; w++)
		if (strstr(r->text, a->when_arg[w]))
			return true;
	return false;
}

/* Whether the parameters 'p' of the node added at 'call' are of a type the entry names (its
 * when_arg): params.type = cudaGraphNodeTypeConditional, or an initializer that says so, before
 * the call. */
static bool conditional_params(const struct cond *k, const struct sir_ev *call, const struct pack_api *a, int p)
{
	for (const struct sir_ev *w = k->fn->ev; w < call; w++)
		if (w->kind == EV_WRITE && w->n_args && root_of(&w->target) == p && names_word(&w->args[0], a))
			return true;
	return false;
}

static void collect_nodes(struct cond *k)
{
	for (size_t i = 0; i < k->fn->n_ev && k->n_nodes < MAX_NODES; i++) {
		const struct sir_ev *e = &k->fn->ev[i];
		const struct pack_api *a = entry(k, e);
		if (kind_of(a) != MAKES_NODE)
			continue;
		struct sir_ref g = cap_arg(e, a->graph);
		if (g.kind != REF_VAR)
			continue;
		g.addr = false;
		int params = -1;
		if (a->n_when_arg) {
			struct sir_ref p = cap_arg(e, PACK_ARG_LAST);
			params = root_of(&p);
			if (params < 0 || !conditional_params(k, e, a, params))
				continue;
		}
		k->nodes[k->n_nodes++] = (struct cond_node){e, g, params};
	}
}

/* The conditional node that holds graph 'g': a node added to it, else a handle made for it. */
static const struct cond_node *holder(const struct cond *k, const struct sir_ref *g)
{
	const struct cond_node *handle = NULL;
	for (size_t n = 0; n < k->n_nodes; n++)
		if (cap_ref_same(&k->nodes[n].graph, g)) {
			if (k->nodes[n].params >= 0)
				return &k->nodes[n];
			handle = handle ? handle : &k->nodes[n];
		}
	return handle;
}

/* The conditional node whose body graph 'g' is: params.conditional.phGraph_out[i] of its
 * parameters, or a variable given one (cudaGraph_t body = params.conditional.phGraph_out[0]). */
static const struct cond_node *body_of(const struct cond *k, const struct sir_ref *g)
{
	const struct cap *c = k->c;
	for (size_t n = 0; n < k->n_nodes; n++) {
		const struct cond_node *node = &k->nodes[n];
		if (node->params < 0)
			continue;
		if (through_field(c, g, "phGraph_out") && root_of(g) == node->params)
			return node;
		if (g->kind != REF_VAR || g->base)
			continue;
		for (size_t i = 0; i < k->fn->n_ev; i++) {
			const struct sir_ev *w = &k->fn->ev[i];
			if (w->kind == EV_WRITE && w->target.decl == g->decl && !w->target.base && w->n_args &&
			    through_field(c, &w->args[0], "phGraph_out") && root_of(&w->args[0]) == node->params)
				return node;
		}
	}
	return NULL;
}

/* The names a region's graph goes by: the graph a begin captures into
 * (cudaStreamBeginCaptureToGraph), the one its end stores, and the capturing graph as
 * cudaStreamGetCaptureInfo gives it on the capture's stream inside the region. */
static size_t region_graphs(const struct cond *k, const struct cap_region *r, struct sir_ref *out)
{
	const struct cap *c = k->c;
	size_t n = 0;
	const struct sir_ev *b = &r->fn->ev[r->begin], *e = &r->fn->ev[r->end];
	const struct pack_api *a = cap_role(c, b, API_BEGIN);
	if (a && a->graph >= 0)
		out[n++] = cap_arg(b, a->graph);
	if ((a = cap_role(c, e, API_END)) && a->graph >= 0)
		out[n++] = cap_arg(e, a->graph);
	for (size_t j = r->begin + 1; j < r->end && n < MAX_GRAPHS; j++) {
		const struct sir_ev *q = &r->fn->ev[j];
		struct sir_ref s;
		if (kind_of(a = entry(k, q)) == CAPTURE_INFO && (s = cap_arg(q, a->stream), cap_ref_same(&s, &r->stream)))
			out[n++] = cap_arg(q, a->graph);
	}
	size_t kept = 0;
	for (size_t i = 0; i < n; i++)
		if (out[i].kind == REF_VAR) {
			out[kept] = out[i];
			out[kept++].addr = false;
		}
	return kept;
}

static bool in(const struct sir_ref *set, size_t n, const struct sir_ref *r)
{
	for (size_t i = 0; i < n; i++)
		if (cap_ref_same(&set[i], r))
			return true;
	return false;
}

/* The first NCCL launch on a stream of the capture in f's function, from event 'from' on (at the
 * top, only those between the offsets lo and hi), following calls into the unit's functions;
 * '*via' is the region's own call that reached it. */
static const struct sir_ev *first_nccl(const struct cond *k, struct flow *w, const struct cap_frame *f, size_t from,
				       size_t to, unsigned lo, unsigned hi, const struct sir_ev **via)
{
	const struct cap *c = k->c;
	for (size_t j = from; j < to && j < f->fn->n_ev; j++) {
		const struct sir_ev *e = &f->fn->ev[j];
		if (e->kind != EV_CALL || (!f->call && (e->off <= lo || e->off >= hi)))
			continue;
		const struct pack_api *a;
		if ((a = cap_role(c, e, API_RECORD))) {
			struct sir_ref s = cap_ref_resolve(c, f, cap_arg(e, a->stream));
			struct sir_ref ev = cap_ref_resolve(c, f, cap_arg(e, a->event));
			ev.addr = false;
			if (in(w->streams, w->n_streams, &s) && w->n_events < MAX_TRACKED)
				w->events[w->n_events++] = ev;
			continue;
		}
		if ((a = cap_role(c, e, API_WAIT))) {
			struct sir_ref s = cap_ref_resolve(c, f, cap_arg(e, a->stream));
			struct sir_ref ev = cap_ref_resolve(c, f, cap_arg(e, a->event));
			ev.addr = false;
			if (in(w->events, w->n_events, &ev) && !in(w->streams, w->n_streams, &s) && w->n_streams < MAX_TRACKED)
				w->streams[w->n_streams++] = s;
			continue;
		}
		if (kind_of(a = entry(k, e)) == NCCL_WORK) {
			struct sir_ref s = cap_ref_resolve(c, f, cap_arg(e, a->stream));
			if (a->stream < 0 || in(w->streams, w->n_streams, &s)) {
				*via = f->call ? *via : e;
				return e;
			}
			continue;
		}
		if (e->callee >= 0 && f->depth < MAX_DEPTH) {
			const struct cap_frame g = {.fn = &c->tu->fns[e->callee], .call = e, .up = f, .depth = f->depth + 1};
			if (!f->call)
				*via = e;
			const struct sir_ev *hit = first_nccl(k, w, &g, 0, g.fn->n_ev, 0, 0, via);
			if (hit)
				return hit;
		}
	}
	return NULL;
}

static void note(const struct cap *c, struct diag *d, struct loc at, const char *message)
{
	struct diag_note *notes = arena_alloc(c->arena, (d->n_notes + 1) * sizeof(*notes));
	if (d->n_notes)
		memcpy(notes, d->notes, d->n_notes * sizeof(*notes));
	notes[d->n_notes++] = (struct diag_note){at, message};
	d->notes = notes;
}

static void report(const struct cond *k, const struct sir_ev *at, const struct sir_ev *via, const struct sir_ref *g,
		   const struct cond_node *node, bool body, bool nested)
{
	const struct cap *c = k->c;
	const char *made = node->params < 0
				   ? arena_printf(c->arena, "a conditional node (its handle is made at line %u)", node->at->loc.line)
				   : arena_printf(c->arena, "the conditional node added at line %u", node->at->loc.line);
	const char *effect =
		body ? arena_printf(c->arena,
				    "the body of %s: a body may hold only kernel, empty, memcpy, memset, child-graph and "
				    "conditional nodes, not the event record and wait nodes NCCL adds, so cudaGraphInstantiate "
				    "fails with cudaErrorInvalidValue (1)%s",
				    made,
				    nested ? "; and while the parent's capture is open, a stream of NCCL's that already "
					     "captures into it cannot join this one (cudaErrorStreamCaptureMerge)"
					   : "")
		     : arena_printf(c->arena,
				    "which also holds %s: NCCL's graph-mixing support adds event record and wait nodes, which "
				    "a graph with conditional nodes does not support, so cudaGraphInstantiate fails with "
				    "cudaErrorInvalidValue (1)",
				    made);
	const char *var = body ? cap_ref_name(c, g) : arena_printf(c->arena, "graph %s", cap_ref_name(c, g));
	struct diag *d = cap_report(c, k->rule, at, &(struct cap_words){.api = at->name, .var = var, .effect = effect});
	if (!d)
		return;
	if (via && via != at)
		note(c, d, via->loc, "the capture reaches it through this call");
	note(c, d, node->at->loc,
	     node->params < 0 ? arena_printf(c->arena, "the conditional handle is made for %s here", cap_ref_name(c, &node->graph))
			      : arena_printf(c->arena, "the conditional node is added to %s here", cap_ref_name(c, &node->graph)));
}

void cap_cond_check(const struct cap *c, const struct sir_fn *fn, const struct cap_region *regions, size_t n)
{
	struct cond k = {.c = c, .rule = pack_find(c->pack, "CG412"), .fn = fn};
	if (!k.rule)
		return;
	collect_nodes(&k);
	if (!k.n_nodes)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct cap_region *r = &regions[i];
		struct sir_ref graphs[MAX_GRAPHS];
		size_t n_graphs = r->span ? 0 : region_graphs(&k, r, graphs);
		const struct cond_node *node = NULL;
		const struct sir_ref *g = NULL;
		bool body = false;
		for (size_t j = 0; j < n_graphs && !node; j++)
			if ((node = holder(&k, &graphs[j])) || (body = (node = body_of(&k, &graphs[j])) != NULL))
				g = &graphs[j];
		if (!node)
			continue;
		struct flow w = {.streams = {r->stream}, .n_streams = 1};
		const struct cap_frame top = {.fn = fn};
		const struct sir_ev *via = NULL;
		const struct sir_ev *at = first_nccl(&k, &w, &top, r->begin + 1, r->end, r->from, r->to, &via);
		bool nested = false;    /* begun while another capture of the function is open */
		for (size_t o = 0; o < n && !nested; o++)
			nested = o != i && !regions[o].span && regions[o].begin < r->begin && r->begin < regions[o].end;
		if (at)
			report(&k, at, via, g, node, body, nested);
	}
}

/* SPDX-License-Identifier: MIT */
/* cap: capture regions and the hazards met inside them (see cap.h). */
#include "source/cap.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/pack.h"
#include "source/cap_fork.h"
#include "source/cap_ref.h"
#include "source/cap_guard.h"
#include "source/cap_target.h"
#include "source/cap_thread.h"
#include "source/cap_words.h"

/* ---- shared helpers ----------------------------------------------------------------------- */

const struct pack_api *cap_role(const struct cap *c, const struct sir_ev *e, enum api_role role)
{
	size_t n = 0;
	const struct pack_api *a = e->name ? pack_api_find(c->pack, e->name, &n) : NULL;
	if (!a)
		return NULL;
	for (size_t k = 0; k < n; k++)
		if (a[k].role == role)
			return &a[k];
	return NULL;
}

struct sir_ref cap_arg(const struct sir_ev *e, int pos)
{
	if (pos == PACK_ARG_LAST)
		pos = (int)e->n_args - 1;
	if (pos >= 0 && (unsigned)pos < e->n_args)
		return e->args[pos];
	return (struct sir_ref){.kind = REF_NONE, .decl = -1};
}

/* Whether cglint knows which stream an expression is (so that "another stream" means one). */
static bool known(const struct sir_ref *s)
{
	return s->kind != REF_OTHER && s->kind != REF_POOL && (!s->elem || s->const_index);
}

/* Whether two events may be one: events[i] may be events[0]. */
static bool may_same(const struct sir_ref *a, const struct sir_ref *b)
{
	if (a->kind == REF_VAR && b->kind == REF_VAR && a->elem && b->elem && a->decl == b->decl)
		return !a->const_index || !b->const_index || a->index == b->index;
	return cap_ref_same(a, b);
}

struct diag *cap_report(const struct cap *c, const struct rule *r, const struct sir_ev *at, const struct cap_words *w)
{
	return diag_report(c->diags, r, at->loc, cap_words_fill(c, r->message, w), r->head.fix,
			   r->n_mirrors ? r->mirrors[0].where : NULL);
}

/* ---- regions ------------------------------------------------------------------------------ */

static bool is_legacy(const struct cap *c, const struct sir_ref *s)
{
	switch (s->kind) {
	case REF_NULL:
	case REF_NONE:
		return !c->tu->per_thread_stream;
	case REF_LEGACY:
	case REF_DEFAULT:
		return true;
	default:
		return false;
	}
}

/* The last constant written to a variable before 'off' in 'fn' (a mode, a flag). */
static bool last_const(const struct sir_fn *fn, int decl, unsigned off, int64_t *out)
{
	bool found = false;
	for (size_t i = 0; i < fn->n_ev && fn->ev[i].off < off; i++) {
		const struct sir_ev *e = &fn->ev[i];
		if (e->kind == EV_WRITE && e->target.decl == decl && e->n_args && e->args[0].has_ival) {
			*out = e->args[0].ival;
			found = true;
		}
	}
	return found;
}

static enum cap_mode mode_of(const struct sir_fn *fn, const struct sir_ev *begin, const struct sir_ref *m)
{
	int64_t v;
	if (m->kind == REF_NONE)
		return begin->name && strstr(begin->name, "CUDAGraph") ? CAP_GLOBAL : CAP_MODE_UNKNOWN;
	if (m->has_ival)
		v = m->ival;
	else if (m->kind != REF_VAR || !last_const(fn, m->decl, begin->off, &v))
		return CAP_MODE_UNKNOWN;
	return v >= 0 && v <= 2 ? (enum cap_mode)v : CAP_MODE_UNKNOWN;
}

/* How the capture stream was created, from every creation of that variable in the TU. */
static enum cap_blocking blocking_of(const struct cap *c, const struct sir_ref *s)
{
	if (s->kind == REF_POOL)
		return CAP_NONBLOCKING;
	if (s->kind != REF_VAR)
		return CAP_BLOCKING_UNKNOWN;
	enum cap_blocking seen = CAP_BLOCKING_UNKNOWN;
	for (size_t f = 0; f < c->tu->n_fns; f++)
		for (size_t i = 0; i < c->tu->fns[f].n_ev; i++) {
			const struct sir_ev *e = &c->tu->fns[f].ev[i];
			enum cap_blocking b = CAP_BLOCKING_UNKNOWN;
			const struct pack_api *a = cap_role(c, e, API_STREAM_CREATE);
			if (a && cap_arg(e, a->stream).decl == s->decl && cap_arg(e, a->stream).kind == REF_VAR) {
				struct sir_ref fl = cap_arg(e, a->flags);
				if (a->flags < 0 || fl.kind == REF_NONE || fl.kind == REF_NULL)
					b = CAP_BLOCKING;
				else if (fl.has_ival)
					b = fl.ival & 1 ? CAP_NONBLOCKING : CAP_BLOCKING;
			} else if (e->kind == EV_WRITE && e->target.decl == s->decl && e->n_args &&
				   e->args[0].kind == REF_POOL) {
				b = CAP_NONBLOCKING;
			} else {
				continue;
			}
			if (b == CAP_BLOCKING_UNKNOWN || (seen != CAP_BLOCKING_UNKNOWN && seen != b))
				return CAP_BLOCKING_UNKNOWN;
			seen = b;
		}
	return seen;
}

/* The stream a begin or end call names: its stream argument, or CUDAGraph's current stream. */
static struct sir_ref stream_of(const struct pack_api *a, const struct sir_ev *e)
{
	if (!a || a->stream < 0)
		return (struct sir_ref){.kind = REF_CURRENT, .decl = -1};
	return cap_arg(e, a->stream);
}

/* Whether 'e' is a 'role' call (a begin or an end) on the stream (or CUDAGraph) that 'b' began
 * capturing, or on any stream. */
static bool on_same(const struct cap *c, const struct pack_api *ba, const struct sir_ev *b, const struct sir_ref *bs,
		    const struct sir_ev *e, enum api_role role, bool any_stream)
{
	const struct pack_api *a = cap_role(c, e, role);
	/* a CUDAGraph (no stream argument) pairs with a CUDAGraph, a stream call with a stream call */
	if (!a || (a->stream < 0) != (ba->stream < 0))
		return false;
	if (a->stream < 0)
		return cap_ref_same(&b->object, &e->object);
	struct sir_ref es = stream_of(a, e);
	return any_stream || cap_ref_same(bs, &es);
}

/* The end of the capture begun at fn->ev[i]: on its stream, preferring one in the begin's own
 * block, else the last before the stream begins a capture again (an error path's end comes
 * before the real one; nccl-tests ends and begins again in loops over streams[i]); failing that,
 * an end on another stream (CG402). Returns fn->n_ev when there is none. */
static size_t find_end(const struct cap *c, const struct pack_api *ba, const struct sir_fn *fn, size_t i,
		       const struct sir_ref *s, bool *other)
{
	const struct sir_ev *b = &fn->ev[i];
	size_t last = fn->n_ev;
	*other = false;
	for (size_t j = i + 1; j < fn->n_ev && !(last < fn->n_ev && on_same(c, ba, b, s, &fn->ev[j], API_BEGIN, false)); j++)
		if (on_same(c, ba, b, s, &fn->ev[j], API_END, false)) {
			if (fn->ev[j].blk_begin == b->blk_begin)
				return j;
			last = j;
		}
	if (last < fn->n_ev)
		return last;
	for (size_t j = i + 1; j < fn->n_ev; j++)
		if (on_same(c, ba, b, s, &fn->ev[j], API_END, true)) {
			const struct pack_api *a = cap_role(c, &fn->ev[j], API_END);
			struct sir_ref es = stream_of(a, &fn->ev[j]);
			*other = known(s) && known(&es);  /* two expressions cglint cannot name may be one stream */
			return j;
		}
	return fn->n_ev;
}

/* The table's name for a kernel launch, whose stream is the launch configuration's. */
#define LAUNCH_NAME "<<<>>>"

/* ---- walking a region --------------------------------------------------------------------- */

#define MAX_TRACKED 32
#define MAX_HANDED 256

struct recorded {
	struct sir_ref event;
	struct cap_stream on;
	unsigned seq;
};

struct walk {
	const struct cap *c;
	const struct cap_region *r;
	struct cap_stream origin;       /* the region's stream, as its begin names it */
	unsigned line;                  /* of the begin */
	bool relaxed;                   /* the thread exchanged its mode to relaxed */
	struct cap_forks forks;
	struct recorded recs[MAX_TRACKED];
	size_t n_recs;
	unsigned seq;                   /* events seen so far */
	struct sir_ref handed[MAX_HANDED];      /* passed to calls cglint could not look into */
	size_t n_handed;
	enum cap_blocking blocking;     /* of the capture stream, once known */
	bool blocking_known;
	unsigned host_stmt;             /* the statement last reported by CG408, once per statement */
	/* walking the body of a thread the region's function starts (check_threads): the start,
	 * how it stands to the capture, and the capture's own walk (its recorded events) */
	const struct thread_run *thread;
};

struct thread_run {
	const struct sir_ev *start;     /* std::thread t(f, ...), pthread_create(&t, 0, f, arg), ... */
	const struct sir_ev *call;      /* the start as a call of the thread's function: its arguments */
	const struct sir_ev *join;      /* NULL: not joined in this function */
	bool certain;                   /* started inside the region: it runs while the capture is open */
	const struct walk *capture;
};

/* Whether 's' may be capturing (an event recorded on it may be joined), or certainly is (a
 * finding may say so). */
static bool in_capture(struct walk *w, const struct cap_stream *s, bool must)
{
	if (must)
		return cap_stream_must_meet(&w->origin, s) || cap_forks_has(&w->forks, s, true);
	return cap_stream_may_meet(&w->origin, s) || cap_forks_has(&w->forks, s, false);
}

/* Whether a region already reported 'rule' at 'e' (code under a capture-status test that a
 * region also reaches). */
static bool reported(const struct cap *c, const struct rule *rule, const struct sir_ev *e)
{
	for (size_t k = 0; k < c->diags->n; k++) {
		const struct diag *d = &c->diags->items[k];
		if (d->rule == rule && d->loc.line == e->loc.line && d->loc.col == e->loc.col &&
		    !strcmp(d->loc.path ? d->loc.path : "", e->loc.path ? e->loc.path : ""))
			return true;
	}
	return false;
}

static struct diag *report(struct walk *w, const struct cap_frame *f, const struct rule *rule, const struct sir_ev *e,
			   struct cap_words words)
{
	if (w->r->span && reported(w->c, rule, e))
		return NULL;
	if (!words.api)
		words.api = cap_words_api(w->c, e);
	if (!words.stream)
		words.stream = cap_ref_name(w->c, &w->r->stream);
	words.line = w->line;
	words.mode = w->r->mode;
	const char *inside = arena_printf(w->c->arena, "inside the capture begun at line %u", w->line);
	if (w->r->span) {
		words.begun = arena_printf(w->c->arena, "as the capture-status test at line %u says", w->line);
		inside = arena_printf(w->c->arena, "where the capture-status test at line %u says it captures", w->line);
	}
	struct diag *d = cap_report(w->c, rule, e, &words);
	if (!d || !f->depth)
		return d;
	/* the call chain, outermost first */
	struct diag_note *notes = arena_alloc(w->c->arena, f->depth * sizeof(*notes));
	size_t k = f->depth;
	for (const struct cap_frame *g = f; g && g->call; g = g->up) {
		k--;
		if (w->thread && g->call == w->thread->call) {
			const char *joined = w->thread->join
				? arena_printf(w->c->arena, "joined at line %u", w->thread->join->loc.line)
				: "not joined in this function";
			notes[k] = (struct diag_note){w->thread->start->loc,
						      arena_printf(w->c->arena, "the thread is started here, %s the capture begun at line %u, and %s",
								   w->thread->certain ? "inside" : "before", w->line, joined)};
			continue;
		}
		notes[k] = (struct diag_note){g->call->loc,
					      arena_printf(w->c->arena, "called from here, %s%s%s", inside,
							   k ? " (through " : "", k ? arena_printf(w->c->arena, "%s)", g->up->fn->name) : "")};
	}
	d->notes = notes;
	d->n_notes = f->depth;
	return d;
}

static const char *effect_for(struct walk *w, const struct pack_api *a)
{
	if (!a->effect_nonblocking)
		return a->effect;
	if (!w->blocking_known) {      /* a walk of the whole unit: only when a message needs it */
		w->blocking = blocking_of(w->c, &w->r->stream);
		w->blocking_known = true;
	}
	if (w->blocking == CAP_BLOCKING)
		return a->effect;
	if (w->blocking == CAP_NONBLOCKING)
		return a->effect_nonblocking;
	return arena_printf(w->c->arena, "with a blocking capture stream %s; with a non-blocking one %s", a->effect,
			    a->effect_nonblocking);
}

static bool arg_named(const struct sir_ev *e, const struct pack_api *a)
{
	for (unsigned i = 0; i < e->n_args; i++)
		for (size_t k = 0; k < a->n_when_arg; k++)
			if (e->args[i].text && !strcmp(e->args[i].text, a->when_arg[k]))
				return true;
	return false;
}

static void on_stream_work(struct walk *w, const struct cap_frame *f, const struct sir_ev *e, const struct pack_api *a,
			   struct sir_ref raw)
{
	struct cap_stream s = cap_stream_at(w->c, f, e, raw);
	if (is_legacy(w->c, &s.ref)) {
		const char *eff = effect_for(w, a);
		report(w, f, a->rule, e, (struct cap_words){.effect = eff});
		return;
	}
	cap_forks_work(&w->forks, &s, w->seq);
}

static void on_wait(struct walk *w, const struct cap_frame *f, const struct sir_ev *e, const struct pack_api *a)
{
	struct cap_stream s = cap_stream_at(w->c, f, e, cap_arg(e, a->stream));
	struct sir_ref ev = cap_ref_resolve(w->c, f, cap_arg(e, a->event));
	struct sir_ref fl = cap_ref_resolve(w->c, f, cap_arg(e, a->flags));
	if (fl.has_ival && (fl.ival & 1))
		return;         /* cudaEventWaitExternal: an event-wait node */
	ev.addr = false;
	const struct recorded *rec = NULL;
	for (size_t k = w->n_recs; k-- > 0;)
		if (may_same(&w->recs[k].event, &ev)) {
			rec = &w->recs[k];
			break;
		}
	/* an event handed to a call cglint could not look into may be recorded there (TransformerEngine's
	 * userbuffers launchers record their launch-completion event): taken on trust */
	for (size_t k = 0; !rec && k < w->n_handed; k++)
		if (may_same(&w->handed[k], &ev))
			return;
	if (!rec) {
		if (ev.kind == REF_VAR && in_capture(w, &s, true) && !w->r->span)   /* a span's records came before it */
			report(w, f, pack_find(w->c->pack, "CG403"), e,
			       (struct cap_words){.event = cap_ref_name(w->c, &ev), .stream = cap_ref_name(w->c, &s.ref)});
		return;
	}
	/* Waiting on a fork's event takes over that fork's work (recorded after its last work):
	 * joined for good when the waiter is the origin, handed on when it is another fork. */
	cap_forks_join(&w->forks, &rec->on, rec->seq, e);
	if (cap_ref_same(&s.ref, &w->r->stream) && (!s.ref.elem || cap_stream_may_meet(&s, &w->origin)))
		return;
	cap_forks_add(&w->forks, &s, &w->origin, w->seq);
}

static void walk_fn(struct walk *w, const struct cap_frame *f, size_t from, size_t to);

/* The variables a call whose body is not walked was given: it may record an event there. The
 * CUDA and NCCL APIs the table does not list record none (cudaEventCreate makes one). */
static void hand(struct walk *w, const struct cap_frame *f, const struct sir_ev *e)
{
	const char *n = e->name ? e->name : "";
	if ((!strncmp(n, "cuda", 4) && isupper((unsigned char)n[4])) || (!strncmp(n, "cu", 2) && isupper((unsigned char)n[2])) ||
	    (!strncmp(n, "nccl", 4) && isupper((unsigned char)n[4])))
		return;
	for (unsigned k = 0; k < e->n_args && w->n_handed < MAX_HANDED; k++) {
		struct sir_ref r = cap_ref_resolve(w->c, f, e->args[k]);
		r.addr = false;
		bool seen = r.kind != REF_VAR;
		for (size_t j = 0; j < w->n_handed && !seen; j++)
			seen = cap_ref_same(&w->handed[j], &r);
		if (!seen)
			w->handed[w->n_handed++] = r;
	}
}

/* CG411, once per callee and file: a captured call the checks cannot look inside. */
static void unchecked(struct walk *w, const struct cap_frame *f, const struct sir_ev *e, const char *callee, const char *why)
{
	if (w->thread)
		return;         /* a thread's body is not captured */
	const struct rule *rule = pack_find(w->c->pack, "CG411");
	const char *api = arena_printf(w->c->arena, "'%s'", callee ? callee : "?");
	for (size_t k = 0; rule && k < w->c->diags->n; k++)
		if (w->c->diags->items[k].rule == rule && strstr(w->c->diags->items[k].message, api))
			return;
	if (rule)
		report(w, f, rule, e, (struct cap_words){.api = api, .effect = why});
}

static void enter(struct walk *w, const struct cap_frame *f, const struct sir_ev *e, const struct sir_fn *callee)
{
	if (callee->left_out) {
		hand(w, f, e);
		unchecked(w, f, e, callee->name, callee->left_out);
		return;
	}
	if (f->depth >= CAP_MAX_DEPTH) {
		hand(w, f, e);
		return;
	}
	for (const struct cap_frame *g = f; g; g = g->up)
		if (g->fn == callee)
			return;         /* recursion */
	struct cap_frame inner = {callee, e, f, f->depth + 1, f->relaxed || e->off < f->guard_end, 0};
	walk_fn(w, &inner, 0, callee->n_ev);
}

/* A call to something that is not an API: into the unit's function, or through what holds one. */
static void follow(struct walk *w, const struct cap_frame *f, const struct sir_ev *e)
{
	const struct cap *c = w->c;
	if (e->callee >= 0) {
		enter(w, f, e, &c->tu->fns[e->callee]);
		return;
	}
	if (!e->indirect) {
		hand(w, f, e);
		unchecked(w, f, e, e->name, "it has no body in this file (defined in another translation unit)");
		return;
	}
	int v[CAP_MAX_TARGETS];
	size_t n = cap_target_of(c, f, e, v);
	if (!n) {
		hand(w, f, e);
		const char *what = e->object.text ? e->object.text : "a function pointer";
		unchecked(w, f, e, what, "it is called through a pointer or std::function whose target this file does not show");
		return;
	}
	for (size_t k = 0; k < n; k++)
		enter(w, f, e, &c->tu->fns[v[k] - 1]);
}

/* std::cout << a << b is one piece of host work: report a statement once. The failure branch
 * of an error check (CHECK(x): if (err) { fprintf(...); exit(1); }), or any path that ends in
 * an error exit, is not host work that replays would miss: it runs only when capturing has
 * already failed, or the process is going down. Host work the code does because a status test
 * says it captures (logging it, counting captures) is meant for capture time. */
static bool host_once(struct walk *w, const struct cap_frame *f, const struct sir_ev *e)
{
	size_t i = (size_t)(e - f->fn->ev);
	if ((e->macro && e->cond > 0) || cap_guard_on_error_path(w->c->guard, f->fn, i) ||
	    cap_guard_capturing_branch(w->c->guard, f->fn, i))
		return false;
	if (!f->call && w->host_stmt == e->stmt_begin + 1)
		return false;
	if (!f->call)
		w->host_stmt = e->stmt_begin + 1;
	return true;
}

static void on_thread_event(struct walk *w, struct cap_frame *f, const struct sir_ev *e);

static void on_event(struct walk *w, struct cap_frame *f, const struct sir_ev *e)
{
	const struct cap *c = w->c;
	if (w->thread) {
		on_thread_event(w, f, e);
		return;
	}
	w->seq++;
	if (e->kind == EV_LAUNCH) {
		size_t n;
		const struct pack_api *launch = pack_api_find(c->pack, LAUNCH_NAME, &n);
		if (launch)
			on_stream_work(w, f, e, launch, e->stream);
		return;
	}
	if (e->kind == EV_WRITE) {
		const struct sir_decl *d = &c->tu->decls[e->target.decl];
		/* a callee's locals and by-value parameters are its own business */
		bool local = d->fn == (int)(f->fn - c->tu->fns) &&
			     ((d->kind == DECL_LOCAL && (f->call || d->off > w->r->from)) ||
			      (d->kind == DECL_PARAM && f->call));
		if (e->counter && !e->loop_control && !e->from_call && !local && host_once(w, f, e))
			report(w, f, pack_find(c->pack, "CG408"), e,
			       (struct cap_words){.api = arena_printf(c->arena, "the host counter '%s'", d->name)});
		return;
	}
	if (e->kind == EV_VAR) {
		const struct pack_api *g = cap_role(c, e, API_RELAX_GUARD);
		struct sir_ref m = g ? cap_arg(e, g->mode) : (struct sir_ref){.kind = REF_NONE};
		if (g && m.has_ival && m.ival == CAP_RELAXED)
			f->guard_end = e->blk_end;      /* a guard lives to the end of its block */
		return;
	}
	if (e->kind != EV_CALL)
		return;
	size_t n;
	const struct pack_api *apis = e->name ? pack_api_find(c->pack, e->name, &n) : NULL;
	if (!apis && (e->callee >= 0 || e->indirect || e->no_body)) {
		/* CHECK(cudaStreamEndCapture(...)): the check runs after the end */
		if (f->call || w->r->span || e->stmt_begin != w->r->to)
			follow(w, f, e);
		return;
	}
	if (!apis)
		hand(w, f, e);  /* a name the unit does not declare, or a library's */
	bool relaxed = w->relaxed || f->relaxed || e->off < f->guard_end || w->r->mode == CAP_RELAXED;
	for (size_t k = 0; apis && k < n; k++) {
		const struct pack_api *a = &apis[k];
		switch (a->role) {
		case API_HAZARD:
			if ((a->unsafe && relaxed) || (a->n_when_arg && !arg_named(e, a)))
				break;
			if (!strcmp(a->rule->head.id, "CG408") && !host_once(w, f, e))
				break;
			report(w, f, a->rule, e, (struct cap_words){.effect = effect_for(w, a)});
			break;
		case API_ENQUEUE:
			on_stream_work(w, f, e, a, cap_arg(e, a->stream));
			break;
		case API_GRAPH_LAUNCH: {
			struct cap_stream s = cap_stream_at(c, f, e, cap_arg(e, a->stream));
			if (in_capture(w, &s, true))
				report(w, f, a->rule, e, (struct cap_words){.stream = cap_ref_name(c, &s.ref), .effect = a->effect});
			break;
		}
		case API_RECORD: {
			struct cap_stream s = cap_stream_at(c, f, e, cap_arg(e, a->stream));
			struct sir_ref ev = cap_ref_resolve(c, f, cap_arg(e, a->event));
			ev.addr = false;
			if (in_capture(w, &s, false) && w->n_recs < MAX_TRACKED)
				w->recs[w->n_recs++] = (struct recorded){ev, s, w->seq};
			break;
		}
		case API_WAIT:
			on_wait(w, f, e, a);
			break;
		case API_RELAX: {
			struct sir_ref m = cap_ref_resolve(c, f, cap_arg(e, a->mode));
			int64_t v;
			if (w->relaxed)
				w->relaxed = false;     /* the exchange back */
			else if (m.kind == REF_VAR && last_const(f->fn, m.decl, e->off, &v))
				w->relaxed = v == CAP_RELAXED;
			break;
		}
		case API_BEGIN: {
			struct sir_ref s = a->stream < 0 ? (struct sir_ref){.kind = REF_CURRENT, .decl = -1}
							 : cap_ref_resolve(c, f, cap_arg(e, a->stream));
			if (cap_ref_same(&s, &w->r->stream))
				report(w, f, pack_find(c->pack, "CG309"), e, (struct cap_words){0});
			break;
		}
		default:
			break;
		}
	}
}

/* ---- other threads ------------------------------------------------------------------------ */

/* Whether 'ev' may be an event the capture recorded (907 when another thread queries it). */
static bool captured_event(const struct walk *w, const struct cap_frame *f, struct sir_ref ev)
{
	const struct walk *cw = w->thread->capture;
	ev = cap_ref_resolve(w->c, f, ev);
	ev.addr = false;
	for (size_t k = 0; k < cw->n_recs; k++)
		if (may_same(&cw->recs[k].event, &ev))
			return true;
	return false;
}

/* A call in the body of a thread that runs beside the capture (cap_thread_effect). */
static void thread_hazard(struct walk *w, const struct cap_frame *f, const struct sir_ev *e, const struct pack_api *a)
{
	const struct cap *c = w->c;
	bool relaxed = w->relaxed || f->relaxed || e->off < f->guard_end;
	int pos[2];
	bool in = false;
	for (size_t k = 0, n = cap_thread_queried(e, pos); k < n && !in; k++)
		in = captured_event(w, f, cap_arg(e, pos[k]));
	const char *effect = cap_thread_effect(e, a->unsafe, w->r->mode == CAP_GLOBAL && !relaxed, in);
	if (!effect)
		return;
	const char *begun = arena_printf(c->arena, "begun at %s:%u", w->r->fn->ev[w->r->begin].loc.path, w->line);
	struct diag *d = report(w, f, pack_find(c->pack, "CG316"), e,
				(struct cap_words){.effect = effect, .begun = begun,
						   .var = w->thread->certain ? "started inside" : "that may run during"});
	if (d && !w->thread->certain)
		d->sev = SEV_WARNING;   /* whether the call meets the capture depends on timing */
}

static void on_thread_event(struct walk *w, struct cap_frame *f, const struct sir_ev *e)
{
	const struct cap *c = w->c;
	if (e->kind == EV_VAR) {
		const struct pack_api *g = cap_role(c, e, API_RELAX_GUARD);
		struct sir_ref m = g ? cap_arg(e, g->mode) : (struct sir_ref){.kind = REF_NONE};
		if (g && m.has_ival && m.ival == CAP_RELAXED)
			f->guard_end = e->blk_end;
		return;
	}
	if (e->kind != EV_CALL)
		return;
	size_t n;
	const struct pack_api *apis = e->name ? pack_api_find(c->pack, e->name, &n) : NULL;
	if (!apis) {
		if (e->callee >= 0 || e->indirect)
			follow(w, f, e);
		return;
	}
	for (size_t k = 0; k < n; k++) {
		const struct pack_api *a = &apis[k];
		if (a->role == API_RELAX) {
			struct sir_ref m = cap_ref_resolve(c, f, cap_arg(e, a->mode));
			int64_t v;
			if (w->relaxed)
				w->relaxed = false;
			else if (m.kind == REF_VAR && last_const(f->fn, m.decl, e->off, &v))
				w->relaxed = v == CAP_RELAXED;
			else if (m.has_ival)
				w->relaxed = m.ival == CAP_RELAXED;
		} else if (a->role == API_HAZARD) {
			thread_hazard(w, f, e, a);
			return;
		}
	}
}

/* Threads the region's function starts that may run while the capture is open: their bodies
 * (and what they call) are walked for calls that break a capture from another thread. */
static void check_threads(const struct cap *c, const struct cap_region *r, const struct walk *cw)
{
	const struct sir_fn *fn = r->fn;
	unsigned begin = fn->ev[r->begin].off, end = fn->ev[r->end].off;
	for (size_t i = 0; i < fn->n_ev; i++) {
		const struct sir_ev *e = &fn->ev[i];
		struct sir_ref handle = {.kind = REF_NONE, .decl = -1};
		unsigned shift = 0;
		int fn1 = cap_thread_start(e, &handle, &shift);
		if (!fn1 || e->off >= end || (e->loop >= 0 && e->off < begin &&
					      c->tu->loops[e->loop].end > begin))
			continue;       /* after the capture; or in a loop around its begin: not judged */
		const struct sir_ev *join = NULL;
		for (size_t j = i + 1; j < fn->n_ev && !join; j++)
			if (cap_thread_join(c, &fn->ev[j], &handle))
				join = &fn->ev[j];
		if (e->kind == EV_VAR && e->name && !strcmp(e->name, "std::jthread") && !join)
			continue;       /* joined by its destructor: not judged */
		if (join && join->off < begin)
			continue;       /* over before the capture begins */
		struct sir_ev *call = arena_alloc(c->arena, sizeof(*call));
		*call = *e;
		call->args = e->args + (shift < e->n_args ? shift : e->n_args);
		call->n_args = shift < e->n_args ? e->n_args - shift : 0;
		struct thread_run run = {e, call, join, e->off > begin, cw};
		struct walk *tw = calloc(1, sizeof(*tw));
		if (!tw)
			return;
		*tw = (struct walk){.c = c, .r = r, .origin = cw->origin, .line = cw->line, .thread = &run};
		struct cap_frame base = {.fn = fn};
		const struct sir_fn *body = &c->tu->fns[fn1 - 1];
		struct cap_frame top = {body, call, &base, 1, false, 0};
		if (!body->left_out)
			walk_fn(tw, &top, 0, body->n_ev);
		free(tw);
	}
}

static void walk_fn(struct walk *w, const struct cap_frame *f, size_t from, size_t to)
{
	struct cap_frame here = *f;
	for (size_t i = from; i < to; i++) {
		const struct sir_ev *e = &f->fn->ev[i];
		/* not the begin's own statement (CHECK(...)'s failure branch), nor outside a span */
		if (!f->call && (w->r->span ? !cap_guard_in_span(w->c->guard, w->r->span, e) : e->off < w->r->from))
			continue;
		if (!cap_guard_skips(w->c->guard, f->fn, i))  /* code a status test keeps out of captures */
			on_event(w, &here, e);
	}
}

static void check_region(const struct cap *c, const struct cap_region *r)
{
	struct cap_frame top = {.fn = r->fn};
	if (r->span) {
		struct walk w = {.c = c, .r = r, .origin = {.ref = r->stream}, .line = r->span->test.line};
		walk_fn(&w, &top, r->span->from, r->span->to);
		return;         /* no end to judge forks at */
	}
	const struct sir_ev *begin = &r->fn->ev[r->begin], *end = &r->fn->ev[r->end];
	struct walk w = {.c = c, .r = r, .origin = cap_stream_at(c, &top, begin, r->stream), .line = begin->loc.line};
	walk_fn(&w, &top, r->begin + 1, r->end);
	check_threads(c, r, &w);
	for (size_t k = 0; k < w.forks.n; k++) {
		const struct cap_fork *f = &w.forks.v[k];
		if (f->joined || f->maybe_origin)
			continue;
		struct diag *d = report(&w, &top, pack_find(c->pack, "CG401"), end,
					(struct cap_words){.stream = cap_fork_name(c, f)});
		if (d && f->short_join) {       /* a join loop whose bound stops short */
			struct diag_note *note = arena_alloc(c->arena, sizeof(*note));
			*note = (struct diag_note){f->short_join->loc, "joined back here, but not for these elements: the loop's range stops short of them"};
			d->notes = note;
			d->n_notes = 1;
		}
	}
}

struct cap_region *cap_regions(const struct cap *c, const struct sir_fn *fn, size_t *count)
{
	struct cap_region *regions = NULL;
	size_t n = 0;
	for (size_t i = 0; i < fn->n_ev; i++) {
		const struct sir_ev *b = &fn->ev[i];
		const struct pack_api *a = cap_role(c, b, API_BEGIN);
		if (!a)
			continue;
		struct sir_ref s = stream_of(a, b);
		if (is_legacy(c, &s) && a->stream >= 0) {
			cap_report(c, pack_find(c->pack, "CG310"), b, &(struct cap_words){.api = cap_words_api(c, b)});
			continue;
		}
		bool other;
		size_t j = find_end(c, a, fn, i, &s, &other);
		if (j == fn->n_ev)
			continue;       /* ended elsewhere (a begin/end wrapper pair): not judged */
		const struct sir_ev *e = &fn->ev[j];
		if (other) {
			const struct pack_api *ea = cap_role(c, e, API_END);
			struct sir_ref es = stream_of(ea, e);
			cap_report(c, pack_find(c->pack, "CG402"), e,
				   &(struct cap_words){.api = cap_words_api(c, e), .stream = cap_ref_name(c, &es), .line = b->loc.line});
		}
		regions = mem_realloc(regions, (n + 1) * sizeof(*regions));
		regions[n] = (struct cap_region){
			.fn = fn, .begin = i, .end = j, .from = b->stmt_end, .to = e->stmt_begin, .stream = s,
			.graph = b->object,
		};
		struct sir_ref m = cap_arg(b, a->mode);
		regions[n].mode = mode_of(fn, b, &m);
		check_region(c, &regions[n]);
		n++;
	}
	*count = n;
	return regions;
}

void cap_guarded(const struct cap *c, const struct sir_fn *fn)
{
	size_t n;
	struct cap_guard_span *spans = cap_guard_spans(c->guard, fn, &n);
	for (size_t k = 0; k < n; k++) {
		struct cap_region r = {.fn = fn, .stream = spans[k].stream, .graph = {.kind = REF_NONE, .decl = -1},
				       .mode = CAP_MODE_UNKNOWN, .span = &spans[k]};
		check_region(c, &r);
	}
	free(spans);
}

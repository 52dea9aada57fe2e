/* SPDX-License-Identifier: MIT */
/* cap_guard: capture-status tests, exits and error paths (see cap_guard.h). */
#include "source/cap_guard.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "config/pack.h"

#define MAX_HELPER_DEPTH 3      /* helpers followed to find what a call returns */

/* What holding (or failing) a test tells about the stream it asks about. */
enum says { SAYS_UNKNOWN, SAYS_CAPTURING, SAYS_NOT };

/* An exit in a branch: what follows it inside the arm 'up' that holds the branch runs only
 * when the branch's test failed, which may say whether the stream captures. */
struct exit_guard {
	size_t at;              /* the exit's event */
	int arm, up;
	enum says after;        /* what the branch not taken says */
	struct sir_ref stream;
};

/* A variable that holds a capture status, and the stream it is of. */
struct status_var {
	int decl;
	int sense;              /* 1: a status, or true when capturing; -1: true when not capturing */
	struct sir_ref stream;
};

struct fn_guards {
	bool done;
	struct exit_guard *v;
	size_t n;
	size_t arms_from, arms_to;      /* its arms lie in this range of sir_tu.arms */
	unsigned char vars_state;       /* its status variables: 0 not yet found, 1 finding, 2 found */
	struct status_var *vars;
	size_t n_vars;
};

struct cap_guard {
	struct arena *a;
	const struct pack *pack;
	const struct sir_tu *tu;
	unsigned char *arm_says;        /* per arm, inside it and past it: 0 not yet, else 1 + enum says */
	struct sir_ref *arm_stream;     /* per arm: the stream its test asks about */
	struct fn_guards *fns;          /* per function */
	const struct sir_fn **by_name;  /* the functions, sorted by name */
};

static int cmp_fn(const void *a, const void *b)
{
	return strcmp((*(const struct sir_fn *const *)a)->name, (*(const struct sir_fn *const *)b)->name);
}

struct cap_guard *cap_guard_new(struct arena *a, const struct pack *p, const struct sir_tu *tu)
{
	struct cap_guard *g = arena_alloc(a, sizeof(*g));
	*g = (struct cap_guard){a, p, tu};
	g->arm_says = arena_alloc(a, 2 * tu->n_arms + 1);
	g->arm_stream = arena_alloc(a, (tu->n_arms + 1) * sizeof(*g->arm_stream));
	g->fns = arena_alloc(a, (tu->n_fns + 1) * sizeof(*g->fns));
	g->by_name = arena_alloc(a, (tu->n_fns + 1) * sizeof(*g->by_name));
	for (size_t f = 0; f < tu->n_fns; f++) {
		g->fns[f].arms_from = tu->n_arms;
		g->by_name[f] = &tu->fns[f];
	}
	qsort(g->by_name, tu->n_fns, sizeof(*g->by_name), cmp_fn);
	for (size_t k = 0; k < tu->n_arms; k++) {     /* one function's arms are walked together */
		struct fn_guards *fg = tu->arms[k].fn >= 0 ? &g->fns[tu->arms[k].fn] : NULL;
		if (fg && fg->arms_from > k)
			fg->arms_from = k;
		if (fg)
			fg->arms_to = k + 1;
	}
	return g;
}

static const struct pack_api *role(const struct cap_guard *g, const char *name, enum api_role r)
{
	size_t n = 0;
	const struct pack_api *a = name ? pack_api_find(g->pack, name, &n) : NULL;
	for (size_t k = 0; a && k < n; k++)
		if (a[k].role == r)
			return &a[k];
	return NULL;
}

bool cap_guard_inside(const struct sir_tu *tu, int a, int root)
{
	if (root < 0)
		return true;
	for (; a >= 0; a = tu->arms[a].up)
		if (a == root)
			return true;
	return false;
}

/* A function of the file by name, one with a body when overloads share it. */
static const struct sir_fn *fn_named(const struct cap_guard *g, const char *name)
{
	size_t lo = 0, hi = g->tu->n_fns;
	while (name && lo < hi) {       /* the first with this name */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(g->by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; name && lo < g->tu->n_fns && !strcmp(g->by_name[lo]->name, name); lo++)
		if (g->by_name[lo]->n_ev)
			return g->by_name[lo];
	return NULL;
}

/* ---- capture-status tests ------------------------------------------------------------------ */

/*
 * A value's sense: 1 when it is a capture status (0 none, 1 active, 2 invalidated) or a truth
 * that holds when capturing, -1 a truth that holds when not (idle = st == None), 0 neither.
 */
static int status_value(struct cap_guard *g, const struct sir_fn *fn, const struct sir_cond *v, unsigned depth,
			struct sir_ref *stream);

static enum says says(struct cap_guard *g, const struct sir_fn *fn, const struct sir_cond *t, bool holds,
		      unsigned depth, struct sir_ref *stream);

/* The sense of a value that is a test of a status (capturing = st != None). */
static int test_sense(struct cap_guard *g, const struct sir_fn *fn, const struct sir_cond *t, unsigned depth,
		      struct sir_ref *stream)
{
	enum says yes = says(g, fn, t, true, depth, stream), no = says(g, fn, t, false, depth, stream);
	return yes == SAYS_CAPTURING && no == SAYS_NOT ? 1 : yes == SAYS_NOT && no == SAYS_CAPTURING ? -1 : 0;
}

/* The sense of a call's result: an API's status, or what a helper of the file returns. */
static int status_call(struct cap_guard *g, const char *name, const struct sir_ref *args, unsigned n_args,
		       unsigned depth, struct sir_ref *stream)
{
	const struct pack_api *a = role(g, name, API_STATUS);
	if (a) {
		if (a->status >= 0)
			return 0;       /* the result is an error code; the status went to an argument */
		*stream = (struct sir_ref){.kind = REF_CURRENT, .decl = -1};
		return 1;
	}
	const struct sir_fn *h = depth < MAX_HELPER_DEPTH ? fn_named(g, name) : NULL;
	if (!h)
		return 0;
	struct sir_ref s = {.kind = REF_OTHER, .decl = -1};
	int sense = 0;
	for (size_t i = 0; i < h->n_ev; i++) {
		if (h->ev[i].kind != EV_RETURN)
			continue;
		const struct sir_cond *v = h->ev[i].value;
		int r = v ? status_value(g, h, v, depth + 1, &s) : 0;
		if (v && !r)
			r = test_sense(g, h, v, depth + 1, &s);
		if (!r || (sense && r != sense))
			return 0;       /* every return the same kind of answer */
		sense = r;
	}
	/* the helper's parameter stands for what this call passes */
	if (s.kind == REF_VAR && g->tu->decls[s.decl].kind == DECL_PARAM && (unsigned)g->tu->decls[s.decl].param < n_args)
		s = args[g->tu->decls[s.decl].param];
	if (sense)
		*stream = s;
	return sense;
}

static void add_var(struct cap_guard *g, struct fn_guards *fg, int decl, int sense, struct sir_ref stream, size_t *cap)
{
	if (fg->n_vars == *cap) {
		*cap = *cap ? 2 * *cap : 4;
		struct status_var *bigger = arena_alloc(g->a, *cap * sizeof(*bigger));
		if (fg->n_vars)
			memcpy(bigger, fg->vars, fg->n_vars * sizeof(*bigger));
		fg->vars = bigger;
	}
	fg->vars[fg->n_vars++] = (struct status_var){decl, sense, stream};
}

/* The variables of 'fn' holding a capture status: the status argument of a query, a status
 * call's result, a test of one; found once, in order (while they are looked for, those found
 * so far, so a helper that calls itself ends). */
static const struct fn_guards *status_vars(struct cap_guard *g, const struct sir_fn *fn, unsigned depth)
{
	struct fn_guards *fg = &g->fns[fn - g->tu->fns];
	if (fg->vars_state)
		return fg;
	fg->vars_state = 1;
	size_t cap = 0;
	for (size_t i = 0; i < fn->n_ev; i++) {
		const struct sir_ev *e = &fn->ev[i];
		const struct pack_api *a = e->kind == EV_CALL ? role(g, e->name, API_STATUS) : NULL;
		struct sir_ref s = {.kind = REF_OTHER, .decl = -1};
		if (a && a->status >= 0 && (unsigned)a->status < e->n_args && e->args[a->status].kind == REF_VAR &&
		    !e->args[a->status].elem) {
			if ((unsigned)a->stream < e->n_args)
				s = e->args[a->stream];
			add_var(g, fg, e->args[a->status].decl, 1, s, &cap);
		}
		if (e->kind != EV_WRITE)
			continue;
		/* st = status(), the call being the event right after the write; capturing = st != None */
		const struct sir_ev *call = i + 1 < fn->n_ev ? &fn->ev[i + 1] : NULL;
		int sense = e->from_call && call && call->kind == EV_CALL && call->stmt_begin == e->stmt_begin
				    ? status_call(g, call->name, call->args, call->n_args, depth, &s) : 0;
		if (!sense && e->value)
			sense = test_sense(g, fn, e->value, depth, &s);
		if (sense)
			add_var(g, fg, e->target.decl, sense, s, &cap);
	}
	fg->vars_state = 2;
	return fg;
}

static int status_var(struct cap_guard *g, const struct sir_fn *fn, int decl, unsigned depth, struct sir_ref *stream)
{
	const struct fn_guards *fg = status_vars(g, fn, depth);
	for (size_t k = 0; k < fg->n_vars; k++)
		if (fg->vars[k].decl == decl) {
			*stream = fg->vars[k].stream;
			return fg->vars[k].sense;
		}
	return 0;
}

static int status_value(struct cap_guard *g, const struct sir_fn *fn, const struct sir_cond *v, unsigned depth,
			struct sir_ref *stream)
{
	if (v->kind == COND_REF && v->ref.kind == REF_VAR && !v->ref.elem)
		return status_var(g, fn, v->ref.decl, depth, stream);
	if (v->kind == COND_CALL)
		return status_call(g, v->name, v->args, v->n_args, depth, stream);
	return 0;
}

static enum says both(enum says x, enum says y)
{
	return x == SAYS_UNKNOWN ? y : y == SAYS_UNKNOWN || y == x ? x : SAYS_UNKNOWN;
}

/* What 't' holding (or not, '!holds') says: statuses are 0 none, 1 active, 2 invalidated. */
static enum says says(struct cap_guard *g, const struct sir_fn *fn, const struct sir_cond *t, bool holds,
		      unsigned depth, struct sir_ref *stream)
{
	switch (t->kind) {
	case COND_NOT:
		return says(g, fn, t->a, !holds, depth, stream);
	case COND_AND:
	case COND_OR: {
		enum says x = says(g, fn, t->a, holds, depth, stream), y = says(g, fn, t->b, holds, depth, stream);
		if ((t->kind == COND_AND) == holds)     /* both operands known to hold, or both to fail */
			return both(x, y);
		return x == y ? x : SAYS_UNKNOWN;
	}
	case COND_REF:
	case COND_CALL: {
		int sense = status_value(g, fn, t, depth, stream);
		return !sense ? SAYS_UNKNOWN : (sense > 0) == holds ? SAYS_CAPTURING : SAYS_NOT;
	}
	case COND_EQ:
	case COND_NE: {
		const struct sir_cond *v = t->a, *k = t->b;
		if (v->kind == COND_REF && v->ref.has_ival) {
			v = t->b;
			k = t->a;
		}
		int sense = k->kind == COND_REF && k->ref.has_ival && (k->ref.ival == 0 || k->ref.ival == 1)
				    ? status_value(g, fn, v, depth, stream) : 0;
		if (!sense)
			return SAYS_UNKNOWN;
		bool equal = (t->kind == COND_EQ) == holds;     /* the value is k, or is known not to be */
		return ((k->ref.ival == 1) == equal) == (sense > 0) ? SAYS_CAPTURING : SAYS_NOT;
	}
	default:
		return SAYS_UNKNOWN;
	}
}

/* What running inside the arm says, or (past) running where it was not taken. */
static enum says arm_says(struct cap_guard *g, int arm, bool past, struct sir_ref *stream)
{
	unsigned char *known = &g->arm_says[2 * (size_t)arm + past];
	const struct sir_arm *a = &g->tu->arms[arm];
	if (!*known) {
		struct sir_ref s = {.kind = REF_OTHER, .decl = -1};
		enum says r = a->cond && a->fn >= 0 ? says(g, &g->tu->fns[a->fn], a->cond, a->when != past, 0, &s) : SAYS_UNKNOWN;
		*known = (unsigned char)(1 + r);
		if (r != SAYS_UNKNOWN)
			g->arm_stream[arm] = s;
	}
	if (stream)
		*stream = g->arm_stream[arm];
	return (enum says)(*known - 1);
}

/* ---- exits ------------------------------------------------------------------------------- */

static bool exits(const struct cap_guard *g, const struct sir_ev *e)
{
	return e->kind == EV_RETURN || e->kind == EV_THROW || (e->kind == EV_CALL && role(g, e->name, API_EXIT));
}

static const struct fn_guards *guards_of(struct cap_guard *g, const struct sir_fn *fn)
{
	struct fn_guards *fg = &g->fns[fn - g->tu->fns];
	if (fg->done)
		return fg;
	fg->done = true;
	for (int pass = 0; pass < 2; pass++) {     /* count, then fill */
		size_t n = 0;
		for (size_t x = 0; x < fn->n_ev; x++) {
			const struct sir_ev *e = &fn->ev[x];
			struct sir_ref s;
			enum says after = e->arm >= 0 && exits(g, e) ? arm_says(g, e->arm, true, &s) : SAYS_UNKNOWN;
			if (after != SAYS_UNKNOWN && pass)
				fg->v[n] = (struct exit_guard){x, e->arm, g->tu->arms[e->arm].up, after, s};
			n += after != SAYS_UNKNOWN;
		}
		if (!pass)
			fg->v = arena_alloc(g->a, (n ? n : 1) * sizeof(*fg->v));
		fg->n = n;
	}
	return fg;
}

static bool after_guard(const struct sir_tu *tu, const struct exit_guard *x, size_t i, const struct sir_ev *e)
{
	return i > x->at && cap_guard_inside(tu, e->arm, x->up) && !cap_guard_inside(tu, e->arm, x->arm);
}

/* Whether a test says what 'want' says wherever fn->ev[i] runs: a branch that holds it, or an
 * exit before it that leaves only such paths. */
static bool under(struct cap_guard *g, const struct sir_fn *fn, size_t i, enum says want, bool exits_too)
{
	const struct sir_ev *e = &fn->ev[i];
	for (int a = e->arm; a >= 0; a = g->tu->arms[a].up)
		if (arm_says(g, a, false, NULL) == want)
			return true;
	if (!exits_too)
		return false;
	const struct fn_guards *fg = guards_of(g, fn);
	for (size_t k = 0; k < fg->n; k++)
		if (fg->v[k].after == want && after_guard(g->tu, &fg->v[k], i, e))
			return true;
	return false;
}

bool cap_guard_skips(struct cap_guard *g, const struct sir_fn *fn, size_t i)
{
	return under(g, fn, i, SAYS_NOT, true);
}

bool cap_guard_capturing_branch(struct cap_guard *g, const struct sir_fn *fn, size_t i)
{
	return under(g, fn, i, SAYS_CAPTURING, false);
}

/* ---- error paths ------------------------------------------------------------------------- */

static bool mentions(const struct sir_cond *t, int decl)
{
	return t && ((t->kind == COND_REF && t->ref.kind == REF_VAR && t->ref.decl == decl) || mentions(t->a, decl) ||
		     mentions(t->b, decl));
}

/* err != cudaSuccess, res != CUDA_SUCCESS, !(status == NCCL_SUCCESS), if (err) on an error code. */
static bool error_test(const struct sir_tu *tu, const struct sir_cond *t, bool holds)
{
	if (!t)
		return false;
	switch (t->kind) {
	case COND_NOT:
		return error_test(tu, t->a, !holds);
	case COND_AND:
	case COND_OR:
		return error_test(tu, t->a, holds) || error_test(tu, t->b, holds);
	case COND_EQ:
	case COND_NE:
		for (const struct sir_cond *k = t->a; k; k = k == t->a ? t->b : NULL)
			if (k->kind == COND_REF && k->ref.text && (strstr(k->ref.text, "uccess") || strstr(k->ref.text, "UCCESS")))
				return (t->kind == COND_NE) == holds;
		return false;
	case COND_REF: {
		const char *type = t->ref.kind == REF_VAR ? tu->decls[t->ref.decl].type : "";
		return holds && (strstr(type, "rror") || strstr(type, "esult") || strstr(type, "tatus_t"));
	}
	default:
		return false;
	}
}

/* A return from a branch that reports a failure. */
static bool failure_return(const struct sir_tu *tu, const struct sir_ev *e)
{
	if (e->arm < 0)
		return false;
	const struct sir_arm *a = &tu->arms[e->arm];
	const struct sir_ref *r = e->n_args ? &e->args[0] : NULL;
	if (r && r->has_ival)
		return r->ival != 0;
	if (r && r->kind == REF_NULL)
		return true;                    /* nullptr */
	if (r && r->kind == REF_OTHER && r->text && !strcmp(r->text, "false"))
		return true;
	if (r && r->kind == REF_VAR && mentions(a->cond, r->decl))
		return true;                    /* if (err != cudaSuccess) return err; */
	return error_test(tu, a->cond, a->when);
}

/* exit(0), exit(EXIT_SUCCESS), std::exit(0): the program's normal end, not an error path. */
static bool success_exit(const struct cap_guard *g, const struct sir_ev *e)
{
	if (e->kind != EV_CALL || !role(g, e->name, API_EXIT) || e->n_args != 1)
		return false;
	const struct sir_ref *r = &e->args[0];
	return (r->has_ival && r->ival == 0) || (r->text && !strcmp(r->text, "EXIT_SUCCESS"));
}

/* A function of the file that never returns normally: it ends in an exit at its top level. */
static bool never_returns(const struct cap_guard *g, const struct sir_ev *call)
{
	if (call->kind != EV_CALL || call->callee < 0)
		return false;
	const struct sir_fn *h = &g->tu->fns[call->callee];
	for (size_t i = 0; i < h->n_ev; i++)
		if (h->ev[i].arm < 0 && (h->ev[i].kind == EV_THROW ||
					 (h->ev[i].kind == EV_CALL && role(g, h->ev[i].name, API_EXIT) && !success_exit(g, &h->ev[i]))))
			return true;
	return false;
}

bool cap_guard_on_error_path(struct cap_guard *g, const struct sir_fn *fn, size_t i)
{
	const struct sir_ev *e = &fn->ev[i];
	for (size_t x = i + 1; x < fn->n_ev; x++) {
		const struct sir_ev *ex = &fn->ev[x];
		if (!cap_guard_inside(g->tu, e->arm, ex->arm))
			continue;               /* not on this path: another branch */
		if (success_exit(g, ex))
			return false;   /* the end of a run that went well: what leads there is the program */
		if (ex->kind == EV_THROW || (ex->kind == EV_CALL && (role(g, ex->name, API_EXIT) || never_returns(g, ex))))
			return true;
		if (ex->kind == EV_RETURN)
			return failure_return(g->tu, ex);
	}
	return false;
}

/* ---- code that runs only while capturing -------------------------------------------------- */

bool cap_guard_in_span(const struct cap_guard *g, const struct cap_guard_span *s, const struct sir_ev *e)
{
	return cap_guard_inside(g->tu, e->arm, s->in) && (s->out < 0 || !cap_guard_inside(g->tu, e->arm, s->out));
}

/* Where a status test at fn->ev[at] stops saying anything: a test inside a region (begun before
 * it) speaks for that capture, which ends at the first end after it; else the function's end. */
static size_t region_end(const struct cap_guard *g, const struct sir_fn *fn, size_t at)
{
	bool begun = false;
	for (size_t i = 0; i < at && !begun; i++)
		begun = role(g, fn->ev[i].name, API_BEGIN) != NULL;
	for (size_t i = at + 1; begun && i < fn->n_ev; i++)
		if (role(g, fn->ev[i].name, API_END))
			return i;
	return fn->n_ev;
}

struct cap_guard_span *cap_guard_spans(struct cap_guard *g, const struct sir_fn *fn, size_t *n)
{
	struct cap_guard_span *v = NULL;
	*n = 0;
	int fi = (int)(fn - g->tu->fns);
	/* the outermost arms whose test says the stream captures */
	for (size_t a = g->fns[fi].arms_from; a < g->fns[fi].arms_to; a++) {
		struct sir_ref s;
		if (g->tu->arms[a].fn != fi || arm_says(g, (int)a, false, &s) != SAYS_CAPTURING)
			continue;
		bool outer = true;
		for (int up = g->tu->arms[a].up; up >= 0 && outer; up = g->tu->arms[up].up)
			outer = arm_says(g, up, false, NULL) != SAYS_CAPTURING;
		struct cap_guard_span sp = {fn->n_ev, 0, (int)a, -1, g->tu->arms[a].loc, s};
		for (size_t i = 0; i < fn->n_ev; i++)
			if (cap_guard_inside(g->tu, fn->ev[i].arm, (int)a)) {
				sp.from = sp.from < i ? sp.from : i;
				sp.to = i + 1;
			}
		if (!outer || sp.from >= sp.to)
			continue;
		v = mem_realloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = sp;
	}
	/* what follows an exit taken when the stream does not capture */
	const struct fn_guards *fg = guards_of(g, fn);
	for (size_t k = 0; k < fg->n; k++) {
		const struct exit_guard *x = &fg->v[k];
		if (x->after != SAYS_CAPTURING || x->at + 1 >= fn->n_ev)
			continue;
		v = mem_realloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = (struct cap_guard_span){x->at + 1, region_end(g, fn, x->at), x->up, x->arm,
						    g->tu->arms[x->arm].loc, x->stream};
	}
	return v;
}

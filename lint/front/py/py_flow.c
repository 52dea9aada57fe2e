/* SPDX-License-Identifier: MIT */
/* py_flow: if/elif/else in a recipe, walked on the paths that may run (see py_fn.h). */
#include <stdlib.h>

#include "base/strmap.h"
#include "front/py/py_fn.h"

#define MAX_BRANCHES 64

/* What one branch did: its records and its names afterwards. */
struct branch {
	struct py_rec *recs;
	size_t n;
	struct py_var *vars;
	size_t n_vars;
	bool done;
};

static bool same_var(const struct py_var *a, const struct py_var *b)
{
	if (!a || !b)
		return a == b;
	if (a->prefix || b->prefix)
		return a->prefix && b->prefix && !strcmp(a->prefix, b->prefix);
	return a->has_val == b->has_val && (!a->has_val || (a->val.kind == b->val.kind && a->val.kind != V_UNKNOWN &&
							       value_equal(&a->val, &b->val)));
}

static const struct py_var *find_var(const struct py_var *vars, size_t n, const char *name)
{
	for (size_t k = 0; k < n; k++)
		if (!strcmp(vars[k].name, name))
			return &vars[k];
	return NULL;
}

/* The latest SET of 'key' in a branch's records, or NULL when a FORGET/TOUCH over it came later
 * ('*gone') or it is not there. */
static const struct py_rec *last_set(const struct branch *b, const char *key, bool *gone)
{
	*gone = false;
	for (size_t k = b->n; k-- > 0;) {
		const struct py_rec *r = &b->recs[k];
		if (r->op == PY_SET && !strcmp(r->key, key))
			return r;
		if ((r->op == PY_FORGET || r->op == PY_TOUCH) && py_unit_under(key, r->key)) {
			*gone = true;
			return NULL;
		}
	}
	return NULL;
}

static void merge(struct fn *f, struct branch *br, size_t nb, const char *why)
{
	struct py_log *l = &f->log;
	/* replaced or touched sections first: what was there is unknown on some path */
	for (size_t b = 0; b < nb; b++)
		for (size_t k = 0; k < br[b].n; k++)
			if (br[b].recs[k].op == PY_FORGET || br[b].recs[k].op == PY_TOUCH)
				py_unit_forget(l, br[b].recs[k].key, br[b].recs[k].op == PY_TOUCH, why);
	struct strmap seen = {0};
	size_t at;
	for (size_t b = 0; b < nb; b++)
		for (size_t k = 0; k < br[b].n; k++) {
			const struct py_rec *r = &br[b].recs[k];
			if (r->op == PY_SPREAD) {
				py_unit_mark(l, PY_SPREAD, r->key, r->loc);
				continue;
			}
			if (r->op == PY_CLOSE) {        /* closed on every path, else not */
				bool all = true;
				for (size_t o = 0; o < nb && all; o++) {
					bool found = false;
					for (size_t j = 0; j < br[o].n && !found; j++)
						found = br[o].recs[j].op == PY_CLOSE && !strcmp(br[o].recs[j].key, r->key);
					all = found;
				}
				if (all && !strmap_get(&seen, r->key, strlen(r->key), &at)) {
					strmap_put(&seen, r->key, strlen(r->key), 0);
					py_unit_mark(l, PY_CLOSE, r->key, r->loc);
				}
				continue;
			}
			if (r->op != PY_SET || strmap_get(&seen, r->key, strlen(r->key), &at))
				continue;
			strmap_put(&seen, r->key, strlen(r->key), 0);
			/* its value on each path: the branch's last write, else what it was before */
			struct value before;
			const char *bw;
			bool had = py_fn_get(f, r->key, &before, &bw);
			const struct py_rec *first = NULL;
			bool equal = true;
			struct value v = value_unknown;
			for (size_t o = 0; o < nb; o++) {
				bool gone;
				const struct py_rec *w = last_set(&br[o], r->key, &gone);
				struct value here = w ? w->val : had && !gone ? before : value_unknown;
				if (!first && w)
					first = w;
				if (o == 0)
					v = here;
				equal &= here.kind != V_UNKNOWN && v.kind == here.kind && value_equal(&v, &here);
			}
			if (!first)
				continue;
			struct py_rec out = *first;
			if (!equal) {
				out.val = value_unknown;
				out.val.loc = out.loc;
				out.why = why;
			}
			py_unit_put(l, out.key, out.val, out.loc, out.why);
			if (out.via.path)
				l->recs[l->n - 1].via = out.via;
		}
	strmap_release(&seen);
}

static void merge_vars(struct fn *f, struct branch *br, size_t nb, const char *why)
{
	for (size_t b = 0; b < nb; b++)
		for (size_t k = 0; k < br[b].n_vars; k++) {
			const char *name = br[b].vars[k].name;
			const struct py_var *v0 = find_var(br[0].vars, br[0].n_vars, name);
			bool equal = true;
			for (size_t o = 1; o < nb && equal; o++)
				equal = same_var(v0, find_var(br[o].vars, br[o].n_vars, name));
			if (equal && v0 && v0->prefix)
				py_unit_bind_object(&f->log, name, v0->prefix, v0->why);
			else if (equal && v0 && v0->has_val)
				py_unit_bind_value(&f->log, name, v0->val, v0->why);
			else if (!equal && find_var(br[0].vars, br[0].n_vars, name) && find_var(br[0].vars, br[0].n_vars, name)->prefix)
				py_unit_bind_object(&f->log, name, py_unit_new_ns(&f->log), why);
			else
				py_unit_bind_value(&f->log, name, value_unknown, why);
		}
}

/* An if statement whose condition is not known, in the file linted: on a walk of one path
 * (struct py_choice) its chosen branch only ('*nb' becomes 1), else it is one of the unit's
 * forks. False when the branch chosen ran nothing. */
static bool take_path(struct fn *f, TSNode st, TSNode cond, TSNode *bodies, size_t *nb)
{
	const struct py_choice *pick = f->pass->pick;
	unsigned at = ts_node_start_byte(st);
	for (size_t k = 0; pick && k < pick->n; k++)
		if (pick->bytes[k] == at && pick->picks[k] < *nb) {
			bodies[0] = bodies[pick->picks[k]];
			*nb = 1;
			return !ts_node_is_null(bodies[0]);
		}
	f->forks = arena_grow(f->a, f->forks, f->n_forks, &f->cap_forks, sizeof(*f->forks));
	f->forks[f->n_forks++] = (struct py_fork){py_loc(f->path, cond), py_snippet(f, cond), at, (unsigned)*nb};
	return true;
}

/* What two paths return: each item kept where both give the same object or an equal value. */
static struct py_ret merge_ret(struct fn *f, const struct py_ret *a, const struct py_ret *b, const char *why)
{
	if (a->n != b->n || a->tuple != b->tuple) {
		struct py_ret u = {.n = 1, .ns = arena_alloc(f->a, sizeof(char *)),
				   .val = arena_alloc(f->a, sizeof(struct value)), .why = arena_alloc(f->a, sizeof(char *))};
		u.ns[0] = NULL;
		u.val[0] = value_unknown;
		u.why[0] = arena_printf(f->a, "returned %s", why);
		return u;
	}
	struct py_ret m = {.n = a->n, .tuple = a->tuple, .ns = arena_alloc(f->a, (a->n + 1) * sizeof(char *)),
			   .val = arena_alloc(f->a, (a->n + 1) * sizeof(struct value)),
			   .why = arena_alloc(f->a, (a->n + 1) * sizeof(char *))};
	for (size_t k = 0; k < a->n; k++) {
		bool same = a->ns[k] || b->ns[k] ? a->ns[k] && b->ns[k] && !strcmp(a->ns[k], b->ns[k])
			  : py_obj_equal(&a->val[k], &b->val[k]) == TRI_TRUE && a->val[k].kind == b->val[k].kind;
		m.ns[k] = same ? a->ns[k] : NULL;
		m.val[k] = same ? a->val[k] : value_unknown;
		m.why[k] = same ? a->why[k] : arena_printf(f->a, "returned %s", why);
	}
	return m;
}

void py_flow_return(struct fn *f, const struct py_ret *r)
{
	if (!f->ret.n)
		f->ret = *r;
	else if (f->ret_open)
		f->ret = merge_ret(f, &f->ret, r, f->ret_open);
	f->ret_open = NULL;
}

void py_flow_if(struct fn *f, TSNode st)
{
	TSNode bodies[MAX_BRANCHES];
	size_t nb = 0;
	bool open = true;               /* no branch taken for sure yet: the rest may run */
	bool has_else = false;
	const char *why = NULL;
	TSNode undecided = {0};         /* the first condition not known */
	TSNode cond = py_field(st, "condition"), body = py_field(st, "consequence");
	uint32_t next = 0, n_children = ts_node_named_child_count(st);
	while (open && nb < MAX_BRANCHES) {
		if (!ts_node_is_null(cond)) {
			const char *cw;
			struct value c = py_eval(f, cond, &cw, 0);
			enum tri t = value_truth(&c);
			if (t == TRI_UNKNOWN && ts_node_is_null(undecided))
				undecided = cond;
			if (t == TRI_UNKNOWN && !why)
				why = arena_printf(f->a, "set under 'if %s:' (unknown condition%s%s)", py_snippet(f, cond),
						   cw ? ": " : "", cw ? cw : "");
			if (t != TRI_FALSE)
				bodies[nb++] = body;
			if (t == TRI_TRUE)
				open = false;
		} else {
			bodies[nb++] = body;    /* else */
			has_else = true;
			open = false;
		}
		if (!open)
			break;
		/* the next elif or else */
		TSNode alt = {0};
		for (; next < n_children; next++) {
			TSNode c = ts_node_named_child(st, next);
			if (py_is(c, "elif_clause") || py_is(c, "else_clause")) {
				alt = c;
				next++;
				break;
			}
		}
		if (ts_node_is_null(alt))
			break;
		cond = py_is(alt, "elif_clause") ? py_field(alt, "condition") : (TSNode){0};
		body = py_is(alt, "elif_clause") ? py_field(alt, "consequence") : py_field(alt, "body");
	}
	if (open && !has_else)
		bodies[nb++] = (TSNode){0};     /* no branch ran */
	if (nb >= 2 && f->pass && f->mod == f->pass->top && !take_path(f, st, undecided, bodies, &nb))
		return;
	if (nb == 1) {
		if (!ts_node_is_null(bodies[0]))
			py_walk_block(f, bodies[0]);
		return;
	}
	if (nb == 0)
		return;
	struct branch br[MAX_BRANCHES + 1];
	size_t n0 = f->log.n, nv0 = f->log.n_vars;
	struct py_var *vars0 = mem_alloc((nv0 ? nv0 : 1) * sizeof(*vars0));
	if (nv0)
		memcpy(vars0, f->log.vars, nv0 * sizeof(*vars0));
	bool done0 = f->done, all_done = true;
	struct py_ret ret0 = f->ret, *rets = arena_alloc(f->a, nb * sizeof(*rets));
	const char *open0 = f->ret_open;
	bool partial = false;
	for (size_t b = 0; b < nb; b++) {
		if (!ts_node_is_null(bodies[b]))
			py_walk_block(f, bodies[b]);
		rets[b] = f->ret;       /* what it returned, with what ran before */
		partial |= !f->done || f->ret_open;
		f->ret = ret0;
		f->ret_open = open0;
		br[b].n = f->log.n - n0;
		br[b].recs = arena_alloc_raw(f->a, (br[b].n ? br[b].n : 1) * sizeof(*br[b].recs));
		if (br[b].n)
			memcpy(br[b].recs, f->log.recs + n0, br[b].n * sizeof(*br[b].recs));
		br[b].n_vars = f->log.n_vars;
		br[b].vars = arena_alloc(f->a, (br[b].n_vars ? br[b].n_vars : 1) * sizeof(*br[b].vars));
		if (br[b].n_vars)
			memcpy(br[b].vars, f->log.vars, br[b].n_vars * sizeof(*br[b].vars));
		all_done &= f->done;
		/* back to the state before the statement */
		f->log.n = n0;
		f->log.n_vars = nv0;
		if (nv0)
			memcpy(f->log.vars, vars0, nv0 * sizeof(*vars0));
		f->done = done0;
	}
	free(vars0);
	merge(f, br, nb, why ? why : "set under an if statement");
	merge_vars(f, br, nb, why ? why : "set under an if statement");
	f->done = all_done;
	/* what the paths that returned give; a later return merges with it where some did not */
	const char *rw = why && !strncmp(why, "set ", 4) ? why + 4 : "under an if statement";
	for (size_t b = 0; b < nb; b++)
		if (rets[b].n)
			f->ret = f->ret.n ? merge_ret(f, &f->ret, &rets[b], rw) : rets[b];
	f->ret_open = f->ret.n && partial && !all_done ? rw : NULL;
}

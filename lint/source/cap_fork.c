/* SPDX-License-Identifier: MIT */
/* cap_fork: forked streams per element range (see cap_fork.h). */
#include "source/cap_fork.h"

#include <string.h>

#include "base/mem.h"
#include "source/cap.h"
#include "source/cap_ref.h"

static const struct sir_bound unknown = {.known = false};

/* A bound read in frame 'f': a parameter in it stands for what the caller passed. */
static struct sir_bound bound_in(const struct cap *c, const struct cap_frame *f, struct sir_bound b)
{
	if (!b.known || !b.var1 || !cap_ref_param(c, f, b.var1 - 1))
		return b;
	struct sir_ref a = cap_ref_resolve(c, f, (struct sir_ref){.kind = REF_VAR, .decl = b.var1 - 1});
	if (a.has_ival)
		return (struct sir_bound){true, 0, a.ival + b.add};
	if (a.kind == REF_VAR && !a.elem)
		return (struct sir_bound){true, a.decl + 1, b.add};
	return unknown;
}

static struct sir_bound plus(struct sir_bound b, int64_t n)
{
	b.add += n;
	return b;
}

/* The loop around 'at' that counts with 'var1' (innermost first), or NULL. */
static const struct sir_loop *counting(const struct sir_tu *tu, const struct sir_ev *at, int var1)
{
	for (int l = at->loop; l >= 0; l = tu->loops[l].up)
		if (tu->loops[l].var1 == var1)
			return &tu->loops[l];
	return NULL;
}

struct cap_stream cap_stream_at(const struct cap *c, const struct cap_frame *f, const struct sir_ev *e, struct sir_ref raw)
{
	raw = cap_ref_alias(c, raw);    /* cudaStream_t cur = streams[i % n]: an element */
	struct cap_stream s = {cap_ref_resolve(c, f, raw), unknown, unknown};
	if (!raw.elem)
		return s;
	if (raw.const_index) {
		s.lo = (struct sir_bound){true, 0, raw.index};
		s.hi = plus(s.lo, 1);
		return s;
	}
	int var1 = raw.index_var1;
	const struct sir_ev *at = e;
	for (unsigned hops = 0; var1 && hops <= CAP_MAX_DEPTH; hops++) {
		const struct sir_loop *l = counting(c->tu, at, var1);
		if (l) {        /* a loop's counter: the elements the loop visits */
			s.lo = l->lo.known ? plus(bound_in(c, f, l->lo), raw.index) : unknown;
			s.hi = l->hi.known ? plus(bound_in(c, f, l->hi), raw.index) : unknown;
			return s;
		}
		const struct sir_decl *d = cap_ref_param(c, f, var1 - 1);
		if (!d) {       /* another variable: one element, whichever it is */
			s.lo = (struct sir_bound){true, var1, raw.index};
			s.hi = plus(s.lo, 1);
			return s;
		}
		struct sir_ref a = f->call->args[d->param];
		if (a.has_ival) {
			s.lo = (struct sir_bound){true, 0, a.ival + raw.index};
			s.hi = plus(s.lo, 1);
			return s;
		}
		if (a.kind != REF_VAR || a.elem)
			return s;
		var1 = a.decl + 1;
		at = f->call;
		f = f->up;
	}
	return s;
}

/* a < b, a <= b as far as cglint can tell: both bounds known, of the same variable. */
static bool less(struct sir_bound a, struct sir_bound b, bool or_equal)
{
	return a.known && b.known && a.var1 == b.var1 && (or_equal ? a.add <= b.add : a.add < b.add);
}

static bool same_array(const struct cap_stream *a, const struct cap_stream *b)
{
	return a->ref.kind == REF_VAR && b->ref.kind == REF_VAR && a->ref.elem && b->ref.elem && a->ref.decl == b->ref.decl;
}

bool cap_stream_may_meet(const struct cap_stream *a, const struct cap_stream *b)
{
	if (!same_array(a, b))
		return cap_ref_same(&a->ref, &b->ref);
	return !less(a->hi, b->lo, true) && !less(b->hi, a->lo, true);
}

bool cap_stream_must_meet(const struct cap_stream *a, const struct cap_stream *b)
{
	if (!same_array(a, b))
		return cap_ref_same(&a->ref, &b->ref) && (!a->ref.elem || a->ref.const_index);
	/* one range holds the other (both are elements something was done on, so not empty), or
	 * each starts before the other ends */
	return (less(a->lo, b->lo, true) && less(b->hi, a->hi, true)) || (less(b->lo, a->lo, true) && less(a->hi, b->hi, true)) ||
	       (less(a->lo, b->hi, false) && less(b->lo, a->hi, false));
}

bool cap_forks_has(const struct cap_forks *k, const struct cap_stream *s, bool must)
{
	for (size_t i = 0; i < k->n; i++)
		if (must ? cap_stream_must_meet(&k->v[i].s, s) : cap_stream_may_meet(&k->v[i].s, s))
			return true;
	return false;
}

static bool same_range(const struct cap_stream *a, const struct cap_stream *b)
{
	return less(a->lo, b->lo, true) && less(b->lo, a->lo, true) && less(a->hi, b->hi, true) && less(b->hi, a->hi, true);
}

void cap_forks_add(struct cap_forks *k, const struct cap_stream *s, const struct cap_stream *origin, unsigned seq)
{
	struct cap_stream n = *s;
	if (same_array(&n, origin)) {   /* for (i = 0; ...) wait(streams[i]) with streams[0] the origin */
		if (less(n.lo, origin->lo, true) && less(origin->lo, n.lo, true))
			n.lo = plus(n.lo, 1);
		if (less(n.hi, origin->hi, true) && less(origin->hi, n.hi, true))
			n.hi = plus(n.hi, -1);
		if (less(n.hi, n.lo, true))
			return;
	}
	/* streams[k] may be the origin itself, which needs no join: tracked, never reported */
	bool maybe_origin = same_array(&n, origin) && cap_stream_may_meet(&n, origin);
	struct cap_fork *to = NULL;
	for (size_t i = 0; i < k->n && !to; i++)
		if (same_array(&k->v[i].s, &n) ? same_range(&k->v[i].s, &n) : cap_ref_same(&k->v[i].s.ref, &n.ref))
			to = &k->v[i];
	/* a stream cglint cannot name is not tracked, but an array's element is, as some element */
	bool nameable = (n.ref.kind != REF_OTHER && n.ref.kind != REF_POOL) || n.ref.elem;
	if (!to && k->n < CAP_MAX_FORKS && nameable)
		to = &k->v[k->n++];
	if (to)
		*to = (struct cap_fork){n, false, seq, NULL, maybe_origin};
}

void cap_forks_work(struct cap_forks *k, const struct cap_stream *s, unsigned seq)
{
	for (size_t i = 0; i < k->n; i++)
		if (cap_stream_must_meet(&k->v[i].s, s)) {
			k->v[i].joined = false;         /* work after the last join needs another */
			k->v[i].last_work = seq;
		}
}

void cap_forks_join(struct cap_forks *k, const struct cap_stream *on, unsigned seq, const struct sir_ev *at)
{
	for (size_t i = 0; i < k->n; i++) {
		struct cap_fork *f = &k->v[i];
		if (f->joined || seq < f->last_work || !cap_stream_may_meet(&f->s, on))
			continue;
		/* elements of the fork the join's range certainly leaves out, below it or above it */
		bool below = same_array(&f->s, on) && less(f->s.lo, on->lo, false);
		bool above = same_array(&f->s, on) && less(on->hi, f->s.hi, false);
		if (below && above)
			f->short_join = at;
		else if (above)
			f->s.lo = on->hi, f->short_join = at;
		else if (below)
			f->s.hi = on->lo, f->short_join = at;
		else
			f->joined = true;
	}
}

static const char *bound_words(const struct cap *c, struct sir_bound b)
{
	if (!b.var1)
		return arena_printf(c->arena, "%lld", (long long)b.add);
	const char *v = c->tu->decls[b.var1 - 1].name;
	if (!b.add)
		return v;
	return arena_printf(c->arena, "%s %c %lld", v, b.add < 0 ? '-' : '+', (long long)(b.add < 0 ? -b.add : b.add));
}

const char *cap_fork_name(const struct cap *c, const struct cap_fork *f)
{
	const struct sir_ref *r = &f->s.ref;
	if (r->kind != REF_VAR || !r->elem || !f->s.lo.known || !f->s.hi.known || f->s.lo.var1 != f->s.hi.var1 || !f->short_join)
		return cap_ref_name(c, r);
	const char *text = r->text ? r->text : c->tu->decls[r->decl].name;
	const char *bracket = strchr(text, '[');
	int len = bracket ? (int)(bracket - text) : (int)strlen(text);
	if (f->s.hi.add - f->s.lo.add == 1)
		return arena_printf(c->arena, "'%.*s[%s]'", len, text, bound_words(c, f->s.lo));
	return arena_printf(c->arena, "'%.*s[%s]' to '%.*s[%s]'", len, text, bound_words(c, f->s.lo), len, text,
			    bound_words(c, plus(f->s.hi, -1)));
}

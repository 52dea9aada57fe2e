/* SPDX-License-Identifier: MIT */
/* py_unit: a Python function's config records, replayed and summed up (see py_unit.h). */
#include "front/py/py_unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/strmap.h"
#include "front/py/py_bridge.h"

void py_unit_init(struct py_log *l, struct arena *a)
{
	*l = (struct py_log){.a = a};
}

void py_unit_release(struct py_log *l)
{
	free(l->recs);
	free(l->vars);
	strmap_release(&l->written);
	strmap_release(&l->last);
	strmap_release(&l->marked);
	*l = (struct py_log){0};
}

const char *py_unit_var(const struct py_log *l, const char *name)
{
	for (size_t k = l->n_vars; k-- > 0;)
		if (!strcmp(l->vars[k].name, name))
			return l->vars[k].prefix;
	return NULL;
}

static bool too_deep(const char *key)
{
	unsigned parts = 1;
	for (const char *p = key; (p = strchr(p, '.')); p++)
		if (++parts > PY_UNIT_MAX_PARTS)
			return true;
	return false;
}

static struct py_var *var_slot(struct py_log *l, const char *name, bool make)
{
	for (size_t k = 0; k < l->n_vars; k++)
		if (!strcmp(l->vars[k].name, name))
			return &l->vars[k];
	if (!make)
		return NULL;
	if (l->n_vars == l->cap_vars) {
		l->cap_vars = l->cap_vars ? 2 * l->cap_vars : 16;
		l->vars = mem_realloc(l->vars, l->cap_vars * sizeof(*l->vars));
	}
	l->vars[l->n_vars] = (struct py_var){.name = arena_strdup(l->a, name)};
	return &l->vars[l->n_vars++];
}

void py_unit_bind(struct py_log *l, const char *name, const char *prefix)
{
	if (prefix && too_deep(prefix))
		prefix = NULL;
	struct py_var *v = var_slot(l, name, prefix != NULL);
	if (v)
		*v = (struct py_var){.name = v->name, .prefix = prefix};
}

bool py_unit_value(const struct py_log *l, const char *name, struct value *out, const char **why)
{
	for (size_t k = l->n_vars; k-- > 0;)
		if (!strcmp(l->vars[k].name, name)) {
			if (!l->vars[k].has_val)
				return false;
			*out = l->vars[k].val;
			*why = l->vars[k].why;
			return true;
		}
	return false;
}

void py_unit_bind_value(struct py_log *l, const char *name, struct value v, const char *why)
{
	struct py_var *s = var_slot(l, name, true);
	*s = (struct py_var){.name = s->name, .has_val = true, .val = v, .why = v.kind == V_UNKNOWN ? why : NULL};
}

void py_unit_bind_object(struct py_log *l, const char *name, const char *prefix, const char *why)
{
	py_unit_bind(l, name, prefix);
	struct py_var *v = var_slot(l, name, false);
	if (v && v->prefix)
		v->why = why;
}

const char *py_unit_var_why(const struct py_log *l, const char *name)
{
	for (size_t k = l->n_vars; k-- > 0;)
		if (!strcmp(l->vars[k].name, name))
			return l->vars[k].prefix ? l->vars[k].why : NULL;
	return NULL;
}

/* Whether 'key' (of length klen) is 'prefix' (of length n) or a key under it: most keys end or
 * go on elsewhere, so the lengths and the byte after the prefix answer before the compare. */
static inline bool under_len(const char *key, size_t klen, const char *prefix, size_t n)
{
	return klen >= n && (klen == n || key[n] == '.') && !memcmp(key, prefix, n);
}

/* The record py_unit_get answers from, the log read from its end: the latest write of 'key' or
 * forget of a section above it; NULL for none. */
static const struct py_rec *scan_for(const struct py_log *l, const char *key, size_t len)
{
	size_t h = strmap_hash(key, len);
	for (size_t k = l->n; k-- > 0;) {
		const struct py_rec *r = &l->recs[k];
		if ((r->op == PY_SET && r->hash == h && r->len == len && !strcmp(r->key, key)) ||
		    ((r->op == PY_FORGET || r->op == PY_TOUCH) && under_len(key, len, r->key, r->len)))
			return r;
	}
	return NULL;
}

/* The record index 'm' (l->last: writes, l->marked: forgets) holds for key[0..n): 1 with *r, 0
 * for none, -1 where the log was cut back below it since. */
static int indexed(const struct py_log *l, const struct strmap *m, bool set, const char *key, size_t n,
		   size_t hash, const struct py_rec **r)
{
	size_t at;
	if (!strmap_get_hashed(m, key, n, hash, &at))
		return 0;
	*r = at < l->n ? &l->recs[at] : NULL;
	bool kind = *r && (set ? (*r)->op == PY_SET : (*r)->op == PY_FORGET || (*r)->op == PY_TOUCH);
	return kind && (*r)->len == n && !strncmp((*r)->key, key, n) ? 1 : -1;
}

/* The same through the indices: the key's latest write, unless a forget of it or of a section
 * above it came after. */
static const struct py_rec *find(const struct py_log *l, const char *key, size_t len)
{
	if (l->n && !l->last.n && !l->marked.n)
		return scan_for(l, key, len);   /* records the log did not take itself */
	const struct py_rec *best = NULL;
	for (size_t n = 0; n <= len; n++) {     /* the key itself, and each section above it */
		if (n < len && key[n] != '.')
			continue;
		size_t h = strmap_hash(key, n);         /* one hash for both maps */
		for (int set = 0; set <= (n == len); set++) {
			const struct py_rec *r;
			int got = indexed(l, set ? &l->last : &l->marked, set, key, n, h, &r);
			if (got < 0)
				return scan_for(l, key, len);   /* cut back: an earlier record may stand */
			if (got && (!best || r > best))
				best = r;
		}
	}
	return best;
}

bool py_unit_get(const struct py_log *l, const char *key, struct value *out, const char **why)
{
	const struct py_rec *r = find(l, key, strlen(key));
	if (!r)
		return false;
	*out = r->op == PY_SET ? r->val : value_unknown;
	*why = r->why;
	return true;
}

const char *py_unit_new_ns(struct py_log *l)
{
	return arena_printf(l->a, "#%u", l->next_ns++);
}

bool py_unit_under(const char *key, const char *prefix)
{
	return under_len(key, strlen(key), prefix, strlen(prefix));
}

static void rec_one(struct py_log *l, struct py_rec r);

/* A record; a write to a field of a mixed_precision section that MixedPrecisionConfig.__setattr__
 * keeps equal to another (fp8_param, fp8_param_gather) writes that one too, as Python does on
 * every assignment; copies and replays come through here, in order, so the pair stays equal. */
static void rec(struct py_log *l, struct py_rec r)
{
	rec_one(l, r);
	size_t stem;
	const char *other = r.op == PY_SET && l->a ? py_bridge_mp_partner(r.key, &stem) : NULL;
	if (other && !l->over) {
		r.key = arena_printf(l->a, "%.*s%s", (int)stem, r.key, other);
		rec_one(l, r);
	}
}

static void rec_one(struct py_log *l, struct py_rec r)
{
	if (too_deep(r.key))
		return;
	if (l->n >= PY_UNIT_MAX_RECS) {
		l->over = true;
		return;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->recs = mem_realloc(l->recs, l->cap * sizeof(*l->recs));
	}
	r.len = (unsigned)strlen(r.key);
	r.hash = strmap_hash(r.key, r.len);
	size_t at = l->n;
	bool added;
	l->recs[l->n++] = r;
	if (r.op == PY_FORGET || r.op == PY_TOUCH)
		*strmap_ref(&l->marked, r.key, r.len, r.hash, at, &added) = at;
	if (r.op != PY_SET)
		return;
	*strmap_ref(&l->last, r.key, r.len, r.hash, at, &added) = at;
	/* lowest index wins: a branch's records are taken back (py_flow) and the next ones reuse
	 * their indices */
	for (const char *p = r.key;; p++)       /* keys are kept by the arena: they do not move */
		if (*p == '.' || !*p) {
			size_t n = (size_t)(p - r.key);
			size_t *first = strmap_ref(&l->written, r.key, n, *p ? strmap_hash(r.key, n) : r.hash, at, &added);
			if (*first > at)
				*first = at;
			if (!*p)
				break;
		}
}

void py_unit_form(struct py_log *l, size_t from, const char *key, enum py_form form)
{
	for (size_t k = from; k < l->n; k++)
		if (l->recs[k].op == PY_SET && (!key || !strcmp(l->recs[k].key, key)))
			l->recs[k].form = form;
}

void py_unit_put(struct py_log *l, const char *key, struct value v, struct loc loc, const char *why)
{
	if (v.kind == V_STR && v.i < 0) {      /* a class the evaluator holds (py_fn.h): no value */
		why = arena_printf(l->a, "'%s' is a class, not a value cglint holds", v.s);
		v = value_unknown;
		v.loc = loc;
	}
	rec(l, (struct py_rec){PY_SET, key, v, loc, v.kind == V_UNKNOWN ? why : NULL, {0}});
}

void py_unit_mark(struct py_log *l, enum py_op op, const char *key, struct loc loc)
{
	rec(l, (struct py_rec){op, key, value_unknown, loc, NULL, {0}});
}

void py_unit_forget(struct py_log *l, const char *prefix, bool touch, const char *why)
{
	/* each key's latest write under 'prefix' that is known becomes unknown, in the order they
	 * were written. Scanned from the end: a key's first record met is its latest, and the scan
	 * stops at a forget of 'prefix' or of a section above it, before which every key known under
	 * it was made unknown already (repeated forgets of one object cost what was written since) */
	struct strmap seen = {0};
	size_t len = strlen(prefix), from = 0, n_known = 0, cap = 0;
	size_t *known = NULL;
	if (!strmap_get(&l->written, prefix, len, &from))
		from = l->n;    /* nothing was ever set under it */
	for (size_t k = l->n; k-- > from;) {
		const struct py_rec *q = &l->recs[k];
		if ((q->op == PY_FORGET || q->op == PY_TOUCH) && under_len(prefix, len, q->key, q->len))
			break;
		if (q->op != PY_SET || !under_len(q->key, q->len, prefix, len))
			continue;
		bool added;
		strmap_ref(&seen, q->key, q->len, q->hash, k, &added);
		if (!added)
			continue;       /* the key's latest write was met first */
		if (q->val.kind != V_UNKNOWN) {
			if (n_known == cap)
				known = mem_realloc(known, (cap = cap ? 2 * cap : 16) * sizeof(*known));
			known[n_known++] = k;
		}
	}
	strmap_release(&seen);
	while (n_known-- > 0) {
		struct py_rec r = l->recs[known[n_known]];     /* a copy: rec() may move the records */
		r.val = value_unknown;
		r.val.loc = r.loc;
		r.why = why;
		rec(l, r);
	}
	free(known);
	rec(l, (struct py_rec){touch ? PY_TOUCH : PY_FORGET, prefix, value_unknown, {0}, why, {0}});
}

static const char *rename_key(struct py_log *l, const char *key, const char *from, const char *to)
{
	const char *rest = key + strlen(from);
	size_t n = strlen(to), m = strlen(rest);
	char *out = arena_alloc_raw(l->a, n + m + 1);
	memcpy(out, to, n);
	memcpy(out + n, rest, m + 1);
	return out;
}

bool py_unit_copy(struct py_log *l, const char *from, const char *to)
{
	size_t n = l->n, from_len = strlen(from);
	bool any = false;
	for (size_t k = 0; k < n; k++) {
		struct py_rec r = l->recs[k];
		if ((r.op == PY_SET || r.op == PY_CLOSE || r.op == PY_SPREAD) && under_len(r.key, r.len, from, from_len)) {
			r.key = rename_key(l, r.key, from, to);
			rec(l, r);
			any = true;
		}
	}
	return any;
}

void py_unit_replay(struct py_log *l, const struct py_rec *recs, size_t n, const char *const *from,
		    const char *const *to, size_t n_map, struct loc via)
{
	for (size_t k = 0; k < n; k++) {
		for (size_t m = 0; m < n_map; m++) {
			struct py_rec r = recs[k];      /* taken by a log: its length is set */
			if (!under_len(r.key, r.len, from[m], strlen(from[m])))
				continue;
			r.key = rename_key(l, r.key, from[m], to[m]);
			if (via.path)
				r.via = via;
			if (r.op == PY_FORGET || r.op == PY_TOUCH)
				py_unit_forget(l, r.key, r.op == PY_TOUCH, r.why);
			else
				rec(l, r);
		}
	}
}

const char *py_unit_busiest(const struct py_log *l, struct arena *a)
{
	const char *ns = NULL;
	size_t best = 0;
	for (unsigned k = 0; k < l->next_ns; k++) {
		char id[16];
		size_t id_len = (size_t)snprintf(id, sizeof(id), "#%u", k), count = 0;
		for (size_t j = 0; j < l->n; j++)
			count += l->recs[j].op == PY_SET && under_len(l->recs[j].key, l->recs[j].len, id, id_len);
		if (count > best) {
			best = count;
			ns = arena_strdup(a, id);
		}
	}
	return ns;
}

void py_unit_result(const struct py_log *l, const char *ns, struct arena *a, struct py_unit *out)
{
	out->keys = NULL;
	out->n_keys = 0;
	out->env_spread = false;
	out->closed = NULL;
	out->n_closed = 0;
	out->over = l->over;
	if (!ns)
		return;
	size_t m = strlen(ns), cnt = 0, n_closed = 0;
	const char *env = arena_printf(a, "%s.env_vars", ns);
	/* room for every record; the first cnt (n_closed) are written and read */
	out->keys = arena_alloc_raw(a, (l->n ? l->n : 1) * sizeof(*out->keys));
	const char **closed = arena_alloc_raw(a, (l->n ? l->n : 1) * sizeof(*closed));
	for (size_t j = 0; j < l->n; j++) {
		const struct py_rec *r = &l->recs[j];
		if (!under_len(r->key, r->len, ns, m))
			continue;
		const char *key = r->key[m] == '.' ? r->key + m + 1 : "";
		switch (r->op) {
		case PY_SET:
			if (*key)
				out->keys[cnt++] = (struct py_key){key, r->val, r->loc, r->why, r->via, r->form};
			break;
		case PY_SPREAD:
			out->env_spread |= !strcmp(r->key, env);
			break;
		case PY_CLOSE:
			if (*key)
				closed[n_closed++] = key;
			break;
		case PY_FORGET:
		case PY_TOUCH:
			if (py_unit_under(env, r->key))
				out->env_spread = false;
			/* a replaced section is no longer the class's; one that unknown code may
			 * change, or that holds such a part, no longer has known defaults */
			for (size_t c = 0; c < n_closed;) {
				bool gone = py_unit_under(closed[c], key) || !*key ||
					    (r->op == PY_TOUCH && py_unit_under(key, closed[c]));
				if (gone)
					closed[c] = closed[--n_closed];
				else
					c++;
			}
			break;
		}
	}
	out->n_keys = cnt;
	out->closed = closed;
	out->n_closed = n_closed;
}

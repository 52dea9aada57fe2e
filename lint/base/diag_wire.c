/* SPDX-License-Identifier: MIT */
/* diag_wire: length-prefixed fields in the order of struct diag (see diag_wire.h). */
#include "base/diag_wire.h"

#include <stdint.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"

static const char magic[4] = {'C', 'G', 'W', '2'};

void diag_wire_put_u32(struct sbuf *o, uint32_t v)
{
	sbuf_addn(o, (const char *)&v, sizeof(v));
}

void diag_wire_put_str(struct sbuf *o, const char *s, size_t n)        /* length + 1, 0 for NULL */
{
	diag_wire_put_u32(o, s ? (uint32_t)n + 1 : 0);
	if (s)
		sbuf_addn(o, s, n);
}

static void put_str(struct sbuf *o, const char *s)
{
	diag_wire_put_str(o, s, s ? strlen(s) : 0);
}

static void put_loc(struct sbuf *o, struct loc l)
{
	put_str(o, l.path);
	diag_wire_put_u32(o, l.line);
	diag_wire_put_u32(o, l.col);
}

void diag_wire_put(struct sbuf *o, const struct diag_list *l)
{
	const struct diag_rules *rules = l->rules;
	sbuf_addn(o, magic, sizeof(magic));
	diag_wire_put_u32(o, l->input_error);
	diag_wire_put_u32(o, (uint32_t)l->n);
	for (size_t k = 0; k < l->n; k++) {
		const struct diag *d = &l->items[k];
		put_str(o, ((const struct diag_rule *)d->rule)->id);
		diag_wire_put_u32(o, rules && rules->index ? rules->index(rules->owner, d->rule) : UINT32_MAX);
		diag_wire_put_u32(o, d->sev);
		put_loc(o, d->loc);
		put_str(o, d->message);
		put_str(o, d->fix);
		put_str(o, d->mirrors);
		put_str(o, d->key);
		put_str(o, d->fingerprint);
		diag_wire_put_u32(o, d->supp);
		put_str(o, d->supp_reason);
		put_str(o, d->unit);
		diag_wire_put_u32(o, (uint32_t)d->n_notes);
		for (size_t i = 0; i < d->n_notes; i++) {
			put_loc(o, d->notes[i].loc);
			put_str(o, d->notes[i].message);
		}
	}
}

uint32_t diag_wire_get_u32(struct diag_wire_in *in)
{
	uint32_t v = 0;
	if ((size_t)(in->end - in->p) < sizeof(v)) {
		in->bad = true;
		return 0;
	}
	memcpy(&v, in->p, sizeof(v));
	in->p += sizeof(v);
	return v;
}

const char *diag_wire_get_str(struct diag_wire_in *in, size_t *n)
{
	uint32_t m = diag_wire_get_u32(in);
	*n = 0;
	if (!m || in->bad)
		return NULL;
	if ((size_t)(in->end - in->p) < m - 1) {
		in->bad = true;
		return NULL;
	}
	const char *s = in->p;
	in->p += m - 1;
	*n = m - 1;
	return s;
}

struct reader {
	struct diag_wire_in in;
	struct arena *a;
	const char *path;
};

static uint32_t get_u32(struct reader *r)
{
	return diag_wire_get_u32(&r->in);
}

static const char *get_str(struct reader *r)
{
	size_t n;
	const char *s = diag_wire_get_str(&r->in, &n);
	if (!s)
		return NULL;
	if (r->path && strlen(r->path) == n && !memcmp(s, r->path, n))
		return r->path;
	return arena_strndup(r->a, s, n);
}

static struct loc get_loc(struct reader *r)
{
	struct loc l = {.path = get_str(r)};
	l.line = get_u32(r);
	l.col = get_u32(r);
	return l;
}

int diag_wire_get(struct diag_list *l, const char *buf, size_t len, const char *path)
{
	struct reader r = {{buf, buf + len, false}, l->arena, path};
	const struct diag_rules *rules = l->rules;
	if (len < sizeof(magic) || memcmp(buf, magic, sizeof(magic)) || !rules)
		return -1;
	r.in.p += sizeof(magic);
	bool input_error = get_u32(&r);
	uint32_t n = get_u32(&r);
	size_t before = l->n;
	for (uint32_t k = 0; k < n && !r.in.bad; k++) {
		const char *id = get_str(&r);
		uint32_t at = get_u32(&r);
		const struct rule *rule = id && rules->at ? rules->at(rules->owner, at) : NULL;
		if (id && (!rule || strcmp(((const struct diag_rule *)rule)->id, id)))
			rule = rules->find(rules->owner, id);   /* not the same table: by id */
		struct diag d = {.rule = rule};
		d.sev = (enum sev)get_u32(&r);
		d.loc = get_loc(&r);
		d.message = get_str(&r);
		d.fix = get_str(&r);
		d.mirrors = get_str(&r);
		d.key = get_str(&r);
		d.fingerprint = get_str(&r);
		d.supp = (enum diag_supp)get_u32(&r);
		d.supp_reason = get_str(&r);
		d.unit = get_str(&r);
		uint32_t nn = get_u32(&r);
		if (nn > (size_t)(r.in.end - r.in.p) / (4 * sizeof(uint32_t)))
			r.in.bad = true;        /* each note takes at least four numbers: no allocation from a bad count */
		struct diag_note *notes = !r.in.bad && nn ? arena_alloc(l->arena, nn * sizeof(*notes)) : NULL;
		for (uint32_t i = 0; i < nn && !r.in.bad; i++) {
			notes[i].loc = get_loc(&r);
			notes[i].message = get_str(&r);
		}
		d.notes = notes;
		d.n_notes = r.in.bad ? 0 : nn;
		if (!d.rule || !d.message || d.sev > SEV_ERROR)
			r.in.bad = true;
		if (!r.in.bad)
			diag_push(l, &d);
	}
	if (r.in.bad || r.in.p != r.in.end) {
		l->n = before;
		return -1;
	}
	l->input_error |= input_error;
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* diag_wire: length-prefixed fields in the order of struct diag (see diag_wire.h). */
#include "base/diag_wire.h"

#include <stdint.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"

static const char magic[4] = {'C', 'G', 'W', '1'};

static void put_u32(struct sbuf *o, uint32_t v)
{
	sbuf_addn(o, (const char *)&v, sizeof(v));
}

static void put_str(struct sbuf *o, const char *s)      /* length + 1, 0 for NULL */
{
	size_t n = s ? strlen(s) : 0;
	put_u32(o, s ? (uint32_t)n + 1 : 0);
	sbuf_addn(o, s ? s : "", n);
}

static void put_loc(struct sbuf *o, struct loc l)
{
	put_str(o, l.path);
	put_u32(o, l.line);
	put_u32(o, l.col);
}

void diag_wire_put(struct sbuf *o, const struct diag_list *l)
{
	sbuf_addn(o, magic, sizeof(magic));
	put_u32(o, l->input_error);
	put_u32(o, (uint32_t)l->n);
	for (size_t k = 0; k < l->n; k++) {
		const struct diag *d = &l->items[k];
		put_str(o, ((const struct diag_rule *)d->rule)->id);
		put_u32(o, d->sev);
		put_loc(o, d->loc);
		put_str(o, d->message);
		put_str(o, d->fix);
		put_str(o, d->mirrors);
		put_str(o, d->key);
		put_str(o, d->fingerprint);
		put_u32(o, d->supp);
		put_str(o, d->supp_reason);
		put_str(o, d->unit);
		put_u32(o, (uint32_t)d->n_notes);
		for (size_t i = 0; i < d->n_notes; i++) {
			put_loc(o, d->notes[i].loc);
			put_str(o, d->notes[i].message);
		}
	}
}

struct reader {
	const char *p, *end;
	struct arena *a;
	const char *path;
	bool bad;
};

static uint32_t get_u32(struct reader *r)
{
	uint32_t v = 0;
	if ((size_t)(r->end - r->p) < sizeof(v)) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p, sizeof(v));
	r->p += sizeof(v);
	return v;
}

static const char *get_str(struct reader *r)
{
	uint32_t n = get_u32(r);
	if (!n)
		return NULL;
	if ((size_t)(r->end - r->p) < n - 1) {
		r->bad = true;
		return NULL;
	}
	const char *s = r->p;
	r->p += n - 1;
	if (r->path && strlen(r->path) == n - 1 && !memcmp(s, r->path, n - 1))
		return r->path;
	return arena_strndup(r->a, s, n - 1);
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
	struct reader r = {buf, buf + len, l->arena, path, false};
	if (len < sizeof(magic) || memcmp(buf, magic, sizeof(magic)) || !l->rules)
		return -1;
	r.p += sizeof(magic);
	bool input_error = get_u32(&r);
	uint32_t n = get_u32(&r);
	size_t before = l->n;
	for (uint32_t k = 0; k < n && !r.bad; k++) {
		const char *id = get_str(&r);
		struct diag d = {.rule = id ? l->rules->find(l->rules->owner, id) : NULL};
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
		if (nn > (size_t)(r.end - r.p) / (4 * sizeof(uint32_t)))
			r.bad = true;   /* each note takes at least four numbers: no allocation from a bad count */
		struct diag_note *notes = !r.bad && nn ? arena_alloc(l->arena, nn * sizeof(*notes)) : NULL;
		for (uint32_t i = 0; i < nn && !r.bad; i++) {
			notes[i].loc = get_loc(&r);
			notes[i].message = get_str(&r);
		}
		d.notes = notes;
		d.n_notes = r.bad ? 0 : nn;
		if (!d.rule || !d.message || d.sev > SEV_ERROR)
			r.bad = true;
		if (!r.bad)
			diag_push(l, &d);
	}
	if (r.bad || r.p != r.end) {
		l->n = before;
		return -1;
	}
	l->input_error |= input_error;
	return 0;
}

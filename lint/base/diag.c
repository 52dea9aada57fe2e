/* SPDX-License-Identifier: MIT */
/* diag: the diagnostic list and its funnel. */
#include "base/diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A rule starts with its diag_rule (C11 6.7.2.1p15: a pointer to a struct, suitably converted,
 * points to its first member). */
static const struct diag_rule *head(const struct rule *r)
{
	return (const struct diag_rule *)(const void *)r;
}

void diag_init(struct diag_list *l, struct arena *a, const struct diag_rules *rules, const struct diag_filter *f)
{
	*l = (struct diag_list){.arena = a, .rules = rules, .filter = f};
}

void diag_release(struct diag_list *l)
{
	free(l->items);
	l->items = NULL;
	l->n = l->cap = 0;
}

/* Ids and ALL in any case, as inline suppressions take them; names as written. */
bool diag_matches(const char *pat, const struct rule *r)
{
	if (!strcasecmp(pat, "ALL"))
		return true;
	if (!strcmp(pat, head(r)->name))
		return true;
	return !strncasecmp(head(r)->id, pat, strlen(pat));
}

static bool any_match(const char **pats, size_t n, const struct rule *r)
{
	for (size_t i = 0; i < n; i++)
		if (diag_matches(pats[i], r))
			return true;
	return false;
}

/* Like ruff: the longer (more specific) of a matching select and ignore wins. */
static size_t best_match(const char **pats, size_t n, const struct rule *r)
{
	size_t best = 0;
	for (size_t i = 0; i < n; i++)
		if (diag_matches(pats[i], r)) {
			size_t len = !strcasecmp(pats[i], "ALL") ? 0 : strcmp(pats[i], head(r)->name) ? strlen(pats[i]) : 99;
			if (len + 1 > best)
				best = len + 1;
		}
	return best;
}

bool diag_selected(const struct diag_filter *f, const struct rule *r)
{
	if (!f)
		return true;
	size_t sel = f->n_select ? best_match(f->select, f->n_select, r) : 1;
	if (!sel)
		return false;
	size_t ign = any_match(f->ignore, f->n_ignore, r) ? best_match(f->ignore, f->n_ignore, r) : 0;
	return sel > ign;
}

void diag_push(struct diag_list *l, const struct diag *d)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->items = mem_realloc(l->items, l->cap * sizeof(*l->items));
	}
	l->items[l->n++] = *d;
}

struct diag *diag_report(struct diag_list *l, const struct rule *r, struct loc loc, const char *message,
			 const char *fix, const char *mirrors)
{
	/* Unreadable or unparsable input decides the exit status even when its id is ignored. */
	const struct diag_rule *h = head(r);
	if (!strncmp(h->id, "CG9", 3) && h->sev == SEV_ERROR)
		l->input_error = true;
	if (!diag_selected(l->filter, r))
		return NULL;
	diag_push(l, &(struct diag){
		.rule = r, .sev = h->sev, .loc = loc, .message = message, .fix = fix, .mirrors = mirrors,
	});
	return &l->items[l->n - 1];
}

void diag_move(struct diag_list *dst, struct diag_list *src)
{
	if (dst->n + src->n > dst->cap) {
		dst->cap = dst->n + src->n;
		dst->items = mem_realloc(dst->items, dst->cap * sizeof(*dst->items));
	}
	if (src->n)
		memcpy(dst->items + dst->n, src->items, src->n * sizeof(*src->items));
	dst->n += src->n;
	dst->input_error |= src->input_error;
	diag_release(src);
}

void diag_input(struct diag_list *l, const char *id, struct loc loc, const char *fmt, ...)
{
	const struct rule *r = l->rules ? l->rules->find(l->rules->owner, id) : NULL;
	if (!r) {
		fprintf(stderr, "cglint: internal error: no rule %s in the built-in packs\n", id);
		exit(3);
	}
	va_list ap;
	va_start(ap, fmt);
	const char *msg = arena_vprintf(l->arena, fmt, ap);
	va_end(ap);
	diag_report(l, r, loc, msg, head(r)->fix, NULL);
}

static int cmp_diag(const void *pa, const void *pb)
{
	const struct diag *a = pa, *b = pb;
	int c = strcmp(a->loc.path ? a->loc.path : "", b->loc.path ? b->loc.path : "");
	if (c)
		return c;
	if (a->loc.line != b->loc.line)
		return a->loc.line < b->loc.line ? -1 : 1;
	if (a->loc.col != b->loc.col)
		return a->loc.col < b->loc.col ? -1 : 1;
	return strcmp(head(a->rule)->id, head(b->rule)->id);
}

static bool same_diag(const struct diag *a, const struct diag *b)
{
	return a->rule == b->rule && a->loc.line == b->loc.line && a->loc.col == b->loc.col &&
	       !strcmp(a->loc.path ? a->loc.path : "", b->loc.path ? b->loc.path : "") &&
	       !strcmp(a->message, b->message);
}

/* Sorted by position; one report per finding, when several units of a file (the commands of
 * a launch script) share the line that caused it. */
void diag_sort(struct diag_list *l)
{
	if (l->n < 2)
		return;
	qsort(l->items, l->n, sizeof(*l->items), cmp_diag);
	size_t out = 1;
	for (size_t k = 1; k < l->n; k++)
		if (!same_diag(&l->items[out - 1], &l->items[k]))
			l->items[out++] = l->items[k];
	l->n = out;
}

size_t diag_count_at_least(const struct diag_list *l, enum sev s)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->items[i].sev >= s;
	return n;
}

const char *diag_sev_name(enum sev s)
{
	static const char *const names[] = {"note", "warning", "error"};
	return names[s];
}

int diag_sev_parse(const char *s, enum sev *out)
{
	for (int i = SEV_NOTE; i <= SEV_ERROR; i++)
		if (!strcmp(s, diag_sev_name((enum sev)i))) {
			*out = (enum sev)i;
			return 0;
		}
	return -1;
}

int diag_fail_on_parse(const char *s, int *out)
{
	enum sev sev;
	if (!strcmp(s, "undecided"))
		*out = DIAG_FAIL_UNDECIDED;
	else if (diag_sev_parse(s, &sev))
		return -1;
	else
		*out = (int)sev;
	return 0;
}

size_t diag_filter_out(struct diag_list *l, size_t from, bool (*keep)(struct diag *d, void *ctx), void *ctx)
{
	size_t w = from;
	for (size_t k = from; k < l->n; k++)
		if (keep(&l->items[k], ctx))
			l->items[w++] = l->items[k];
	size_t gone = l->n - w;
	l->n = w;
	return gone;
}

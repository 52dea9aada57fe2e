/* SPDX-License-Identifier: MIT */
/* post: config filters, inline suppressions, fingerprints, baseline (see post.h). */
#include "run/post.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base/diag.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "base/suggest.h"
#include "config/pack.h"
#include "config/proj.h"
#include "input/text.h"
#include "report/baseline.h"
#include "report/supp.h"
#include "run/lint.h"

/* ---- .cglint.yaml: selection, severities, and rule packs scoped to their config ---- */

static bool config_keep(struct diag *d, void *ctx)
{
	struct proj *pj = ctx;
	/* an input that cannot be read fails the run: hiding why would leave a bare status 2,
	 * and a config's own mistakes would otherwise be filtered by that config */
	if (!d->loc.path || (d->rule->head.sev == SEV_ERROR && !strncmp(d->rule->head.id, "CG9", 3)))
		return true;
	if (!proj_rule_applies(pj, d->rule, d->loc.path))
		return false;
	struct proj_settings s;
	if (!proj_settings(pj, d->loc.path, &s))
		return true;
	if (!diag_selected(&s.filter, d->rule))
		return false;
	for (size_t k = 0; k < s.n_sevs; k++)
		if (diag_matches(s.sev_ids[k], d->rule))
			d->sev = s.sevs[k];
	return true;
}

/* ---- inline suppressions ---- */

struct supp_file {
	struct supp *items;
	size_t n;
};

struct supp_ctx {
	struct strmap by_path;          /* path -> index into files */
	struct supp_file *files;
	size_t suppressed;
	struct diag_list *aside;        /* the suppressed findings, kept marked */
};

static bool names(const char *written, const struct rule *r)
{
	return !strcasecmp(written, r->head.id) || !strcmp(written, r->head.name) || !strcasecmp(written, "all");
}

static bool supp_keep(struct diag *d, void *ctx)
{
	struct supp_ctx *c = ctx;
	size_t f;
	if (!d->loc.path || !strmap_get(&c->by_path, d->loc.path, strlen(d->loc.path), &f))
		return true;
	for (size_t k = 0; k < c->files[f].n; k++) {
		struct supp *s = &c->files[f].items[k];
		if (s->scope != SUPP_FILE && (s->line != d->loc.line || !d->loc.line))
			continue;
		for (size_t i = 0; i < s->n_rules; i++)
			if (names(s->rules[i], d->rule)) {
				s->used[i] = true;
				c->suppressed++;
				d->supp = DIAG_SUPP_INLINE;
				d->supp_reason = s->reason;
				diag_push(c->aside, d);
				return false;
			}
	}
	return true;
}

/* Ids are matched regardless of case, as supp_keep() matches them. */
static const struct rule *find_rule(const struct pack *p, const char *written)
{
	for (size_t k = 0; k < p->n_rules; k++)
		if (names(written, p->rules[k]))
			return p->rules[k];
	return NULL;
}

/* Directives that are malformed, name no rule, or covered nothing are findings themselves. */
static void report_unused(struct lint_run *r, const struct supp_file *f)
{
	const struct pack *p = r->pack;
	for (size_t k = 0; k < f->n; k++) {
		const struct supp *s = &f->items[k];
		if (s->error) {
			diag_input(&r->diags, "CG914", s->at, "%s", s->error);
			continue;
		}
		for (size_t i = 0; i < s->n_rules; i++) {
			const struct rule *rule = find_rule(p, s->rules[i]);
			if (!rule) {
				const char *best = pack_closest_rule(p, s->rules[i]);
				diag_input(&r->diags, "CG914", s->at, "no rule '%s' to disable%s%s%s", s->rules[i],
					   best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
			} else if (!s->used[i]) {
				diag_input(&r->diags, "CG913", s->at, "this suppression of %s covers nothing%s", s->rules[i],
					   s->scope == SUPP_FILE ? " in this file"
					   : s->line ? arena_printf(r->arena, " on line %u", s->line) : "");
			}
		}
	}
}

static size_t suppress(struct lint_run *r)
{
	struct supp_ctx c = {.aside = &r->suppressed};
	size_t n = text_count(r->texts);
	c.files = mem_alloc((n + 1) * sizeof(*c.files));
	for (size_t k = 0; k < n; k++) {
		const char *buf;
		size_t len;
		const char *path = text_at(r->texts, k, &buf, &len);
		c.files[k].n = supp_scan(r->arena, path, buf, len, &c.files[k].items);
		if (c.files[k].n)
			strmap_put(&c.by_path, path, strlen(path), k);
	}
	diag_filter_out(&r->diags, 0, supp_keep, &c);
	for (size_t k = 0; k < n; k++)
		report_unused(r, &c.files[k]);
	strmap_release(&c.by_path);
	free(c.files);
	return c.suppressed;
}

/* ---- fingerprints ---- */

/* Text without digits and with runs of blanks as one: line numbers in a message and
 * re-indentation do not change a fingerprint. */
static void add_normalized(struct sbuf *sb, const char *s, size_t n)
{
	bool space = false;
	for (size_t k = 0; k < n; k++) {
		unsigned char ch = (unsigned char)s[k];
		if (isdigit(ch))
			continue;
		if (isspace(ch)) {
			space = sb->len > 0;
			continue;
		}
		if (space)
			sbuf_addc(sb, ' ');
		space = false;
		sbuf_addc(sb, (char)ch);
	}
	sbuf_addc(sb, '\0');
}

/* The diagnostics are sorted: walk each file's lines forward instead of from its start each time. */
struct cursor {
	const char *path, *buf, *at;    /* 'at': the start of line 'line' */
	size_t len;
	unsigned line;
};

static const char *line_of(struct lint_run *r, struct cursor *c, const struct diag *d, size_t *n)
{
	if (!d->loc.line || !d->loc.path)
		return NULL;
	if (!c->path || strcmp(c->path, d->loc.path) || d->loc.line < c->line) {
		*c = (struct cursor){.path = d->loc.path};
		if (!text_get(r->texts, d->loc.path, &c->buf, &c->len)) {
			c->buf = NULL;
			return NULL;
		}
		c->at = c->buf;
		c->line = 1;
	}
	if (!c->buf)
		return NULL;
	const char *l = text_line(c->at, c->len - (size_t)(c->at - c->buf), d->loc.line - c->line + 1, n);
	if (l) {
		c->at = l;
		c->line = d->loc.line;
	}
	return l;
}

/*
 * A fingerprint hashes the rule, the message and the text of the finding's line (not the line
 * number), plus how many identical ones came before it in the file, so moving code keeps it.
 */
static void fingerprint(struct lint_run *r, struct diag_list *l)
{
	struct strmap seen = {0};
	size_t *counts = mem_alloc((l->n + 1) * sizeof(*counts));
	struct sbuf sb;
	sbuf_init(&sb);
	struct cursor cur = {0};
	for (size_t k = 0; k < l->n; k++) {
		struct diag *d = &l->items[k];
		size_t n = 0;
		sb.len = 0;
		sbuf_adds(&sb, d->rule->head.id);
		sbuf_addc(&sb, '\0');
		add_normalized(&sb, d->message ? d->message : "", d->message ? strlen(d->message) : 0);
		const char *line = line_of(r, &cur, d, &n);
		add_normalized(&sb, line ? line : "", n);
		XXH64_hash_t h = XXH3_64bits(sb.buf, sb.len);
		/* the n-th identical finding of a file */
		const char *key = arena_printf(r->arena, "%s\n%016llx", d->loc.path ? d->loc.path : "",
					       (unsigned long long)h);
		size_t idx;
		if (!strmap_get(&seen, key, strlen(key), &idx)) {
			idx = k;
			strmap_put(&seen, key, strlen(key), idx);
		}
		size_t nth = counts[idx]++;
		if (nth)
			h = XXH3_64bits_withSeed(&h, sizeof(h), nth);
		d->fingerprint = arena_printf(r->arena, "%016llx", (unsigned long long)h);
	}
	sbuf_release(&sb);
	free(counts);
	strmap_release(&seen);
}

/* ---- one finding per place ---------------------------------------------------------------- */

/* A recipe finding, by what it says apart from its unit. */
struct said {
	size_t k;
	const struct diag *d;
	size_t len;                     /* of its message without " (in UNIT)" */
};

static int cmp_said(const void *pa, const void *pb)
{
	const struct said *a = pa, *b = pb;
	int c = strcmp(a->d->loc.path ? a->d->loc.path : "", b->d->loc.path ? b->d->loc.path : "");
	if (!c)
		c = a->d->loc.line != b->d->loc.line ? (a->d->loc.line < b->d->loc.line ? -1 : 1)
		  : a->d->loc.col != b->d->loc.col ? (a->d->loc.col < b->d->loc.col ? -1 : 1) : 0;
	if (!c)
		c = a->d->rule != b->d->rule ? (a->d->rule < b->d->rule ? -1 : 1) : 0;
	if (!c)
		c = a->len != b->len ? (a->len < b->len ? -1 : 1) : memcmp(a->d->message, b->d->message, a->len);
	return c ? c : a->k < b->k ? -1 : a->k > b->k;
}

static bool same_said(const struct said *a, const struct said *b)
{
	return a->d->rule == b->d->rule && a->len == b->len && a->d->loc.line == b->d->loc.line &&
	       a->d->loc.col == b->d->loc.col && !strcmp(a->d->loc.path ? a->d->loc.path : "", b->d->loc.path ? b->d->loc.path : "") &&
	       !memcmp(a->d->message, b->d->message, a->len);
}

static const char merged[] = "";        /* the unit of a finding merged into another */

static bool not_merged(struct diag *d, void *ctx)
{
	(void)ctx;
	return d->unit != merged;
}

enum { UNITS_NAMED = 3 };

/* A helper or base recipe that many recipe functions call gives each of them the same finding
 * at the same line: one finding there, naming the functions. */
static void merge_units(struct lint_run *r)
{
	struct diag_list *l = &r->diags;
	struct said *s = mem_alloc((l->n ? l->n : 1) * sizeof(*s));
	size_t n = 0;
	for (size_t k = 0; k < l->n; k++) {
		const struct diag *d = &l->items[k];
		size_t m = strlen(d->message), u = d->unit ? strlen(d->unit) + 6 : 0;
		if (d->unit && m >= u)
			s[n++] = (struct said){k, d, m - u};
	}
	qsort(s, n, sizeof(*s), cmp_said);
	bool dropped = false;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && same_said(&s[i], &s[j]); j++)
			;
		if (j - i < 2)
			continue;
		struct sbuf m;
		sbuf_init(&m);
		sbuf_addn(&m, s[i].d->message, s[i].len);
		sbuf_printf(&m, " (in %zu functions: ", j - i);
		for (size_t x = i; x < j && x < i + UNITS_NAMED; x++)
			sbuf_printf(&m, "%s%s", x > i ? ", " : "", s[x].d->unit);
		if (j - i > UNITS_NAMED)
			sbuf_printf(&m, " and %zu more", j - i - UNITS_NAMED);
		sbuf_addc(&m, ')');
		struct diag *keep = &l->items[s[i].k];       /* the first reported: s is in order within a group */
		keep->message = arena_strdup(l->arena, m.buf);
		keep->unit = NULL;
		for (size_t x = i + 1; x < j; x++)
			l->items[s[x].k].unit = merged;
		dropped = true;
		sbuf_release(&m);
	}
	free(s);
	if (dropped)
		diag_filter_out(l, 0, not_merged, NULL);
}

/* CG922 and CG923 are said once a run: -j workers each find the release, the first in order stays. */
static bool first_release_warning(struct diag *d, void *ctx)
{
	bool *seen = ctx;
	int k = !d->rule ? -1 : !strcmp(d->rule->head.id, "CG922") ? 0 : !strcmp(d->rule->head.id, "CG923") ? 1 : -1;
	if (k < 0)
		return true;
	bool keep = !seen[k];
	seen[k] = true;
	return keep;
}

static bool decided(struct diag *d, void *ctx)
{
	if (d->supp != DIAG_OPEN)
		return true;
	diag_push(ctx, d);
	return false;
}

void post_run(struct lint_run *r, bool inline_supp, const struct baseline *b, struct post_counts *c)
{
	*c = (struct post_counts){0};
	merge_units(r);
	diag_filter_out(&r->diags, 0, decided, &r->undecided);
	diag_sort(&r->undecided);
	if (r->proj)
		diag_filter_out(&r->diags, 0, config_keep, r->proj);
	if (inline_supp) {
		size_t before = r->diags.n;
		c->suppressed = suppress(r);
		before -= c->suppressed;
		if (r->proj)    /* the suppression findings obey the config too */
			diag_filter_out(&r->diags, before, config_keep, r->proj);
	}
	diag_sort(&r->diags);
	diag_filter_out(&r->diags, 0, first_release_warning, (bool[2]){false, false});
	fingerprint(r, &r->diags);
	/* suppressed findings count among themselves: a suppression does not move a finding's fingerprint */
	diag_sort(&r->suppressed);
	fingerprint(r, &r->suppressed);
	if (b) {
		size_t before = r->suppressed.n;
		c->baselined = baseline_apply(b, &r->diags, &r->suppressed);
		if (before && r->suppressed.n > before)
			diag_sort(&r->suppressed);
	}
}

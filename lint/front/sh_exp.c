/* SPDX-License-Identifier: MIT */
/* sh_exp: a word expanded while it is scanned, into items, then split into fields. */
#include "front/sh_exp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "front/sh_items.h"
#include "front/sh_lex.h"
#include "front/sh_var.h"


/* ---- variables, as expansions read them ---- */

/* Whether the selected value is empty (for the ':' forms of ${X:-word}). */
enum { SEL_ONE, SEL_AT, SEL_STAR };

static bool is_null(const struct sh_v *v, int sel, size_t idx)
{
	if (sel == SEL_ONE)
		return idx >= v->nel || !v->el[idx].n;
	return !v->nel || (v->nel == 1 && !v->el[0].n);
}

static void put_var(struct sh *s, struct sh_items *o, const struct sh_v *v, int sel, size_t idx, bool quoted,
		    size_t doff, bool *at_seen)
{
	unsigned char k = quoted ? K_CH : K_SPLIT;
	if (sel == SEL_ONE) {
		if (idx < v->nel)
			sh_items_put_el(s, o, &v->el[idx], k);
		return;
	}
	for (size_t i = 0; i < v->nel && !o->cut; i++) {
		if (quoted && sel == SEL_AT) {
			if (i)
				sh_items_put(s, o, doff, 0, K_BRK);
			sh_items_put(s, o, doff, 0, K_KEEP);
		} else if (i) {
			sh_items_put(s, o, doff, ' ', k);
		}
		sh_items_put_el(s, o, &v->el[i], k);
	}
	if (quoted && sel == SEL_AT && at_seen)
		*at_seen = true;
}

/* ---- expansion ---- */

static int hexval(char c)
{
	return sh_is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10
	       : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
}

/* $'...' at *pos. */
static int ansi(struct sh *s, size_t *pos, struct sh_items *o)
{
	const char *t = s->t;
	size_t p = *pos, q = p + 2, n = s->n;
	while (q < n && t[q] != '\'') {
		size_t w = q;
		char c = t[q++];
		if (c == '\\' && q < n) {
			char e = t[q++];
			int v = 0, k = 0;
			switch (e) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'a': c = 7; break;
			case 'b': c = 8; break;
			case 'e': case 'E': c = 27; break;
			case 'f': c = 12; break;
			case 'v': c = 11; break;
			case '\\': case '\'': case '"': case '?': c = e; break;
			case 'x':
				for (; k < 2 && q < n && hexval(t[q]) >= 0; k++)
					v = v * 16 + hexval(t[q++]);
				if (!k)
					sh_items_put(s, o, w, '\\', K_CH);
				c = k ? (char)v : 'x';
				break;
			default:
				if (e >= '0' && e <= '7') {
					v = e - '0';
					for (k = 1; k < 3 && q < n && t[q] >= '0' && t[q] <= '7'; k++)
						v = v * 8 + (t[q++] - '0');
					c = (char)v;
				} else {
					/* bash keeps the backslash of an unknown escape */
					sh_items_put(s, o, w, '\\', K_CH);
					c = e;
				}
			}
		}
		sh_items_put(s, o, w, c, K_CH);
	}
	if (q >= n)
		return sh_lex_fail(s, p, "unterminated $'...' quote");
	sh_items_put(s, o, p, 0, K_KEEP);
	*pos = q + 1;
	return 0;
}

static void put_number(struct sh *s, struct sh_items *o, size_t off, size_t v)
{
	char buf[32];
	int k = snprintf(buf, sizeof(buf), "%zu", v);
	for (int i = 0; i < k; i++)
		sh_items_put(s, o, off, buf[i], K_CH);
}

/* ${...} at *pos (the '$'). */
static int brace(struct sh *s, size_t *pos, int x, int depth, struct sh_items *o, bool *at_seen)
{
	size_t b = *pos, q = b + 2;
	bool quoted = x == X_DQ || x == X_BRACE_DQ;
	unsigned char cl = quoted ? CL_BRACE_DQ : CL_BRACE;
	bool len = false, special = false;
	if (sh_at(s, q) == '#' && sh_at(s, q + 1) != '}' &&
	    (sh_name_char(sh_at(s, q + 1)) || sh_in_set(sh_at(s, q + 1), "@*")))
		len = true, q++;
	size_t ns = q;
	char c = sh_at(s, q);
	if (sh_name_start(c)) {
		while (sh_name_char(sh_at(s, q)))
			q++;
	} else if (sh_is_digit(c)) {
		special = true;
		while (sh_is_digit(sh_at(s, q)))
			q++;
	} else if (sh_in_set(c, "@*#?-$!") && !(c == '!' && sh_at(s, q + 1) != '}')) {
		special = true;
		q++;
	} else {
		goto unsupported;       /* ${!ref}, ${}, ... */
	}
	size_t nl = q - ns, idx = 0;
	int sel = SEL_ONE;
	bool idx_known = true;
	if (sh_at(s, q) == '[') {
		size_t r = q + 1;
		while (r < s->n && !sh_in_set(s->t[r], "]}\n"))
			r++;
		if (sh_at(s, r) != ']')
			goto unsupported;
		if (r == q + 2 && s->t[q + 1] == '@') {
			sel = SEL_AT;
		} else if (r == q + 2 && s->t[q + 1] == '*') {
			sel = SEL_STAR;
		} else {
			idx_known = r > q + 1;
			for (size_t i = q + 1; i < r && idx_known; i++) {
				idx_known = sh_is_digit(s->t[i]);
				if (idx < SH_MAX_ARGS)
					idx = idx * 10 + (size_t)(s->t[i] - '0');
			}
		}
		q = r + 1;
	}
	if (q >= s->n)
		goto unsupported;
	struct sh_v *v = special || !idx_known ? NULL : sh_var_find(s, s->t + ns, nl);
	bool known = v && v->set;
	if (len) {
		if (s->t[q] != '}')
			goto unsupported;
		if (known && sel != SEL_ONE)
			put_number(s, o, b, v->nel);
		else if (known && (idx >= v->nel || !sh_items_has_unres(&v->el[idx])))
			put_number(s, o, b, idx < v->nel ? v->el[idx].n : 0);
		else
			sh_items_put(s, o, b, 0, K_UNRES);
		*pos = q + 1;
		return 0;
	}
	char op = s->t[q];
	if (op == '}') {
		if (known)
			put_var(s, o, v, sel, idx, quoted, b, at_seen);
		else
			sh_items_put(s, o, b, 0, K_UNRES);
		*pos = q + 1;
		return 0;
	}
	bool colon = false;
	if (op == ':' && sh_in_set(sh_at(s, q + 1), "-=+?"))
		colon = true, op = s->t[++q];
	else if (!sh_in_set(op, "-=+?"))
		goto unsupported;       /* ${X#pat} ${X/a/b} ${X:1:2} ${X^^} ... */
	q++;
	/*
	 * A variable the script never set is taken as unset here: ${TP:-2} is 2, the value the
	 * script runs with unless its caller overrides it.
	 */
	bool empty = known && is_null(v, sel, idx);
	enum { USE_VAR, USE_WORD, UNRESOLVED, NOTHING } what;
	if (op == '-' || op == '=')
		what = !known || (colon && empty) ? USE_WORD : USE_VAR;
	else if (op == '+')
		what = !known || (colon && empty) ? NOTHING : USE_WORD;
	else
		what = !known || (colon && empty) ? UNRESOLVED : USE_VAR;
	if (what == USE_WORD && depth >= SH_MAX_DEPTH)
		what = UNRESOLVED;
	if (what == USE_WORD) {
		struct sh_items w = {0};
		size_t ws = q;
		if (sh_exp_scan(s, &q, quoted ? X_BRACE_DQ : X_BRACE, depth + 1, b, &w, at_seen) < 0) {
			free(w.v);
			return -1;
		}
		q++;    /* the '}' scan stopped at */
		if (op == '=' && !special && idx_known && sel == SEL_ONE && !idx) {
			struct sh_items val = {0};
			sh_items_keep(s, &val, &w);
			sh_var_assign_scalar(s, sh_var_get(s, s->t + ns, nl), &val, ws);
		}
		for (size_t i = 0; i < w.n && !o->cut; i++)
			sh_items_put(s, o, w.v[i].off, w.v[i].c, w.v[i].k);
		free(w.v);
	} else {
		if (sh_lex_skip_nested(s, &q, cl, b) < 0)
			return -1;
		if (what == USE_VAR)
			put_var(s, o, v, sel, idx, quoted, b, at_seen);
		else if (what == UNRESOLVED)
			sh_items_put(s, o, b, 0, K_UNRES);
	}
	*pos = q;
	return 0;

unsupported:
	q = b + 2;
	if (sh_lex_skip_nested(s, &q, cl, b) < 0)
		return -1;
	sh_items_put(s, o, b, 0, K_UNRES);
	*pos = q;
	return 0;
}

/* A '$' at *pos. */
static int dollar(struct sh *s, size_t *pos, int x, int depth, struct sh_items *o, bool *at_seen)
{
	size_t p = *pos;
	bool quoted = x == X_DQ || x == X_BRACE_DQ;
	char c1 = sh_at(s, p + 1);
	if (c1 == '\'' && !quoted)
		return ansi(s, pos, o);
	if (c1 == '"' && !quoted) {
		*pos = p + 1;   /* $"..." reads as "..." */
		return 0;
	}
	if (c1 == '(') {
		size_t q = p + 2;
		if (sh_lex_skip_nested(s, &q, CL_PAREN, p) < 0)
			return -1;
		sh_items_put(s, o, p, 0, K_UNRES);
		*pos = q;
		return 0;
	}
	if (c1 == '{')
		return brace(s, pos, x, depth, o, at_seen);
	if (sh_name_start(c1)) {
		size_t q = p + 1;
		while (sh_name_char(sh_at(s, q)))
			q++;
		const struct sh_v *v = sh_var_find(s, s->t + p + 1, q - p - 1);
		if (v && v->set)
			put_var(s, o, v, SEL_ONE, 0, quoted, p, at_seen);
		else
			sh_items_put(s, o, p, 0, K_UNRES);
		*pos = q;
		return 0;
	}
	if (sh_is_digit(c1) || sh_in_set(c1, "@*#?-$!")) {
		sh_items_put(s, o, p, 0, K_UNRES);
		*pos = p + 2;
		return 0;
	}
	sh_items_put(s, o, p, '$', x == X_BRACE ? K_SPLIT : K_CH);
	*pos = p + 1;
	return 0;
}

int sh_exp_scan(struct sh *s, size_t *pos, int x, int depth, size_t open, struct sh_items *o, bool *at_seen)
{
	const char *t = s->t;
	size_t n = s->n, p = *pos;
	bool quoted = x == X_DQ || x == X_BRACE_DQ;
	unsigned char lit = x == X_BRACE ? K_SPLIT : K_CH;
	for (;;) {
		if (p >= n) {
			if (x == X_WORD)
				break;
			return sh_lex_fail(s, open, x == X_DQ ? "unterminated double quote" : "unterminated ${...}");
		}
		char c = t[p], c1 = sh_at(s, p + 1);
		if (x == X_WORD && (sh_is_blank(c) || c == '\n' || sh_is_meta(c)))
			break;
		if (x == X_DQ && c == '"') {
			p++;
			break;
		}
		if ((x == X_BRACE || x == X_BRACE_DQ) && c == '}')
			break;
		if (c == '\\') {
			if (c1 == '\n') {
				p += 2;
			} else if (p + 1 >= n || (quoted && !sh_in_set(c1, x == X_DQ ? "$`\"\\" : "$`\"\\}"))) {
				sh_items_put(s, o, p, '\\', K_CH);
				p++;
			} else {
				sh_items_put(s, o, p, c1, K_CH);
				p += 2;
			}
			continue;
		}
		if (c == '\'' && !quoted) {
			size_t q = p + 1;
			while (q < n && t[q] != '\'')
				q++;
			if (q >= n)
				return sh_lex_fail(s, p, "unterminated single quote");
			for (size_t i = p + 1; i < q; i++)
				sh_items_put(s, o, i, t[i], K_CH);
			sh_items_put(s, o, p, 0, K_KEEP);
			p = q + 1;
			continue;
		}
		if (c == '"' && x != X_DQ) {
			bool sub = false;
			size_t q = p + 1;
			if (sh_exp_scan(s, &q, X_DQ, depth, p, o, &sub) < 0)
				return -1;
			if (!sub)       /* "" is a word; "${A[@]}" of an empty A is none */
				sh_items_put(s, o, p, 0, K_KEEP);
			p = q;
			continue;
		}
		if (c == '`') {
			size_t q = p + 1;
			if (sh_lex_skip_nested(s, &q, CL_TICK, p) < 0)
				return -1;
			sh_items_put(s, o, p, 0, K_UNRES);
			p = q;
			continue;
		}
		if (c == '$') {
			if (dollar(s, &p, x, depth, o, at_seen) < 0)
				return -1;
			continue;
		}
		sh_items_put(s, o, p, c, lit);
		p++;
	}
	*pos = p;
	return 0;
}

/* ---- fields ---- */

static void push_field(struct sh *s, struct sh_fields *out, struct sh_field *f)
{
	if (out->n >= SH_MAX_ARGS) {
		if (out->n)
			out->v[out->n - 1].unres = true;
		free(f->it.v);
		return;
	}
	if (out->n == out->cap) {
		out->cap = out->cap ? out->cap * 2 : 8;
		out->v = mem_realloc(out->v, out->cap * sizeof(*out->v));
	}
	s->work += 4;
	out->v[out->n++] = *f;
}

void sh_exp_split(struct sh *s, const struct sh_items *in, struct sh_fields *out)
{
	struct sh_field f = {0};
	bool exists = false, has_char = false, has_off = false;
	for (size_t i = 0; i <= in->n; i++) {
		const struct sh_item *it = i < in->n ? &in->v[i] : NULL;
		if (!it || it->k == K_BRK || (it->k == K_SPLIT && sh_in_set(it->c, " \t\n"))) {
			if (exists)
				push_field(s, out, &f);
			else
				free(f.it.v);
			f = (struct sh_field){0};
			exists = has_char = has_off = false;
			continue;
		}
		if (it->k == K_CH || it->k == K_SPLIT) {
			sh_items_put(s, &f.it, it->off, it->c, K_CH);
			if (!has_char)
				f.off = it->off;
			has_char = has_off = true;
		} else {
			if (it->k == K_UNRES) {
				sh_items_put(s, &f.it, it->off, 0, K_UNRES);
				f.unres = true;
			}
			if (!has_off)
				f.off = it->off;
			has_off = true;
		}
		exists = true;
	}
}

void sh_exp_free_fields(struct sh_fields *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		free(fs->v[i].it.v);
	free(fs->v);
	*fs = (struct sh_fields){0};
}

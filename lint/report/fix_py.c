/* SPDX-License-Identifier: MIT */
/* fix_py: mechanical fixes in Python recipes (see fix_py.h). Columns are bytes, as fe_py counts. */
#include "report/fix_py.h"

#include <ctype.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "base/value.h"
#include "config/pack.h"
#include "report/fix.h"

#define MAX_TARGETS 16

static bool ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static size_t skip_blank(const char *s, size_t n, size_t k)
{
	while (k < n && (s[k] == ' ' || s[k] == '\t'))
		k++;
	return k;
}

/* A one-line string at k, '...' or "..." without a prefix and not triple-quoted: its end, or 0. */
static size_t string_end(const char *s, size_t n, size_t k)
{
	if (k >= n || (s[k] != '"' && s[k] != '\''))
		return 0;
	char q = s[k];
	if (k + 2 < n && s[k + 1] == q && s[k + 2] == q)
		return 0;
	for (size_t j = k + 1; j < n; j++) {
		if (s[j] == '\\')
			j++;
		else if (s[j] == q)
			return j + 1;
	}
	return 0;
}

/* A literal at k (a string, a number, True/False/None): its end, or 0. */
static size_t literal_end(const char *s, size_t n, size_t k)
{
	size_t e = string_end(s, n, k);
	if (e)
		return e;
	size_t j = k;
	if (j < n && s[j] == '-')
		j++;
	if (j < n && (isdigit((unsigned char)s[j]) || (s[j] == '.' && j + 1 < n && isdigit((unsigned char)s[j + 1])))) {
		bool hex = j + 1 < n && s[j] == '0' && (s[j + 1] == 'x' || s[j + 1] == 'X');
		while (j < n && (ident_char(s[j]) || s[j] == '.' ||
				 (!hex && (s[j] == '-' || s[j] == '+') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
			j++;
		return j;
	}
	static const char *const words[] = {"True", "False", "None"};
	for (size_t w = 0; w < 3; w++) {
		size_t m = strlen(words[w]);
		if (n - k >= m && !memcmp(s + k, words[w], m) && !(k + m < n && ident_char(s[k + m])))
			return k + m;
	}
	return 0;
}

/* After a literal: the end of the statement (a comment, ';', the line's end). */
static bool ends_statement(const char *s, size_t n, size_t k)
{
	k = skip_blank(s, n, k);
	return k == n || s[k] == '#' || s[k] == ';' || s[k] == '\r';
}

/* After a literal: the end of an argument or an entry (',', a closing bracket, the line's end). */
static bool ends_item(const char *s, size_t n, size_t k)
{
	k = skip_blank(s, n, k);
	return k == n || s[k] == '#' || s[k] == ',' || s[k] == ')' || s[k] == '}' || s[k] == ']' || s[k] == '\r';
}

/* Before a keyword or a dict key at k: an opening bracket, a comma, or nothing but blanks. */
static bool starts_item(const char *s, size_t k)
{
	while (k && (s[k - 1] == ' ' || s[k - 1] == '\t'))
		k--;
	return !k || s[k - 1] == '(' || s[k - 1] == ',' || s[k - 1] == '{';
}

/* The last part of an assignment target: a name, or a quoted subscript ("..." with the quotes). */
struct py_target {
	size_t s, e;
	bool quoted;
};

static bool target_is(const char *line, const struct py_target *t, const char *leaf)
{
	size_t m = strlen(leaf);
	if (t->quoted)
		return t->e - t->s == m + 2 && !memcmp(line + t->s + 1, leaf, m);
	return t->e - t->s == m && !memcmp(line + t->s, leaf, m);
}

/* A target at k (cfg.rng.te_rng_tracker, cfg.env_vars["X"]): its end, its last part in *t; 0 if none. */
static size_t target_end(const char *s, size_t n, size_t k, struct py_target *t)
{
	if (k >= n || !ident_start(s[k]))
		return 0;
	size_t j = k;
	*t = (struct py_target){j, j, false};
	while (j < n && ident_char(s[j]))
		j++;
	t->e = j;
	for (;;) {
		if (j + 1 < n && s[j] == '.' && ident_start(s[j + 1])) {
			j++;
			*t = (struct py_target){j, j, false};
			while (j < n && ident_char(s[j]))
				j++;
			t->e = j;
		} else if (j < n && s[j] == '[') {
			size_t e = string_end(s, n, j + 1);
			if (!e || e >= n || s[e] != ']')
				return 0;
			*t = (struct py_target){j + 1, e, true};
			j = e + 1;
		} else {
			return j;
		}
	}
}

/* Where the statement holding byte 'at' starts: the line's start, or just after a ';' outside strings. */
static size_t statement_start(const char *s, size_t at)
{
	size_t start = 0;
	for (size_t k = 0; k < at; k++) {
		if (s[k] == '"' || s[k] == '\'') {
			size_t e = string_end(s, at, k);
			if (!e)
				return start;
			k = e - 1;
		} else if (s[k] == ';') {
			start = k + 1;
		}
	}
	return start;
}

/* An assignment statement on one line, `T = T = ... = LITERAL`, from 'k': its targets and literal. */
static bool parse_statement(const char *s, size_t n, size_t k, struct py_target *t, size_t *nt, size_t *vs,
			    size_t *ve)
{
	k = skip_blank(s, n, k);
	*nt = 0;
	for (;;) {
		struct py_target one;
		size_t j = target_end(s, n, k, &one);
		size_t eq = skip_blank(s, n, j);
		if (!j || eq >= n || s[eq] != '=' || (eq + 1 < n && s[eq + 1] == '='))
			break;
		if (*nt == MAX_TARGETS)
			return false;
		t[(*nt)++] = one;
		k = skip_blank(s, n, eq + 1);
	}
	size_t e = *nt ? literal_end(s, n, k) : 0;
	if (!e || !ends_statement(s, n, e))
		return false;
	*vs = k;
	*ve = e;
	return true;
}

/* A keyword argument `leaf=LITERAL` or a dict entry `"leaf": LITERAL`, with 'at' on the key or
 * on the literal. */
static bool parse_item(const char *s, size_t n, size_t at, const char *leaf, size_t *vs, size_t *ve)
{
	size_t m = strlen(leaf), ks = at, k;
	char sep;
	size_t e = string_end(s, n, at);
	if (e && e - at == m + 2 && !memcmp(s + at + 1, leaf, m)) {
		sep = ':';
		k = e;
	} else if (n - at >= m && !memcmp(s + at, leaf, m) && !(at + m < n && ident_char(s[at + m])) &&
		   !(at && (ident_char(s[at - 1]) || s[at - 1] == '.'))) {
		sep = '=';
		k = at + m;
	} else {
		/* on the literal: the key is just before it */
		e = literal_end(s, n, at);
		if (!e || !ends_item(s, n, e))
			return false;
		size_t j = at;
		while (j && (s[j - 1] == ' ' || s[j - 1] == '\t'))
			j--;
		if (!j || (s[j - 1] != '=' && s[j - 1] != ':'))
			return false;
		sep = s[--j];
		if (sep == '=' && j && strchr("=!<>+-*/%&|^@:", s[j - 1]))
			return false;   /* a comparison or an augmented assignment */
		while (j && (s[j - 1] == ' ' || s[j - 1] == '\t'))
			j--;
		if (sep == ':') {
			if (j < m + 2 || (s[j - 1] != '"' && s[j - 1] != '\'') || s[j - m - 2] != s[j - 1] ||
			    memcmp(s + j - m - 1, leaf, m))
				return false;
			ks = j - m - 2;
		} else {
			if (j < m || memcmp(s + j - m, leaf, m))
				return false;
			ks = j - m;
			if (ks && (ident_char(s[ks - 1]) || s[ks - 1] == '.'))
				return false;
		}
		if (!starts_item(s, ks))
			return false;
		*vs = at;
		*ve = e;
		return true;
	}
	if (!starts_item(s, ks))
		return false;
	k = skip_blank(s, n, k);
	if (k >= n || s[k] != sep || (sep == '=' && k + 1 < n && s[k + 1] == '='))
		return false;
	k = skip_blank(s, n, k + 1);
	e = literal_end(s, n, k);
	if (!e || !ends_item(s, n, e))
		return false;
	*vs = k;
	*ve = e;
	return true;
}

/* Whether the rule's fix gives the key whose last name is line[s, e) (quotes stripped) 'value'. */
static bool fixed_alike(const struct rule *r, const char *line, const struct py_target *t, const char *value)
{
	for (size_t k = 0; k < r->n_autofix; k++) {
		const char *leaf = strrchr(r->autofix_keys[k], '.');
		leaf = leaf ? leaf + 1 : r->autofix_keys[k];
		if (target_is(line, t, leaf) && !strcmp(r->autofix_values[k], value))
			return true;
	}
	return false;
}

/* 'value' (YAML-spelled) as a Python literal; a string takes the quote of the string it replaces.
 * NULL when Python has no literal for it (.inf, a multi-line string). */
static const char *python_literal(struct arena *a, const char *value, const char *old, size_t old_n)
{
	struct value v = value_from_plain(a, value);
	if (v.kind == V_BOOL)
		return v.b ? "True" : "False";
	if (v.kind == V_NULL)
		return "None";
	if (v.kind == V_INT || v.kind == V_FLOAT) {
		size_t e = literal_end(value, strlen(value), 0);
		return e && e == strlen(value) && value[0] != '"' && value[0] != '\'' ? value : NULL;
	}
	if (v.kind != V_STR)
		return NULL;
	char q = old_n && (old[0] == '\'' || old[0] == '"') ? old[0] : '"';
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_addn(&sb, &q, 1);
	for (const char *p = v.s; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			sbuf_release(&sb);
			return NULL;
		}
		if (*p == q || *p == '\\')
			sbuf_addn(&sb, "\\", 1);
		sbuf_addn(&sb, p, 1);
	}
	sbuf_addn(&sb, &q, 1);
	const char *out = arena_strndup(a, sb.buf, sb.len);
	sbuf_release(&sb);
	return out;
}

bool fix_py_for(struct arena *a, const struct diag *d, const char *value, const char *line, size_t n,
		const char *leaf, size_t base, struct fix_edit *e)
{
	size_t at = d->loc.col ? d->loc.col - 1 : 0;
	if (at >= n)
		return false;
	size_t vs, ve, nt;
	struct py_target t[MAX_TARGETS];
	bool found = false;
	if (parse_statement(line, n, statement_start(line, at), t, &nt, &vs, &ve)) {
		size_t mine = nt;
		for (size_t k = 0; k < nt && mine == nt; k++)
			if (target_is(line, &t[k], leaf) && (at == t[k].s || at == vs))
				mine = k;
		if (mine < nt) {
			/* a chain's literal is every target's value: each must want the same */
			for (size_t k = 0; k < nt; k++)
				if (k != mine && !fixed_alike(d->rule, line, &t[k], value))
					return false;
			found = true;
		}
	}
	if (!found && !parse_item(line, n, at, leaf, &vs, &ve))
		return false;
	const char *text = python_literal(a, value, line + vs, ve - vs);
	if (!text || (ve - vs == strlen(text) && !memcmp(line + vs, text, ve - vs)))
		return false;
	*e = (struct fix_edit){base + vs, base + ve, text, arena_printf(a, "set %s = %s", d->key, text)};
	return true;
}

/* SPDX-License-Identifier: MIT */
/* supp: finding inline suppression directives in comments (see supp.h). */
#define _GNU_SOURCE     /* memmem */
#include "report/supp.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "source/fe_clang.h"

bool supp_c_syntax(const char *path)
{
	return fe_clang_is_source(path);
}

/*
 * Where the line's comment starts (the byte after '#', '//' or slash-star), or NULL. Quotes
 * are followed so that a '#' inside a string is not a comment; '#' must start a word, as in
 * YAML and the shell.
 */
const char *supp_comment_start(const char *p, const char *end, bool c_syntax)
{
	char quote = 0;
	for (const char *s = p; s < end; s++) {
		if (quote) {
			if (*s == '\\' && quote == '"' && s + 1 < end)
				s++;
			else if (*s == '\'' && quote == '\'' && !c_syntax && s + 1 < end && s[1] == '\'')
				s++;    /* YAML's '' inside single quotes */
			else if (*s == quote)
				quote = 0;
			continue;
		}
		if (*s == '"' || (*s == '\'' && (c_syntax || s == p || isspace((unsigned char)s[-1]) || s[-1] == ':' ||
						s[-1] == '=' || s[-1] == '[' || s[-1] == '{' || s[-1] == ','))) {
			quote = *s;
			continue;
		}
		if (c_syntax && *s == '/' && s + 1 < end && (s[1] == '/' || s[1] == '*'))
			return s + 2;
		if (!c_syntax && *s == '#' && (s == p || isspace((unsigned char)s[-1])))
			return s + 1;
	}
	return NULL;
}

bool supp_py_syntax(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return n > 3 && !strcmp(path + n - 3, ".py");
}

/*
 * Python: where the line's comment starts (the byte after '#'), or NULL. '#' anywhere outside a
 * string starts one. 'open' is a string still open at the line's end -- triple-quoted, or one
 * continued with a backslash -- carried to the next line: its quote, 0 when none.
 */
static const char *py_comment_start(const char *p, const char *end, char *open, bool *triple)
{
	bool cont = false;
	for (const char *s = p; s < end; s++) {
		if (*open) {
			if (*s == '\\') {
				cont = ++s >= end || (*s == '\r' && s + 1 == end);
			} else if (*s == *open && (!*triple || (end - s >= 3 && s[1] == *open && s[2] == *open))) {
				s += *triple ? 2 : 0;
				*open = 0;
			}
			continue;
		}
		if (*s == '#')
			return s + 1;
		if (*s == '"' || *s == '\'') {
			*open = *s;
			*triple = end - s >= 3 && s[1] == *s && s[2] == *s;
			s += *triple ? 2 : 0;
		}
	}
	if (*open && !*triple && !cont)
		*open = 0;      /* a one-line string ends with its line (unclosed, a syntax error) */
	return NULL;
}

const char *supp_line_comment(const char *path, const char *buf, const char *line, const char *end)
{
	if (!supp_py_syntax(path))
		return supp_comment_start(line, end, supp_c_syntax(path));
	char open = 0;
	bool triple = false;
	for (const char *p = buf; p < line;) {
		const char *eol = memchr(p, '\n', (size_t)(line - p));
		const char *le = eol ? eol : line;
		py_comment_start(p, le, &open, &triple);
		p = eol ? eol + 1 : line;
	}
	return py_comment_start(line, end, &open, &triple);
}

static bool blank(const char *p, const char *end)
{
	for (; p < end; p++)
		if (!isspace((unsigned char)*p))
			return false;
	return true;
}

/* A line with nothing but a comment, or nothing at all, is skipped by a next-line directive. */
static bool comment_only(const char *p, const char *end, bool c_syntax)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p == end)
		return true;
	if (!c_syntax)
		return *p == '#';
	if (end - p >= 2 && p[0] == '/' && p[1] == '*') {
		const char *close = memmem(p + 2, (size_t)(end - p - 2), "*/", 2);
		return !close || blank(close + 2, end);
	}
	return *p == '*' || (end - p >= 2 && p[0] == '/' && p[1] == '/');
}

static bool is_yaml(const char *path)
{
	size_t n = strlen(path);
	return (n > 5 && !strcmp(path + n - 5, ".yaml")) || (n > 4 && !strcmp(path + n - 4, ".yml"));
}

/*
 * Track YAML block scalars ('key: |', '- >-'): their lines are text, where '# cglint:' is not a
 * comment. Returns whether this line is inside one; a line ending in an indicator opens one.
 */
static bool in_block_scalar(const char *p, const char *le, long *block)
{
	long indent = 0;
	while (p + indent < le && p[indent] == ' ')
		indent++;
	if (*block >= 0) {
		if (blank(p, le) || indent > *block)
			return true;
		*block = -1;
	}
	const char *c = supp_comment_start(p, le, false);
	const char *e = c ? c - 1 : le;
	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	while (e > p && (isdigit((unsigned char)e[-1]) || e[-1] == '-' || e[-1] == '+'))
		e--;
	if (e > p && (e[-1] == '|' || e[-1] == '>') && (e - 1 == p + indent || e[-2] == ' '))
		*block = indent;
	return false;
}

static bool is_rule_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* Parse what follows "cglint:" into 's'. */
static void parse_directive(struct arena *a, const char *p, const char *end, bool c_syntax, struct supp *s)
{
	static const struct { const char *word; enum supp_scope scope; } words[] = {
		{"disable-next-line", SUPP_NEXT}, {"disable-file", SUPP_FILE}, {"disable", SUPP_LINE},
	};
	if (c_syntax) {         /* a block comment's end is not part of the reason */
		for (const char *q = p; q + 1 < end; q++)
			if (q[0] == '*' && q[1] == '/') {
				end = q;
				break;
			}
	}
	while (p < end && isspace((unsigned char)*p))
		p++;
	size_t w = 0;
	while (p + w < end && (isalnum((unsigned char)p[w]) || p[w] == '-'))
		w++;
	bool known = false;
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (strlen(words[k].word) == w && !strncmp(p, words[k].word, w)) {
			s->scope = words[k].scope;
			known = true;
		}
	if (!known) {
		s->error = arena_printf(a, "unknown directive 'cglint: %.*s'; the directives are disable=, "
					   "disable-next-line= and disable-file=", (int)w, p);
		return;
	}
	p += w;
	if (p == end || *p != '=') {
		s->error = arena_printf(a, "'cglint: %.*s' wants '=' and the rules it disables, e.g. %.*s=CG101", (int)w,
					p - w, (int)w, p - w);
		return;
	}
	p++;
	const char **rules = NULL;
	size_t n = 0;
	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		const char *r = p;
		while (p < end && is_rule_char(*p) && !(p + 1 < end && p[0] == '-' && p[1] == '-'))
			p++;
		if (p == r)
			break;
		rules = mem_realloc(rules, (n + 1) * sizeof(*rules));
		rules[n++] = arena_strndup(a, r, (size_t)(p - r));
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < end && *p == ',')
			p++;
		else
			break;
	}
	if (!n) {
		s->error = arena_strdup(a, "a suppression names no rule: give ids or names, e.g. disable=CG101");
		free(rules);
		return;
	}
	s->rules = arena_alloc(a, n * sizeof(*s->rules));
	memcpy(s->rules, rules, n * sizeof(*rules));
	free(rules);
	s->n_rules = n;
	s->used = arena_alloc(a, n * sizeof(*s->used));
	if (end - p >= 2 && p[0] == '-' && p[1] == '-') {
		p += 2;
		while (p < end && isspace((unsigned char)*p))
			p++;
		const char *e = end;
		while (e > p && isspace((unsigned char)e[-1]))
			e--;
		if (e > p)
			s->reason = arena_strndup(a, p, (size_t)(e - p));
	} else if (!blank(p, end)) {
		s->error = arena_printf(a, "unexpected '%.*s' after the rules; a reason follows '--'",
					(int)(end - p > 40 ? 40 : end - p), p);
		s->n_rules = 0;
	}
}

size_t supp_scan(struct arena *a, const char *path, const char *buf, size_t len, struct supp **out)
{
	static const char tag[] = "cglint:";
	bool c_syntax = supp_c_syntax(path);
	struct supp *items = NULL;
	size_t n = 0;
	const char *end = buf + len;
	/* most files have no directive: look for the tag once before walking lines */
	if (!len || !memmem(buf, len, tag, sizeof(tag) - 1)) {
		*out = NULL;
		return 0;
	}
	unsigned line = 1;
	bool yaml = is_yaml(path), py = supp_py_syntax(path);
	long block = -1;        /* inside a YAML block scalar: the indent of the key that opened it */
	char py_open = 0;       /* inside a Python string that spans lines: its quote */
	bool py_triple = false;
	for (const char *p = buf; p < end; line++) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *le = eol ? eol : end;
		if (yaml && in_block_scalar(p, le, &block)) {
			p = eol ? eol + 1 : end;
			continue;       /* text, not a comment */
		}
		const char *c;
		if (py)         /* every line: a string may span lines */
			c = py_comment_start(p, le, &py_open, &py_triple);
		else
			c = memmem(p, (size_t)(le - p), tag, sizeof(tag) - 1) ? supp_comment_start(p, le, c_syntax) : NULL;
		if (c) {
			const char *d = c;
			while (d < le && (*d == ' ' || *d == '\t' || *d == '#' || *d == '*' || *d == '/'))
				d++;
			if ((size_t)(le - d) >= sizeof(tag) - 1 && !memcmp(d, tag, sizeof(tag) - 1)) {
				items = mem_realloc(items, (n + 1) * sizeof(*items));
				struct supp *s = &items[n++];
				*s = (struct supp){.at = {path, line, (unsigned)(d - p) + 1}};
				parse_directive(a, d + sizeof(tag) - 1, le, c_syntax, s);
				s->line = line;
				/* a directive alone on its line covers the next line of code; a block
				 * comment with code after it is not alone */
				bool alone = blank(p, c - (c_syntax ? 2 : 1));
				if (alone && c_syntax && c[-1] == '*') {
					const char *close = memmem(c, (size_t)(le - c), "*/", 2);
					alone = !close || blank(close + 2, le);
				}
				if (s->scope == SUPP_NEXT || (s->scope == SUPP_LINE && alone)) {
					s->scope = SUPP_NEXT;
					s->line = 0;
					unsigned l = line + 1;
					for (const char *q = eol ? eol + 1 : end; q < end; l++) {
						const char *qe = memchr(q, '\n', (size_t)(end - q));
						if (!comment_only(q, qe ? qe : end, c_syntax)) {
							s->line = l;
							break;
						}
						q = qe ? qe + 1 : end;
					}
				}
			}
		}
		p = eol ? eol + 1 : end;
	}
	*out = arena_alloc(a, (n + 1) * sizeof(**out));
	if (n)
		memcpy(*out, items, n * sizeof(*items));
	free(items);
	return n;
}

const char *supp_comment(struct arena *a, const char *path, const char *rule)
{
	return arena_printf(a, "  %s cglint: disable=%s", supp_c_syntax(path) ? "//" : "#", rule);
}

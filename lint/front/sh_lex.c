/* SPDX-License-Identifier: MIT */
/* sh_lex: where an offset is, CG908, and reading over what is not expanded. */
#include "front/sh_lex.h"

#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"

struct loc sh_lex_loc(const struct sh *s, size_t off)
{
	size_t lo = 0, hi = s->nlines;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->lines[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return (struct loc){s->path, (unsigned)(lo + 1), (unsigned)(off - s->lines[lo] + 1)};
}

int sh_lex_fail(struct sh *s, size_t off, const char *what)
{
	if (!s->failed && s->d)
		diag_input(s->d, "CG908", sh_lex_loc(s, off), "%s; the rest of the script is not read", what);
	s->failed = true;
	return -1;
}

size_t sh_lex_kw(const struct sh *s, size_t p, const char *w)
{
	size_t k = strlen(w);
	if (p + k > s->n || memcmp(s->t + p, w, k))
		return 0;
	char c = sh_at(s, p + k);
	return !c || sh_is_blank(c) || c == '\n' || sh_is_meta(c) ? k : 0;
}

size_t sh_lex_skip_blanks(const struct sh *s, size_t p)
{
	while (p < s->n && (sh_is_blank(s->t[p]) || (s->t[p] == '\\' && sh_at(s, p + 1) == '\n')))
		p += s->t[p] == '\\' ? 2 : 1;
	return p;
}

struct sh_frame {
	unsigned char cl;
	size_t open;
};

static const char *unterminated(const struct sh *s, unsigned char cl, size_t open)
{
	switch (cl) {
	case CL_SQ:
		return "unterminated single quote";
	case CL_DQ:
		return "unterminated double quote";
	case CL_ANSI:
		return "unterminated $'...' quote";
	case CL_TICK:
		return "unterminated `...` command substitution";
	case CL_BRACE:
	case CL_BRACE_DQ:
		return "unterminated ${...}";
	default:
		break;
	}
	char c = sh_at(s, open);
	if (c == '$')
		return sh_at(s, open + 2) == '(' ? "unterminated $((...))" : "unterminated $(...)";
	if (c == '<' || c == '>')
		return "unterminated process substitution";
	return sh_at(s, open + 1) == '(' ? "unterminated (( ... ))" : "unterminated ( ... )";
}

int sh_lex_skip_nested(struct sh *s, size_t *pos, unsigned char cl, size_t open)
{
	const char *t = s->t;
	size_t n = s->n, p = *pos, depth = 0, cap = 16;
	struct sh_frame *st = mem_alloc(cap * sizeof(*st));
	st[depth++] = (struct sh_frame){cl, open};
	while (depth) {
		if (p >= n) {
			struct sh_frame f = st[depth - 1];
			if (depth > 1 && f.cl == CL_PAREN && st[depth - 2].cl == CL_PAREN &&
			    (f.open == st[depth - 2].open + 1 || f.open == st[depth - 2].open + 2))
				f = st[depth - 2];      /* the (( or $(( as a whole */
			free(st);
			return sh_lex_fail(s, f.open, unterminated(s, f.cl, f.open));
		}
		unsigned char top = st[depth - 1].cl, push = 255;
		char c = t[p], c1 = sh_at(s, p + 1);
		size_t adv = 1;
		switch (top) {
		case CL_SQ:
			if (c == '\'')
				depth--;
			break;
		case CL_ANSI:
		case CL_TICK:
			if (c == '\\')
				adv = 2;
			else if (c == (top == CL_ANSI ? '\'' : '`'))
				depth--;
			break;
		case CL_DQ:
			if (c == '\\')
				adv = 2;
			else if (c == '"')
				depth--;
			else if (c == '`')
				push = CL_TICK;
			else if (c == '$' && c1 == '(')
				push = CL_PAREN, adv = 2;
			else if (c == '$' && c1 == '{')
				push = CL_BRACE_DQ, adv = 2;
			break;
		default:
			if (c == '\\')
				adv = 2;
			else if (c == (top == CL_PAREN ? ')' : '}'))
				depth--;
			else if (c == '\'' && top != CL_BRACE_DQ)
				push = CL_SQ;
			else if (c == '$' && c1 == '\'' && top != CL_BRACE_DQ)
				push = CL_ANSI, adv = 2;
			else if (c == '"')
				push = CL_DQ;
			else if (c == '`')
				push = CL_TICK;
			else if (c == '$' && c1 == '(')
				push = CL_PAREN, adv = 2;
			else if (c == '$' && c1 == '{')
				push = top == CL_BRACE_DQ ? CL_BRACE_DQ : CL_BRACE, adv = 2;
			else if (c == '(' && top == CL_PAREN)
				push = CL_PAREN;
			else if (c == '#' && top == CL_PAREN && p > 0 && sh_in_set(t[p - 1], " \t\n;&|(")) {
				/* a comment inside $(...) may hold an unbalanced quote */
				while (p < n && t[p] != '\n')
					p++;
				continue;
			}
			break;
		}
		if (push != 255) {
			if (depth == cap) {
				cap *= 2;
				st = mem_realloc(st, cap * sizeof(*st));
			}
			st[depth++] = (struct sh_frame){push, p};
		}
		p += adv;
	}
	free(st);
	*pos = p;
	return 0;
}

size_t sh_lex_skip_heredocs(struct sh *s, size_t p)
{
	for (size_t i = 0; i < s->nhd; i++) {
		const struct sh_hd *h = &s->hd[i];
		while (p < s->n) {
			size_t e = p, b = p;
			while (e < s->n && s->t[e] != '\n')
				e++;
			while (h->strip_tabs && b < e && s->t[b] == '\t')
				b++;
			bool end = e - b == h->len && !memcmp(s->t + b, h->tag, h->len);
			p = e < s->n ? e + 1 : e;
			if (end)
				break;
		}
		free(h->tag);
	}
	s->nhd = 0;
	return p;
}

/* SPDX-License-Identifier: MIT */
/*
 * fe_sh: a static reader of bash launch scripts. The text is read once, left to right. A word
 * is expanded while it is scanned, into items (a byte, the offset it was written at, and what
 * kind of byte it is), then split into fields the way bash splits them. Variables keep the
 * items of their values, so a word taken from $CG_ARGS still knows where each byte was typed.
 *
 * This file parses: separators, redirections, keywords, declarations. sh_lex locates and
 * reads over text, sh_exp expands words, sh_var keeps variables, sh_cmd emits the commands.
 */
#include "front/fe_sh.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/strmap.h"
#include "front/sh.h"
#include "front/sh_asg.h"
#include "front/sh_cmd.h"
#include "front/sh_exp.h"
#include "front/sh_lex.h"
#include "front/sh_var.h"

/* A redirection operator at *pos and its target word; a heredoc's tag is remembered. */
static int redirect(struct sh *s, size_t *pos)
{
	size_t p = *pos;
	bool hd = false, strip = false;
	char c = s->t[p++];
	if (c == '&') {
		p++;                                    /* &> */
		if (sh_at(s, p) == '>')
			p++;
	} else if (c == '<') {
		if (sh_at(s, p) == '<') {
			p++;
			if (sh_at(s, p) == '<') {
				p++;                    /* here-string */
			} else {
				hd = true;
				if (sh_at(s, p) == '-')
					strip = true, p++;
			}
		} else if (sh_in_set(sh_at(s, p), "&>")) {
			p++;
		}
	} else if (sh_in_set(sh_at(s, p), ">&|")) {
		p++;
	}
	p = sh_lex_skip_blanks(s, p);
	char t = sh_at(s, p);
	if ((t == '<' || t == '>') && sh_at(s, p + 1) == '(') {
		size_t q = p + 2;       /* > >(tee log): no word of the command */
		int rc = sh_lex_skip_nested(s, &q, CL_PAREN, p);
		*pos = q;
		return rc;
	}
	if (!t || t == '\n' || sh_is_meta(t)) {
		*pos = p;       /* no target: bash rejects it, nothing to read */
		return 0;
	}
	struct sh_items w = {0};
	int rc = sh_exp_scan(s, &p, X_WORD, 0, p, &w, NULL);
	if (!rc && hd) {
		if (s->nhd == s->caphd) {
			s->caphd = s->caphd ? s->caphd * 2 : 4;
			s->hd = mem_realloc(s->hd, s->caphd * sizeof(*s->hd));
		}
		struct sh_hd *h = &s->hd[s->nhd++];
		h->tag = mem_alloc(w.n + 1);
		h->len = 0;
		h->strip_tabs = strip;
		for (size_t i = 0; i < w.n; i++)
			if (w.v[i].k == K_CH || w.v[i].k == K_SPLIT)
				h->tag[h->len++] = w.v[i].c;
	}
	free(w.v);
	*pos = p;
	return rc;
}

/* Read a word and drop it (for headers, patterns, test clauses). */
static int skip_word(struct sh *s, size_t *pos)
{
	struct sh_items w = {0};
	int rc = sh_exp_scan(s, pos, X_WORD, 0, *pos, &w, NULL);
	free(w.v);
	return rc;
}

/* [[ ... ]]: its && || ( ) < > are its own, not command separators. */
static int test_clause(struct sh *s, size_t *pos)
{
	size_t p = *pos + 2;
	for (;;) {
		p = sh_lex_skip_blanks(s, p);
		if (p >= s->n || s->t[p] == '\n')
			break;
		if (sh_lex_kw(s, p, "]]")) {
			p += 2;
			break;
		}
		if (sh_is_meta(s->t[p]) || s->t[p] == '#') {
			p++;
			continue;
		}
		if (skip_word(s, &p) < 0)
			return -1;
	}
	*pos = p;
	return 0;
}

/* A case item's pattern list up to its ')', or esac. */
static int pattern(struct sh *s, size_t *pos)
{
	size_t p = *pos, k = sh_lex_kw(s, p, "esac");
	s->want_pattern = false;
	if (k) {
		s->case_depth -= s->case_depth > 0;
		*pos = p + k;
		return 0;
	}
	if (s->t[p] == '(')
		p++;
	for (;;) {
		p = sh_lex_skip_blanks(s, p);
		if (p >= s->n || s->t[p] == '\n')
			break;
		if (s->t[p] == ')') {
			p++;
			break;
		}
		if (sh_is_meta(s->t[p])) {
			p++;
			continue;
		}
		if (skip_word(s, &p) < 0)
			return -1;
	}
	*pos = p;
	return 0;
}

/* A word of a declaration builtin that is not an assignment: an option or a name. */
static void decl_word(struct sh *s, struct sh_cmdst *c, const struct sh_field *f)
{
	const struct sh_items *it = &f->it;
	if (f->unres || !it->n)
		return;
	char c0 = it->v[0].c;
	if (c->decl != D_UNSET && (c0 == '-' || c0 == '+') && it->n > 1) {
		for (size_t i = 1; i < it->n; i++) {
			char o = it->v[i].c;
			if (o == 'x')
				c->decl_x = c0 == '-' ? 1 : -1;
			else if (o == 'n' && c->decl == D_EXPORT)
				c->decl_x = -1;
			else if (o == 'f')
				c->decl_f = true;
		}
		return;
	}
	if (c->decl == D_UNSET && c0 == '-') {
		for (size_t i = 1; i < it->n; i++)
			if (it->v[i].c == 'f')
				c->decl_f = true;
		return;
	}
	char name[256];
	if (it->n >= sizeof(name) || c->decl_f)
		return;
	for (size_t i = 0; i < it->n; i++) {
		name[i] = it->v[i].c;
		if (!(i ? sh_name_char(name[i]) : sh_name_start(name[i])))
			return;
	}
	size_t vi = sh_var_get(s, name, it->n);
	if (c->decl == D_UNSET) {
		struct sh_v *v = &s->vars[vi];
		sh_var_free_elems(v);
		v->set = v->is_array = false;
		sh_var_changed(s, v);
		sh_var_export(s, vi, false);
	} else if (c->decl_x) {
		sh_var_export(s, vi, c->decl_x > 0);
	}
}

static int decl_kind(const struct sh *s, size_t p, int *x)
{
	*x = 0;
	if (sh_lex_kw(s, p, "export")) {
		*x = 1;
		return D_EXPORT;
	}
	if (sh_lex_kw(s, p, "declare") || sh_lex_kw(s, p, "typeset") || sh_lex_kw(s, p, "local") ||
	    sh_lex_kw(s, p, "readonly"))
		return D_DECLARE;
	return sh_lex_kw(s, p, "unset") ? D_UNSET : D_NONE;
}

static const char *const skip_kw[] = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until",
				      "!", "time", "{", "}"};

/* A word at *pos (not an operator, blank or comment). */
static int word(struct sh *s, size_t *pos, struct sh_cmdst *c)
{
	size_t p = *pos, k;
	if (sh_cmd_at_start(c) && !c->discard) {
		for (size_t i = 0; i < sizeof(skip_kw) / sizeof(*skip_kw); i++)
			if ((k = sh_lex_kw(s, p, skip_kw[i]))) {
				p = sh_lex_skip_blanks(s, p + k);
				if (!strcmp(skip_kw[i], "time") && sh_lex_kw(s, p, "-p"))
					p += 2;         /* time -p cmd: -p is time's */
				*pos = p;
				return 0;
			}
		if ((k = sh_lex_kw(s, p, "esac"))) {
			s->case_depth -= s->case_depth > 0;
			s->want_pattern = false;
			*pos = p + k;
			return 0;
		}
		if ((k = sh_lex_kw(s, p, "for")) || (k = sh_lex_kw(s, p, "select"))) {
			c->has_cmd = c->discard = true;
			p = sh_lex_skip_blanks(s, p + k);
			if (sh_at(s, p) == '(' && sh_at(s, p + 1) == '(') {
				size_t q = p + 1;
				if (sh_lex_skip_nested(s, &q, CL_PAREN, p) < 0)
					return -1;
				p = q;
			}
			*pos = p;
			return 0;
		}
		if ((k = sh_lex_kw(s, p, "case"))) {
			c->has_cmd = c->discard = c->case_head = true;
			*pos = p + k;
			return 0;
		}
		if ((k = sh_lex_kw(s, p, "function"))) {
			c->has_cmd = c->discard = c->func = true;
			*pos = p + k;
			return 0;
		}
		if (sh_lex_kw(s, p, "[[")) {
			c->has_cmd = c->discard = true;
			return test_clause(s, pos);
		}
	}
	if (c->case_head && (k = sh_lex_kw(s, p, "in"))) {
		sh_cmd_end(s, c);
		s->case_depth++;
		s->want_pattern = true;
		*pos = p + k;
		return 0;
	}
	if (c->func && c->func_named) {
		sh_cmd_end(s, c);          /* function f { ...: the body starts a command */
		return 0;
	}
	c->func_named = c->func;
	struct sh_asg_head h;
	if ((!c->has_cmd || c->decl) && sh_asg_head(s, p, &h))
		return sh_asg_assign(s, pos, c, &h);
	int decl = D_NONE, x = 0;
	if (!c->has_cmd) {
		sh_cmd_start(s, c);
		decl = decl_kind(s, p, &x);
	}
	struct sh_items w = {0};
	if (sh_exp_scan(s, &p, X_WORD, 0, p, &w, NULL) < 0) {
		free(w.v);
		return -1;
	}
	*pos = p;
	if (decl) {
		c->decl = decl, c->decl_x = x;
		free(w.v);
		return 0;
	}
	if (c->discard) {
		free(w.v);
		return 0;
	}
	struct sh_fields fs = {0};
	sh_exp_split(s, &w, &fs);
	free(w.v);
	for (size_t i = 0; i < fs.n; i++) {
		if (c->decl)
			decl_word(s, c, &fs.v[i]);
		else
			sh_cmd_add_word(s, c, &fs.v[i]);
	}
	sh_exp_free_fields(&fs);
	return 0;
}

/* '(' at p: "name ( )" ends a function header. */
static bool func_parens(const struct sh *s, size_t p, const struct sh_cmdst *c, size_t *end)
{
	if (!(c->func || (c->has_cmd && c->nw == 1 && !c->discard && !c->decl && !c->ninl)))
		return false;
	size_t q = sh_lex_skip_blanks(s, p + 1);
	if (sh_at(s, q) != ')')
		return false;
	*end = q + 1;
	return true;
}

static int parse(struct sh *s)
{
	const char *t = s->t;
	size_t n = s->n, p = 0;
	struct sh_cmdst c = {0};
	int rc = 0;
	while (!rc) {
		if (s->over) {
			rc = sh_lex_fail(s, p < n ? p : n ? n - 1 : 0, "the script expands to more than cglint reads");
			break;
		}
		p = sh_lex_skip_blanks(s, p);
		if (p >= n)
			break;
		char ch = t[p], c1 = sh_at(s, p + 1);
		if (ch == '#') {
			while (p < n && t[p] != '\n')
				p++;
			continue;
		}
		if (ch == '\n') {
			sh_cmd_end(s, &c);
			p = sh_lex_skip_heredocs(s, p + 1);
			continue;
		}
		if (s->want_pattern && sh_cmd_at_start(&c) && ch != ';') {
			rc = pattern(s, &p);
			continue;
		}
		size_t q;
		switch (ch) {
		case ';':
			p++;
			if (sh_at(s, p) == ';' || sh_at(s, p) == '&') {
				p += 1 + (sh_at(s, p + 1) == '&');
				s->want_pattern = s->case_depth > 0;    /* ;; ;& ;;& end a case item */
			}
			sh_cmd_end(s, &c);
			continue;
		case '|':
			p += c1 == '|' || c1 == '&' ? 2 : 1;
			sh_cmd_end(s, &c);
			continue;
		case '&':
			if (c1 == '>') {
				rc = redirect(s, &p);
				continue;
			}
			p += c1 == '&' ? 2 : 1;
			sh_cmd_end(s, &c);
			continue;
		case ')':
			p++;
			sh_cmd_end(s, &c);
			continue;
		case '(':
			if (sh_cmd_at_start(&c) && !c.discard && c1 == '(') {
				q = p + 1;      /* (( arithmetic )) */
				rc = sh_lex_skip_nested(s, &q, CL_PAREN, p);
				p = q;
			} else if (func_parens(s, p, &c, &q)) {
				c.discard = c.has_cmd = true;
				sh_cmd_end(s, &c);
				p = q;
			} else {
				p++;            /* a subshell is read through */
				sh_cmd_end(s, &c);
			}
			continue;
		case '<':
		case '>':
			if (c1 == '(') {
				q = p + 2;      /* <(...) is a word nobody can know */
				rc = sh_lex_skip_nested(s, &q, CL_PAREN, p);
				if (!rc && !c.has_cmd)
					sh_cmd_start(s, &c);
				if (!rc && !c.discard && !c.decl) {
					struct sh_field f = {.off = (uint32_t)p, .unres = true};
					sh_cmd_add_word(s, &c, &f);
				}
				p = q;
				continue;
			}
			rc = redirect(s, &p);
			continue;
		default:
			break;
		}
		if (sh_is_digit(ch)) {
			for (q = p; sh_is_digit(sh_at(s, q));)
				q++;
			if ((sh_at(s, q) == '<' || sh_at(s, q) == '>') && sh_at(s, q + 1) != '(') {
				p = q;  /* 2>&1: the fd number is part of the redirection */
				rc = redirect(s, &p);
				continue;
			}
		}
		rc = word(s, &p, &c);
	}
	if (!rc) {
		sh_cmd_end(s, &c);
	} else {
		/* the command being read when reading stopped is incomplete: dropped */
		for (size_t i = c.nas; i-- > 0;)
			sh_asg_restore(s, &c.as[i]);
		c.nas = 0;
		sh_cmd_free(&c);
	}
	return rc;
}

int fe_sh_parse(struct arena *a, struct diag_list *d, const char *path, const char *text, size_t len,
		struct sh_script *out)
{
	*out = (struct sh_script){0};
	if (!text)
		text = "", len = 0;
	if (len > UINT32_MAX - 1)
		len = UINT32_MAX - 1;   /* offsets are 32-bit; lint refuses far smaller files */
	struct sh s = {.a = a, .d = d, .path = path, .t = text, .n = len};
	size_t cap = 64;
	s.lines = mem_alloc(cap * sizeof(*s.lines));
	s.lines[s.nlines++] = 0;
	for (size_t i = 0; i < len; i++) {
		if (text[i] != '\n')
			continue;
		if (s.nlines == cap) {
			cap *= 2;
			s.lines = mem_realloc(s.lines, cap * sizeof(*s.lines));
		}
		s.lines[s.nlines++] = i + 1;
	}
	int rc = parse(&s);
	if (s.ncmds) {
		out->cmds = arena_alloc(a, s.ncmds * sizeof(*out->cmds));
		memcpy(out->cmds, s.cmds, s.ncmds * sizeof(*out->cmds));
		out->n_cmds = s.ncmds;
	}
	for (size_t i = 0; i < s.nvars; i++)
		sh_var_free_elems(&s.vars[i]);
	for (size_t i = 0; i < s.nhd; i++)
		free(s.hd[i].tag);
	free(s.vars);
	strmap_release(&s.index);
	free(s.exp);
	free(s.hd);
	free(s.cmds);
	free(s.lines);
	return rc;
}

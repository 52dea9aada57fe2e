/* SPDX-License-Identifier: MIT */
/*
 * fe_sh: a static reader of bash launch scripts. The text is read once, left to right. A word
 * is expanded while it is scanned, into items (a byte, the offset it was written at, and what
 * kind of byte it is), then split into fields the way bash splits them. Variables keep the
 * items of their values, so a word taken from $CG_ARGS still knows where each byte was typed.
 */
#include "front/fe_sh.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "base/strmap.h"

enum {
	SH_MAX_DEPTH = 32,        /* ${X:-${Y:-...}} levels expanded; deeper ones are unresolved */
	SH_MAX_VALUE = 1 << 20,   /* items in one expansion or one variable value */
	SH_MAX_ARGS = 1 << 16,    /* words of one command, elements of one array */
	SH_MAX_WORK = 1 << 24,    /* items and output records over the whole script */
};

/*
 * Item kinds. Only K_SPLIT bytes (results of unquoted expansions) split fields. The marks
 * have no byte: K_UNRES an expansion that could not be resolved, K_KEEP a quote (the field
 * exists even when empty), K_BRK the boundary between the elements of "${A[@]}".
 */
enum { K_CH, K_SPLIT, K_UNRES, K_KEEP, K_BRK };

struct sh_item {
	uint32_t off;
	char c;
	unsigned char k;
};

struct sh_items {
	struct sh_item *v;
	size_t n, cap;
	bool cut;                 /* hit a limit: a K_UNRES ends it */
};

/* Words of one expansion after splitting; 'it' holds bytes (K_CH) and K_UNRES marks. */
struct sh_field {
	struct sh_items it;
	uint32_t off;
	bool unres;
};

struct sh_fields {
	struct sh_field *v;
	size_t n, cap;
};

struct sh_v {
	const char *name;
	size_t len;
	bool set, is_array, exported, listed;
	struct sh_items *el;      /* elements (K_CH and K_UNRES only); a scalar has one */
	size_t nel, capel;
	uint32_t off;             /* of the value in its assignment */
	bool cached;
	const char *text;         /* el[0] as a string for env; NULL when unresolved */
};

struct sh_hd {
	char *tag;
	size_t len;
	bool strip_tabs;
};

/* An assignment before a command word: undone (it becomes inline env) if a word follows. */
struct sh_asg {
	size_t var;
	struct sh_v saved;
};

enum { D_NONE, D_EXPORT, D_DECLARE, D_UNSET };

struct sh_cmdst {
	struct sh_word *w;
	size_t nw, capw;
	struct sh_asg *as;
	size_t nas, capas;
	struct sh_var *inl;
	size_t ninl;
	bool has_cmd;             /* a word other than an assignment was read */
	bool discard;             /* for/case/[[ headers, function names: read, not emitted */
	bool case_head, func, func_named;
	int decl, decl_x;         /* a declaration builtin; decl_x: 1 export, -1 unexport */
	bool decl_f;
};

struct sh {
	struct arena *a;
	struct diag_list *d;
	const char *path, *t;
	size_t n;
	size_t *lines, nlines;
	struct sh_v *vars;
	size_t nvars, capvars;
	struct strmap index;      /* name -> position in 'vars' */
	size_t *exp, nexp, capexp;        /* exported vars in order of first export */
	/*
	 * Commands share the env snapshot. While the only change is newly exported variables it
	 * grows in place: earlier commands keep their shorter prefix of the same array.
	 */
	unsigned long env_gen, snap_gen;
	bool snap_ok, snap_dirty;
	struct sh_var *snap;
	size_t nsnap, capsnap, snap_nexp;
	struct sh_hd *hd;
	size_t nhd, caphd;
	struct sh_cmd *cmds;
	size_t ncmds, capcmds;
	size_t work;
	bool over, failed;
	int case_depth;
	bool want_pattern;
};

/* ---- characters and positions ---- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_meta(char c)
{
	return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool name_char(char c)
{
	return name_start(c) || is_digit(c);
}

/* strchr would match the terminator for c == 0. */
static bool in_set(char c, const char *set)
{
	return c && strchr(set, c);
}

static char at(const struct sh *s, size_t p)
{
	return p < s->n ? s->t[p] : 0;
}

static struct loc loc_at(const struct sh *s, size_t off)
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

static int fail(struct sh *s, size_t off, const char *what)
{
	if (!s->failed && s->d)
		diag_input(s->d, "CG908", loc_at(s, off), "%s; the rest of the script is not read", what);
	s->failed = true;
	return -1;
}

/* p at an unquoted word equal to 'kw' followed by a word end: its length, else 0. */
static size_t kw(const struct sh *s, size_t p, const char *w)
{
	size_t k = strlen(w);
	if (p + k > s->n || memcmp(s->t + p, w, k))
		return 0;
	char c = at(s, p + k);
	return !c || is_blank(c) || c == '\n' || is_meta(c) ? k : 0;
}

static size_t skip_blanks(const struct sh *s, size_t p)
{
	while (p < s->n && (is_blank(s->t[p]) || (s->t[p] == '\\' && at(s, p + 1) == '\n')))
		p += s->t[p] == '\\' ? 2 : 1;
	return p;
}

/* ---- items ---- */

static void put(struct sh *s, struct sh_items *o, size_t off, char c, unsigned char k)
{
	if (o->n >= SH_MAX_VALUE || s->work >= SH_MAX_WORK) {
		if (s->work >= SH_MAX_WORK)
			s->over = true;
		if (o->cut)
			return;
		o->cut = true;
		c = 0, k = K_UNRES;
	} else {
		s->work++;
	}
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 16;
		o->v = mem_realloc(o->v, o->cap * sizeof(*o->v));
	}
	o->v[o->n++] = (struct sh_item){(uint32_t)off, c, k};
}

/* Copy a stored value; its bytes become kind k, its marks stay marks. */
static void put_el(struct sh *s, struct sh_items *o, const struct sh_items *el, unsigned char k)
{
	for (size_t i = 0; i < el->n && !o->cut; i++)
		put(s, o, el->v[i].off, el->v[i].c, el->v[i].k == K_UNRES ? K_UNRES : k);
}

/* An expansion as a variable keeps it: no splitting, "${A[@]}" joined with spaces. */
static void keep_value(struct sh *s, struct sh_items *dst, const struct sh_items *src)
{
	for (size_t i = 0; i < src->n && !dst->cut; i++) {
		const struct sh_item *it = &src->v[i];
		if (it->k == K_CH || it->k == K_SPLIT)
			put(s, dst, it->off, it->c, K_CH);
		else if (it->k == K_UNRES)
			put(s, dst, it->off, 0, K_UNRES);
		else if (it->k == K_BRK)
			put(s, dst, it->off, ' ', K_CH);
	}
}

static bool has_unres(const struct sh_items *it)
{
	for (size_t i = 0; i < it->n; i++)
		if (it->v[i].k == K_UNRES)
			return true;
	return false;
}

static char *items_text(struct sh *s, const struct sh_items *it)
{
	size_t n = 0;
	for (size_t i = 0; i < it->n; i++)
		n += it->v[i].k != K_UNRES;
	char *p = arena_alloc(s->a, n + 1);
	n = 0;
	for (size_t i = 0; i < it->n; i++)
		if (it->v[i].k != K_UNRES)
			p[n++] = it->v[i].c;
	s->work += n / 8;
	return p;
}

/* ---- variables ---- */

static struct sh_v *find(struct sh *s, const char *name, size_t len)
{
	size_t k;
	return strmap_get(&s->index, name, len, &k) ? &s->vars[k] : NULL;
}

static size_t var_get(struct sh *s, const char *name, size_t len)
{
	size_t k;
	if (strmap_get(&s->index, name, len, &k))
		return k;
	if (s->nvars == s->capvars) {
		s->capvars = s->capvars ? s->capvars * 2 : 32;
		s->vars = mem_realloc(s->vars, s->capvars * sizeof(*s->vars));
	}
	s->vars[s->nvars] = (struct sh_v){.name = arena_strndup(s->a, name, len), .len = len};
	strmap_put(&s->index, s->vars[s->nvars].name, len, s->nvars);
	s->work += 4;
	return s->nvars++;
}

static void free_elems(struct sh_v *v)
{
	for (size_t i = 0; i < v->nel; i++)
		free(v->el[i].v);
	free(v->el);
	v->el = NULL;
	v->nel = v->capel = 0;
}

static struct sh_items *push_elem(struct sh_v *v)
{
	if (v->nel == v->capel) {
		v->capel = v->capel ? v->capel * 2 : 4;
		v->el = mem_realloc(v->el, v->capel * sizeof(*v->el));
	}
	v->el[v->nel] = (struct sh_items){0};
	return &v->el[v->nel++];
}

static void var_changed(struct sh *s, struct sh_v *v)
{
	v->cached = false;
	v->text = NULL;
	if (v->exported)
		s->env_gen++, s->snap_dirty = true;
}

static void export_var(struct sh *s, size_t vi, bool on)
{
	struct sh_v *v = &s->vars[vi];
	if (v->exported == on)
		return;
	v->exported = on;
	s->env_gen++;
	if (!on || v->listed)
		s->snap_dirty = true;
	if (on && !v->listed) {
		/* listed once: the order is that of first export */
		v->listed = true;
		if (s->nexp == s->capexp) {
			s->capexp = s->capexp ? s->capexp * 2 : 16;
			s->exp = mem_realloc(s->exp, s->capexp * sizeof(*s->exp));
		}
		s->exp[s->nexp++] = vi;
	}
}

static const char *var_text(struct sh *s, struct sh_v *v)
{
	if (!v->cached) {
		v->cached = true;
		v->text = !v->nel ? "" : has_unres(&v->el[0]) ? NULL : items_text(s, &v->el[0]);
	}
	return v->text;
}

static struct loc var_loc(const struct sh *s, const struct sh_v *v)
{
	return loc_at(s, v->nel && v->el[0].n ? v->el[0].v[0].off : v->off);
}

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
			put_el(s, o, &v->el[idx], k);
		return;
	}
	for (size_t i = 0; i < v->nel && !o->cut; i++) {
		if (quoted && sel == SEL_AT) {
			if (i)
				put(s, o, doff, 0, K_BRK);
			put(s, o, doff, 0, K_KEEP);
		} else if (i) {
			put(s, o, doff, ' ', k);
		}
		put_el(s, o, &v->el[i], k);
	}
	if (quoted && sel == SEL_AT && at_seen)
		*at_seen = true;
}

/* ---- skipping what is not expanded: $(...), `...`, unused ${X:-word} ---- */

enum { CL_SQ, CL_DQ, CL_ANSI, CL_TICK, CL_BRACE, CL_BRACE_DQ, CL_PAREN };

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
	char c = at(s, open);
	if (c == '$')
		return at(s, open + 2) == '(' ? "unterminated $((...))" : "unterminated $(...)";
	if (c == '<' || c == '>')
		return "unterminated process substitution";
	return at(s, open + 1) == '(' ? "unterminated (( ... ))" : "unterminated ( ... )";
}

/*
 * From *pos, inside a construct that closes with 'cl' and opened at 'open', to just after its
 * closer. Iterative: nesting depth costs heap, not stack.
 */
static int skip_nested(struct sh *s, size_t *pos, unsigned char cl, size_t open)
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
			return fail(s, f.open, unterminated(s, f.cl, f.open));
		}
		unsigned char top = st[depth - 1].cl, push = 255;
		char c = t[p], c1 = at(s, p + 1);
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
			else if (c == '#' && top == CL_PAREN && p > 0 && in_set(t[p - 1], " \t\n;&|(")) {
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

/* ---- expansion ---- */

/* Contexts of scan(): a word, inside "...", the word of ${X:-word} unquoted or inside "...". */
enum { X_WORD, X_DQ, X_BRACE, X_BRACE_DQ };

static int scan(struct sh *s, size_t *pos, int x, int depth, size_t open, struct sh_items *o, bool *at_seen);

static int hexval(char c)
{
	return is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
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
					put(s, o, w, '\\', K_CH);
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
					put(s, o, w, '\\', K_CH);
					c = e;
				}
			}
		}
		put(s, o, w, c, K_CH);
	}
	if (q >= n)
		return fail(s, p, "unterminated $'...' quote");
	put(s, o, p, 0, K_KEEP);
	*pos = q + 1;
	return 0;
}

static void put_number(struct sh *s, struct sh_items *o, size_t off, size_t v)
{
	char buf[32];
	int k = snprintf(buf, sizeof(buf), "%zu", v);
	for (int i = 0; i < k; i++)
		put(s, o, off, buf[i], K_CH);
}

static void assign_scalar(struct sh *s, size_t vi, const struct sh_items *val, size_t off);

/* ${...} at *pos (the '$'). */
static int brace(struct sh *s, size_t *pos, int x, int depth, struct sh_items *o, bool *at_seen)
{
	size_t b = *pos, q = b + 2;
	bool quoted = x == X_DQ || x == X_BRACE_DQ;
	unsigned char cl = quoted ? CL_BRACE_DQ : CL_BRACE;
	bool len = false, special = false;
	if (at(s, q) == '#' && at(s, q + 1) != '}' && (name_char(at(s, q + 1)) || in_set(at(s, q + 1), "@*")))
		len = true, q++;
	size_t ns = q;
	char c = at(s, q);
	if (name_start(c)) {
		while (name_char(at(s, q)))
			q++;
	} else if (is_digit(c)) {
		special = true;
		while (is_digit(at(s, q)))
			q++;
	} else if (in_set(c, "@*#?-$!") && !(c == '!' && at(s, q + 1) != '}')) {
		special = true;
		q++;
	} else {
		goto unsupported;       /* ${!ref}, ${}, ... */
	}
	size_t nl = q - ns, idx = 0;
	int sel = SEL_ONE;
	bool idx_known = true;
	if (at(s, q) == '[') {
		size_t r = q + 1;
		while (r < s->n && !in_set(s->t[r], "]}\n"))
			r++;
		if (at(s, r) != ']')
			goto unsupported;
		if (r == q + 2 && s->t[q + 1] == '@') {
			sel = SEL_AT;
		} else if (r == q + 2 && s->t[q + 1] == '*') {
			sel = SEL_STAR;
		} else {
			idx_known = r > q + 1;
			for (size_t i = q + 1; i < r && idx_known; i++) {
				idx_known = is_digit(s->t[i]);
				if (idx < SH_MAX_ARGS)
					idx = idx * 10 + (size_t)(s->t[i] - '0');
			}
		}
		q = r + 1;
	}
	if (q >= s->n)
		goto unsupported;
	struct sh_v *v = special || !idx_known ? NULL : find(s, s->t + ns, nl);
	bool known = v && v->set;
	if (len) {
		if (s->t[q] != '}')
			goto unsupported;
		if (known && sel != SEL_ONE)
			put_number(s, o, b, v->nel);
		else if (known && (idx >= v->nel || !has_unres(&v->el[idx])))
			put_number(s, o, b, idx < v->nel ? v->el[idx].n : 0);
		else
			put(s, o, b, 0, K_UNRES);
		*pos = q + 1;
		return 0;
	}
	char op = s->t[q];
	if (op == '}') {
		if (known)
			put_var(s, o, v, sel, idx, quoted, b, at_seen);
		else
			put(s, o, b, 0, K_UNRES);
		*pos = q + 1;
		return 0;
	}
	bool colon = false;
	if (op == ':' && in_set(at(s, q + 1), "-=+?"))
		colon = true, op = s->t[++q];
	else if (!in_set(op, "-=+?"))
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
		if (scan(s, &q, quoted ? X_BRACE_DQ : X_BRACE, depth + 1, b, &w, at_seen) < 0) {
			free(w.v);
			return -1;
		}
		q++;    /* the '}' scan stopped at */
		if (op == '=' && !special && idx_known && sel == SEL_ONE && !idx) {
			struct sh_items val = {0};
			keep_value(s, &val, &w);
			assign_scalar(s, var_get(s, s->t + ns, nl), &val, ws);
		}
		for (size_t i = 0; i < w.n && !o->cut; i++)
			put(s, o, w.v[i].off, w.v[i].c, w.v[i].k);
		free(w.v);
	} else {
		if (skip_nested(s, &q, cl, b) < 0)
			return -1;
		if (what == USE_VAR)
			put_var(s, o, v, sel, idx, quoted, b, at_seen);
		else if (what == UNRESOLVED)
			put(s, o, b, 0, K_UNRES);
	}
	*pos = q;
	return 0;

unsupported:
	q = b + 2;
	if (skip_nested(s, &q, cl, b) < 0)
		return -1;
	put(s, o, b, 0, K_UNRES);
	*pos = q;
	return 0;
}

/* A '$' at *pos. */
static int dollar(struct sh *s, size_t *pos, int x, int depth, struct sh_items *o, bool *at_seen)
{
	size_t p = *pos;
	bool quoted = x == X_DQ || x == X_BRACE_DQ;
	char c1 = at(s, p + 1);
	if (c1 == '\'' && !quoted)
		return ansi(s, pos, o);
	if (c1 == '"' && !quoted) {
		*pos = p + 1;   /* $"..." reads as "..." */
		return 0;
	}
	if (c1 == '(') {
		size_t q = p + 2;
		if (skip_nested(s, &q, CL_PAREN, p) < 0)
			return -1;
		put(s, o, p, 0, K_UNRES);
		*pos = q;
		return 0;
	}
	if (c1 == '{')
		return brace(s, pos, x, depth, o, at_seen);
	if (name_start(c1)) {
		size_t q = p + 1;
		while (name_char(at(s, q)))
			q++;
		const struct sh_v *v = find(s, s->t + p + 1, q - p - 1);
		if (v && v->set)
			put_var(s, o, v, SEL_ONE, 0, quoted, p, at_seen);
		else
			put(s, o, p, 0, K_UNRES);
		*pos = q;
		return 0;
	}
	if (is_digit(c1) || in_set(c1, "@*#?-$!")) {
		put(s, o, p, 0, K_UNRES);
		*pos = p + 2;
		return 0;
	}
	put(s, o, p, '$', x == X_BRACE ? K_SPLIT : K_CH);
	*pos = p + 1;
	return 0;
}

/*
 * Expand from *pos in context x into o. A word ends before a blank or operator, "..." after
 * its closing quote, a ${...} word before its '}'. 'open' is where the construct began (for
 * CG908); 'at_seen' is set when a quoted "${A[@]}" took part.
 */
static int scan(struct sh *s, size_t *pos, int x, int depth, size_t open, struct sh_items *o, bool *at_seen)
{
	const char *t = s->t;
	size_t n = s->n, p = *pos;
	bool quoted = x == X_DQ || x == X_BRACE_DQ;
	unsigned char lit = x == X_BRACE ? K_SPLIT : K_CH;
	for (;;) {
		if (p >= n) {
			if (x == X_WORD)
				break;
			return fail(s, open, x == X_DQ ? "unterminated double quote" : "unterminated ${...}");
		}
		char c = t[p], c1 = at(s, p + 1);
		if (x == X_WORD && (is_blank(c) || c == '\n' || is_meta(c)))
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
			} else if (p + 1 >= n || (quoted && !in_set(c1, x == X_DQ ? "$`\"\\" : "$`\"\\}"))) {
				put(s, o, p, '\\', K_CH);
				p++;
			} else {
				put(s, o, p, c1, K_CH);
				p += 2;
			}
			continue;
		}
		if (c == '\'' && !quoted) {
			size_t q = p + 1;
			while (q < n && t[q] != '\'')
				q++;
			if (q >= n)
				return fail(s, p, "unterminated single quote");
			for (size_t i = p + 1; i < q; i++)
				put(s, o, i, t[i], K_CH);
			put(s, o, p, 0, K_KEEP);
			p = q + 1;
			continue;
		}
		if (c == '"' && x != X_DQ) {
			bool sub = false;
			size_t q = p + 1;
			if (scan(s, &q, X_DQ, depth, p, o, &sub) < 0)
				return -1;
			if (!sub)       /* "" is a word; "${A[@]}" of an empty A is none */
				put(s, o, p, 0, K_KEEP);
			p = q;
			continue;
		}
		if (c == '`') {
			size_t q = p + 1;
			if (skip_nested(s, &q, CL_TICK, p) < 0)
				return -1;
			put(s, o, p, 0, K_UNRES);
			p = q;
			continue;
		}
		if (c == '$') {
			if (dollar(s, &p, x, depth, o, at_seen) < 0)
				return -1;
			continue;
		}
		put(s, o, p, c, lit);
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

/* Split on unquoted expansion results (IFS: space, tab, newline) and "${A[@]}" boundaries. */
static void split(struct sh *s, const struct sh_items *in, struct sh_fields *out)
{
	struct sh_field f = {0};
	bool exists = false, has_char = false, has_off = false;
	for (size_t i = 0; i <= in->n; i++) {
		const struct sh_item *it = i < in->n ? &in->v[i] : NULL;
		if (!it || it->k == K_BRK || (it->k == K_SPLIT && in_set(it->c, " \t\n"))) {
			if (exists)
				push_field(s, out, &f);
			else
				free(f.it.v);
			f = (struct sh_field){0};
			exists = has_char = has_off = false;
			continue;
		}
		if (it->k == K_CH || it->k == K_SPLIT) {
			put(s, &f.it, it->off, it->c, K_CH);
			if (!has_char)
				f.off = it->off;
			has_char = has_off = true;
		} else {
			if (it->k == K_UNRES) {
				put(s, &f.it, it->off, 0, K_UNRES);
				f.unres = true;
			}
			if (!has_off)
				f.off = it->off;
			has_off = true;
		}
		exists = true;
	}
}

static void free_fields(struct sh_fields *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		free(fs->v[i].it.v);
	free(fs->v);
	*fs = (struct sh_fields){0};
}

/* ---- assignments ---- */

static void assign_scalar(struct sh *s, size_t vi, const struct sh_items *val, size_t off)
{
	struct sh_v *v = &s->vars[vi];
	if (v->is_array && v->nel) {
		free(v->el[0].v);
		v->el[0] = *val;
	} else {
		free_elems(v);
		*push_elem(v) = *val;
	}
	v->set = true;
	v->off = (uint32_t)off;
	var_changed(s, v);
}

struct sh_head {
	size_t name, name_len, sub, sub_len, value;
	bool has_sub, append;
};

/* "NAME=", "NAME+=" or "NAME[sub]=" at p? */
static bool asg_head(const struct sh *s, size_t p, struct sh_head *h)
{
	if (!name_start(at(s, p)))
		return false;
	size_t q = p;
	while (name_char(at(s, q)))
		q++;
	*h = (struct sh_head){.name = p, .name_len = q - p};
	if (at(s, q) == '[') {
		size_t r = q + 1;
		while (r < s->n && !in_set(s->t[r], "]\n"))
			r++;
		if (at(s, r) != ']')
			return false;
		h->has_sub = true, h->sub = q + 1, h->sub_len = r - q - 1;
		q = r + 1;
	}
	if (at(s, q) == '+')
		h->append = true, q++;
	if (at(s, q) != '=')
		return false;
	h->value = q + 1;
	return true;
}

/* Save a variable before a prefix assignment changes it; the copy it keeps is its own. */
static void save_var(struct sh *s, struct sh_cmdst *c, size_t vi)
{
	if (c->nas == c->capas) {
		c->capas = c->capas ? c->capas * 2 : 4;
		c->as = mem_realloc(c->as, c->capas * sizeof(*c->as));
	}
	struct sh_v *v = &s->vars[vi];
	c->as[c->nas++] = (struct sh_asg){vi, *v};
	struct sh_items *old = v->el;
	size_t nel = v->nel;
	v->el = NULL, v->nel = v->capel = 0;
	for (size_t i = 0; i < nel; i++) {
		struct sh_items *e = push_elem(v);
		for (size_t k = 0; k < old[i].n && !e->cut; k++)
			put(s, e, old[i].v[k].off, old[i].v[k].c, old[i].v[k].k);
	}
}

static void restore_var(struct sh *s, struct sh_asg *a)
{
	struct sh_v *v = &s->vars[a->var];
	free_elems(v);
	*v = a->saved;
	var_changed(s, v);
}

/* ( ... ) at *pos, expanded before it replaces (or extends) the elements of vars[vi]. */
static int read_array(struct sh *s, size_t *pos, struct sh_v **vp, size_t vi, bool append)
{
	size_t p = *pos + 1, open = *pos;
	struct sh_fields fs = {0};
	for (;;) {
		while (p < s->n && (is_blank(s->t[p]) || s->t[p] == '\n' || (s->t[p] == '\\' && at(s, p + 1) == '\n')))
			p += s->t[p] == '\\' ? 2 : 1;
		if (p >= s->n) {
			free_fields(&fs);
			return fail(s, open, "unterminated array ( ... )");
		}
		char c = s->t[p];
		if (c == '#') {
			while (p < s->n && s->t[p] != '\n')
				p++;
			continue;
		}
		if (c == ')') {
			p++;
			break;
		}
		if (is_meta(c)) {
			free_fields(&fs);
			return fail(s, p, "an operator inside an array ( ... )");
		}
		struct sh_items w = {0};
		int rc = scan(s, &p, X_WORD, 0, p, &w, NULL);
		if (!rc)
			split(s, &w, &fs);
		free(w.v);
		if (rc) {
			free_fields(&fs);
			return -1;
		}
	}
	struct sh_v *v = *vp = &s->vars[vi];
	if (!append)
		free_elems(v);
	v->is_array = true;
	for (size_t i = 0; i < fs.n; i++) {
		if (v->nel >= SH_MAX_ARGS) {
			free(fs.v[i].it.v);
			continue;
		}
		*push_elem(v) = fs.v[i].it;
	}
	free(fs.v);
	*pos = p;
	return 0;
}

/* NAME=value, NAME+=value, NAME[i]=value, NAME=( ... ) at *pos. */
static int assignment(struct sh *s, size_t *pos, struct sh_cmdst *c, const struct sh_head *h)
{
	size_t p = h->value, vi = var_get(s, s->t + h->name, h->name_len);
	if (!c->decl)
		save_var(s, c, vi);
	struct sh_v *v;
	if (at(s, p) == '(' && !h->has_sub) {
		if (read_array(s, &p, &v, vi, h->append) < 0)
			return -1;
	} else {
		struct sh_items w = {0}, val = {0};
		if (scan(s, &p, X_WORD, 0, p, &w, NULL) < 0) {
			free(w.v);
			return -1;
		}
		keep_value(s, &val, &w);
		free(w.v);
		v = &s->vars[vi];       /* ${X:=...} in the value may have moved the table */
		size_t idx = 0;
		bool idx_known = !h->has_sub || h->sub_len;
		for (size_t i = 0; h->has_sub && i < h->sub_len && idx_known; i++) {
			idx_known = is_digit(s->t[h->sub + i]);
			if (idx < SH_MAX_ARGS)
				idx = idx * 10 + (size_t)(s->t[h->sub + i] - '0');
		}
		if (!idx_known) {
			free(val.v);    /* A[$i]=x: which element is unknown; A is left as it was */
			*pos = p;
			return 0;
		}
		if (h->has_sub) {
			v->is_array = true;
			if (idx < v->nel && !h->append) {
				free(v->el[idx].v);
				v->el[idx] = val;
			} else if (idx < v->nel) {
				put_el(s, &v->el[idx], &val, K_CH);
				free(val.v);
			} else if (v->nel < SH_MAX_ARGS) {
				*push_elem(v) = val;        /* no sparse arrays: a gap closes up */
			} else {
				free(val.v);
			}
		} else if (h->append && v->nel) {
			put_el(s, &v->el[0], &val, K_CH);
			free(val.v);
		} else {
			assign_scalar(s, vi, &val, h->value);
		}
	}
	v->set = true;
	v->off = (uint32_t)h->value;
	var_changed(s, v);
	if (c->decl_x && c->decl != D_UNSET)
		export_var(s, vi, c->decl_x > 0);
	*pos = p;
	return 0;
}

/* ---- commands ---- */

static void cmd_free(struct sh_cmdst *c)
{
	free(c->w);
	free(c->as);
	free(c->inl);
	*c = (struct sh_cmdst){0};
}

static bool at_start(const struct sh_cmdst *c)
{
	return !c->has_cmd && !c->nas && !c->nw && !c->decl;
}

/* The first word that is not an assignment: prefix assignments turn into inline env. */
static void start_cmd(struct sh *s, struct sh_cmdst *c)
{
	c->has_cmd = true;
	if (!c->nas)
		return;
	c->inl = mem_alloc(c->nas * sizeof(*c->inl));
	for (size_t i = 0; i < c->nas; i++) {
		struct sh_v *v = &s->vars[c->as[i].var];
		if (!v->is_array)
			c->inl[c->ninl++] = (struct sh_var){v->name, var_text(s, v), var_loc(s, v)};
	}
	for (size_t i = c->nas; i-- > 0;)
		restore_var(s, &c->as[i]);
	c->nas = 0;
}

static void add_word(struct sh *s, struct sh_cmdst *c, const struct sh_field *f)
{
	if (c->nw >= SH_MAX_ARGS) {
		c->w[c->nw - 1].unresolved = true;
		return;
	}
	if (c->nw == c->capw) {
		c->capw = c->capw ? c->capw * 2 : 16;
		c->w = mem_realloc(c->w, c->capw * sizeof(*c->w));
	}
	s->work += 4;
	c->w[c->nw++] = (struct sh_word){items_text(s, &f->it), loc_at(s, f->off), f->unres};
}

static bool in_env(const struct sh_v *v)
{
	return v->exported && v->set && !v->is_array;
}

static void rebuild_snapshot(struct sh *s)
{
	size_t from = s->snap_nexp, k = 0;
	if (!s->snap_ok || s->snap_dirty)
		from = 0, s->nsnap = 0, s->capsnap = 0;     /* earlier commands keep the old array */
	for (size_t i = from; i < s->nexp; i++)
		k += in_env(&s->vars[s->exp[i]]);
	if (s->nsnap + k > s->capsnap) {
		struct sh_var *old = s->snap;
		s->capsnap = 2 * (s->nsnap + k) + 16;
		s->snap = arena_alloc(s->a, s->capsnap * sizeof(*s->snap));
		if (s->nsnap)
			memcpy(s->snap, old, s->nsnap * sizeof(*s->snap));
		s->work += 4 * s->nsnap;
	}
	for (size_t i = from; i < s->nexp; i++) {
		struct sh_v *v = &s->vars[s->exp[i]];
		if (in_env(v))
			s->snap[s->nsnap++] = (struct sh_var){v->name, var_text(s, v), var_loc(s, v)};
	}
	s->work += 4 * k;
	s->snap_nexp = s->nexp;
	s->snap_gen = s->env_gen;
	s->snap_ok = true;
	s->snap_dirty = false;
}

static void end_cmd(struct sh *s, struct sh_cmdst *c)
{
	if (!c->has_cmd) {
		/* assignments alone: they stay */
		for (size_t i = 0; i < c->nas; i++)
			free_elems(&c->as[i].saved);
	} else if (!c->discard && !c->decl && c->nw) {
		struct sh_cmd cmd = {.argc = c->nw, .loc = c->w[0].loc};
		cmd.argv = arena_alloc(s->a, c->nw * sizeof(*cmd.argv));
		memcpy(cmd.argv, c->w, c->nw * sizeof(*cmd.argv));
		if (!s->snap_ok || s->snap_gen != s->env_gen)
			rebuild_snapshot(s);
		cmd.env = s->snap, cmd.n_env = s->nsnap;
		if (c->ninl) {
			cmd.n_env = s->nsnap + c->ninl;
			cmd.env = arena_alloc(s->a, cmd.n_env * sizeof(*cmd.env));
			if (s->nsnap)
				memcpy(cmd.env, s->snap, s->nsnap * sizeof(*cmd.env));
			memcpy(cmd.env + s->nsnap, c->inl, c->ninl * sizeof(*cmd.env));
			s->work += 4 * cmd.n_env;
		}
		if (s->ncmds == s->capcmds) {
			s->capcmds = s->capcmds ? s->capcmds * 2 : 16;
			s->cmds = mem_realloc(s->cmds, s->capcmds * sizeof(*s->cmds));
		}
		s->cmds[s->ncmds++] = cmd;
		s->work += 4;
	}
	cmd_free(c);
}

static size_t skip_heredocs(struct sh *s, size_t p)
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

/* A redirection operator at *pos and its target word; a heredoc's tag is remembered. */
static int redirect(struct sh *s, size_t *pos)
{
	size_t p = *pos;
	bool hd = false, strip = false;
	char c = s->t[p++];
	if (c == '&') {
		p++;                                    /* &> */
		if (at(s, p) == '>')
			p++;
	} else if (c == '<') {
		if (at(s, p) == '<') {
			p++;
			if (at(s, p) == '<') {
				p++;                    /* here-string */
			} else {
				hd = true;
				if (at(s, p) == '-')
					strip = true, p++;
			}
		} else if (in_set(at(s, p), "&>")) {
			p++;
		}
	} else if (in_set(at(s, p), ">&|")) {
		p++;
	}
	p = skip_blanks(s, p);
	char t = at(s, p);
	if ((t == '<' || t == '>') && at(s, p + 1) == '(') {
		size_t q = p + 2;       /* > >(tee log): no word of the command */
		int rc = skip_nested(s, &q, CL_PAREN, p);
		*pos = q;
		return rc;
	}
	if (!t || t == '\n' || is_meta(t)) {
		*pos = p;       /* no target: bash rejects it, nothing to read */
		return 0;
	}
	struct sh_items w = {0};
	int rc = scan(s, &p, X_WORD, 0, p, &w, NULL);
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
	int rc = scan(s, pos, X_WORD, 0, *pos, &w, NULL);
	free(w.v);
	return rc;
}

/* [[ ... ]]: its && || ( ) < > are its own, not command separators. */
static int test_clause(struct sh *s, size_t *pos)
{
	size_t p = *pos + 2;
	for (;;) {
		p = skip_blanks(s, p);
		if (p >= s->n || s->t[p] == '\n')
			break;
		if (kw(s, p, "]]")) {
			p += 2;
			break;
		}
		if (is_meta(s->t[p]) || s->t[p] == '#') {
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
	size_t p = *pos, k = kw(s, p, "esac");
	s->want_pattern = false;
	if (k) {
		s->case_depth -= s->case_depth > 0;
		*pos = p + k;
		return 0;
	}
	if (s->t[p] == '(')
		p++;
	for (;;) {
		p = skip_blanks(s, p);
		if (p >= s->n || s->t[p] == '\n')
			break;
		if (s->t[p] == ')') {
			p++;
			break;
		}
		if (is_meta(s->t[p])) {
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
		if (!(i ? name_char(name[i]) : name_start(name[i])))
			return;
	}
	size_t vi = var_get(s, name, it->n);
	if (c->decl == D_UNSET) {
		struct sh_v *v = &s->vars[vi];
		free_elems(v);
		v->set = v->is_array = false;
		var_changed(s, v);
		export_var(s, vi, false);
	} else if (c->decl_x) {
		export_var(s, vi, c->decl_x > 0);
	}
}

static int decl_kind(const struct sh *s, size_t p, int *x)
{
	*x = 0;
	if (kw(s, p, "export")) {
		*x = 1;
		return D_EXPORT;
	}
	if (kw(s, p, "declare") || kw(s, p, "typeset") || kw(s, p, "local") || kw(s, p, "readonly"))
		return D_DECLARE;
	return kw(s, p, "unset") ? D_UNSET : D_NONE;
}

static const char *const skip_kw[] = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until",
				      "!", "time", "{", "}"};

/* A word at *pos (not an operator, blank or comment). */
static int word(struct sh *s, size_t *pos, struct sh_cmdst *c)
{
	size_t p = *pos, k;
	if (at_start(c) && !c->discard) {
		for (size_t i = 0; i < sizeof(skip_kw) / sizeof(*skip_kw); i++)
			if ((k = kw(s, p, skip_kw[i]))) {
				p = skip_blanks(s, p + k);
				if (!strcmp(skip_kw[i], "time") && kw(s, p, "-p"))
					p += 2;         /* time -p cmd: -p is time's */
				*pos = p;
				return 0;
			}
		if ((k = kw(s, p, "esac"))) {
			s->case_depth -= s->case_depth > 0;
			s->want_pattern = false;
			*pos = p + k;
			return 0;
		}
		if ((k = kw(s, p, "for")) || (k = kw(s, p, "select"))) {
			c->has_cmd = c->discard = true;
			p = skip_blanks(s, p + k);
			if (at(s, p) == '(' && at(s, p + 1) == '(') {
				size_t q = p + 1;
				if (skip_nested(s, &q, CL_PAREN, p) < 0)
					return -1;
				p = q;
			}
			*pos = p;
			return 0;
		}
		if ((k = kw(s, p, "case"))) {
			c->has_cmd = c->discard = c->case_head = true;
			*pos = p + k;
			return 0;
		}
		if ((k = kw(s, p, "function"))) {
			c->has_cmd = c->discard = c->func = true;
			*pos = p + k;
			return 0;
		}
		if (kw(s, p, "[[")) {
			c->has_cmd = c->discard = true;
			return test_clause(s, pos);
		}
	}
	if (c->case_head && (k = kw(s, p, "in"))) {
		end_cmd(s, c);
		s->case_depth++;
		s->want_pattern = true;
		*pos = p + k;
		return 0;
	}
	if (c->func && c->func_named) {
		end_cmd(s, c);          /* function f { ...: the body starts a command */
		return 0;
	}
	c->func_named = c->func;
	struct sh_head h;
	if ((!c->has_cmd || c->decl) && asg_head(s, p, &h))
		return assignment(s, pos, c, &h);
	int decl = D_NONE, x = 0;
	if (!c->has_cmd) {
		start_cmd(s, c);
		decl = decl_kind(s, p, &x);
	}
	struct sh_items w = {0};
	if (scan(s, &p, X_WORD, 0, p, &w, NULL) < 0) {
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
	split(s, &w, &fs);
	free(w.v);
	for (size_t i = 0; i < fs.n; i++) {
		if (c->decl)
			decl_word(s, c, &fs.v[i]);
		else
			add_word(s, c, &fs.v[i]);
	}
	free_fields(&fs);
	return 0;
}

/* '(' at p: "name ( )" ends a function header. */
static bool func_parens(const struct sh *s, size_t p, const struct sh_cmdst *c, size_t *end)
{
	if (!(c->func || (c->has_cmd && c->nw == 1 && !c->discard && !c->decl && !c->ninl)))
		return false;
	size_t q = skip_blanks(s, p + 1);
	if (at(s, q) != ')')
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
			rc = fail(s, p < n ? p : n ? n - 1 : 0, "the script expands to more than cglint reads");
			break;
		}
		p = skip_blanks(s, p);
		if (p >= n)
			break;
		char ch = t[p], c1 = at(s, p + 1);
		if (ch == '#') {
			while (p < n && t[p] != '\n')
				p++;
			continue;
		}
		if (ch == '\n') {
			end_cmd(s, &c);
			p = skip_heredocs(s, p + 1);
			continue;
		}
		if (s->want_pattern && at_start(&c) && ch != ';') {
			rc = pattern(s, &p);
			continue;
		}
		size_t q;
		switch (ch) {
		case ';':
			p++;
			if (at(s, p) == ';' || at(s, p) == '&') {
				p += 1 + (at(s, p + 1) == '&');
				s->want_pattern = s->case_depth > 0;    /* ;; ;& ;;& end a case item */
			}
			end_cmd(s, &c);
			continue;
		case '|':
			p += c1 == '|' || c1 == '&' ? 2 : 1;
			end_cmd(s, &c);
			continue;
		case '&':
			if (c1 == '>') {
				rc = redirect(s, &p);
				continue;
			}
			p += c1 == '&' ? 2 : 1;
			end_cmd(s, &c);
			continue;
		case ')':
			p++;
			end_cmd(s, &c);
			continue;
		case '(':
			if (at_start(&c) && !c.discard && c1 == '(') {
				q = p + 1;      /* (( arithmetic )) */
				rc = skip_nested(s, &q, CL_PAREN, p);
				p = q;
			} else if (func_parens(s, p, &c, &q)) {
				c.discard = c.has_cmd = true;
				end_cmd(s, &c);
				p = q;
			} else {
				p++;            /* a subshell is read through */
				end_cmd(s, &c);
			}
			continue;
		case '<':
		case '>':
			if (c1 == '(') {
				q = p + 2;      /* <(...) is a word nobody can know */
				rc = skip_nested(s, &q, CL_PAREN, p);
				if (!rc && !c.has_cmd)
					start_cmd(s, &c);
				if (!rc && !c.discard && !c.decl) {
					struct sh_field f = {.off = (uint32_t)p, .unres = true};
					add_word(s, &c, &f);
				}
				p = q;
				continue;
			}
			rc = redirect(s, &p);
			continue;
		default:
			break;
		}
		if (is_digit(ch)) {
			for (q = p; is_digit(at(s, q));)
				q++;
			if ((at(s, q) == '<' || at(s, q) == '>') && at(s, q + 1) != '(') {
				p = q;  /* 2>&1: the fd number is part of the redirection */
				rc = redirect(s, &p);
				continue;
			}
		}
		rc = word(s, &p, &c);
	}
	if (!rc) {
		end_cmd(s, &c);
	} else {
		/* the command being read when reading stopped is incomplete: dropped */
		for (size_t i = c.nas; i-- > 0;)
			restore_var(s, &c.as[i]);
		c.nas = 0;
		cmd_free(&c);
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
		free_elems(&s.vars[i]);
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

/* SPDX-License-Identifier: MIT */
/*
 * sh: the state of one read of a launch script, shared by fe_sh.c (the parser) and the parts
 * it uses: sh_lex (positions, skipping), sh_exp (expansion into items and fields), sh_var
 * (variables, assignments) and sh_cmd (the commands it emits). Internal to lint/front.
 *
 * Ownership: struct sh lives on fe_sh_parse's stack and owns every malloc'd array it points
 * to (variables and their elements, heredoc tags, exp, cmds, lines); fe_sh_parse frees them.
 * Names, words, values and emitted commands live in the arena 'a'. A struct sh_items,
 * sh_fields or sh_cmdst owns its malloc'd arrays, and whoever holds one frees them.
 */
#ifndef CGLINT_SH_H
#define CGLINT_SH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/strmap.h"

struct arena;
struct diag_list;
struct sh_cmd;
struct sh_var;
struct sh_word;

/* A script that doubles a variable 40 times reaches SH_MAX_WORK in about 80 ms. A fuzzing build
 * shrinks the budgets 256-fold: the same paths at the limits, without a corpus of such scripts
 * slowing every run. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define SH_BUDGET_SHIFT 8
#else
#define SH_BUDGET_SHIFT 0
#endif
enum {
	SH_MAX_DEPTH = 32,        /* ${X:-${Y:-...}} levels expanded; deeper ones are unresolved */
	SH_MAX_VALUE = 1 << (20 - SH_BUDGET_SHIFT),     /* items in one expansion or one variable value */
	SH_MAX_ARGS = 1 << 16,    /* words of one command, elements of one array */
	SH_MAX_WORK = 1 << (24 - SH_BUDGET_SHIFT),      /* items and output records over the whole script */
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

/* Character classes and the byte at p (0 past the end): inline, the scanners call them per byte. */

static inline bool sh_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline bool sh_is_meta(char c)
{
	return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>';
}

static inline bool sh_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool sh_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool sh_name_char(char c)
{
	return sh_name_start(c) || sh_is_digit(c);
}

/* strchr would match the terminator for c == 0. */
static inline bool sh_in_set(char c, const char *set)
{
	return c && strchr(set, c);
}

static inline char sh_at(const struct sh *s, size_t p)
{
	return p < s->n ? s->t[p] : 0;
}

#endif

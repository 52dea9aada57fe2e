/* SPDX-License-Identifier: MIT */
/*
 * sh_lex: positions in a launch script's text and reading over what is not expanded: the
 * line and column of an offset, the one CG908 report, keywords, blanks, nested quotes and
 * substitutions, heredoc bodies. Works on struct sh (front/sh.h).
 */
#ifndef CGLINT_SH_LEX_H
#define CGLINT_SH_LEX_H

#include <stddef.h>

#include "base/loc.h"
#include "front/sh.h"

/* What a construct read over by sh_lex_skip_nested closes with. */
enum { CL_SQ, CL_DQ, CL_ANSI, CL_TICK, CL_BRACE, CL_BRACE_DQ, CL_PAREN };

struct loc sh_lex_loc(const struct sh *s, size_t off);
/* Report CG908 at 'off' (only the first time) and mark the read failed; returns -1. */
int sh_lex_fail(struct sh *s, size_t off, const char *what);
/* p at an unquoted word equal to 'kw' followed by a word end: its length, else 0. */
size_t sh_lex_kw(const struct sh *s, size_t p, const char *w);
/* Past blanks and backslash-newlines from p. */
size_t sh_lex_skip_blanks(const struct sh *s, size_t p);
/*
 * From *pos, inside a construct that closes with 'cl' and opened at 'open', to just after its
 * closer. Iterative: nesting depth costs heap, not stack.
 */
int sh_lex_skip_nested(struct sh *s, size_t *pos, unsigned char cl, size_t open);
/* At the start of the line after the heredoc operators in s->hd: past their bodies; frees
 * their tags and empties s->hd. */
size_t sh_lex_skip_heredocs(struct sh *s, size_t p);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * sh_exp: expansion. A word is expanded while it is scanned, into items (front/sh.h), then
 * split into fields the way bash splits them. Every item added counts against the script's
 * budget (SH_MAX_WORK); an sh_items that hits a limit ends in a K_UNRES mark.
 */
#ifndef CGLINT_SH_EXP_H
#define CGLINT_SH_EXP_H

#include <stdbool.h>
#include <stddef.h>

#include "front/sh.h"

/* Contexts of sh_exp_scan(): a word, inside "...", the word of ${X:-word} unquoted or inside "...". */
enum { X_WORD, X_DQ, X_BRACE, X_BRACE_DQ };

/*
 * Expand from *pos in context x into o. A word ends before a blank or operator, "..." after
 * its closing quote, a ${...} word before its '}'. 'open' is where the construct began (for
 * CG908); 'at_seen' is set when a quoted "${A[@]}" took part.
 */
int sh_exp_scan(struct sh *s, size_t *pos, int x, int depth, size_t open, struct sh_items *o, bool *at_seen);

/* Split on unquoted expansion results (IFS: space, tab, newline) and "${A[@]}" boundaries. */
void sh_exp_split(struct sh *s, const struct sh_items *in, struct sh_fields *out);
void sh_exp_free_fields(struct sh_fields *fs);

#endif

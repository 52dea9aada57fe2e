/* SPDX-License-Identifier: MIT */
/*
 * explain: a rule in words, as `cglint explain ID` prints it and as its page (docs/rules/ID.md,
 * written by cglint_rule_docs at build time) holds it: the same text, the page's in Markdown
 * (the fields and mirrors in fenced blocks, the doc as written, which is Markdown already).
 */
#ifndef CGLINT_EXPLAIN_H
#define CGLINT_EXPLAIN_H

#include <stdbool.h>
#include <stdio.h>

struct pack;
struct rule;
struct target;

/* One variant of a rule. */
void explain_rule(FILE *f, const struct pack *p, const struct rule *r, bool markdown);
/* Every variant of the rule named 'id' (an id in any case, or a name), separated, those that apply
 * to 'first' (when not NULL) before the others; false when there is none. */
bool explain_id(FILE *f, const struct pack *p, const char *id, bool markdown, const struct target *first);
/* `explain ID --mcore X`: only the variants of 'id' that apply to 'target'; where none does, every
 * variant, after a line saying so. False when no rule has that id. */
bool explain_id_only(FILE *f, const struct pack *p, const char *id, const struct target *target);

#endif

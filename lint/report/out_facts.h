/* SPDX-License-Identifier: MIT */
/*
 * out_facts: `cglint facts`, what cglint holds for each unit (a recipe function, a config, a
 * launch command) once normalized for the target: every key, its value or why it is unknown,
 * and where it came from (the input's line, a default, a replayed transform). Units are
 * collected as the run judges them (lint.h's on_facts) and printed at the end, as text or as
 * JSON (docs/reference.md: Undecided checks).
 */
#ifndef CGLINT_OUT_FACTS_H
#define CGLINT_OUT_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct facts;
struct target;

struct out_facts;
/* 'function' (may be NULL) keeps only the units of that name; both borrowed for the sink's life. */
struct out_facts *out_facts_new(bool json, const char *function);
void out_facts_free(struct out_facts *s);
/* lint.h's on_facts: copies what it needs. */
void out_facts_unit(void *sink, const char *path, const char *unit, unsigned line, const struct target *tg,
		    const struct facts *t);
size_t out_facts_count(const struct out_facts *s);
void out_facts_print(struct out_facts *s, FILE *f, const struct target *tg);

#endif

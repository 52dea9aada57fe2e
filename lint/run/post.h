/* SPDX-License-Identifier: MIT */
/*
 * post: the stage between the checks and the output. In order: drop what a .cglint.yaml
 * deselects and apply its severities (per input path), drop what inline suppressions cover
 * and report the ones that covered nothing (supp.h), give every diagnostic its fingerprint,
 * drop what the baseline holds (baseline.h), and sort.
 */
#ifndef CGLINT_POST_H
#define CGLINT_POST_H

#include <stdbool.h>
#include <stddef.h>

struct lint_run;
struct baseline;

struct post_counts {
	size_t suppressed, baselined;
};

/* 'inline_supp' false: --no-inline-suppressions. 'b' may be NULL. */
void post_run(struct lint_run *r, bool inline_supp, const struct baseline *b, struct post_counts *c);

#endif

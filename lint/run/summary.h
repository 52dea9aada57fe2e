/* SPDX-License-Identifier: MIT */
/*
 * summary: the one line a lint run ends with on stderr, so a CI log tells "checked and clean"
 * from "checked nothing": "cglint: 3 errors, 2 warnings in 2 files; 14 files checked, 1 skipped"
 * or "cglint: all checks passed (14 files checked)". Folders that held no input are said so
 * first, as warnings (the exit status stays 0, as ruff's "No Python files found").
 */
#ifndef CGLINT_SUMMARY_H
#define CGLINT_SUMMARY_H

#include <stdio.h>

struct session_result;

/* What fails a run (exit status 1): the findings at or above their file's fail-on, and the
 * undecided checks where that is DIAG_FAIL_UNDECIDED (base/diag.h), below note. */
struct summary_gate {
	size_t findings, undecided;
};
#define SUMMARY_FAIL_ON_CONFIG (-2)     /* no --fail-on: each file's .cglint.yaml fail-on, else error */
/* 'fail_on': --fail-on (a severity or DIAG_FAIL_UNDECIDED), or SUMMARY_FAIL_ON_CONFIG. */
void summary_gate(const struct session_result *res, int fail_on, struct summary_gate *g);

/* The "no input" warnings, then the summary line. Flushes stdout first, so that findings and
 * the summary never share a line when both streams go to one log (2>&1). Undecided checks are
 * counted with what would decide them (--python-path where an import was not followed, a Hugging
 * Face cache where a model's config.json was missing, --assume-defaults for keys no input
 * sets), and said to fail the run where 'g' (NULL: --exit-zero) counts them. */
void summary_print(FILE *f, const struct session_result *res, const struct summary_gate *g);

/* --show-undecided: the undecided checks, grouped by the key each waits for (the first its
 * message names), keys in order, each check as the text format prints a finding. */
void summary_undecided(FILE *f, const struct session_result *res);

#endif

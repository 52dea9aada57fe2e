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

/* The "no input" warnings, then the summary line. Flushes stdout first, so that findings and
 * the summary never share a line when both streams go to one log (2>&1). */
void summary_print(FILE *f, const struct session_result *res);

#endif

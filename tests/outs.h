/* SPDX-License-Identifier: MIT */
/*
 * outs: what the output suites share (test_sarif.c; test_out.c: GitHub, the table of formats,
 * project-relative paths). Each test runs in a project of its own: a copy of fixtures/examples
 * in a folder with .git, beside a folder outside it, so every path, URI and the root are known
 * exactly. Criterion runs each test in a process of its own, so a test may chdir() before the
 * root is first asked for.
 */
#ifndef CGLINT_TEST_OUTS_H
#define CGLINT_TEST_OUTS_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>

#include "base/diag.h"
#include "harness.h"
#include "report/out.h"

/* The suites' .init and .fini: the folders below in harness_dir, made and removed. */
void outs_setup(void);
void outs_teardown(void);

extern char outs_dir[sizeof(harness_dir) + 8];  /* the project: harness_dir/proj, with .git and examples/ */
extern char outs_outside[PATH_MAX];             /* harness_dir/outside, resolved */
extern char outs_root[PATH_MAX];                /* outs_dir as getcwd() names it there */

/* Write the string 'text' to outs_dir/NAME. */
void outs_put(const char *name, const char *text);

/* JSON by path, "runs.0.tool.driver.name": the value (NULL if none), its string ("(missing)" if
 * none), its integer (-999 if none). */
json_t *outs_at(json_t *j, const char *path);
const char *outs_str(json_t *j, const char *path);
long long outs_num(json_t *j, const char *path);

/* Hand-made diagnostics printed in 'fmt' on MCore 0.19, Bridge 0.6 (malloc'd). */
char *outs_print(const struct out_format *fmt, const struct diag_list *l, bool color);

#endif

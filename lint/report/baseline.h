/* SPDX-License-Identifier: MIT */
/*
 * baseline: known findings to leave out, for adopting cglint on a tree that has them. A
 * baseline is JSON (docs/baseline.schema.json): {"version": 1, "tool": "cglint", "findings":
 * [{"path", "rule", "fingerprint", "message"}]}. A finding matches by path (relative to the
 * baseline file's folder), rule id and fingerprint, never by line, so editing elsewhere in a
 * file keeps it matched; each entry matches one finding.
 */
#ifndef CGLINT_BASELINE_H
#define CGLINT_BASELINE_H

#include <stddef.h>

struct arena;
struct diag_list;
struct baseline;

/* NULL after reporting into 'problems' (CG904 unreadable, CG916 not a baseline); 'a' holds
 * the file's text while it is read. Free the result with baseline_free(). */
struct baseline *baseline_read(const char *path, struct arena *a, struct diag_list *problems);
void baseline_free(struct baseline *b);
/* Drop the diagnostics the baseline holds (each entry once); returns how many. Each one dropped is
 * appended to 'aside', marked DIAG_SUPP_BASELINE with the baseline's file as reason. */
size_t baseline_apply(const struct baseline *b, struct diag_list *l, struct diag_list *aside);
/* Write every diagnostic of 'l' (fingerprints assigned) to 'path' atomically. 0 or -1 (errno). */
int baseline_write(const char *path, const struct diag_list *l);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * fix: mechanical fixes. A rule's pack entry says which value its keys must take ('autofix:');
 * fix turns a diagnostic into a text edit, applies edits to a file atomically (a temporary file
 * renamed over it) and prints them as a unified diff. Everything outside an edit is kept byte
 * for byte: comments, quoting style, indentation, line ends.
 */
#ifndef CGLINT_FIX_H
#define CGLINT_FIX_H

#include <stdbool.h>
#include <stdio.h>

struct arena;
struct diag;

/* Replace [start, end) of a text by 'text'. Offsets are bytes; the text lives in an arena. */
struct fix_edit {
	size_t start, end;
	const char *text;
	const char *title;      /* "set rng.te_rng_tracker: true", for code actions */
};

/* A file's edits in the order made, grown as needed; the owner frees 'e'. */
struct fix_edits {
	struct fix_edit *e;
	size_t n, cap;
};
void fix_edits_add(struct fix_edits *l, struct fix_edit e);

/* The mechanical fix for 'd' in 'buf' (the text of d->loc.path); false when it has none. */
bool fix_for(struct arena *a, const struct diag *d, const char *buf, size_t len, struct fix_edit *e);
/* An edit that adds an inline suppression of d's rule on d's line, in the file's comment syntax. */
bool fix_suppress(struct arena *a, const struct diag *d, const char *buf, size_t len, struct fix_edit *e);

/* Apply non-overlapping edits (any order) to buf; the result is in 'a'. Overlaps: later ones dropped. */
char *fix_apply(struct arena *a, const char *buf, size_t len, struct fix_edit *edits, size_t n, size_t *out_len);
/*
 * Replace 'path' with 'buf' atomically (a new file renamed over it, the folder synced), keeping
 * its mode, owner and group. It refuses, leaving the file as it was, a file with more than one
 * hard link, one the invoking user may not write, and one whose owner cannot be kept. 0, or -1
 * with errno set and, where it refused, *why (may be NULL) saying why.
 */
int fix_write(const char *path, const char *buf, size_t len, const char **why);
/* A unified diff (3 lines of context) of old -> new, labelled a/path and b/path. */
void fix_diff(FILE *f, const char *path, const char *old, size_t old_len, const char *new, size_t new_len);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * text: the text of every input a run read, by path, for the stages that look at it again after
 * the checks (inline suppressions, fingerprints, fixes, SARIF regions, the language server).
 * Paths and texts are borrowed: they must outlive the store.
 */
#ifndef CGLINT_TEXT_H
#define CGLINT_TEXT_H

#include <stdbool.h>
#include <stddef.h>

struct text_store;

struct text_store *text_store_new(void);
void text_store_free(struct text_store *s);
/* Record the text of 'path'; the first record of a path wins. */
void text_put(struct text_store *s, const char *path, const char *buf, size_t len);
bool text_get(const struct text_store *s, const char *path, const char **buf, size_t *len);
size_t text_count(const struct text_store *s);
/* The k-th recorded path, in recording order, with its text. */
const char *text_at(const struct text_store *s, size_t k, const char **buf, size_t *len);

/* The bytes of 1-based 'line' without its line end (\n or \r\n); NULL past the end. */
const char *text_line(const char *buf, size_t len, unsigned line, size_t *n);

/* The length of the well-formed UTF-8 sequence at s[0..n) (no overlong forms, no surrogates,
 * nothing above U+10FFFF), or 0. */
size_t text_utf8_len(const unsigned char *s, size_t n);
/*
 * Where 'buf' stops being UTF-8 text: the first NUL byte, or the first byte that does not start
 * or continue a well-formed UTF-8 sequence (overlong forms, surrogates and code points above
 * U+10FFFF included). NULL when it is all text; else what is wrong, with *line and *col (1-based,
 * the column in code points) where.
 */
const char *text_bad_encoding(const char *buf, size_t len, unsigned *line, unsigned *col);

/* The byte offset of code point 'cp' (0-based) in a line of n bytes, or n past its end. */
size_t text_cp_offset(const char *line, size_t n, unsigned cp);

#endif

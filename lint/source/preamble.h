/* SPDX-License-Identifier: MIT */
/*
 * preamble: where a source's leading block of preprocessor lines ends. The language server
 * precompiles that block (its #includes) once (fe_clang.c) and parses each edit of the file
 * from it, as clangd does, with the block blanked out so that lines and columns stay the same.
 */
#ifndef CGLINT_PREAMBLE_H
#define CGLINT_PREAMBLE_H

#include <stddef.h>

/*
 * The length of buf's preamble: whole lines of directives, comments and blank space before the
 * first line of code, ending after its last #include where every #if it opens is closed; 0 when
 * that block includes nothing (so a header's include guard, which closes at the end of the
 * file, ends it before the guard). The #defines after the last #include are left to the file:
 * files that share their #includes but not their macros share one precompiled preamble.
 */
size_t preamble_len(const char *buf, size_t len);

/* One directive line of a preamble: buf[at, at + len), its newline (and any backslash-newlines)
 * included. */
struct preamble_line {
	size_t at, len;
};

/* The directive lines of a preamble buf[0..n) (n from preamble_len), in order, without the
 * comments and blank lines between them, into out[], which has room for n / 2 + 1; returns
 * how many. Files whose preambles differ only in comments and blank space have the same lines,
 * and so can share one precompiled preamble. */
size_t preamble_lines(const char *buf, size_t n, struct preamble_line *out);

#endif

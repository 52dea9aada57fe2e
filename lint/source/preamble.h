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
 * first line of code, ending where every #if it opens is closed; 0 when that block includes
 * nothing (so a header's include guard, which closes at the end of the file, ends it before the
 * guard).
 */
size_t preamble_len(const char *buf, size_t len);

#endif

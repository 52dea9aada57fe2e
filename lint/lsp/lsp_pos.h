/* SPDX-License-Identifier: MIT */
/*
 * lsp_pos: positions between a document's bytes, cglint's columns and the language server
 * protocol's. cglint's struct loc is 1-based; its column counts code points in YAML and bytes in
 * scripts, environment files and C/C++/CUDA sources. LSP positions are 0-based and count the
 * negotiated encoding's units: UTF-16 code units unless the client took "utf-8". Everything
 * converts per line, from the text itself; a byte that is not valid UTF-8 counts as one code
 * point (U+FFFD, one UTF-16 unit).
 *
 * Lines end at "\n" (a "\r" before it is not part of the line), as in text.h: a lone "\r" does
 * not break a line here, though LSP clients count it as one.
 */
#ifndef CGLINT_LSP_POS_H
#define CGLINT_LSP_POS_H

#include <stdbool.h>
#include <stddef.h>

enum lsp_enc { LSP_ENC_UTF16, LSP_ENC_UTF8 };

/* How a cglint column counts: code points (YAML) or bytes (everything else). */
enum lsp_cols { LSP_COLS_BYTES, LSP_COLS_CODEPOINTS };

struct lsp_pos {
	unsigned line, character;
};

struct lsp_range {
	struct lsp_pos start, end;
};

/*
 * A text with the offsets its lines start at, so that a conversion costs one line, not the
 * whole text before it (a document can have many thousands of findings). The text is borrowed.
 * A text without the index, {buf, len} and nothing else, works too: each conversion scans it.
 */
struct lsp_pos_text {
	const char *buf;
	size_t len;
	size_t *starts;         /* malloc'd; starts[k]: where 0-based line k begins */
	unsigned n;             /* lines; a text ending in "\n" has an empty last one */
};

void lsp_pos_text_init(struct lsp_pos_text *t, const char *buf, size_t len);
void lsp_pos_text_release(struct lsp_pos_text *t);

/* The position of byte offset 'off' (clamped to len). */
struct lsp_pos lsp_pos_from_offset(const struct lsp_pos_text *t, size_t off, enum lsp_enc e);
/* The byte offset of 'p': past the line's end it is the line end (the spec's rule), past the
 * last line the end of the text, inside a code point its first byte. */
size_t lsp_pos_to_offset(const struct lsp_pos_text *t, struct lsp_pos p, enum lsp_enc e);

/*
 * The range a diagnostic at cglint's (line, col) covers: from the column to the end of the word
 * there (c_words: identifiers only; otherwise '.', '-' and '$' join words, as in config keys and
 * flags), a quoted string to its closing quote, anything else to the line end. Column 0 covers
 * the line from its first non-blank; line 0 (the file as a whole) the first line.
 */
struct lsp_range lsp_pos_range(const struct lsp_pos_text *t, unsigned line, unsigned col, enum lsp_cols cols,
			       bool c_words, enum lsp_enc e);

/* -1, 0 or 1 as a is before, at or after b. */
int lsp_pos_cmp(struct lsp_pos a, struct lsp_pos b);

#endif

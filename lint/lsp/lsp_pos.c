/* SPDX-License-Identifier: MIT */
/* lsp_pos: cglint columns, byte offsets and LSP positions (see lsp_pos.h). */
#include "lsp/lsp_pos.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/* The length of the UTF-8 sequence at p: 1 to 4, and 1 for a byte that starts no valid one. */
static size_t cp_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned c = p[0];
	size_t k;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		k = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		k = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		k = 4;
	else
		return 1;
	if (k > n)
		return 1;
	for (size_t i = 1; i < k; i++)
		if ((p[i] & 0xC0) != 0x80)
			return 1;
	/* overlong forms, surrogates and code points past U+10FFFF are not UTF-8 */
	if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0) || (c == 0xF0 && p[1] < 0x90) ||
	    (c == 0xF4 && p[1] >= 0x90))
		return 1;
	return k;
}

static unsigned cp_units(size_t k, enum lsp_enc e)
{
	if (e == LSP_ENC_UTF8)
		return (unsigned)k;
	return k == 4 ? 2 : 1;  /* past U+FFFF: a surrogate pair */
}

void lsp_pos_text_init(struct lsp_pos_text *t, const char *buf, size_t len)
{
	size_t n = 1;
	for (const char *p = buf; (p = memchr(p, '\n', len - (size_t)(p - buf))); p++)
		n++;
	*t = (struct lsp_pos_text){buf, len, mem_alloc(n * sizeof(size_t)), 0};
	t->starts[t->n++] = 0;
	for (const char *p = buf; (p = memchr(p, '\n', len - (size_t)(p - buf))); p++)
		t->starts[t->n++] = (size_t)(p - buf) + 1;
}

void lsp_pos_text_release(struct lsp_pos_text *t)
{
	free(t->starts);
	t->starts = NULL;
	t->n = 0;
}

/* Where 0-based 'line' starts, or the end of the text when there is no such line. */
static size_t line_start(const struct lsp_pos_text *t, unsigned line)
{
	if (t->starts)
		return line < t->n ? t->starts[line] : t->len;
	size_t off = 0;
	for (unsigned l = 0; l < line; l++) {
		const char *nl = memchr(t->buf + off, '\n', t->len - off);
		if (!nl)
			return t->len;
		off = (size_t)(nl - t->buf) + 1;
	}
	return off;
}

/* Where the line starting at 'start' ends, before its "\n" or "\r\n". */
static size_t line_end(const struct lsp_pos_text *t, size_t start)
{
	const char *nl = memchr(t->buf + start, '\n', t->len - start);
	size_t end = nl ? (size_t)(nl - t->buf) : t->len;
	if (end > start && t->buf[end - 1] == '\r')
		end--;
	return end;
}

struct lsp_pos lsp_pos_from_offset(const struct lsp_pos_text *t, size_t off, enum lsp_enc e)
{
	if (off > t->len)
		off = t->len;
	unsigned lo = 0, hi = t->n;     /* the last line starting at or before off */
	size_t start = 0;
	if (t->starts) {
		while (hi - lo > 1) {
			unsigned mid = lo + (hi - lo) / 2;
			if (t->starts[mid] <= off)
				lo = mid;
			else
				hi = mid;
		}
		start = t->starts[lo];
	} else {
		for (const char *nl; (nl = memchr(t->buf + start, '\n', off - start));) {
			lo++;
			start = (size_t)(nl - t->buf) + 1;
		}
	}
	struct lsp_pos p = {lo, 0};
	for (size_t i = start; i < off;) {
		size_t k = cp_len(t->buf + i, t->len - i);
		if (i + k > off)
			break;  /* inside a code point: count up to its first byte */
		p.character += cp_units(k, e);
		i += k;
	}
	return p;
}

size_t lsp_pos_to_offset(const struct lsp_pos_text *t, struct lsp_pos p, enum lsp_enc e)
{
	size_t off = line_start(t, p.line);
	size_t end = line_end(t, off);
	for (unsigned n = 0; off < end;) {
		size_t k = cp_len(t->buf + off, end - off);
		unsigned u = cp_units(k, e);
		if (n + u > p.character)
			break;
		n += u;
		off += k;
	}
	return off;
}

static bool word_byte(unsigned char c, bool c_words)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80)
		return true;
	return !c_words && (c == '.' || c == '-' || c == '$');
}

/* Where the token starting at 's' ends, within [s, end). */
static size_t token_end(const char *buf, size_t s, size_t end, bool c_words)
{
	if (s == end)
		return s;
	char q = buf[s];
	if (q == '"' || q == '\'') {
		for (size_t i = s + 1; i < end; i++) {
			if (buf[i] == '\\' && q == '"')
				i++;
			else if (buf[i] == q)
				return i + 1;
		}
		return end;
	}
	if (!word_byte((unsigned char)q, c_words))
		return end;
	while (s < end && word_byte((unsigned char)buf[s], c_words))
		s++;
	return s;
}

struct lsp_range lsp_pos_range(const struct lsp_pos_text *t, unsigned line, unsigned col, enum lsp_cols cols,
			       bool c_words, enum lsp_enc e)
{
	size_t start = line ? line_start(t, line - 1) : 0;
	size_t end = line_end(t, start);
	size_t s = start, u;
	if (line == 0) {
		u = end;
	} else if (col == 0) {
		while (s < end && (t->buf[s] == ' ' || t->buf[s] == '\t'))
			s++;
		u = end;
	} else {
		for (unsigned c = 1; c < col && s < end; c++)
			s += cols == LSP_COLS_BYTES ? 1 : cp_len(t->buf + s, end - s);
		u = token_end(t->buf, s, end, c_words);
	}
	return (struct lsp_range){lsp_pos_from_offset(t, s, e), lsp_pos_from_offset(t, u, e)};
}

int lsp_pos_cmp(struct lsp_pos a, struct lsp_pos b)
{
	if (a.line != b.line)
		return a.line < b.line ? -1 : 1;
	if (a.character != b.character)
		return a.character < b.character ? -1 : 1;
	return 0;
}

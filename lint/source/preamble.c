/* SPDX-License-Identifier: MIT */
/* preamble: a scan over the leading lines of a C, C++ or CUDA file. */
#define _GNU_SOURCE     /* memmem */
#include "source/preamble.h"

#include <stdbool.h>
#include <string.h>

/* The end of the line that starts at 'p', after its newline; backslash-newlines join lines. */
static size_t line_end(const char *s, size_t len, size_t p)
{
	while (p < len && s[p] != '\n')
		p += s[p] == '\\' && p + 1 < len && s[p + 1] == '\n' ? 2 : 1;
	return p < len ? p + 1 : len;
}

static bool word_is(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && !memcmp(s, w, n);
}

/* Past the blank space, newlines and comments at s[p..]; *open: a block comment that never
 * closes starts there. */
static size_t skip_space(const char *s, size_t len, size_t p, bool *open)
{
	*open = false;
	while (p < len) {
		if (s[p] == ' ' || s[p] == '\t' || s[p] == '\r' || s[p] == '\f' || s[p] == '\v' || s[p] == '\n') {
			p++;
		} else if (s[p] == '/' && p + 1 < len && s[p + 1] == '/') {
			p = line_end(s, len, p);
		} else if (s[p] == '/' && p + 1 < len && s[p + 1] == '*') {
			const char *close = memmem(s + p + 2, len - p - 2, "*/", 2);
			if (!close) {
				*open = true;
				return p;
			}
			p = (size_t)(close - s) + 2;
		} else {
			break;
		}
	}
	return p;
}

size_t preamble_len(const char *s, size_t len)
{
	size_t p = 0, end = 0;
	int depth = 0;
	bool included = false, open;      /* an #include since 'end' */
	while ((p = skip_space(s, len, p, &open)) < len && !open && s[p] == '#') {
		size_t q = p + 1, stop = line_end(s, len, p);
		while (q < stop && (s[q] == ' ' || s[q] == '\t'))
			q++;
		size_t w = q;
		while (w < stop && ((s[w] >= 'a' && s[w] <= 'z') || s[w] == '_'))
			w++;
		const char *word = s + q;
		size_t n = w - q;
		if (memmem(s + p, stop - p, "/*", 2))
			break;  /* a comment that may run on past the line: stop here, safely */
		if (word_is(word, n, "if") || word_is(word, n, "ifdef") || word_is(word, n, "ifndef"))
			depth++;
		else if (word_is(word, n, "endif") && --depth < 0)
			break;
		else if (word_is(word, n, "include") || word_is(word, n, "include_next") || word_is(word, n, "import"))
			included = true;
		p = stop;
		if (depth == 0 && s[p - 1] == '\n' && included) {
			end = p;
			included = false;
		}
	}
	return end;
}

size_t preamble_lines(const char *s, size_t n, struct preamble_line *out)
{
	size_t k = 0, p = 0;
	bool open;
	while ((p = skip_space(s, n, p, &open)) < n && !open && s[p] == '#') {
		size_t stop = line_end(s, n, p);
		out[k++] = (struct preamble_line){p, stop - p};
		p = stop;
	}
	return k;
}

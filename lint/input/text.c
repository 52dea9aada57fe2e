/* SPDX-License-Identifier: MIT */
/* text: the texts a run read, by path (see text.h). */
#include "input/text.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/strmap.h"

struct text_entry {
	const char *path, *buf;
	size_t len;
};

struct text_store {
	struct strmap index;
	struct text_entry *items;
	size_t n, cap;
};

struct text_store *text_store_new(void)
{
	return mem_alloc(sizeof(struct text_store));
}

void text_store_free(struct text_store *s)
{
	if (!s)
		return;
	strmap_release(&s->index);
	free(s->items);
	free(s);
}

void text_put(struct text_store *s, const char *path, const char *buf, size_t len)
{
	size_t k;
	if (!path || strmap_get(&s->index, path, strlen(path), &k))
		return;
	if (s->n == s->cap)
		s->items = mem_realloc(s->items, (s->cap = s->cap ? s->cap * 2 : 16) * sizeof(*s->items));
	s->items[s->n] = (struct text_entry){path, buf, len};
	strmap_put(&s->index, path, strlen(path), s->n++);
}

bool text_get(const struct text_store *s, const char *path, const char **buf, size_t *len)
{
	size_t k;
	if (!s || !path || !strmap_get(&s->index, path, strlen(path), &k))
		return false;
	*buf = s->items[k].buf;
	*len = s->items[k].len;
	return true;
}

size_t text_count(const struct text_store *s)
{
	return s ? s->n : 0;
}

const char *text_at(const struct text_store *s, size_t k, const char **buf, size_t *len)
{
	*buf = s->items[k].buf;
	*len = s->items[k].len;
	return s->items[k].path;
}

size_t text_cp_offset(const char *line, size_t n, unsigned cp)
{
	size_t i = 0;
	for (; i < n && cp; cp--)
		for (i++; i < n && ((unsigned char)line[i] & 0xC0) == 0x80; i++)
			;
	return i;
}

const char *text_line(const char *buf, size_t len, unsigned line, size_t *n)
{
	if (!line)
		return NULL;
	const char *p = buf, *end = buf + len;
	for (unsigned l = 1; l < line; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl || nl + 1 == end)
			return NULL;    /* a final newline ends the last line; it starts none */
		p = nl + 1;
	}
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t m = nl ? (size_t)(nl - p) : (size_t)(end - p);
	if (m && p[m - 1] == '\r')
		m--;
	*n = m;
	return p;
}

size_t text_utf8_len(const unsigned char *s, size_t n)
{
	if (s[0] < 0x80)
		return 1;
	size_t k = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
	if (!k || s[0] > 0xF4 || k > n)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0) || (s[0] == 0xF0 && s[1] < 0x90) ||
	    (s[0] == 0xF4 && s[1] >= 0x90))
		return 0;
	return k;
}

const char *text_bad_encoding(const char *buf, size_t len, unsigned *line, unsigned *col)
{
	const unsigned char *s = (const unsigned char *)buf;
	*line = *col = 1;
	for (size_t i = 0; i < len;) {
		if (!s[i])
			return "a NUL byte: this is binary data, not text";
		size_t n = text_utf8_len(s + i, len - i);
		if (!n)
			return "a byte that is not UTF-8 text";
		if (s[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
		i += n;
	}
	return NULL;
}

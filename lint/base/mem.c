/* SPDX-License-Identifier: MIT */
/* mem: allocation helpers, a bump arena and growable strings. */
#include "base/mem.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(void)
{
	fputs("cglint: out of memory\n", stderr);
	exit(3);
}

void *mem_alloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *mem_realloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *mem_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(mem_alloc(n), s, n);
}

/* ---- arena: a list of blocks; big requests get a block of their own ---- */

#define ARENA_BLOCK 65536
#define ARENA_ALIGN alignof(max_align_t)

struct block {
	struct block *next;
	size_t used, cap;
	alignas(max_align_t) unsigned char data[];
};

struct arena {
	struct block *head;
};

struct arena *arena_new(void)
{
	return mem_alloc(sizeof(struct arena));
}

void arena_free(struct arena *a)
{
	if (!a)
		return;
	for (struct block *b = a->head, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(a);
}

void *arena_grow(struct arena *a, void *items, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return items;
	*cap = *cap ? 2 * *cap : 4;
	void *more = arena_alloc(a, *cap * size);
	if (n)
		memcpy(more, items, n * size);
	return more;
}

void *arena_alloc(struct arena *a, size_t n)
{
	return memset(arena_alloc_raw(a, n), 0, n);
}

void *arena_alloc_raw(struct arena *a, size_t n)
{
	n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	struct block *b = a->head;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;
		/* not calloc: zeroing a whole block would touch pages a small arena never uses */
		b = malloc(sizeof(*b) + cap);
		if (!b)
			oom();
		b->used = 0;
		b->cap = cap;
		if (cap == n && a->head) {
			/* keep the current block for small requests */
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
	}
	void *p = b->data + b->used;
	b->used += n;
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc_raw(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_join(struct arena *a, const char *x, const char *sep, const char *y)
{
	size_t nx = strlen(x), ns = strlen(sep), ny = strlen(y);
	char *d = arena_alloc_raw(a, nx + ns + ny + 1);
	memcpy(d, x, nx);
	memcpy(d + nx, sep, ns);
	memcpy(d + nx + ns, y, ny + 1);
	return d;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

/* Formatted once into a buffer on the stack, where most texts fit, then copied: measuring with
 * vsnprintf(NULL, 0) first formats every text twice (a recipe tree makes some 80,000 of them). */
char *arena_vprintf(struct arena *a, const char *fmt, va_list ap)
{
	char buf[256];
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(buf, sizeof(buf), fmt, cp);
	va_end(cp);
	if (n < 0)
		return arena_alloc(a, 1);
	char *p = arena_alloc_raw(a, (size_t)n + 1);
	if ((size_t)n < sizeof(buf))
		memcpy(p, buf, (size_t)n + 1);
	else
		vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = arena_vprintf(a, fmt, ap);
	va_end(ap);
	return p;
}

/* ---- sbuf ---- */

static char sbuf_empty[1];

void sbuf_init(struct sbuf *sb)
{
	sb->buf = sbuf_empty;
	sb->len = sb->cap = 0;
}

void sbuf_release(struct sbuf *sb)
{
	if (sb->cap)
		free(sb->buf);
	sbuf_init(sb);
}

static void sbuf_grow(struct sbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap : 64;
	while (cap < sb->len + extra + 1)
		cap *= 2;
	sb->buf = sb->cap ? mem_realloc(sb->buf, cap) : memcpy(mem_alloc(cap), sb->buf, sb->len + 1);
	sb->cap = cap;
}

void sbuf_addn(struct sbuf *sb, const char *s, size_t n)
{
	sbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sbuf_adds(struct sbuf *sb, const char *s)
{
	sbuf_addn(sb, s, strlen(s));
}

void sbuf_addc(struct sbuf *sb, char c)
{
	sbuf_addn(sb, &c, 1);
}

/* Into the room the buffer has, formatted again only when the text did not fit (as arena_vprintf). */
void sbuf_printf(struct sbuf *sb, const char *fmt, ...)
{
	size_t room = sb->cap - sb->len;        /* 0 for the shared empty string, which is not written */
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(room ? sb->buf + sb->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n <= 0) {
		if (room)
			sb->buf[sb->len] = '\0';
		return;
	}
	if ((size_t)n >= room) {
		sbuf_grow(sb, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}

void sbuf_template(struct sbuf *sb, const char *tmpl,
		   void (*put)(struct sbuf *sb, const char *name, size_t len, const void *ctx), const void *ctx)
{
	for (const char *p = tmpl; *p;) {
		const char *close = *p == '{' ? strchr(p, '}') : NULL;
		if (!close) {
			sbuf_addc(sb, *p++);
			continue;
		}
		put(sb, p + 1, (size_t)(close - p - 1), ctx);
		p = close + 1;
	}
}

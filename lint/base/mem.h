/* SPDX-License-Identifier: MIT */
/* mem: allocation that never returns NULL, arenas for run-lifetime data, growable strings. */
#ifndef CGLINT_MEM_H
#define CGLINT_MEM_H

#include <stdarg.h>
#include <stddef.h>

#if defined(__GNUC__)
#define CG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CG_PRINTF(f, a)
#endif

/* 1 in a build with a leak checker (AddressSanitizer): a command line run then frees what it made
 * before it exits, so that a leak shows; other builds leave that to exit, which takes the pages
 * back at once (as compilers do: clang's -disable-free). */
#if defined(__SANITIZE_ADDRESS__)
#define MEM_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEM_CHECKED 1
#endif
#endif
#ifndef MEM_CHECKED
#define MEM_CHECKED 0
#endif

/* On exhaustion these print "cglint: out of memory" and exit with status 3 (internal error). */
void *mem_alloc(size_t n);                 /* zeroed */
void *mem_realloc(void *p, size_t n);
char *mem_strdup(const char *s);

/*
 * An arena owns everything allocated from it until arena_free(). Facts, parsed YAML trees,
 * rule packs and diagnostics live in arenas, so no per-node free exists anywhere.
 */
struct arena;
struct arena *arena_new(void);
void arena_free(struct arena *a);
void *arena_alloc(struct arena *a, size_t n);          /* zeroed, max-aligned */
void *arena_alloc_raw(struct arena *a, size_t n);      /* the same, not zeroed: for what is written whole */
/* 'items' (n of 'size' bytes, room for *cap) with room for one more: a copy twice as large when
 * full (the old one stays in the arena until it is freed), else 'items'. */
void *arena_grow(struct arena *a, void *items, size_t n, size_t *cap, size_t size);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
/* x, sep and y joined: arena_printf(a, "%s.%s", x, y) without a format to read (a path's parts
 * are joined on every read of a recipe's keys). */
char *arena_join(struct arena *a, const char *x, const char *sep, const char *y);
char *arena_printf(struct arena *a, const char *fmt, ...) CG_PRINTF(2, 3);
char *arena_vprintf(struct arena *a, const char *fmt, va_list ap) CG_PRINTF(2, 0);

/* A growable NUL-terminated string; 'buf' is always valid after sbuf_init. */
struct sbuf {
	char *buf;
	size_t len, cap;
};
void sbuf_init(struct sbuf *sb);
void sbuf_release(struct sbuf *sb);
void sbuf_addn(struct sbuf *sb, const char *s, size_t n);
void sbuf_adds(struct sbuf *sb, const char *s);
void sbuf_addc(struct sbuf *sb, char c);
void sbuf_printf(struct sbuf *sb, const char *fmt, ...) CG_PRINTF(2, 3);
/* Append 'tmpl' with each {name} replaced by what put() appends for it (rule messages). */
void sbuf_template(struct sbuf *sb, const char *tmpl,
		   void (*put)(struct sbuf *sb, const char *name, size_t len, const void *ctx), const void *ctx);

#endif

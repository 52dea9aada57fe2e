/* SPDX-License-Identifier: MIT */
/* fe_env: KEY=VALUE environment files and -E arguments. */
#include "front/fe_env.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"

static void push(struct env_list *l, struct env_var v)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->items = mem_realloc(l->items, l->cap * sizeof(*l->items));
	}
	l->items[l->n++] = v;
}

void fe_env_release(struct env_list *l)
{
	free(l->items);
	*l = (struct env_list){0};
}

static size_t name_len(const char *s, size_t n)
{
	size_t k = 0;
	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	while (k < n && (isalnum((unsigned char)s[k]) || s[k] == '_'))
		k++;
	return k;
}

/* Parse 'NAME=VALUE' in s[0..n); the value may be quoted. 0 or -1. */
static int parse_assign(struct arena *a, const char *s, size_t n, struct loc loc, struct env_list *l)
{
	const char *start = s;
	if (n > 7 && !strncmp(s, "export", 6) && isspace((unsigned char)s[6])) {
		s += 7, n -= 7;
		while (n && isspace((unsigned char)*s))
			s++, n--;
	}
	size_t k = name_len(s, n);
	if (!k || k >= n || s[k] != '=')
		return -1;
	const char *v = s + k + 1;
	size_t vn = n - k - 1;
	struct sbuf sb;
	sbuf_init(&sb);
	if (vn && (*v == '"' || *v == '\'')) {
		char q = *v;
		size_t i = 1;
		for (; i < vn && v[i] != q; i++) {
			if (q == '"' && v[i] == '\\' && i + 1 < vn)
				i++;
			sbuf_addc(&sb, v[i]);
		}
		if (i >= vn) {
			sbuf_release(&sb);
			return -1;      /* unterminated quote */
		}
	} else {
		/* unquoted: up to an unescaped ' #' comment, trailing blanks dropped */
		size_t end = vn;
		for (size_t i = 0; i < vn; i++)
			if (v[i] == '#' && (i == 0 || isspace((unsigned char)v[i - 1]))) {
				end = i;
				break;
			}
		while (end && isspace((unsigned char)v[end - 1]))
			end--;
		sbuf_addn(&sb, v, end);
	}
	loc.col += (unsigned)(s - start);     /* point at the name, past 'export' */
	push(l, (struct env_var){arena_strndup(a, s, k), arena_strdup(a, sb.buf), loc});
	sbuf_release(&sb);
	return 0;
}

int fe_env_assign(struct arena *a, const char *s, struct loc loc, struct env_list *l)
{
	return parse_assign(a, s, strlen(s), loc, l);
}

int fe_env_parse(struct arena *a, struct diag_list *d, const char *path, const char *buf, size_t len,
		 struct env_list *l)
{
	int bad = 0;
	unsigned line = 0;
	for (size_t pos = 0; pos < len;) {
		const char *eol = memchr(buf + pos, '\n', len - pos);
		size_t n = eol ? (size_t)(eol - (buf + pos)) : len - pos;
		const char *s = buf + pos;
		pos += n + 1;
		line++;
		size_t indent = 0;
		while (indent < n && isspace((unsigned char)s[indent]))
			indent++;
		size_t end = n;
		while (end > indent && isspace((unsigned char)s[end - 1]))
			end--;
		if (end == indent || s[indent] == '#')
			continue;
		if (memchr(s, '\0', n)) {
			diag_input(d, "CG906", (struct loc){path, line, 1}, "NUL byte in an environment file");
			bad++;
			continue;
		}
		struct loc loc = {path, line, (unsigned)indent + 1};
		if (parse_assign(a, s + indent, end - indent, loc, l)) {
			diag_input(d, "CG907", loc, "not a NAME=VALUE assignment: '%.*s'",
				   (int)(end - indent > 60 ? 60 : end - indent), s + indent);
			bad++;
		}
	}
	return bad;
}

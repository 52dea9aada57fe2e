/* SPDX-License-Identifier: MIT */
/* lsp_uri: document URIs and paths (see lsp_uri.h). */
#include "lsp/lsp_uri.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/mem.h"

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Percent-decode s[0..n); NULL on a bad escape or an encoded NUL (it would cut the path). */
static char *decode(const char *s, size_t n)
{
	char *out = mem_alloc(n + 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '%') {
			*o++ = s[i];
			continue;
		}
		int hi = i + 2 < n ? hex(s[i + 1]) : -1, lo = i + 2 < n ? hex(s[i + 2]) : -1;
		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
			free(out);
			return NULL;
		}
		*o++ = (char)(hi * 16 + lo);
		i += 2;
	}
	*o = '\0';
	return out;
}

/* The length of the scheme before ':' (RFC 3986 3.1), or 0 when there is none. */
static size_t scheme_len(const char *uri)
{
	const char *p = uri;
	if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return 0;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '+' ||
	       *p == '-' || *p == '.')
		p++;
	return *p == ':' ? (size_t)(p - uri) : 0;
}

char *lsp_uri_to_path(const char *uri, bool *is_file)
{
	*is_file = false;
	size_t n = scheme_len(uri);
	if (!n)
		return NULL;
	bool file = n == 4 && !strncasecmp(uri, "file", 4);
	const char *p = uri + n + 1;
	if (p[0] == '/' && p[1] == '/') {
		const char *auth = p + 2, *slash = strchr(auth, '/');
		size_t alen = slash ? (size_t)(slash - auth) : strlen(auth);
		if (file && alen && !(alen == 9 && !strncasecmp(auth, "localhost", 9)))
			return NULL;    /* another machine's file */
		p = auth + alen;
	}
	size_t plen = strcspn(p, "?#");
	if (file) {
		if (p[0] != '/')
			return NULL;
		char *path = decode(p, plen);
		*is_file = path != NULL;
		return path;
	}
	const char *seg = p + plen;
	while (seg > p && seg[-1] != '/')
		seg--;
	char *name = decode(seg, (size_t)(p + plen - seg));
	if (!name)
		return NULL;
	const char *base = strrchr(name, '/');  /* an encoded "/" does not make a folder */
	if (base)
		memmove(name, base + 1, strlen(base + 1) + 1);
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) {
		free(name);
		return NULL;
	}
	return name;
}

/* Append s, percent-encoding all but unreserved characters and '/'. */
static void encode(struct sbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char u = (unsigned char)*s;
		if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || strchr("-._~/", u))
			sbuf_addc(sb, (char)u);
		else
			sbuf_printf(sb, "%%%02X", u);
	}
}

char *lsp_uri_from_path(const char *path)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "file://");
	char *cwd = path[0] != '/' ? getcwd(NULL, 0) : NULL;
	if (cwd) {
		encode(&sb, cwd);
		if (sb.buf[sb.len - 1] != '/')
			sbuf_addc(&sb, '/');
		while (path[0] == '.' && path[1] == '/')
			path += 2;
		free(cwd);
	}
	encode(&sb, path);
	return sb.buf;
}

/* SPDX-License-Identifier: MIT */
/* out: what every output format shares: printing a list, project-relative paths, UTF-8. */
#define _XOPEN_SOURCE 700   /* realpath */
#include "report/out.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/pack.h"
#include "input/text.h"
#include "report/fix.h"

void out_print(const struct out_format *fmt, struct out_ctx *o, const struct diag_list *l)
{
	if (fmt->begin)
		fmt->begin(o);
	for (size_t k = 0; fmt->diag && k < l->n; k++)
		fmt->diag(o, &l->items[k]);
	if (fmt->end)
		fmt->end(o, l);
}

/* Empty when the current directory is gone: nothing is made relative then. */
static char cwd[PATH_MAX], root[PATH_MAX];
static pthread_once_t root_once = PTHREAD_ONCE_INIT;

static void find_root(void)
{
	if (!getcwd(cwd, sizeof(cwd)) || cwd[0] != '/') {
		cwd[0] = '\0';
		return;
	}
	char dir[PATH_MAX];
	strcpy(dir, cwd);
	for (;;) {
		char probe[PATH_MAX + 8];
		struct stat st;
		snprintf(probe, sizeof(probe), "%s/.git", strcmp(dir, "/") ? dir : "");
		if (stat(probe, &st) == 0) {
			strcpy(root, dir);
			return;
		}
		char *slash = strrchr(dir, '/');
		if (slash == dir && !dir[1])
			break;
		slash[slash == dir] = '\0';     /* "/a" -> "/" */
	}
	strcpy(root, cwd);
}

const char *out_root(void)
{
	pthread_once(&root_once, find_root);
	return root[0] ? root : ".";
}

/* 'path' joined to the current directory when relative, without "", "." and ".." segments. */
static bool lexical_abs(char *out, size_t size, const char *path)
{
	size_t n = 0;
	for (int part = path[0] == '/'; part < 2; part++) {
		const char *s = part ? path : cwd;
		while (*s) {
			while (*s == '/')
				s++;
			size_t len = strcspn(s, "/");
			if (len == 2 && s[0] == '.' && s[1] == '.') {
				while (n > 0 && out[--n] != '/')
					;
			} else if (len && !(len == 1 && s[0] == '.')) {
				if (n + 1 + len >= size)
					return false;
				out[n++] = '/';
				memcpy(out + n, s, len);
				n += len;
			}
			s += len;
		}
	}
	if (!n)
		out[n++] = '/';
	out[n] = '\0';
	return true;
}

/* The part of absolute 'abs' below the root, or NULL. */
static const char *below_root(const char *abs)
{
	if (!strcmp(root, "/"))
		return abs[1] ? abs + 1 : NULL;
	size_t rl = strlen(root);
	return !strncmp(abs, root, rl) && abs[rl] == '/' && abs[rl + 1] ? abs + rl + 1 : NULL;
}

const char *out_relpath(char *buf, size_t size, const char *path)
{
	pthread_once(&root_once, find_root);
	if (!path || !path[0] || path[0] == '<' || !root[0])
		return path;
	char abs[PATH_MAX];
	const char *rel = lexical_abs(abs, sizeof(abs), path) ? below_root(abs) : NULL;
	char *real = NULL;
	if (!rel && (real = realpath(path, NULL)))
		rel = below_root(real);
	const char *ret = path;
	if (rel && strlen(rel) < size) {
		strcpy(buf, rel);
		ret = buf;
	}
	free(real);
	return ret;
}

char *out_utf8(const char *s)
{
	size_t n = strlen(s);
	char *buf = mem_alloc(3 * n + 1), *w = buf;
	for (size_t i = 0; i < n;) {
		size_t k = text_utf8_len((const unsigned char *)s + i, n - i);
		if (k) {
			memcpy(w, s + i, k);
			w += k;
			i += k;
		} else {
			memcpy(w, "\xEF\xBF\xBD", 3);
			w += 3;
			i++;
		}
	}
	*w = '\0';
	return buf;
}

char *out_uri_encode(const char *prefix, const char *path, const char *suffix)
{
	size_t n = strlen(path);
	char *out = mem_alloc(strlen(prefix) + 3 * n + strlen(suffix) + 1), *w = out;
	w += strlen(strcpy(w, prefix));
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~!$&'()*+,;=@/", *p))
			*w++ = (char)*p;
		else
			w += sprintf(w, "%%%02X", *p);
	}
	strcpy(w, suffix);
	return out;
}

char *out_docs_link(const char *base, const char *id)
{
	const char *at = strstr(base, "{id}");
	size_t n = strlen(base) + strlen(id) + 5;
	char *url = mem_alloc(n);
	if (at)
		snprintf(url, n, "%.*s%s%s", (int)(at - base), base, id, at + 4);
	else
		snprintf(url, n, "%s%s%s.md", base, *base && base[strlen(base) - 1] != '/' ? "/" : "", id);
	return url;
}

char *out_docs_home(const char *base)
{
	const char *at = strstr(base, "{id}"), *end = at ? at : base + strlen(base);
	while (at && end > base && end[-1] != '/')
		end--;
	char *home = mem_alloc((size_t)(end - base) + 1);
	memcpy(home, base, (size_t)(end - base));
	home[end - base] = '\0';
	return home;
}

/* The installed page of rule 'id' (malloc'd), or NULL: DOCDIR/rules/ID.md, DOCDIR found from the
 * program's own folder as the install laid them out. A build folder has none. */
static char *installed_page(const char *id)
{
#ifdef CGLINT_DOCDIR_FROM_BIN
	static char dir[PATH_MAX];
	static int state;               /* 0 not looked yet, 1 found, -1 none */
	if (!state) {
		char exe[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		char *slash = n > 0 ? (exe[n] = '\0', strrchr(exe, '/')) : NULL;
		state = -1;
		if (slash) {
			*slash = '\0';
			char rules[PATH_MAX];
			if ((size_t)snprintf(rules, sizeof(rules), "%s/%s/rules", exe, CGLINT_DOCDIR_FROM_BIN) < sizeof(rules) &&
			    realpath(rules, dir))
				state = 1;
		}
	}
	if (state > 0) {
		size_t n = strlen(dir) + strlen(id) + 5;
		char *page = mem_alloc(n);
		snprintf(page, n, "%s/%s.md", dir, id);
		if (access(page, R_OK) == 0)
			return page;
		free(page);
	}
#else
	(void)id;
#endif
	return NULL;
}

char *out_rule_url(const struct rule *r)
{
	if (!r->builtin)
		return NULL;
	if (*CGLINT_DOCS_URL)
		return out_docs_link(CGLINT_DOCS_URL, r->head.id);
	char *page = installed_page(r->head.id);
	char *url = page ? out_uri_encode("file://", page, "") : NULL;
	free(page);
	return url;
}

char *out_rule_see(const struct rule *r)
{
	if (!r->builtin)
		return NULL;
	if (*CGLINT_DOCS_URL)
		return out_docs_link(CGLINT_DOCS_URL, r->head.id);
	char *page = installed_page(r->head.id);
	size_t n = strlen(r->head.id) + (page ? strlen(page) : 0) + 32;
	char *see = mem_alloc(n);
	snprintf(see, n, "cglint explain %s%s%s", r->head.id, page ? " or " : "", page ? page : "");
	free(page);
	return see;
}

/* The 1-based line and code-point column of byte 'off' of 'buf'. */
static void position(const char *buf, size_t off, unsigned *line, unsigned *col)
{
	const char *start = buf;
	*line = 1;
	for (const char *p = buf; p < buf + off; p++)
		if (*p == '\n') {
			(*line)++;
			start = p + 1;
		}
	*col = 1;
	for (const char *p = start; p < buf + off; p++)
		*col += ((unsigned char)*p & 0xC0) != 0x80;
}

bool out_fix(const struct out_ctx *o, struct arena *a, const struct diag *d, struct out_edit *e)
{
	const char *buf;
	size_t len;
	struct fix_edit fe;
	if (!o->texts || !d->loc.path || !text_get(o->texts, d->loc.path, &buf, &len) || !fix_for(a, d, buf, len, &fe))
		return false;
	*e = (struct out_edit){.title = fe.title, .text = fe.text, .offset = fe.start, .length = fe.end - fe.start};
	position(buf, fe.start, &e->start_line, &e->start_col);
	position(buf, fe.end, &e->end_line, &e->end_col);
	return true;
}

static bool is_word(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
	       c == '.' || c >= 0x80;
}

/* Where the word at 'start' ends: an identifier, a number, a key, or a quoted string whole. */
static size_t word_end(const char *t, size_t n, size_t start)
{
	if (t[start] == '"' || t[start] == '\'') {
		const char *q = memchr(t + start + 1, t[start], n - start - 1);
		return q ? (size_t)(q - t) + 1 : start;
	}
	size_t k = start;
	while (k < n && is_word((unsigned char)t[k]))
		k++;
	return k;
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

bool out_span(const char *path, const char *line, size_t n, unsigned col, size_t *start, size_t *end)
{
	bool yaml = path && (has_suffix(path, ".yaml") || has_suffix(path, ".yml"));
	*start = yaml ? text_cp_offset(line, n, col ? col - 1 : 0) : col ? col - 1 : 0;
	if (*start >= n)
		return false;
	*end = word_end(line, n, *start);
	return true;
}

/* The character as printed: out.h says why. */
size_t out_clean_char(const char *s, size_t n, char out[8], size_t *cols)
{
	unsigned char c = (unsigned char)s[0];
	size_t len = text_utf8_len((const unsigned char *)s, n);
	int w;
	if (c == '\n' || c == '\r')
		w = snprintf(out, 8, "\\%c", c == '\n' ? 'n' : 'r');
	else if (!len || (c < 0x20 && c != '\t') || c == 0x7f)
		w = snprintf(out, 8, "\\x%02x", c);
	else if (c == 0xC2 && (unsigned char)s[1] < 0xA0)       /* a C1 control, U+0080..U+009F */
		w = snprintf(out, 8, "\\u%04x", (unsigned char)s[1]);
	else {
		memcpy(out, s, len);    /* one code point, one column */
		out[len] = '\0';
		w = 1;
	}
	*cols = (size_t)w;
	return len ? len : 1;
}

static bool plain(unsigned char c)
{
	return (c >= 0x20 && c < 0x7f) || c == '\t';
}

void out_put_clean(FILE *f, const char *s, size_t n)
{
	char out[8];
	size_t cols;
	for (size_t k = 0; s && k < n;) {
		size_t run = 0;
		while (k + run < n && plain((unsigned char)s[k + run]))
			run++;
		if (run) {              /* printable ASCII, most of any text: as it is */
			fwrite(s + k, 1, run, f);
			k += run;
			continue;
		}
		k += out_clean_char(s + k, n - k, out, &cols);
		fputs(out, f);
	}
}

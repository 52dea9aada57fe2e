/* SPDX-License-Identifier: MIT */
/* fix: mechanical edits, atomic writes and unified diffs (see fix.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "report/fix.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/pack.h"
#include "input/text.h"
#include "report/fix_py.h"
#include "report/supp.h"

/* The value token after "leaf:" (YAML) or "leaf=" (environment, shell) at 'p'. */
static bool value_span(const char *line, size_t n, size_t at, const char *leaf, size_t *vs, size_t *ve)
{
	size_t m = strlen(leaf);
	size_t k = at;
	if (k < n && (line[k] == '"' || line[k] == '\''))
		k++;                    /* a quoted key */
	if (n - k < m || strncmp(line + k, leaf, m))
		return false;
	k += m;
	if (k < n && (line[k] == '"' || line[k] == '\''))
		k++;
	bool yaml = false;
	while (k < n && line[k] == ' ')
		k++;
	if (k < n && line[k] == ':')
		yaml = true;
	else if (!(k < n && line[k] == '='))
		return false;
	k++;
	while (k < n && (line[k] == ' ' || line[k] == '\t'))
		k++;
	size_t s = k;
	if (k < n && (line[k] == '"' || line[k] == '\'')) {
		char q = line[k++];
		while (k < n && line[k] != q)
			k++;
		if (k == n)
			return false;
		k++;
	} else if (yaml) {
		while (k < n && !(line[k] == '#' && line[k - 1] == ' ') && line[k] != ',' && line[k] != '}' && line[k] != ']')
			k++;
		while (k > s && (line[k - 1] == ' ' || line[k - 1] == '\t'))
			k--;
	} else {
		while (k < n && line[k] != ' ' && line[k] != '\t' && line[k] != ';')
			k++;
	}
	if (k == s)
		return false;   /* a block value on the next lines: not a one-token edit */
	*vs = s;
	*ve = k;
	return true;
}

bool fix_for(struct arena *a, const struct diag *d, const char *buf, size_t len, struct fix_edit *e)
{
	const struct rule *r = d->rule;
	if (!d->key || !d->loc.line || !buf)
		return false;
	const char *value = NULL;
	for (size_t k = 0; k < r->n_autofix && !value; k++)
		if (!strcmp(r->autofix_keys[k], d->key))
			value = r->autofix_values[k];
	if (!value)
		return false;
	size_t n;
	const char *line = text_line(buf, len, d->loc.line, &n);
	if (!line)
		return false;
	const char *leaf = strrchr(d->key, '.');
	leaf = leaf ? leaf + 1 : d->key;
	if (supp_py_syntax(d->loc.path))
		return fix_py_for(a, d, value, line, n, leaf, (size_t)(line - buf), e);
	size_t vs, ve;
	if (!value_span(line, n, text_cp_offset(line, n, d->loc.col ? d->loc.col - 1 : 0), leaf, &vs, &ve))
		return false;
	if (ve - vs == strlen(value) && !strncmp(line + vs, value, ve - vs))
		return false;
	size_t base = (size_t)(line - buf);
	*e = (struct fix_edit){base + vs, base + ve, value, arena_printf(a, "set %s: %s", d->key, value)};
	return true;
}

static bool is_rule_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

bool fix_suppress(struct arena *a, const struct diag *d, const char *buf, size_t len, struct fix_edit *e)
{
	const char *id = d->rule->head.id;
	bool c_syntax = supp_c_syntax(d->loc.path);
	const char *mark = c_syntax ? "//" : "#";
	const char *title = arena_printf(a, "Suppress %s on this line", id);
	if (!buf)
		return false;
	if (!d->loc.line) {     /* a finding about the whole file */
		size_t at = 0;
		if (len > 2 && buf[0] == '#' && buf[1] == '!') {
			const char *nl = memchr(buf, '\n', len);
			at = nl ? (size_t)(nl - buf) + 1 : len;
		}
		*e = (struct fix_edit){at, at, arena_printf(a, "%s cglint: disable-file=%s\n", mark, id),
				       arena_printf(a, "Suppress %s in this file", id)};
		return true;
	}
	size_t n;
	const char *line = text_line(buf, len, d->loc.line, &n);
	if (!line)
		return false;
	size_t base = (size_t)(line - buf);
	/* a directive already there, in the line's comment (not in a string), takes one more rule */
	const char *comment = supp_line_comment(d->loc.path, buf, line, line + n);
	const char *tag = "cglint: disable=";
	for (size_t k = comment ? (size_t)(comment - line) : n; k + strlen(tag) <= n; k++)
		if (!strncmp(line + k, tag, strlen(tag))) {
			size_t p = k + strlen(tag);
			while (p < n && (is_rule_char(line[p]) || line[p] == ',' || line[p] == ' ') &&
			       !(line[p] == ' ' && p + 1 < n && line[p + 1] == '-') &&
			       !(line[p] == '-' && p + 1 < n && line[p + 1] == '-'))
				p++;
			while (p > k && line[p - 1] == ' ')
				p--;
			*e = (struct fix_edit){base + p, base + p, arena_printf(a, ",%s", id), title};
			return true;
		}
	/* a line with a comment of its own gets the directive on a line above, indented alike */
	if (comment) {
		size_t ind = 0;
		while (ind < n && (line[ind] == ' ' || line[ind] == '\t'))
			ind++;
		*e = (struct fix_edit){base, base,
				       arena_printf(a, "%.*s%s cglint: disable-next-line=%s\n", (int)ind, line, mark, id), title};
		return true;
	}
	size_t end = base + n;
	while (end > base && (buf[end - 1] == ' ' || buf[end - 1] == '\t'))
		end--;
	*e = (struct fix_edit){end, base + n, supp_comment(a, d->loc.path, id), title};
	return true;
}

static int cmp_edit(const void *x, const void *y)
{
	const struct fix_edit *a = x, *b = y;
	return a->start < b->start ? -1 : a->start > b->start;
}

void fix_edits_add(struct fix_edits *l, struct fix_edit e)
{
	if (l->n == l->cap)
		l->e = mem_realloc(l->e, (l->cap = l->cap ? 2 * l->cap : 16) * sizeof(*l->e));
	l->e[l->n++] = e;
}

char *fix_apply(struct arena *a, const char *buf, size_t len, struct fix_edit *edits, size_t n, size_t *out_len)
{
	qsort(edits, n, sizeof(*edits), cmp_edit);
	struct sbuf sb;
	sbuf_init(&sb);
	size_t at = 0;
	for (size_t k = 0; k < n; k++) {
		if (edits[k].start < at || edits[k].end > len || edits[k].end < edits[k].start)
			continue;       /* overlaps one already applied */
		sbuf_addn(&sb, buf + at, edits[k].start - at);
		sbuf_adds(&sb, edits[k].text);
		at = edits[k].end;
	}
	sbuf_addn(&sb, buf + at, len - at);
	*out_len = sb.len;
	char *out = arena_strndup(a, sb.buf ? sb.buf : "", sb.len);
	sbuf_release(&sb);
	return out;
}

/* Sync the folder holding 'path', so the rename survives a crash. */
static int sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	if (!slash)
		strcpy(dir, ".");
	else if (slash == path)
		strcpy(dir, "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

int fix_write(const char *path, const char *buf, size_t len, const char **why)
{
	const char *unused;
	why = why ? why : &unused;
	*why = NULL;
	/* write through a symbolic link to the file it names, so the link stays a link */
	char real[PATH_MAX];
	const char *target = realpath(path, real) ? real : path;
	struct stat st;
	bool exists = stat(target, &st) == 0;
	mode_t mode = exists ? st.st_mode & 07777 : 0644;
	if (exists) {
		/* the replacement is a new file: what the old one shared or was owned by must carry over */
		if (!S_ISREG(st.st_mode)) {
			*why = "not a regular file";
			errno = EINVAL;
			return -1;
		}
		if (st.st_nlink > 1) {
			*why = "it has more than one hard link, which replacing it would break";
			errno = EMLINK;
			return -1;
		}
		if (faccessat(AT_FDCWD, target, W_OK, AT_EACCESS)) {
			*why = "you may not write it (cglint replaces a file only where you could edit it)";
			return -1;
		}
	}
	size_t n = strlen(target);
	char *tmp = mem_alloc(n + 16);
	memcpy(tmp, target, n);
	memcpy(tmp + n, ".cglint-XXXXXX", 15);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	int rc = 0;
	for (size_t done = 0; done < len && !rc;) {
		ssize_t w = write(fd, buf + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			rc = -1;
		else
			done += (size_t)w;
	}
	if (!rc && exists && (st.st_uid != geteuid() || st.st_gid != getegid()) && fchown(fd, st.st_uid, st.st_gid)) {
		*why = "its owner or group cannot be kept";
		rc = -1;
	}
	if (!rc && (fchmod(fd, mode) || fsync(fd)))
		rc = -1;
	int err = errno;
	if (close(fd) && !rc) {
		rc = -1;
		err = errno;
	}
	if (!rc && rename(tmp, target)) {
		rc = -1;
		err = errno;
	}
	if (rc)
		unlink(tmp);
	else if (sync_dir(target))
		err = errno, rc = -1, *why = "the folder could not be synced after the rename";
	free(tmp);
	errno = err;
	return rc;
}

/* ---- unified diff ---- */

struct lines {
	const char **at;
	size_t *len;        /* with the line end */
	size_t n;
};

static void split(const char *buf, size_t len, struct lines *l)
{
	*l = (struct lines){0};
	size_t cap = 0;
	for (const char *p = buf, *end = buf + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t m = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		if (l->n == cap) {
			cap = cap ? cap * 2 : 64;
			l->at = mem_realloc(l->at, cap * sizeof(*l->at));
			l->len = mem_realloc(l->len, cap * sizeof(*l->len));
		}
		l->at[l->n] = p;
		l->len[l->n++] = m;
		p += m;
	}
}

static bool same(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return i < a->n && j < b->n && a->len[i] == b->len[j] && !memcmp(a->at[i], b->at[j], a->len[i]);
}

enum op { KEEP, DEL, ADD };

static void put_line(FILE *f, char mark, const char *s, size_t n)
{
	fputc(mark, f);
	fwrite(s, 1, n, f);
	if (!n || s[n - 1] != '\n')
		fputs("\n\\ No newline at end of file\n", f);
}

/*
 * Fixes change few lines and add at most one each, so a greedy walk that re-synchronises
 * within a small window finds the same hunks a full diff would.
 */
void fix_diff(FILE *f, const char *path, const char *old, size_t old_len, const char *new, size_t new_len)
{
	struct lines a, b;
	split(old, old_len, &a);
	split(new, new_len, &b);
	size_t cap = a.n + b.n + 1, n = 0;
	enum op *ops = mem_alloc(cap * sizeof(*ops));
	size_t i = 0, j = 0;
	while (i < a.n || j < b.n) {
		if (same(&a, i, &b, j)) {
			ops[n++] = KEEP, i++, j++;
			continue;
		}
		size_t k = 1;
		while (k <= 8 && !same(&a, i, &b, j + k) && !same(&a, i + k, &b, j))
			k++;
		if (k <= 8 && same(&a, i, &b, j + k)) {
			while (k--)
				ops[n++] = ADD, j++;
		} else if (k <= 8 && same(&a, i + k, &b, j)) {
			while (k--)
				ops[n++] = DEL, i++;
		} else {
			if (i < a.n)
				ops[n++] = DEL, i++;
			if (j < b.n)
				ops[n++] = ADD, j++;
		}
	}
	fprintf(f, "--- a/%s\n+++ b/%s\n", path, path);
	size_t oi = 0, nj = 0;  /* line numbers before ops[k] */
	for (size_t k = 0; k < n;) {
		if (ops[k] == KEEP) {
			oi++, nj++, k++;
			continue;
		}
		/* a hunk: 3 lines of context, merging changes closer than 7 lines */
		size_t start = k, ctx = 0;
		while (start > 0 && ctx < 3 && ops[start - 1] == KEEP)
			start--, ctx++;
		size_t end = k;
		for (;;) {
			while (end < n && ops[end] != KEEP)
				end++;
			size_t run = 0;
			while (end + run < n && ops[end + run] == KEEP)
				run++;
			if (end + run < n && run <= 6) {
				end += run;
				continue;
			}
			end += run < 3 ? run : 3;
			break;
		}
		size_t os = oi - ctx, ns = nj - ctx, oc = 0, nc = 0;
		for (size_t q = start; q < end; q++)
			oc += ops[q] != ADD, nc += ops[q] != DEL;
		fprintf(f, "@@ -%zu,%zu +%zu,%zu @@\n", oc ? os + 1 : os, oc, nc ? ns + 1 : ns, nc);
		size_t x = os, y = ns;
		for (size_t q = start; q < end; q++) {
			if (ops[q] == KEEP)
				put_line(f, ' ', a.at[x], a.len[x]), x++, y++;
			else if (ops[q] == DEL)
				put_line(f, '-', a.at[x], a.len[x]), x++;
			else
				put_line(f, '+', b.at[y], b.len[y]), y++;
		}
		oi = x, nj = y, k = end;
	}
	free(ops);
	free(a.at);
	free(a.len);
	free(b.at);
	free(b.len);
}

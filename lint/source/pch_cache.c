/* SPDX-License-Identifier: MIT */
/* pch_cache: precompiled preambles kept between runs (see pch_cache.h). */
#define _GNU_SOURCE     /* getline */
#include "source/pch_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"

/* A list's first words: one of another version is not read, and its preamble is made again. */
#define LIST_HEAD "cglint-pch 3"

/* mkdir -p, each new folder 0700 (the cache is the user's alone) */
static bool make_dirs(char *path)
{
	for (char *p = path + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		*p = '\0';
		bool ok = mkdir(path, 0700) == 0 || errno == EEXIST;
		*p = c;
		if (!ok)
			return false;
		if (!c)
			break;
	}
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) && access(path, W_OK | X_OK) == 0;
}

char *pch_cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	struct sbuf d;
	sbuf_init(&d);
	if (xdg && xdg[0] == '/')       /* the spec: a relative path is to be ignored */
		sbuf_printf(&d, "%s/cglint", xdg);
	else if (home && home[0] == '/')
		sbuf_printf(&d, "%s/.cache/cglint", home);
	if (d.len && make_dirs(d.buf))
		return d.buf;
	sbuf_release(&d);
	return NULL;
}

void pch_cache_tmp(char *out, size_t size, const char *path)
{
	static atomic_uint counter;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(out, size, "%s.%ld.%u.%lx.tmp", path, (long)getpid(), atomic_fetch_add(&counter, 1),
		 (unsigned long)ts.tv_nsec);
}

static long long mtime_ns(const struct stat *st)
{
	return (long long)st->st_mtim.tv_sec * 1000000000ll + st->st_mtim.tv_nsec;
}

/* A checksum of bytes, four lanes of FNV-1a over 8-byte words (a lane each, so the multiplies
 * overlap) and the tail byte by byte: a hundred megabytes in tens of milliseconds. Not a defence
 * against anyone, only against a file cut short or damaged on disk. */
struct sum {
	uint64_t lane[4];
	unsigned char part[32];
	size_t n_part;
};

static void sum_init(struct sum *s)
{
	for (int i = 0; i < 4; i++)
		s->lane[i] = 14695981039346656037ull + (uint64_t)i;
	s->n_part = 0;
}

static void sum_block(struct sum *s, const unsigned char *p)
{
	for (int i = 0; i < 4; i++) {
		uint64_t w;
		memcpy(&w, p + 8 * i, 8);
		s->lane[i] = (s->lane[i] ^ w) * 1099511628211ull;
	}
}

static void sum_add(struct sum *s, const void *data, size_t n)
{
	const unsigned char *p = data;
	if (s->n_part) {
		size_t take = n < 32 - s->n_part ? n : 32 - s->n_part;
		memcpy(s->part + s->n_part, p, take);
		s->n_part += take, p += take, n -= take;
		if (s->n_part < 32)
			return;
		sum_block(s, s->part);
		s->n_part = 0;
	}
	for (; n >= 32; p += 32, n -= 32)
		sum_block(s, p);
	memcpy(s->part, p, n);
	s->n_part = n;
}

static uint64_t sum_end(const struct sum *s)
{
	uint64_t h = 14695981039346656037ull;
	for (int i = 0; i < 4; i++)
		h = (h ^ s->lane[i]) * 1099511628211ull;
	for (size_t i = 0; i < s->n_part; i++)
		h = (h ^ s->part[i]) * 1099511628211ull;
	return h;
}

/* The size and checksum of the file at 'path'; false when it cannot be read whole. */
static bool file_sum(const char *path, uint64_t *size, uint64_t *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	enum { CHUNK = 1 << 20 };
	unsigned char *buf = mem_alloc(CHUNK);
	struct sum s;
	sum_init(&s);
	*size = 0;
	ssize_t got;
	while ((got = read(fd, buf, CHUNK)) > 0 || (got < 0 && errno == EINTR)) {
		if (got > 0) {
			sum_add(&s, buf, (size_t)got);
			*size += (uint64_t)got;
		}
	}
	free(buf);
	close(fd);
	*out = sum_end(&s);
	return got == 0;
}

static uint64_t text_sum(const char *text, size_t n)
{
	struct sum s;
	sum_init(&s);
	sum_add(&s, text, n);
	return sum_end(&s);
}

bool pch_cache_put_list(const char *list, const char *pch, const char *const *files, size_t n,
			const char *const *dirs, size_t n_dirs)
{
	uint64_t size, sum;
	if (!file_sum(pch, &size, &sum))
		return false;
	struct sbuf b;
	sbuf_init(&b);
	sbuf_printf(&b, LIST_HEAD " %llu %016llx\n", (unsigned long long)size, (unsigned long long)sum);
	for (size_t k = 0; k < n; k++) {
		struct stat st;
		if (stat(files[k], &st) == 0)
			sbuf_printf(&b, "%lld %lld %s\n", (long long)st.st_size, mtime_ns(&st), files[k]);
		else            /* the shim's files, served from memory: the cache's name covers them */
			sbuf_printf(&b, "- - %s\n", files[k]);
	}
	for (size_t k = 0; k < n_dirs; k++) {
		struct stat st;
		if (stat(dirs[k], &st) == 0)
			sbuf_printf(&b, "= %lld %s\n", mtime_ns(&st), dirs[k]);
	}
	sbuf_printf(&b, "end %016llx\n", (unsigned long long)text_sum(b.buf, b.len));
	bool ok = pch_cache_put(list, b.buf, b.len);
	sbuf_release(&b);
	return ok;
}

bool pch_cache_put(const char *path, const void *bytes, size_t n)
{
	char tmp[PATH_MAX + 64];
	pch_cache_tmp(tmp, sizeof(tmp), path);
	FILE *o = fopen(tmp, "w");
	bool ok = o && fwrite(bytes, 1, n, o) == n;
	if (o && fclose(o) != 0)
		ok = false;
	if (ok && rename(tmp, path) == 0)
		return true;
	unlink(tmp);
	return false;
}

/* One line of a list: a file with its size and time, a file not checked ("- - "), or a folder
 * with its time ("= "); *name pointing into 'line'. */
enum line { LINE_FILE, LINE_UNCHECKED, LINE_DIR };

static bool parse_line(char *line, enum line *kind, long long *size, long long *mtime, const char **name)
{
	size_t n = strlen(line);
	if (n && line[n - 1] == '\n')
		line[--n] = '\0';
	char *p = line, *end;
	if (!strncmp(p, "- - ", 4)) {
		*kind = LINE_UNCHECKED;
		*name = p + 4;
		return true;
	}
	*kind = strncmp(p, "= ", 2) ? LINE_FILE : LINE_DIR;
	if (*kind == LINE_DIR) {
		p += 2;
	} else {
		*size = strtoll(p, &end, 10);
		if (end == p || *end != ' ')
			return false;
		p = end + 1;
	}
	*mtime = strtoll(p, &end, 10);
	if (end == p || *end != ' ')
		return false;
	*name = end + 1;
	return **name != '\0';
}

/* The whole of 'list' (malloc'd, NUL-terminated), its "end" line checked and cut off; NULL when
 * it is unreadable, cut short or damaged. */
static char *read_list(const char *list)
{
	FILE *f = fopen(list, "r");
	if (!f)
		return NULL;
	struct sbuf b;
	sbuf_init(&b);
	char chunk[65536];
	size_t got;
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		sbuf_addn(&b, chunk, got);
	bool ok = !ferror(f);
	fclose(f);
	/* the last line: "end <checksum of everything before it>" */
	char *end = b.len > 1 ? memrchr(b.buf, '\n', b.len - 1) : NULL;
	size_t body = end ? (size_t)(end - b.buf) + 1 : 0;
	char want[32];
	snprintf(want, sizeof(want), "end %016llx\n", (unsigned long long)text_sum(b.buf, body));
	ok = ok && end && b.len - body == strlen(want) && !memcmp(b.buf + body, want, b.len - body);
	if (!ok) {
		sbuf_release(&b);
		return NULL;
	}
	b.buf[body] = '\0';
	return b.buf;
}

bool pch_cache_fresh(const char *pch, const char *list)
{
	char *text = read_list(list);
	if (!text)
		return false;
	unsigned long long want_size, want_sum;
	uint64_t size, sum;
	char *line = text, *next = strchr(line, '\n');
	bool ok = next && sscanf(line, LIST_HEAD " %llu %llx", &want_size, &want_sum) == 2 &&
		  file_sum(pch, &size, &sum) && size == want_size && sum == want_sum;
	for (line = next ? next + 1 : NULL; ok && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		enum line kind;
		long long bytes = 0, mtime = 0;
		const char *name;
		struct stat st;
		ok = parse_line(line, &kind, &bytes, &mtime, &name) &&
		     (kind == LINE_UNCHECKED ||
		      (stat(name, &st) == 0 && mtime_ns(&st) == mtime && (kind == LINE_DIR || st.st_size == bytes)));
	}
	free(text);
	if (ok) {               /* used now: the cleaner ages what is not. The access time only: a
				 * preamble made on top of this one holds its modification time,
				 * which clang checks when it loads the two */
		static const struct timespec used[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
		utimensat(AT_FDCWD, pch, used, 0);
		utimensat(AT_FDCWD, list, used, 0);
	}
	return ok;
}

int pch_cache_lock(const char *stem)
{
	char path[PATH_MAX];
	if ((size_t)snprintf(path, sizeof(path), "%s.lock", stem) >= sizeof(path))
		return -1;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	while (fd >= 0 && flock(fd, LOCK_EX) != 0)
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	return fd;
}

void pch_cache_unlock(int fd)
{
	if (fd >= 0)
		close(fd);      /* the lock goes with it */
}

bool pch_cache_sum(const char *list, uint64_t *sum)
{
	char *text = read_list(list);
	unsigned long long size, s;
	bool ok = text && sscanf(text, LIST_HEAD " %llu %llx", &size, &s) == 2;
	free(text);
	*sum = ok ? (uint64_t)s : 0;
	return ok;
}

void pch_cache_each(const char *list, void (*add)(void *ctx, const char *name), void *ctx)
{
	char *text = read_list(list);
	char *line = text ? strchr(text, '\n') : NULL;         /* past the "cglint-pch" line */
	for (char *next; line && *++line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next = '\0';
		enum line kind;
		long long size, mtime;
		const char *name;
		if (parse_line(line, &kind, &size, &mtime, &name) && kind != LINE_DIR)
			add(ctx, name);
		if (!next)
			break;
	}
	free(text);
}

/* The files of one preamble (its .pch, .pch.inc, .pch.err and .bad share a stem), aged and sized together. */
struct entry {
	char *stem;
	time_t used;
	uint64_t bytes;
	bool tmp;
};

static int by_stem(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->stem, ((const struct entry *)b)->stem);
}

static int by_age(const void *a, const void *b)
{
	time_t x = ((const struct entry *)a)->used, y = ((const struct entry *)b)->used;
	return x < y ? -1 : x > y;
}

/* The stem of a cache file's name (up to its first '.'), or NULL for a file not the cache's. */
static char *stem_of(const char *name, bool *tmp)
{
	size_t n = strlen(name);
	*tmp = n > 4 && !strcmp(name + n - 4, ".tmp");
	bool ours = *tmp || (n > 4 && (!strcmp(name + n - 4, ".pch") || !strcmp(name + n - 4, ".inc") ||
				       !strcmp(name + n - 4, ".err") || !strcmp(name + n - 4, ".bad"))) ||
		    (n > 5 && !strcmp(name + n - 5, ".lock"));
	if (!ours || name[0] == '.')
		return NULL;
	char *stem = mem_strdup(name);
	stem[strcspn(stem, ".")] = '\0';
	return stem;
}

static void remove_stem(int dfd, const char *stem)
{
	/* the preamble first: a list without it is never read as fresh */
	static const char *const ext[] = {".pch", ".pch.inc", ".pch.err", ".bad", ".lock"};
	char name[512];
	for (size_t k = 0; k < sizeof(ext) / sizeof(ext[0]); k++) {
		snprintf(name, sizeof(name), "%s%s", stem, ext[k]);
		unlinkat(dfd, name, 0);
	}
}

void pch_cache_clean(const char *dir, time_t now, unsigned days, uint64_t max_bytes)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct entry *v = NULL;
	size_t n = 0, cap = 0;
	for (struct dirent *e; (e = readdir(d));) {
		bool tmp;
		char *stem = stem_of(e->d_name, &tmp);
		struct stat st;
		if (!stem || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) {
			free(stem);
			continue;
		}
		if (tmp) {      /* a writer's, unless it died: give it an hour */
			if (now - st.st_mtime > 3600)
				unlinkat(dirfd(d), e->d_name, 0);
			free(stem);
			continue;
		}
		if (n == cap)
			v = mem_realloc(v, (cap = cap ? cap * 2 : 64) * sizeof(*v));
		time_t used = st.st_atime > st.st_mtime ? st.st_atime : st.st_mtime;    /* written or used */
		v[n++] = (struct entry){stem, used, (uint64_t)st.st_size, false};
	}
	if (n > 1)      /* an empty cache has no array, which qsort must not get */
		qsort(v, n, sizeof(*v), by_stem);
	size_t m = 0;           /* one entry a stem, its newest time, its files' bytes together */
	for (size_t k = 0; k < n; k++) {
		if (m && !strcmp(v[m - 1].stem, v[k].stem)) {
			v[m - 1].used = v[k].used > v[m - 1].used ? v[k].used : v[m - 1].used;
			v[m - 1].bytes += v[k].bytes;
			free(v[k].stem);
		} else {
			v[m++] = v[k];
		}
	}
	if (m > 1)
		qsort(v, m, sizeof(*v), by_age);
	uint64_t total = 0;
	for (size_t k = 0; k < m; k++)
		total += v[k].bytes;
	for (size_t k = 0; k < m; k++) {
		if (now - v[k].used > (time_t)days * 86400 || total > max_bytes) {
			remove_stem(dirfd(d), v[k].stem);
			total -= v[k].bytes;
		}
		free(v[k].stem);
	}
	free(v);
	closedir(d);
}

/* SPDX-License-Identifier: MIT */
/* pch_cache: precompiled preambles kept between runs (see pch_cache.h). */
#define _GNU_SOURCE     /* getline */
#include "source/pch_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"

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

bool pch_cache_put_list(const char *list, uint64_t pch_size, const char *const *files, size_t n)
{
	char tmp[4096];
	pch_cache_tmp(tmp, sizeof(tmp), list);
	FILE *o = fopen(tmp, "w");
	if (!o)
		return false;
	fprintf(o, "cglint-pch 1 %llu\n", (unsigned long long)pch_size);
	for (size_t k = 0; k < n; k++) {
		struct stat st;
		if (stat(files[k], &st) == 0)
			fprintf(o, "%lld %lld %s\n", (long long)st.st_size, mtime_ns(&st), files[k]);
		else            /* the shim's files, served from memory: the cache's name covers them */
			fprintf(o, "- - %s\n", files[k]);
	}
	if (fclose(o) == 0 && rename(tmp, list) == 0)
		return true;
	unlink(tmp);
	return false;
}

/* One line of a list: its size and time ("-" for unchecked), *name pointing into 'line'. */
static bool parse_line(char *line, bool *check, long long *size, long long *mtime, const char **name)
{
	size_t n = strlen(line);
	if (n && line[n - 1] == '\n')
		line[--n] = '\0';
	char *p = line, *end;
	*check = strncmp(p, "- - ", 4) != 0;
	if (!*check) {
		*name = p + 4;
		return true;
	}
	*size = strtoll(p, &end, 10);
	if (end == p || *end != ' ')
		return false;
	p = end + 1;
	*mtime = strtoll(p, &end, 10);
	if (end == p || *end != ' ')
		return false;
	*name = end + 1;
	return **name != '\0';
}

bool pch_cache_fresh(const char *pch, const char *list)
{
	FILE *f = fopen(list, "r");
	if (!f)
		return false;
	char *line = NULL;
	size_t cap = 0;
	unsigned long long want;
	struct stat st;
	bool ok = getline(&line, &cap, f) > 0 && sscanf(line, "cglint-pch 1 %llu", &want) == 1 &&
		  stat(pch, &st) == 0 && (unsigned long long)st.st_size == want;
	while (ok && getline(&line, &cap, f) > 0) {
		bool check;
		long long size = 0, mtime = 0;
		const char *name;
		ok = parse_line(line, &check, &size, &mtime, &name) &&
		     (!check || (stat(name, &st) == 0 && st.st_size == size && mtime_ns(&st) == mtime));
	}
	free(line);
	fclose(f);
	if (ok) {               /* used now: the cleaner ages what is not */
		utimensat(AT_FDCWD, pch, NULL, 0);
		utimensat(AT_FDCWD, list, NULL, 0);
	}
	return ok;
}

void pch_cache_each(const char *list, void (*add)(void *ctx, const char *name), void *ctx)
{
	FILE *f = fopen(list, "r");
	char *line = NULL;
	size_t cap = 0;
	bool first = true;
	while (f && getline(&line, &cap, f) > 0) {
		bool check;
		long long size, mtime;
		const char *name;
		if (first && !strncmp(line, "cglint-pch ", 11)) {
			first = false;
			continue;
		}
		first = false;
		if (parse_line(line, &check, &size, &mtime, &name))
			add(ctx, name);
	}
	free(line);
	if (f)
		fclose(f);
}

/* The files of one preamble (its .pch, .pch.inc and .bad share a stem), aged and sized together. */
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
				       !strcmp(name + n - 4, ".bad")));
	if (!ours || name[0] == '.')
		return NULL;
	char *stem = mem_strdup(name);
	stem[strcspn(stem, ".")] = '\0';
	return stem;
}

static void remove_stem(int dfd, const char *stem)
{
	/* the preamble first: a list without it is never read as fresh */
	static const char *const ext[] = {".pch", ".pch.inc", ".bad"};
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
		v[n++] = (struct entry){stem, st.st_mtime, (uint64_t)st.st_size, false};
	}
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

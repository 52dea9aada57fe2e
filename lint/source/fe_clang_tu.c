/* SPDX-License-Identifier: MIT */
/* fe_clang_tu: a translation unit parsed through libclang from flags and text, starting from a
 * precompiled preamble when one applies (see fe_clang_tu.h). */
#include "source/fe_clang_tu.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "base/mem.h"
#include "source/cflags.h"
#include "source/fe_clang.h"
#include "source/fe_clang_err.h"
#include "source/fe_clang_lib.h"
#include "source/pch_cache.h"
#include "source/pch_shadow.h"
#include "source/preamble.h"
#include "source/sir.h"

struct shim_source {
	const char *path, *text;
	size_t len;
};
extern const struct shim_source shim_sources[];
extern const size_t shim_n_sources;

/* The shim (its stub/ folder included) as files in memory under its virtual folder, plus the
 * file itself, read once by the caller. */
static struct CXUnsavedFile *unsaved_files(struct arena *a, const char *abspath, const char *buf, size_t len,
					   unsigned *n)
{
	struct CXUnsavedFile *u = arena_alloc(a, (shim_n_sources + 1) * sizeof(*u));
	for (size_t i = 0; i < shim_n_sources; i++)
		u[i] = (struct CXUnsavedFile){arena_printf(a, "%s/%s", FE_CLANG_SHIM_DIR, shim_sources[i].path),
					      shim_sources[i].text, shim_sources[i].len};
	u[shim_n_sources] = (struct CXUnsavedFile){abspath, buf, len};
	*n = (unsigned)shim_n_sources + 1;
	return u;
}

/* One index for the process: a unit reads its index's options for as long as it lives (one
 * disposed of under a unit made clang_saveTranslationUnit read freed memory, and then drop the
 * thread to SCHED_IDLE). */
static CXIndex the_index;
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

static void make_index(void)
{
	the_index = fe_clang_lib.createIndex(0, 0);
}

void fe_clang_tu_index(void)
{
	pthread_once(&index_once, make_index);
}

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* FNV-1a over a parse's flags, each with its NUL. */
static uint64_t flags_hash(const struct cflags *f)
{
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < f->n; i++)
		h = fnv(h, f->v[i], strlen(f->v[i]) + 1);
	return h;
}

/* The unit a parse with o->keep_unit made, and the hash of its file, flags and options: one
 * per process, so keep_unit is for a single-threaded worker (the language server's). */
static struct {
	CXTranslationUnit tu;
	uint64_t key;
} kept;

static CXTranslationUnit parse_with(struct arena *a, const char *abspath, const char *buf, size_t len,
				    const struct cflags *f, unsigned flags, bool keep, int *rc)
{
	unsigned nu;
	struct CXUnsavedFile *u = unsaved_files(a, abspath, buf, len, &nu);
	uint64_t key = keep ? fnv(fnv(flags_hash(f), abspath, strlen(abspath) + 1), (const char *)&flags, sizeof(flags)) : 0;
	if (keep && kept.tu && kept.key == key) {
		*rc = fe_clang_lib.reparseTranslationUnit(kept.tu, nu, u, fe_clang_lib.defaultReparseOptions(kept.tu));
		if (*rc == CXError_Success)
			return kept.tu;
		fe_clang_lib.disposeTranslationUnit(kept.tu);   /* a failed reparse leaves it unusable */
		kept.tu = NULL;
	}
	fe_clang_tu_index();
	CXTranslationUnit tu = NULL;
	*rc = fe_clang_lib.parseTranslationUnit2(the_index, abspath, f->v, (int)f->n, u, nu, flags, &tu);
	if (*rc != CXError_Success)
		return NULL;
	if (keep) {
		if (kept.tu)
			fe_clang_lib.disposeTranslationUnit(kept.tu);
		kept.tu = tu;
		kept.key = key;
	}
	return tu;
}

void fe_clang_tu_release(CXTranslationUnit tu)
{
	if (tu && tu != kept.tu)
		fe_clang_lib.disposeTranslationUnit(tu);
}

/* Whether 'tu' has errors; *main_at: the offset of the first in its main file, or SIZE_MAX. With
 * 'errs', a preamble's errors that are all missing declarations outside the main file (a header
 * a CPU-only libtorch lacks) do not count: they are written to 'errs' as "line\tcol\tfile\tmessage"
 * lines (pch_errors reads them back), for the units parsed from it to report. */
static bool has_errors(struct arena *a, CXTranslationUnit tu, size_t *main_at, struct sbuf *errs)
{
	bool bad = false, saved = false;
	*main_at = SIZE_MAX;
	for (unsigned i = 0, n = fe_clang_lib.getNumDiagnostics(tu); i < n && !bad; i++) {
		CXDiagnostic dg = fe_clang_lib.getDiagnostic(tu, i);
		bool error = fe_clang_lib.getDiagnosticSeverity(dg) >= CXDiagnostic_Error;
		CXSourceLocation l = fe_clang_lib.getDiagnosticLocation(dg);
		CXFile file;
		unsigned line, col, off;
		fe_clang_lib.getFileLocation(l, &file, &line, &col, &off);
		const char *msg = error ? fe_clang_lib_str(a, fe_clang_lib.getDiagnosticSpelling(dg)) : "";
		const char *name = error && file ? fe_clang_lib_str(a, fe_clang_lib.getFileName(file)) : "";
		if (error && errs && file && !fe_clang_lib.Location_isFromMainFile(l) && fe_clang_err_is_missing(msg) &&
		    !strpbrk(msg, "\t\n") && !strpbrk(name, "\t\n")) {
			sbuf_printf(errs, "%u\t%u\t%s\t%s\n", line, col, name, msg);
			saved = true;
		} else if (error) {
			bad = true;
			if (fe_clang_lib.Location_isFromMainFile(l))
				*main_at = off;
		}
		fe_clang_lib.disposeDiagnostic(dg);
	}
	if (bad && saved)
		errs->len = 0;
	return bad;
}

/* Delete a file's older preambles: the .pch, .pch.inc and .pch.err files in 'dir' whose names start with
 * 'prefix' (the .bad marks stay, so a preamble that failed is not tried again). */
static void forget_preambles(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		if (!strncmp(e->d_name, prefix, strlen(prefix)) && n > 4 &&
		    (!strcmp(e->d_name + n - 4, ".pch") || !strcmp(e->d_name + n - 4, ".inc") ||
		     !strcmp(e->d_name + n - 4, ".err")))
			unlinkat(dirfd(d), e->d_name, 0);
	}
	if (d)
		closedir(d);
}

struct inclusions {
	struct arena *a;
	struct sir_tu *t;
	size_t cap;
};

static void add_name(struct inclusions *in, const char *name)
{
	if (in->t->n_included == in->cap) {
		const char **v = arena_alloc(in->a, (in->cap = in->cap ? in->cap * 2 : 16) * sizeof(*v));
		if (in->t->n_included)
			memcpy(v, in->t->included, in->t->n_included * sizeof(*v));
		in->t->included = v;
	}
	in->t->included[in->t->n_included++] = name;
}

static void add_inclusion(CXFile file, CXSourceLocation *stack, unsigned depth, CXClientData ctx)
{
	struct inclusions *in = ctx;
	if (!depth)
		return;         /* the main file */
	(void)stack;
	add_name(in, fe_clang_lib_str(in->a, fe_clang_lib.getFileName(file)));
}

/* The files 'tu' included, into t->included. */
static void included(struct arena *a, CXTranslationUnit tu, struct sir_tu *t)
{
	struct inclusions in = {a, t, 0};
	fe_clang_lib.getInclusions(tu, add_inclusion, &in);
}

static void add_listed(void *ctx, const char *name)
{
	struct inclusions *in = ctx;
	add_name(in, arena_strdup(in->a, name));
}

/* Add to t->included the files the preamble 'pch' included (save_inclusions). */
static void pch_inclusions(struct arena *a, const char *pch, struct sir_tu *t)
{
	struct inclusions in = {a, t, t->n_included};
	pch_cache_each(arena_printf(a, "%s.inc", pch), add_listed, &in);
}

/* Save the files a preamble (made as 'tmp', to be renamed 'pch') included beside it, as
 * <pch>.inc (pch_cache.h), those of the preamble 'base' it was made on (or NULL) after its own:
 * a unit parsed from it does not list them (clang_getInclusions walks only its own files), and
 * the cache checks them, and the folders where a file would take the place of one of them
 * (pch_shadow.h), before it is used again. */
static bool save_inclusions(struct arena *a, CXTranslationUnit tu, const struct cflags *f, const char *tmp,
			    const char *pch, const char *base)
{
	struct sir_tu t = {0};
	included(a, tu, &t);
	if (base)
		pch_inclusions(a, base, &t);
	const char **dirs;
	size_t n_dirs = pch_shadow_dirs(a, f, t.included, t.n_included, &dirs);
	return pch_cache_put_list(arena_printf(a, "%s.inc", pch), tmp, t.included, t.n_included, dirs, n_dirs);
}

/* f with the n arguments 'more' after its own. */
static struct cflags plus(struct arena *a, const struct cflags *f, const char *const *more, size_t n)
{
	struct cflags with = {0};
	for (size_t i = 0; i < f->n; i++)
		cflags_add(a, &with, f->v[i]);
	for (size_t i = 0; i < n; i++)
		cflags_add(a, &with, more[i]);
	with.per_thread_stream = f->per_thread_stream;
	return with;
}

/* The errors a preamble was saved with (has_errors), as 'path' (pch.err); none: no such file,
 * an older one removed. */
static bool put_errors(const char *path, const struct sbuf *errs)
{
	return errs->len ? pch_cache_put(path, errs->buf, errs->len) : unlink(path) == 0 || errno == ENOENT;
}

/* The errors the preamble 'pch' was saved with (put_errors); 0 for none or a NULL pch. */
static size_t pch_errors(struct arena *a, const char *pch, struct fe_clang_err_item **out)
{
	*out = NULL;
	size_t n = 0, cap = 0;
	FILE *f = pch ? fopen(arena_printf(a, "%s.err", pch), "r") : NULL;
	char *line = NULL;
	size_t len = 0;
	while (f && getline(&line, &len, f) > 0) {
		unsigned l, c;
		char *file = strchr(line, '\t');
		file = file ? strchr(file + 1, '\t') : NULL;   /* past the line and the column */
		char *msg = file ? strchr(file + 1, '\t') : NULL;
		if (!msg || sscanf(line, "%u\t%u", &l, &c) != 2)
			continue;
		file++;
		*msg++ = '\0';
		msg[strcspn(msg, "\n")] = '\0';
		if (n == cap) {
			struct fe_clang_err_item *v = arena_alloc(a, (cap = cap ? 2 * cap : 4) * sizeof(*v));
			if (n)
				memcpy(v, *out, n * sizeof(*v));
			*out = v;
		}
		(*out)[n++] = (struct fe_clang_err_item){arena_strdup(a, file), arena_strdup(a, msg), l, c};
	}
	free(line);
	if (f)
		fclose(f);
	return n;
}

/* The lines of the file 'path' (a preamble's pch.err), appended to 'b'; none when it is missing. */
static void add_file(struct sbuf *b, const char *path)
{
	FILE *f = fopen(path, "r");
	char chunk[4096];
	for (size_t got; f && (got = fread(chunk, 1, sizeof(chunk), f)) > 0;)
		sbuf_addn(b, chunk, got);
	if (f)
		fclose(f);
}

/* Parse src (text[0..len)) for a preamble and save it as 'pch', on top of the preamble 'base'
 * when it is not NULL (a chained one: clang loads 'base' through it); false, with a mark 'bad'
 * made, if it has errors (*err_at: where the first is in 'text', or SIZE_MAX), those of a header
 * not found (missing declarations, fe_clang_err.h) apart: they are saved beside it (pch.err),
 * after those of 'base', and the files parsed from it, analysed in part, report them as a parse
 * without it does. */
static bool make_pch(struct arena *a, const struct cflags *f, const char *src, const char *text, size_t len,
		     const char *pch, const char *bad, const char *base, size_t *err_at)
{
	int rc;
	struct sbuf errs;       /* the base's errors, then this one's */
	sbuf_init(&errs);
	if (base)
		add_file(&errs, arena_printf(a, "%s.err", base));
	/* a base saved with errors (a header not found) loads only when clang is told it may */
	const char *more[] = {"-include-pch", base, "-Xclang", "-fallow-pch-with-compiler-errors"};
	struct cflags with = base ? plus(a, f, more, errs.len ? 4 : 2) : *f;
	/* C++: a whole unit, not the prefix of one (libclang's Incomplete), so that the templates
	 * the headers use are instantiated, and the vtables they need defined, once here and not at
	 * the end of every parse from the preamble (PyTorch's headers: 1.3 s of CPU a parse, 3 s
	 * before any of it was done here). C's tentative definitions stay open for the file.
	 * KeepGoing, as the file's own parse: past a header not found, the rest of the block */
	bool cxx = f->n > 1 && (!strcmp(f->v[1], "c++") || !strcmp(f->v[1], "cuda"));
	CXTranslationUnit tu = parse_with(a, src, text, len, &with, (cxx ? 0 : CXTranslationUnit_Incomplete) |
					  CXTranslationUnit_ForSerialization | CXTranslationUnit_KeepGoing, false, &rc);
	char tmp[PATH_MAX + 64];
	pch_cache_tmp(tmp, sizeof(tmp), pch);
	*err_at = SIZE_MAX;
	bool ok = tu && !has_errors(a, tu, err_at, &errs) &&
		  fe_clang_lib.saveTranslationUnit(tu, tmp, fe_clang_lib.defaultSaveOptions(tu)) == CXSaveError_None &&
		  save_inclusions(a, tu, f, tmp, pch, base) && put_errors(arena_printf(a, "%s.err", pch), &errs) &&
		  rename(tmp, pch) == 0;
	sbuf_release(&errs);
	if (tu)
		fe_clang_lib.disposeTranslationUnit(tu);
	if (!ok) {              /* the mark holds where the error was */
		unlink(tmp);
		char at[32];
		pch_cache_put(bad, at, (size_t)snprintf(at, sizeof(at), "%zu\n", *err_at));
	}
	return ok;
}

/* Whether a preamble failed before (make_pch's mark). In the cache kept between runs, a mark a
 * day old is tried again: a header missing then may be installed now. */
static bool marked_bad(const char *bad, bool cache)
{
	struct stat st;
	return stat(bad, &st) == 0 && (!cache || time(NULL) - st.st_mtime < 86400);
}

/* Whether a header a preamble was made without ('pch'.err) is there now: where the file that
 * included it or an include folder of 'f' (or the system's) holds its name. */
static bool found_since(struct arena *a, const char *pch, const struct cflags *f)
{
	struct fe_clang_err_item *errs;
	size_t n = pch_errors(a, pch, &errs);
	const char **dirs;
	size_t n_dirs = n ? pch_shadow_search_path(a, f, &dirs) : 0;
	for (size_t k = 0; k < n; k++) {
		const char *q = strchr(errs[k].msg, '\''), *e = q ? strchr(q + 1, '\'') : NULL;
		if (!e || !strstr(errs[k].msg, "file not found"))
			continue;
		const char *name = arena_printf(a, "%.*s", (int)(e - q - 1), q + 1), *slash = strrchr(errs[k].file, '/');
		if (slash && access(arena_printf(a, "%.*s/%s", (int)(slash - errs[k].file), errs[k].file, name), F_OK) == 0)
			return true;
		for (size_t i = 0; i < n_dirs; i++)
			if (access(arena_join(a, dirs[i], "/", name), F_OK) == 0)
				return true;
	}
	return false;
}

/* Whether the preamble 'pch' can be used: in the cache, only while the files it holds are as
 * they were (pch_cache_fresh), and, for one made without a header not found, while that header
 * is still not there (found_since). */
static bool usable(struct arena *a, const char *pch, bool cache, const struct cflags *f)
{
	if (!cache)
		return access(pch, R_OK) == 0;
	return pch_cache_fresh(pch, arena_printf(a, "%s.inc", pch)) && !found_since(a, pch, f);
}

/* The preamble stem.pch, usable, or made from text[0..len) (on 'base', or NULL) under the
 * lock of its stem: a worker that waited for another making it takes theirs. */
static bool make_locked(struct arena *a, const struct cflags *f, const char *stem, const char *src, const char *text,
			size_t len, const char *base, bool cache, size_t *err_at)
{
	const char *pch = arena_printf(a, "%s.pch", stem), *bad = arena_printf(a, "%s.bad", stem);
	int lock = pch_cache_lock(stem);
	bool ok = usable(a, pch, cache, f) || (!marked_bad(bad, cache) && make_pch(a, f, src, text, len, pch, bad, base, err_at));
	pch_cache_unlock(lock);
	return ok;
}

/* make_locked, where the preamble stem.pch is not usable already: the lock is taken only to make
 * one. */
static bool ready(struct arena *a, const struct cflags *f, const char *stem, const char *src, const char *text,
		  size_t len, const char *base, bool cache, size_t *err_at)
{
	return usable(a, arena_printf(a, "%s.pch", stem), cache, f) ||
	       (!marked_bad(arena_printf(a, "%s.bad", stem), cache) &&
		make_locked(a, f, stem, src, text, len, base, cache, err_at));
}

/* What the cache's names depend on besides the text and flags: how cglint makes a preamble
 * (PREAMBLE_KIND, to change with make_pch), libclang's version and the shim cglint serves from
 * memory (a unit holds both). */
#define PREAMBLE_KIND "cglint preamble 2: C++ as a whole unit"
static uint64_t cache_salt;
static pthread_once_t salt_once = PTHREAD_ONCE_INIT;

static void make_salt(void)
{
	CXString v = fe_clang_lib.getClangVersion();
	const char *s = fe_clang_lib.getCString(v);
	uint64_t h = fnv(fnv(14695981039346656037ull, PREAMBLE_KIND, sizeof(PREAMBLE_KIND)), s, strlen(s) + 1);
	fe_clang_lib.disposeString(v);
	for (size_t i = 0; i < shim_n_sources; i++)
		h = fnv(fnv(h, shim_sources[i].path, strlen(shim_sources[i].path) + 1), shim_sources[i].text,
			shim_sources[i].len);
	cache_salt = h;
}

/* Where the error that made a .bad mark was, as make_pch wrote it; SIZE_MAX: not known. */
static size_t bad_at(const char *bad)
{
	FILE *m = fopen(bad, "r");
	unsigned long long at = SIZE_MAX;
	if (m) {
		if (fscanf(m, "%llu", &at) != 1)
			at = SIZE_MAX;
		fclose(m);
	}
	return (size_t)at;
}

/* Whether the line at text[at..] is an #include. */
static bool is_include(const char *text, size_t len, size_t at)
{
	while (at < len && (text[at] == ' ' || text[at] == '\t'))
		at++;
	if (at == len || text[at++] != '#')
		return false;
	while (at < len && (text[at] == ' ' || text[at] == '\t'))
		at++;
	return len - at >= 7 && !memcmp(text + at, "include", 7);
}

/* A file's own preamble: its directive lines, those 'off' left to the file's parse. */
struct own_preamble {
	struct preamble_line *lines;
	bool *off;
	size_t n;
};

static struct own_preamble own_preamble(struct arena *a, const char *buf, size_t len)
{
	size_t n = preamble_len(buf, len);
	struct own_preamble p = {arena_alloc(a, (n / 2 + 1) * sizeof(*p.lines)), NULL, 0};
	p.n = n ? preamble_lines(buf, n, p.lines) : 0;
	p.off = arena_alloc(a, (p.n + 1) * sizeof(*p.off));
	memset(p.off, 0, (p.n + 1) * sizeof(*p.off));
	return p;
}

/* The text a preamble is made from: its lines that are not off, one after another. */
static char *own_text(struct arena *a, const char *buf, const struct own_preamble *p, size_t *len)
{
	size_t n = 0;
	for (size_t k = 0; k < p->n; k++)
		n += p->off[k] ? 0 : p->lines[k].len;
	char *t = arena_alloc(a, n + 1);
	*len = 0;
	for (size_t k = 0; k < p->n; k++)
		if (!p->off[k]) {
			memcpy(t + *len, buf + p->lines[k].at, p->lines[k].len);
			*len += p->lines[k].len;
		}
	t[*len] = '\0';
	return t;
}

/* The line of p's text (own_text) that holds offset 'at'; p->n when none does. */
static size_t line_at(const struct own_preamble *p, size_t at)
{
	for (size_t k = 0, start = 0; k < p->n; k++) {
		if (p->off[k])
			continue;
		if (at < start + p->lines[k].len)
			return k;
		start += p->lines[k].len;
	}
	return p->n;
}

/* Whether p's block can end after its first k lines (0 < k < p->n): every #if they open closed,
 * the k-th the last #include before line k + 1 (preamble_len). */
static bool cut_after(const char *buf, const struct own_preamble *p, size_t k)
{
	return preamble_len(buf, p->lines[k].at) == p->lines[k - 1].at + p->lines[k - 1].len;
}

/* Leave p's lines from k on to the file's own parse. */
static void cut_at(struct own_preamble *p, size_t k)
{
	for (size_t i = 0; i < p->n; i++)
		p->off[i] = i >= k;
}

/* In the cache, a preamble of fewer of p's lines than it holds now that another file (another
 * run's) saved: its path, p cut to it; NULL, p as it was, when there is none. The first files
 * of a folder precompile what they begin with in common (src.c), so a later run over one of
 * them finds that. */
static const char *shorter_cached(struct arena *a, const char *buf, struct own_preamble *p, uint64_t h,
				  const char *dir, const char *prefix, size_t on, const struct cflags *f)
{
	for (size_t k = on > 1 ? on - 1 : 0; k > 0; k--) {
		if (!cut_after(buf, p, k))
			continue;
		cut_at(p, k);
		size_t tlen;
		const char *t = own_text(a, buf, p, &tlen);
		const char *pch = arena_printf(a, "%s/%s%016llx.pch", dir, prefix, (unsigned long long)fnv(h, t, tlen));
		if (tlen && usable(a, pch, true, f))
			return pch;
	}
	cut_at(p, on);
	return NULL;
}

/* In the cache, the file's whole block precompiled on top of 'base', the preamble of its first
 * lines that it shares with other files (p, cut there): a chained preamble, which clang loads
 * with its base, so that the next run parses none of the file's headers while the run that makes
 * it parses the rest of the block once, as the file's own parse would (TransformerEngine's
 * extensions begin with a small header in common and include PyTorch after). It is named by
 * the base's checksum, size and modification time, so a base made again gets a chain of its
 * own rather than one clang refuses (it checks the last two). Its path, p whole; 'base', p as it
 * was, when there is none or it cannot be made. */
static const char *chained(struct arena *a, const struct cflags *f, const char *src, const char *buf,
			   struct own_preamble *p, const char *base, uint64_t h, const char *dir, const char *prefix)
{
	size_t k = 0;
	while (k < p->n && !p->off[k])
		k++;
	struct stat st;
	uint64_t id[3];
	if (!k || k == p->n || !pch_cache_sum(arena_printf(a, "%s.inc", base), &id[0]) || stat(base, &st) != 0)
		return base;
	id[1] = (uint64_t)st.st_size;
	id[2] = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
	struct own_preamble rest = *p;
	rest.off = arena_alloc(a, (p->n + 1) * sizeof(*rest.off));
	for (size_t i = 0; i <= p->n; i++)
		rest.off[i] = i < k;
	size_t tlen, err_at;
	const char *t = own_text(a, buf, &rest, &tlen);
	const char *name = arena_printf(a, "%s/%s%016llx", dir, prefix,
					(unsigned long long)fnv(fnv(h ^ 1, (const char *)id, sizeof(id)), t, tlen));
	if (!ready(a, f, name, src, t, tlen, base, true, &err_at))
		return base;
	cut_at(p, p->n);
	return arena_printf(a, "%s.pch", name);
}

/*
 * The precompiled preamble for a parse with flags 'f', made once and saved in o->pch_dir.
 * For a run over many files, what a CUDA parse includes before the file's first line (clang's
 * CUDA runtime wrapper with the toolkit's headers, or the shim's cuda_runtime.h): the same for
 * every file with those flags, saved as <hash of the flags>.pch. For the language server
 * (o->file_preambles), the file's own leading directives as well (preamble.h), saved as
 * <hash of the file and flags>-<hash of those lines>.pch, the file's older ones deleted; for a
 * file whose lines other files of the run's share (o->share_preamble), the same with the hash
 * of its folder for the file's, and kept for those files; in the cache, the rest of such a file's
 * block is chained on top of it (chained()). An #include that fails (a header not
 * found) is left to the file's own parse, which reports it; another error cuts the preamble
 * before its line. *own says which of the file's lines the preamble stands for. One with
 * errors is not used (a .bad file marks it). One worker makes a preamble while the others that
 * need it wait for it (pch_cache_lock). Returns its path, or NULL.
 */
static const char *preamble(struct arena *a, const struct cflags *f, const char *abspath, const char *buf,
			    size_t len, const struct fe_clang_opts *o, struct own_preamble *own)
{
	*own = (struct own_preamble){0};
	if (!o->pch_dir)
		return NULL;
	uint64_t h = flags_hash(f);
	if (o->pch_cache) {
		pthread_once(&salt_once, make_salt);
		h = fnv(h, (const char *)&cache_salt, sizeof(cache_salt));
	}
	if (o->file_preambles || o->share_preamble)
		*own = own_preamble(a, buf, len);
	/* in the cache, a block cut where other files' end is chained to its whole (chained()) */
	bool chain = false;
	if (o->share_preamble && o->share_lines && o->share_lines < own->n && cut_after(buf, own, o->share_lines)) {
		cut_at(own, o->share_lines);
		chain = o->pch_cache;
	}
	char prefix[20];
	/* made as if in the file's folder, so that #include "x.h" finds the same x.h */
	const char *slash = strrchr(abspath, '/'), *dot = strrchr(abspath, '.');
	snprintf(prefix, sizeof(prefix), "%016llx-", (unsigned long long)(o->share_preamble
		 ? fnv(h, abspath, slash ? (size_t)(slash - abspath) : 0) : fnv(h, abspath, strlen(abspath))));
	const char *src = arena_printf(a, "%.*s/.cglint-preamble%s", slash ? (int)(slash - abspath) : 0, abspath,
				       dot && dot > slash ? dot : ".c");
	for (int tries = 0; own->n && tries < 8; tries++) {
		size_t tlen;
		const char *t = own_text(a, buf, own, &tlen);
		const char *base = arena_printf(a, "%s/%s%016llx", o->pch_dir, prefix, (unsigned long long)fnv(h, t, tlen));
		const char *pch = arena_printf(a, "%s.pch", base), *bad = arena_printf(a, "%s.bad", base);
		size_t err_at = SIZE_MAX;
		bool ok = tlen && usable(a, pch, o->pch_cache, f);
		if (tlen && !ok && !tries && o->pch_cache && o->share_preamble) {
			size_t on = 0;
			while (on < own->n && !own->off[on])
				on++;
			const char *shorter = shorter_cached(a, buf, own, h, o->pch_dir, prefix, on, f);
			if (shorter)
				return chained(a, f, src, buf, own, shorter, h, o->pch_dir, prefix);
		}
		if (tlen && !ok && !marked_bad(bad, o->pch_cache)) {
			if (!o->share_preamble)
				forget_preambles(o->pch_dir, prefix);
			ok = make_locked(a, f, base, src, t, tlen, NULL, o->pch_cache, &err_at);
		}
		if (ok)
			return chain && !tries ? chained(a, f, src, buf, own, pch, h, o->pch_dir, prefix) : pch;
		if (err_at == SIZE_MAX)
			err_at = bad_at(bad);   /* a known failure */
		size_t k = line_at(own, err_at);
		if (k == own->n)
			break;
		if (is_include(buf + own->lines[k].at, own->lines[k].len, 0)) {
			own->off[k] = true;
		} else {                /* cut before line k, where every #if it opened is closed */
			size_t keep = preamble_len(buf, own->lines[k].at);
			for (size_t i = 0; i < own->n; i++)
				own->off[i] |= own->lines[i].at >= keep;
		}
	}
	*own = (struct own_preamble){0};
	if (f->n < 2 || strcmp(f->v[1], "cuda"))
		return NULL;
	const char *base = arena_printf(a, "%s/%016llx", o->pch_dir, (unsigned long long)h);
	size_t err_at;
	return ready(a, f, base, arena_printf(a, "%s.cu", base), "", 0, NULL, o->pch_cache, &err_at)
		       ? arena_printf(a, "%s.pch", base) : NULL;
}

size_t fe_clang_tu_preamble_keys(struct arena *a, const char *abspath, const char *buf, size_t len,
				 const struct cflags *f, uint64_t *keys, size_t max)
{
	struct own_preamble own = own_preamble(a, buf, len);
	const char *slash = strrchr(abspath, '/');
	uint64_t h = fnv(flags_hash(f), abspath, slash ? (size_t)(slash - abspath) : 0);
	for (size_t k = 1; k <= own.n && k <= max; k++) {
		h = fnv(h, buf + own.lines[k - 1].at, own.lines[k - 1].len);
		keys[k - 1] = k == own.n || cut_after(buf, &own, k) ? h | 1 : 0;
	}
	return own.n;
}

CXTranslationUnit fe_clang_tu_parse(struct arena *a, const char *abspath, const char *buf, size_t len,
				    const struct cflags *f, const struct fe_clang_opts *o, int *rc, const char **pch,
				    struct fe_clang_err_item **pre, size_t *n_pre)
{
	struct own_preamble own;
	*pch = preamble(a, f, abspath, buf, len, o, &own);
	*n_pre = pch_errors(a, *pch, pre);
	/* KeepGoing: a missing header is an error we report, not a silent stop */
	unsigned flags = CXTranslationUnit_KeepGoing;
	if (!*pch)
		return parse_with(a, abspath, buf, len, f, flags, o->keep_unit, rc);
	/* a preamble saved past a header not found holds its errors (make_pch) */
	const char *include[] = {"-include-pch", *pch, "-Xclang", "-fallow-pch-with-compiler-errors"};
	struct cflags with = plus(a, f, include, *n_pre ? 4 : 2);
	const char *text = buf;
	if (own.n) {            /* the lines the preamble stands for are blanked, keeping positions */
		char *t = arena_alloc(a, len + 1);
		memcpy(t, buf, len);
		for (size_t k = 0; k < own.n; k++)
			for (size_t i = own.lines[k].at; !own.off[k] && i < own.lines[k].at + own.lines[k].len; i++)
				if (t[i] != '\n')
					t[i] = ' ';
		text = t;
	}
	CXTranslationUnit tu = parse_with(a, abspath, text, len, &with, flags, o->keep_unit, rc);
	if (tu)
		return tu;
	unlink(*pch);           /* libclang refuses one older than a header it holds: parse without */
	*pch = NULL;
	*n_pre = 0;
	return parse_with(a, abspath, buf, len, f, flags, o->keep_unit, rc);
}

void fe_clang_tu_included(struct arena *a, CXTranslationUnit tu, const char *pch, struct sir_tu *t)
{
	included(a, tu, t);
	if (pch)
		pch_inclusions(a, pch, t);
}

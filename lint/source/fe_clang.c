/* SPDX-License-Identifier: MIT */
/* fe_clang: a translation unit set up and parsed through libclang; fe_clang_walk.c turns it into sir. */
#define _GNU_SOURCE     /* memmem, realpath */
#include "source/fe_clang.h"

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/jobs.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "source/cflags.h"
#include "source/fe_clang_lib.h"
#include "source/fe_clang_err.h"
#include "source/fe_clang_tk.h"
#include "source/fe_clang_tu.h"
#include "source/fe_clang_walk.h"
#include "source/sir.h"

bool fe_clang_is_source(const char *path)
{
	static const char *const ext[] = {".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh", ".h", ".hpp"};
	for (size_t k = 0; k < sizeof(ext) / sizeof(ext[0]); k++)
		if (fe_clang_walk_has_suffix(path, ext[k]))
			return true;
	return false;
}

/* ---- flags ------------------------------------------------------------------------------ */

enum lang { LANG_C, LANG_CXX, LANG_CUDA };

static bool lang_header(const char *path)
{
	return fe_clang_walk_has_suffix(path, ".h") || fe_clang_walk_has_suffix(path, ".hpp") ||
	       fe_clang_walk_has_suffix(path, ".cuh");
}

static bool has_text(const char *buf, size_t len, const char *s)
{
	return memmem(buf, len, s, strlen(s)) != NULL;
}

/* The language of the sources beside a header, when no compile database names one: a folder
 * with a .cu file is CUDA, one with C files and no C++ is C. Reads at most 4096 entries. */
static enum lang lang_of_neighbours(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = mem_strdup(slash ? path : ".");
	if (slash)
		dir[slash - path + 1] = 0;
	DIR *d = opendir(dir);
	free(dir);
	bool c = false, cxx = false;
	struct dirent *e;
	for (unsigned k = 0; d && k < 4096 && (e = readdir(d)); k++) {
		const char *n = e->d_name;
		if (fe_clang_walk_has_suffix(n, ".cu") || fe_clang_walk_has_suffix(n, ".cuh")) {
			closedir(d);
			return LANG_CUDA;
		}
		c |= fe_clang_walk_has_suffix(n, ".c");
		cxx |= fe_clang_walk_has_suffix(n, ".cpp") || fe_clang_walk_has_suffix(n, ".cc") ||
		       fe_clang_walk_has_suffix(n, ".cxx");
	}
	if (d)
		closedir(d);
	return c && !cxx ? LANG_C : LANG_CXX;
}

static enum lang lang_of(const char *path, const char *buf, size_t len)
{
	if (fe_clang_walk_has_suffix(path, ".cu") || fe_clang_walk_has_suffix(path, ".cuh"))
		return LANG_CUDA;
	if (fe_clang_walk_has_suffix(path, ".c"))
		return LANG_C;
	/* A file holding a launch or a CUDA execution space can only be CUDA. */
	static const char *const cuda[] = {"<<<", "__global__", "__device__", "__shared__", "__constant__"};
	for (size_t k = 0; k < sizeof(cuda) / sizeof(cuda[0]); k++)
		if (has_text(buf, len, cuda[k]))
			return LANG_CUDA;
	return LANG_CXX;
}

/* Whether a -std= value is one of the language's: C++ standards for C++ and CUDA, C's for C. */
static bool std_fits(enum lang l, const char *std)
{
	bool cxx = strstr(std, "++") != NULL || !strncmp(std, "cuda", 4);
	return cxx == (l != LANG_C);
}

/* compile_commands.json: -p's folder, else the closest one upward from the file (as
 * clang-tidy looks), also trying build/ at each level (as clangd does). */
static char *find_cdb_dir(const char *path)
{
	char dir[PATH_MAX];
	if (!realpath(path, dir))
		return NULL;
	for (char *slash; (slash = strrchr(dir, '/'));) {
		*slash = 0;
		const char *base = slash == dir ? "/" : dir;
		static const char *const sub[] = {"", "/build"};
		for (size_t k = 0; k < 2; k++) {
			char cand[PATH_MAX + 32];
			struct stat st;
			snprintf(cand, sizeof(cand), "%s%s/compile_commands.json", slash == dir ? "" : base, sub[k]);
			if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
				cand[strlen(cand) - strlen("/compile_commands.json")] = 0;
				return mem_strdup(*cand ? cand : "/");
			}
		}
	}
	return NULL;
}

/* Compile databases by folder, each read once per run; lookups share it across threads. */
struct fe_clang_cdbs {
	pthread_mutex_t lock;
	struct strmap by_dir;           /* folder -> index in dbs */
	char **dirs;
	CXCompilationDatabase *dbs;     /* NULL where the folder's database would not load */
	size_t n, cap;
};

struct fe_clang_cdbs *fe_clang_cdbs_new(void)
{
	struct fe_clang_cdbs *c = mem_alloc(sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

void fe_clang_cdbs_free(struct fe_clang_cdbs *c)
{
	if (!c)
		return;
	for (size_t k = 0; k < c->n; k++) {
		if (c->dbs[k])
			fe_clang_lib.CompilationDatabase_dispose(c->dbs[k]);
		free(c->dirs[k]);
	}
	free(c->dirs);
	free(c->dbs);
	strmap_release(&c->by_dir);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* Called with the lock held. Takes 'dir'. */
static CXCompilationDatabase cdb_open(struct fe_clang_cdbs *c, char *dir)
{
	size_t k;
	if (strmap_get(&c->by_dir, dir, strlen(dir), &k)) {
		free(dir);
		return c->dbs[k];
	}
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 8;
		c->dirs = mem_realloc(c->dirs, c->cap * sizeof(*c->dirs));
		c->dbs = mem_realloc(c->dbs, c->cap * sizeof(*c->dbs));
	}
	CXCompilationDatabase_Error err = CXCompilationDatabase_NoError;
	CXCompilationDatabase db = NULL;
	if (!fe_clang_lib_load())       /* without libclang no database is read; parsing says why */
		db = fe_clang_lib.CompilationDatabase_fromDirectory(dir, &err);
	if (err != CXCompilationDatabase_NoError && db) {
		fe_clang_lib.CompilationDatabase_dispose(db);
		db = NULL;
	}
	c->dirs[c->n] = dir;
	c->dbs[c->n] = db;
	strmap_put(&c->by_dir, dir, strlen(dir), c->n++);
	return db;
}

/* How many leading path components two paths share. */
static size_t shared_dirs(const char *x, const char *y)
{
	size_t n = 0;
	for (size_t i = 0; x[i] && x[i] == y[i]; i++)
		n += x[i] == '/';
	return n;
}

/* The command for a file the database does not name (a header): the one of the source
 * closest to it in the tree (same folder first), as clangd infers. NULL when there is none. */
static const char *command_file(struct arena *a, CXCompileCommand cmd)
{
	const char *f = fe_clang_lib_str(a, fe_clang_lib.CompileCommand_getFilename(cmd));
	if (f[0] != '/')
		f = arena_printf(a, "%s/%s", fe_clang_lib_str(a, fe_clang_lib.CompileCommand_getDirectory(cmd)), f);
	return f;
}

static CXCompileCommand neighbour(CXCompileCommands all, const char *abs, struct arena *a, const char **file)
{
	CXCompileCommand best = NULL;
	size_t best_n = 0;
	unsigned n = all ? fe_clang_lib.CompileCommands_getSize(all) : 0;
	for (unsigned k = 0; k < n; k++) {
		CXCompileCommand cmd = fe_clang_lib.CompileCommands_getCommand(all, k);
		const char *f = command_file(a, cmd);
		char real[PATH_MAX];
		if (realpath(f, real))
			f = arena_strdup(a, real);
		size_t m = shared_dirs(f, abs);
		if (m > best_n) {
			best = cmd;
			best_n = m;
			*file = f;
		}
	}
	return best_n > 1 ? best : NULL;
}

/* The flags the database in 'dir' gives 'path' (libclang's own reader of
 * compile_commands.json, the file as the database spells it), or for a header it does not
 * name, its nearest source's; *like is then that source. Takes 'dir'. */
static bool cdb_flags(struct arena *a, struct cflags *f, struct fe_clang_cdbs *c, char *dir, const char *path,
		      const char **like)
{
	char abs[PATH_MAX];
	bool found = false;
	const char *name = realpath(path, abs) ? abs : path;
	pthread_mutex_lock(&c->lock);
	CXCompilationDatabase db = cdb_open(c, dir);
	/* Not libclang's lookup: for a file the database does not name it infers a command that
	 * mangles nvcc's (a response file's name taken for the input). The file's own entry, else
	 * the nearest source's, as written. */
	CXCompileCommands all = db ? fe_clang_lib.CompilationDatabase_getAllCompileCommands(db) : NULL;
	CXCompileCommand cmd = NULL;
	unsigned n_all = all ? fe_clang_lib.CompileCommands_getSize(all) : 0;
	for (unsigned k = 0; k < n_all && !cmd; k++) {
		CXCompileCommand c1 = fe_clang_lib.CompileCommands_getCommand(all, k);
		const char *named = command_file(a, c1);
		char real[PATH_MAX];
		if (!strcmp(named, name) || (realpath(named, real) && !strcmp(real, name)))
			cmd = c1;
	}
	if (!cmd)
		cmd = neighbour(all, name, a, like);
	if (cmd) {
		unsigned n = fe_clang_lib.CompileCommand_getNumArgs(cmd);
		const char **argv = mem_alloc((n + 1) * sizeof(*argv));
		for (unsigned i = 0; i < n; i++)
			argv[i] = fe_clang_lib_str(a, fe_clang_lib.CompileCommand_getArg(cmd, i));
		cflags_from_command(a, f, argv, n, fe_clang_lib_str(a, fe_clang_lib.CompileCommand_getDirectory(cmd)));
		free(argv);
		found = true;
	}
	if (all)
		fe_clang_lib.CompileCommands_dispose(all);
	pthread_mutex_unlock(&c->lock);
	return found;
}

void fe_clang_worker(void)
{
	if (!fe_clang_lib_load())
		fe_clang_lib.toggleCrashRecovery(0);
}

void fe_clang_cdbs_prime(const struct fe_clang_opts *o, const char *path)
{
	char *dir = o->cdb_dir ? mem_strdup(o->cdb_dir) : find_cdb_dir(path);
	if (!dir)
		return;
	pthread_mutex_lock(&o->cdbs->lock);
	cdb_open(o->cdbs, dir);
	pthread_mutex_unlock(&o->cdbs->lock);
}

/* Whether arguments i, i+1 put a toolkit's include folder on the path. */
static bool toolkit_include(const struct cflags *db, size_t i)
{
	static const char *const inc[] = {"-I", "-isystem", "-idirafter", "-iquote"};
	for (size_t k = 0; k < sizeof(inc) / sizeof(inc[0]); k++)
		if (!strcmp(db->v[i], inc[k]))
			return i + 1 < db->n && fe_clang_tk_is_include(db->v[i + 1]);
	return false;
}

/* The arguments for 'path': against the toolkit *tk (NULL on entry: pick one), or, when none
 * is found or 'shim' is set, against the shim (then *tk is NULL). A toolkit's include folder
 * the database names goes with the real headers, never with the shim. */
static struct cflags build_args(struct arena *a, const char *path, const char *buf, size_t len,
				const struct fe_clang_opts *o, bool shim, const char **tk)
{
	char *dbdir = o->cdb_dir ? mem_strdup(o->cdb_dir) : find_cdb_dir(path);
	struct cflags db = {0};
	const char *like = NULL;        /* a header's nearest source, whose flags it takes */
	bool have_db = dbdir && cdb_flags(a, &db, o->cdbs, dbdir, path, &like);
	const char *db_tk = NULL;
	for (size_t i = 0; have_db && i < db.n && !db_tk; i++)
		if (toolkit_include(&db, i)) {
			char *r = fe_clang_tk_root_of(db.v[i + 1]);
			db_tk = arena_strdup(a, r);
			free(r);
		}
	*tk = shim ? NULL : fe_clang_tk_pick(o->cuda_path, db_tk);
	shim = !*tk;
	struct cflags f = {0};
	enum lang l = lang_of(path, buf, len);
	if (lang_header(path) && l == LANG_CXX)   /* a .h among .cu files is CUDA (a .c neighbour: C) */
		l = like ? lang_of(like, "", 0) : lang_of_neighbours(path);
	static const char *const lang_flags[][2] = {{"c", "-std=gnu11"}, {"c++", "-std=c++17"}, {"cuda", "-std=c++17"}};
	cflags_add(a, &f, "-x");
	cflags_add(a, &f, lang_flags[l][0]);
	cflags_add(a, &f, lang_flags[l][1]);
	cflags_add(a, &f, "-resource-dir");
	cflags_add(a, &f, CGLINT_CLANG_RESOURCE_DIR);
	cflags_add(a, &f, "-ferror-limit=0");  /* every error is sorted (fe_clang_err.h), not the first 20 */
	if (l == LANG_CUDA) {
		cflags_add(a, &f, "--cuda-host-only");
		cflags_add(a, &f, "-nocudalib");
		cflags_add(a, &f, "-Wno-unknown-cuda-version");
	}
	if (shim) {
		cflags_add(a, &f, "-isystem");
		cflags_add(a, &f, FE_CLANG_SHIM_DIR);
		if (l == LANG_CUDA) {
			/* as nvcc does: __host__ & co. exist before clang's own <cmath>/<new> wrappers */
			cflags_add(a, &f, "-nocudainc");
			cflags_add(a, &f, "--cuda-path=/nonexistent");
			cflags_add(a, &f, "-include");
			cflags_add(a, &f, "cuda_runtime.h");
		}
	} else {
		if (l == LANG_CUDA) {
			cflags_add(a, &f, arena_printf(a, "--cuda-path=%s", *tk));
			cflags_add(a, &f, "-isystem");
			cflags_add(a, &f, FE_CLANG_STUB_DIR);
		} else {
			cflags_add(a, &f, "-isystem");
			cflags_add(a, &f, arena_printf(a, "%s/include", *tk));
		}
		cflags_add(a, &f, "-isystem");
		cflags_add(a, &f, arena_printf(a, "%s/include/cccl", *tk));
		/* NCCL and PyTorch headers the toolkit lacks still resolve, to the shim. */
		cflags_add(a, &f, "-idirafter");
		cflags_add(a, &f, FE_CLANG_SHIM_DIR);
	}
	if (have_db) {
		for (size_t i = 0; i < db.n; i++) {
			if (shim && toolkit_include(&db, i)) {
				i++;    /* the shim stands in for the toolkit's headers: never both */
				continue;
			}
			if (!strncmp(db.v[i], "-std=", 5) && !std_fits(l, db.v[i] + 5))
				continue;       /* a neighbour's command, for another language */
			cflags_add(a, &f, db.v[i]);
		}
		f.per_thread_stream = db.per_thread_stream;
		f.drop = db.drop;
		f.n_drop = db.n_drop;
	}
	return f;
}

const char **fe_clang_args(struct arena *a, const char *path, const char *buf, size_t len,
			   const struct fe_clang_opts *o, bool *shim, const char ***dropped)
{
	const char *tk;
	struct cflags f = build_args(a, path, buf, len, o, false, &tk);
	*shim = !tk;
	static const char *none[] = {NULL};
	*dropped = f.drop ? f.drop : none;
	return f.v;
}

void fe_clang_preload(void)
{
	if (!fe_clang_lib_load())       /* a failure is reported by the parse that needs it */
		fe_clang_tu_index();
}

const char *fe_clang_version(struct arena *a)
{
	if (fe_clang_lib_load())
		return "libclang (not loaded)";
	CXString s = fe_clang_lib.getClangVersion();
	const char *v = arena_strdup(a, fe_clang_lib.getCString(s));
	fe_clang_lib.disposeString(s);
	return v;
}

size_t fe_clang_preamble_keys(struct arena *a, const char *path, const char *buf, size_t len,
			      const struct fe_clang_opts *o, uint64_t *keys, size_t max)
{
	char absbuf[PATH_MAX];
	if (!realpath(path, absbuf))
		return 0;
	const char *tk;
	struct cflags f = build_args(a, path, buf, len, o, false, &tk);
	return fe_clang_tu_preamble_keys(a, absbuf, buf, len, &f, keys, max);
}

/* The repository that holds 'abspath' (the nearest folder above it with a .git), else its folder. */
static const char *repo_of(struct arena *a, const char *abspath)
{
	char *dir = arena_strdup(a, abspath);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	char *here = arena_strdup(a, dir);
	for (;;) {
		struct stat st;
		if (lstat(arena_printf(a, "%s/.git", dir), &st) == 0)
			return dir;
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return here;
		*slash = '\0';
	}
}

/* Leave out the functions with an error other than a missing declaration in their bodies
 * (they are kept, empty, for the calls into them); their names go to 'out'. Returns how many
 * such errors are in the main file outside every function: clang recovered from them, and the
 * functions whose bodies parsed are analysed. */
static unsigned leave_out(struct sir_tu *t, const struct fe_clang_err *e, struct sbuf *out)
{
	bool *main = mem_alloc(t->n_fns + 1);
	for (size_t f = 0; f < t->n_fns; f++)
		main[f] = t->fns[f].in_main;
	unsigned outside = 0;
	for (size_t k = 0; k < e->n_other; k++) {
		size_t f = 0;
		while (f < t->n_fns && !(main[f] && t->fns[f].begin <= e->other_off[k] && e->other_off[k] < t->fns[f].end))
			f++;
		if (f == t->n_fns) {
			outside++;
		} else if (t->fns[f].in_main) {
			t->fns[f].in_main = false;
			t->fns[f].n_ev = 0;
			t->fns[f].left_out = "its body did not parse";
			sbuf_printf(out, "%s%s", out->len ? ", " : "", t->fns[f].name);
		}
	}
	free(main);
	return outside;
}

int fe_clang_parse(struct arena *a, struct diag_list *d, const char *path, const char *buf, size_t len,
		   const struct fe_clang_opts *o, struct sir_tu **out)
{
	*out = NULL;
	const char *missing = fe_clang_lib_load();
	if (missing) {
		diag_input(d, "CG918", (struct loc){path, 1, 1}, "not analysed: %s", missing);
		return -1;
	}
	char absbuf[PATH_MAX];
	const char *abspath = path[0] == '/' ? path : realpath(path, absbuf) ? arena_strdup(a, absbuf)
				: arena_printf(a, "/cglint-stdin/%s", path);
	bool shim = false;
	const char *real_tk = NULL;
	struct fe_clang_err real = {0};         /* the toolkit parse's errors, when the shim was tried after */
	bool whole = false;     /* this attempt parses the whole file, no preamble */
	for (;;) {
		const char *tk;
		struct cflags f = build_args(a, path, buf, len, o, shim, &tk);
		int rc;
		const char *pch;
		struct fe_clang_err_item *pre;
		size_t n_pre;
		struct fe_clang_opts no_pch = *o;
		no_pch.pch_dir = NULL;
		CXTranslationUnit tu = fe_clang_tu_parse(a, abspath, buf, len, &f, whole ? &no_pch : o, &rc, &pch, &pre, &n_pre);
		if (!tu) {
			/* libclang turns an allocation the limit refused into a crash it recovers from */
			unsigned peak = o->mem_mib ? jobs_peak_mib() : 0;
			if (rc == CXError_Crashed && peak)
				diag_input(d, "CG920", (struct loc){path, 1, 1},
					   "analysis stopped: libclang crashed at %u MiB of its %u MiB memory limit (--source-memory)%s",
					   peak, o->mem_mib, 2 * peak >= o->mem_mib ? ", most likely out of memory" : "");
			else
				diag_input(d, "CG911", (struct loc){path, 0, 0}, "libclang could not parse the file%s",
					   rc == CXError_Crashed ? " (it crashed)" : "");
			return -1;
		}
		struct fe_clang_err e;
		const char *quotable[] = {repo_of(a, abspath), tk ? tk : FE_CLANG_SHIM_DIR, FE_CLANG_SHIM_DIR, FE_CLANG_STUB_DIR,
					 CGLINT_CLANG_RESOURCE_DIR, "/usr/include", "/usr/lib", NULL};
		fe_clang_err_read(a, tu, path, quotable, pre, n_pre, &e);
		if (n_pre && (e.other_elsewhere || e.n_other)) {
			/* a preamble kept past a header not found holds those errors, and clang counts
			 * errors of another kind after it otherwise than without it: parsed whole, so
			 * that the words are a parse's without the cache */
			fe_clang_tu_release(tu);
			whole = true;
			continue;
		}
		if (tk && e.other_elsewhere) {  /* the toolkit's headers (or a project's) did not parse */
			fe_clang_tu_release(tu);
			real = e;
			real_tk = tk;
			shim = true;
			whole = false;
			continue;
		}
		struct sir_tu *t = fe_clang_walk_tu(a, tu, path, abspath, buf, len, f.per_thread_stream);
		if (!e.other_elsewhere) {
			fe_clang_tu_included(a, tu, pch, t);
		}
		fe_clang_tu_release(tu);
		struct sbuf left;
		sbuf_init(&left);
		unsigned outside = leave_out(t, &e, &left);
		size_t analysed = 0;
		for (size_t k = 0; k < t->n_fns; k++)
			analysed += t->fns[k].in_main;
		const char *more = e.count > 1 ? arena_printf(a, " (and %u more errors)", e.count - 1) : "";
		if (e.count && !analysed && (e.n_other || e.other_elsewhere)) {
			sbuf_release(&left);
			if (real_tk)    /* the first real error, then what the shim made of it */
				diag_input(d, "CG911", real.where, "not analysed: %s (against the CUDA headers in %s); with cglint's shim: %s%s",
					   real.first, real_tk, e.first, more);
			else
				diag_input(d, "CG911", e.where, "not analysed: %s%s", e.first, more);
			return -1;
		}
		/* no count of the toolkit parse's errors: those its headers' preamble held are counted
		 * or not as the cache was cold, warm or off, and the words must not change with it */
		if (real_tk)
			diag_input(d, "CG912", real.where, "not analysed against the CUDA headers in %s: %s%s; analysed against cglint's shim instead",
				   real_tk, real.other_first ? real.other_first : real.first,
				   real.count > 1 ? " (and more errors)" : "");
		if (e.count) {
			struct sbuf m;
			sbuf_init(&m);
			if (e.missing)
				sbuf_printf(&m, "missing %s (calls to them are unknown to the checks)", e.missing);
			if (left.len)
				sbuf_printf(&m, "%sleft out %s (errors in their bodies)", m.len ? "; " : "", left.buf);
			if (outside)
				sbuf_printf(&m, "%s%u error%s outside its functions", m.len ? "; " : "", outside,
					    outside > 1 ? "s" : "");
			if (!m.len)
				sbuf_adds(&m, "errors in included files");
			diag_input(d, "CG919", e.where, "analysed in part: %s; first error: %s%s", m.buf, e.first, more);
			sbuf_release(&m);
		}
		sbuf_release(&left);
		*out = t;
		return 0;
	}
}

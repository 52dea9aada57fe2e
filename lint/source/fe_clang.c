/* SPDX-License-Identifier: MIT */
/* fe_clang: a translation unit set up and parsed through libclang; fe_clang_walk.c turns it into sir. */
#define _XOPEN_SOURCE 700   /* realpath */
#include "source/fe_clang.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/diag.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "source/cflags.h"
#include "source/fe_clang_lib.h"
#include "source/fe_clang_walk.h"

struct shim_source {
	const char *path, *text;
	size_t len;
};
extern const struct shim_source shim_sources[];
extern const size_t shim_n_sources;

#define STUB_DIR "/cglint-stub"  /* CUDA 13 dropped a header clang's CUDA wrapper includes */

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

static enum lang lang_of(const char *path, const char *buf, size_t len)
{
	if (fe_clang_walk_has_suffix(path, ".cu") || fe_clang_walk_has_suffix(path, ".cuh"))
		return LANG_CUDA;
	if (fe_clang_walk_has_suffix(path, ".c"))
		return LANG_C;
	/* A header or C++ file holding a launch can only be CUDA. */
	for (size_t i = 0; i + 2 < len; i++)
		if (buf[i] == '<' && buf[i + 1] == '<' && buf[i + 2] == '<')
			return LANG_CUDA;
	return LANG_CXX;
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

/* The flags the database in 'dir' gives 'path' (libclang's own reader of
 * compile_commands.json, the file as the database spells it). Takes 'dir'. */
static bool cdb_flags(struct arena *a, struct cflags *f, struct fe_clang_cdbs *c, char *dir, const char *path)
{
	char abs[PATH_MAX];
	bool found = false;
	pthread_mutex_lock(&c->lock);
	CXCompilationDatabase db = cdb_open(c, dir);
	CXCompileCommands cmds = db ? fe_clang_lib.CompilationDatabase_getCompileCommands(db, realpath(path, abs) ? abs : path) : NULL;
	if (cmds && fe_clang_lib.CompileCommands_getSize(cmds) > 0) {
		CXCompileCommand cmd = fe_clang_lib.CompileCommands_getCommand(cmds, 0);
		unsigned n = fe_clang_lib.CompileCommand_getNumArgs(cmd);
		const char **argv = mem_alloc((n + 1) * sizeof(*argv));
		for (unsigned i = 0; i < n; i++)
			argv[i] = fe_clang_walk_cxstr(a, fe_clang_lib.CompileCommand_getArg(cmd, i));
		cflags_from_command(a, f, argv, n, fe_clang_walk_cxstr(a, fe_clang_lib.CompileCommand_getDirectory(cmd)));
		free(argv);
		found = true;
	}
	if (cmds)
		fe_clang_lib.CompileCommands_dispose(cmds);
	pthread_mutex_unlock(&c->lock);
	return found;
}

static struct cflags build_args(struct arena *a, const char *path, const char *buf, size_t len,
				const struct fe_clang_opts *o, bool shim)
{
	struct cflags f = {0};
	enum lang l = lang_of(path, buf, len);
	static const char *const lang_flags[][2] = {{"c", "-std=gnu11"}, {"c++", "-std=c++17"}, {"cuda", "-std=c++17"}};
	cflags_add(a, &f, "-x");
	cflags_add(a, &f, lang_flags[l][0]);
	cflags_add(a, &f, lang_flags[l][1]);
	cflags_add(a, &f, "-resource-dir");
	cflags_add(a, &f, CGLINT_CLANG_RESOURCE_DIR);
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
			cflags_add(a, &f, arena_printf(a, "--cuda-path=%s", o->cuda_path));
			cflags_add(a, &f, "-isystem");
			cflags_add(a, &f, STUB_DIR);
		} else {
			cflags_add(a, &f, "-isystem");
			cflags_add(a, &f, arena_printf(a, "%s/include", o->cuda_path));
		}
		cflags_add(a, &f, "-isystem");
		cflags_add(a, &f, arena_printf(a, "%s/include/cccl", o->cuda_path));
		/* NCCL and PyTorch headers the toolkit lacks still resolve, to the shim. */
		cflags_add(a, &f, "-idirafter");
		cflags_add(a, &f, FE_CLANG_SHIM_DIR);
	}
	char *dbdir = o->cdb_dir ? mem_strdup(o->cdb_dir) : find_cdb_dir(path);
	struct cflags db = {0};
	if (dbdir && cdb_flags(a, &db, o->cdbs, dbdir, path)) {
		for (size_t i = 0; i < db.n; i++)
			cflags_add(a, &f, db.v[i]);
		f.per_thread_stream = db.per_thread_stream;
	}
	return f;
}

const char **fe_clang_args(struct arena *a, const char *path, const char *buf, size_t len,
			   const struct fe_clang_opts *o, bool *shim)
{
	*shim = !o->cuda_path;
	return build_args(a, path, buf, len, o, *shim).v;
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

/* ---- parsing ------------------------------------------------------------------------------ */

/* The shim (and the CUDA 13 stub) as files in memory under their virtual folders, plus the
 * file itself, read once by the caller. */
static struct CXUnsavedFile *unsaved_files(struct arena *a, const char *abspath, const char *buf, size_t len,
					   unsigned *n)
{
	struct CXUnsavedFile *u = arena_alloc(a, (shim_n_sources + 2) * sizeof(*u));
	for (size_t i = 0; i < shim_n_sources; i++)
		u[i] = (struct CXUnsavedFile){arena_printf(a, "%s/%s", FE_CLANG_SHIM_DIR, shim_sources[i].path),
					      shim_sources[i].text, shim_sources[i].len};
	u[shim_n_sources] = (struct CXUnsavedFile){STUB_DIR "/texture_fetch_functions.h", "", 0};
	u[shim_n_sources + 1] = (struct CXUnsavedFile){abspath, buf, len};
	*n = (unsigned)shim_n_sources + 2;
	return u;
}

/* The first error, or NULL: where and what, for CG911/CG912. */
static const char *first_error(struct arena *a, CXTranslationUnit tu, const char *main_path, struct loc *where,
			       unsigned *count)
{
	const char *msg = NULL;
	*count = 0;
	unsigned n = fe_clang_lib.getNumDiagnostics(tu);
	for (unsigned i = 0; i < n; i++) {
		CXDiagnostic d = fe_clang_lib.getDiagnostic(tu, i);
		if (fe_clang_lib.getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
			if (!msg) {
				CXSourceLocation l = fe_clang_lib.getDiagnosticLocation(d);
				CXFile file;
				unsigned line, col;
				fe_clang_lib.getFileLocation(l, &file, &line, &col, NULL);
				*where = (struct loc){main_path, line, col};
				if (file && !fe_clang_lib.Location_isFromMainFile(l)) {
					const char *fn = fe_clang_walk_cxstr(a, fe_clang_lib.getFileName(file));
					msg = arena_printf(a, "%s:%u:%u: %s", fn, line, col,
							   fe_clang_walk_cxstr(a, fe_clang_lib.getDiagnosticSpelling(d)));
					*where = (struct loc){main_path, 0, 0};
				} else {
					msg = fe_clang_walk_cxstr(a, fe_clang_lib.getDiagnosticSpelling(d));
				}
			}
			(*count)++;
		}
		fe_clang_lib.disposeDiagnostic(d);
	}
	return msg;
}

static CXTranslationUnit parse(struct arena *a, const char *abspath, const char *buf, size_t len,
			       const struct cflags *f)
{
	unsigned nu;
	struct CXUnsavedFile *u = unsaved_files(a, abspath, buf, len, &nu);
	CXIndex ix = fe_clang_lib.createIndex(0, 0);
	CXTranslationUnit tu = NULL;
	/* KeepGoing: a missing header is an error we report, not a silent stop */
	enum CXErrorCode rc = fe_clang_lib.parseTranslationUnit2(ix, abspath, f->v, (int)f->n, u, nu,
							  CXTranslationUnit_KeepGoing,
							  &tu);
	fe_clang_lib.disposeIndex(ix);     /* the TU keeps what it needs */
	return rc == CXError_Success ? tu : NULL;
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
	bool shim = !o->cuda_path;
	for (;;) {
		struct cflags f = build_args(a, path, buf, len, o, shim);
		CXTranslationUnit tu = parse(a, abspath, buf, len, &f);
		if (!tu) {
			diag_input(d, "CG911", (struct loc){path, 0, 0}, "libclang could not parse the file");
			return -1;
		}
		struct loc where;
		unsigned errors;
		const char *msg = first_error(a, tu, path, &where, &errors);
		if (!msg) {
			*out = fe_clang_walk_tu(a, tu, path, abspath, buf, len, f.per_thread_stream);
			fe_clang_lib.disposeTranslationUnit(tu);
			return 0;
		}
		fe_clang_lib.disposeTranslationUnit(tu);
		const char *more = errors > 1 ? arena_printf(a, " (and %u more errors)", errors - 1) : "";
		if (shim || where.line) {       /* an error in the file itself: the shim would not help */
			diag_input(d, "CG911", where, "not analysed: %s%s", msg, more);
			return -1;
		}
		diag_input(d, "CG912", where, "not analysed against the CUDA headers in %s: %s%s; analysed against cglint's shim instead",
			   o->cuda_path, msg, more);
		shim = true;
	}
}

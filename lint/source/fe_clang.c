/* SPDX-License-Identifier: MIT */
/* fe_clang: libclang's AST into sir (see fe_clang.h and sir.h). */
#define _XOPEN_SOURCE 700   /* realpath */
#include "source/fe_clang.h"

#include <clang-c/CXCompilationDatabase.h>
#include <clang-c/Index.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "source/cflags.h"
#include "base/diag.h"
#include "base/mem.h"
#include "source/sir.h"
#include "base/strmap.h"

struct shim_source {
	const char *path, *text;
	size_t len;
};
extern const struct shim_source shim_sources[];
extern const size_t shim_n_sources;

#define MAX_DEPTH 400           /* AST nesting walked; clang itself stops at 256 brackets */
#define STUB_DIR "/cglint-stub"  /* CUDA 13 dropped a header clang's CUDA wrapper includes */

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n > m && !strcmp(s + n - m, suf);
}

static const char *cxstr(struct arena *a, CXString s)
{
	const char *c = clang_getCString(s);
	const char *r = arena_strdup(a, c ? c : "");
	clang_disposeString(s);
	return r;
}

bool fe_clang_is_source(const char *path)
{
	static const char *const ext[] = {".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh", ".h", ".hpp"};
	for (size_t k = 0; k < sizeof(ext) / sizeof(ext[0]); k++)
		if (has_suffix(path, ext[k]))
			return true;
	return false;
}

/* ---- flags ------------------------------------------------------------------------------ */

enum lang { LANG_C, LANG_CXX, LANG_CUDA };

static enum lang lang_of(const char *path, const char *buf, size_t len)
{
	if (has_suffix(path, ".cu") || has_suffix(path, ".cuh"))
		return LANG_CUDA;
	if (has_suffix(path, ".c"))
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
			clang_CompilationDatabase_dispose(c->dbs[k]);
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
	CXCompilationDatabase_Error err;
	CXCompilationDatabase db = clang_CompilationDatabase_fromDirectory(dir, &err);
	if (err != CXCompilationDatabase_NoError && db) {
		clang_CompilationDatabase_dispose(db);
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
	CXCompileCommands cmds = db ? clang_CompilationDatabase_getCompileCommands(db, realpath(path, abs) ? abs : path) : NULL;
	if (cmds && clang_CompileCommands_getSize(cmds) > 0) {
		CXCompileCommand cmd = clang_CompileCommands_getCommand(cmds, 0);
		unsigned n = clang_CompileCommand_getNumArgs(cmd);
		const char **argv = mem_alloc((n + 1) * sizeof(*argv));
		for (unsigned i = 0; i < n; i++)
			argv[i] = cxstr(a, clang_CompileCommand_getArg(cmd, i));
		cflags_from_command(a, f, argv, n, cxstr(a, clang_CompileCommand_getDirectory(cmd)));
		free(argv);
		found = true;
	}
	if (cmds)
		clang_CompileCommands_dispose(cmds);
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
	CXString s = clang_getClangVersion();
	const char *v = arena_strdup(a, clang_getCString(s));
	clang_disposeString(s);
	return v;
}

/* ---- the walk ----------------------------------------------------------------------------- */

/* Room for one more element in an array that lives in the arena (it moves when it grows). */
static void *grow(struct arena *a, void *arr, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 32;
	void *bigger = arena_alloc(a, *cap * size);
	if (n)
		memcpy(bigger, arr, n * size);
	return bigger;
}

struct evbuf {
	struct sir_ev *v;
	size_t n, cap;
};

struct walker {
	struct arena *a;
	CXTranslationUnit tu;
	struct sir_tu *out;
	size_t cap_fns, cap_decls, cap_loops;
	struct strmap decls, fns;
	const char **callee_usr;        /* per event of the function being walked */
	size_t cap_usr;
	const char ***fn_callees;       /* per function: its events' callee USRs */
	struct evbuf ev;
	int fn;                         /* function being walked */
	const char *main_path;
	CXFile main_file;
	const char *buf;                /* the main file's text */
	size_t len;
};

struct ctx {
	unsigned stmt_begin, stmt_end, blk_begin, blk_end;
	int loop, breakable;
	unsigned cond, depth;
	bool discard, loop_control;
};

static unsigned offset_of(CXSourceLocation l)
{
	unsigned off;
	clang_getFileLocation(l, NULL, NULL, NULL, &off);
	return off;
}

static struct loc loc_of(struct walker *w, CXSourceLocation l)
{
	CXFile file;
	unsigned line, col;
	clang_getFileLocation(l, &file, &line, &col, NULL);
	struct loc r = {w->main_path, line, col};
	if (file && !clang_File_isEqual(file, w->main_file))
		r.path = cxstr(w->a, clang_getFileName(file));
	return r;
}

static void extent_of(CXCursor c, unsigned *b, unsigned *e)
{
	CXSourceRange r = clang_getCursorExtent(c);
	*b = offset_of(clang_getRangeStart(r));
	*e = offset_of(clang_getRangeEnd(r));
}

/* Runtime and driver names come in variants (_ptds/_ptsz per-thread, _v2/_v3 revisions). */
static const char *strip_variant(struct arena *a, const char *name)
{
	static const char *const suffixes[] = {"_ptds", "_ptsz", "_v2", "_v3"};
	const char *last = strrchr(name, ':');
	last = last ? last + 1 : name;
	if (strncmp(last, "cu", 2) && strncmp(last, "nccl", 4))
		return name;
	/* in any order: cuStreamBeginCapture_v2_ptsz */
	for (size_t k = 0; k < 4; k++)
		if (has_suffix(name, suffixes[k]))
			return strip_variant(a, arena_strndup(a, name, strlen(name) - strlen(suffixes[k])));
	return name;
}

/* "c10::cuda::getCurrentCUDAStream": namespaces (inline and anonymous ones skipped), classes,
 * the name. */
static const char *qualified(struct arena *a, CXCursor c)
{
	const char *parts[16];
	size_t n = 0;
	for (CXCursor p = c; n < 16 && !clang_Cursor_isNull(p); p = clang_getCursorSemanticParent(p)) {
		enum CXCursorKind k = clang_getCursorKind(p);
		if (k == CXCursor_TranslationUnit || clang_isInvalid(k))
			break;
		if (k == CXCursor_LinkageSpec || (k == CXCursor_Namespace && clang_Cursor_isInlineNamespace(p)))
			continue;
		CXString s = clang_getCursorSpelling(p);
		const char *sp = clang_getCString(s);
		if (sp && *sp)
			parts[n++] = arena_strdup(a, sp);
		clang_disposeString(s);
	}
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t i = n; i-- > 0;) {
		sbuf_adds(&sb, parts[i]);
		if (i)
			sbuf_adds(&sb, "::");
	}
	const char *r = strip_variant(a, arena_strdup(a, sb.buf));
	sbuf_release(&sb);
	return r;
}

static int decl_index(struct walker *w, CXCursor d)
{
	CXString usr = clang_getCursorUSR(d);
	const char *u = clang_getCString(usr);
	if (!u || !*u) {
		clang_disposeString(usr);
		return -1;
	}
	size_t known;
	if (strmap_get(&w->decls, u, strlen(u), &known)) {
		clang_disposeString(usr);
		return (int)known;
	}
	struct sir_tu *t = w->out;
	strmap_put(&w->decls, arena_strdup(w->a, u), strlen(u), t->n_decls);
	clang_disposeString(usr);
	t->decls = grow(w->a, t->decls, t->n_decls, &w->cap_decls, sizeof(*t->decls));
	struct sir_decl *x = &t->decls[t->n_decls];
	enum CXCursorKind k = clang_getCursorKind(d);
	CXType ty = clang_getCursorType(d);
	CXType canon = clang_getCanonicalType(ty);
	*x = (struct sir_decl){
		.name = cxstr(w->a, clang_getCursorSpelling(d)),
		.type = cxstr(w->a, clang_getTypeSpelling(ty)),
		.kind = k == CXCursor_ParmDecl ? DECL_PARAM : k == CXCursor_FieldDecl ? DECL_FIELD : DECL_GLOBAL,
		.fn = -1,
		.param = -1,
		.off = offset_of(clang_getCursorLocation(d)),
		.loc = loc_of(w, clang_getCursorLocation(d)),
		.in_main = clang_Location_isFromMainFile(clang_getCursorLocation(d)) != 0,
		.scalar = !clang_isConstQualifiedType(canon) &&
			  (canon.kind == CXType_Pointer || canon.kind == CXType_Enum ||
			   (canon.kind >= CXType_FirstBuiltin && canon.kind <= CXType_LastBuiltin)),
	};
	if (k == CXCursor_VarDecl && clang_Cursor_hasVarDeclGlobalStorage(d) != 1)
		x->kind = DECL_LOCAL;
	if (x->kind == DECL_LOCAL || x->kind == DECL_PARAM) {
		x->fn = w->fn;
		if (x->kind == DECL_PARAM) {
			CXCursor parent = clang_getCursorSemanticParent(d);
			int nargs = clang_Cursor_getNumArguments(parent);
			for (int i = 0; i < nargs; i++)
				if (clang_equalCursors(clang_Cursor_getArgument(parent, (unsigned)i), d))
					x->param = i;
		}
	}
	return (int)t->n_decls++;
}

static bool is_var_decl(enum CXCursorKind k)
{
	return k == CXCursor_VarDecl || k == CXCursor_ParmDecl || k == CXCursor_FieldDecl;
}

struct kids {
	CXCursor v[8];          /* the first eight */
	CXCursor last;
	unsigned n;
};

static enum CXChildVisitResult collect(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct kids *k = data;
	if (k->n < 8)
		k->v[k->n] = c;
	k->last = c;
	k->n++;
	return CXChildVisit_Continue;
}

static struct kids kids_of(CXCursor c)
{
	struct kids k = {.n = 0};
	clang_visitChildren(c, collect, &k);
	return k;
}

static CXCursor first_child(CXCursor c)
{
	struct kids k = kids_of(c);
	return k.n ? k.v[0] : clang_getNullCursor();
}

/* Through the implicit wrappers clang puts around an expression (casts, temporaries, braces
 * around one initializer) to what was written. */
static CXCursor unwrap(CXCursor e)
{
	while ((clang_getCursorKind(e) == CXCursor_UnexposedExpr || clang_getCursorKind(e) == CXCursor_InitListExpr) &&
	       kids_of(e).n == 1)
		e = first_child(e);
	return e;
}

/* A call's callee expression, and for a member call the object it is called on. */
static CXCursor member_base(CXCursor call)
{
	CXCursor callee = unwrap(first_child(call));
	if (clang_getCursorKind(callee) != CXCursor_MemberRefExpr)
		return clang_getNullCursor();
	return first_child(callee);
}

/* An expression cglint cannot name (streams[i], ctx->get()) is still the same expression when
 * spelled the same way: keep its spelling, if it is short and written in the main file. */
static struct sir_ref with_text(struct walker *w, CXCursor e, struct sir_ref r)
{
	CXSourceRange ext = clang_getCursorExtent(e);
	CXFile fb, fe;
	unsigned b, end;
	clang_getFileLocation(clang_getRangeStart(ext), &fb, NULL, NULL, &b);
	clang_getFileLocation(clang_getRangeEnd(ext), &fe, NULL, NULL, &end);
	if (fb && fe && clang_File_isEqual(fb, w->main_file) && clang_File_isEqual(fe, w->main_file) && b < end &&
	    end <= w->len && end - b <= 80)
		r.text = arena_strndup(w->a, w->buf + b, end - b);
	return r;
}

static struct sir_ref ref_of(struct walker *w, CXCursor e, unsigned depth)
{
	struct sir_ref r = {.kind = REF_OTHER, .decl = -1};
	if (clang_Cursor_isNull(e) || depth > 16)
		return r;
	enum CXCursorKind k = clang_getCursorKind(e);
	CXSourceRange ext = clang_getCursorExtent(e);
	if (clang_Range_isNull(ext) || offset_of(clang_getRangeStart(ext)) == offset_of(clang_getRangeEnd(ext))) {
		if (k == CXCursor_UnexposedExpr && kids_of(e).n == 0) {
			r.kind = REF_NONE;      /* a default argument the call left out */
			r.decl = -1;
			return r;
		}
	}
	switch (k) {
	case CXCursor_IntegerLiteral: {
		CXEvalResult ev = clang_Cursor_Evaluate(e);
		if (ev && clang_EvalResult_getKind(ev) == CXEval_Int) {
			r.has_ival = true;
			r.ival = clang_EvalResult_getAsLongLong(ev);
		}
		if (ev)
			clang_EvalResult_dispose(ev);
		r.kind = r.has_ival && r.ival == 0 ? REF_NULL : REF_CONST;
		return r;
	}
	case CXCursor_CXXNullPtrLiteralExpr:
	case CXCursor_GNUNullExpr:
		r.kind = REF_NULL;
		return r;
	case CXCursor_StringLiteral:
		r.text = cxstr(w->a, clang_getCursorSpelling(e));
		return r;
	case CXCursor_DeclRefExpr:
	case CXCursor_MemberRefExpr: {
		CXCursor d = clang_getCursorReferenced(e);
		enum CXCursorKind dk = clang_getCursorKind(d);
		if (is_var_decl(dk)) {
			r.kind = REF_VAR;
			r.decl = decl_index(w, d);
			if (r.decl < 0)
				r.kind = REF_OTHER;
			else
				r.text = w->out->decls[r.decl].name;
		} else if (dk == CXCursor_EnumConstantDecl) {
			r.kind = REF_CONST;
			r.has_ival = true;
			r.ival = clang_getEnumConstantDeclValue(d);
			r.text = cxstr(w->a, clang_getCursorSpelling(d));
		}
		return r;
	}
	case CXCursor_UnaryOperator: {
		CXCursor op = first_child(e);
		if (clang_getCursorUnaryOperatorKind(e) == CXUnaryOperator_AddrOf) {
			r = ref_of(w, op, depth + 1);
			r.addr = true;
		}
		return r;
	}
	case CXCursor_CallExpr: {
		CXCursor d = clang_getCursorReferenced(e);
		enum CXCursorKind dk = clang_getCursorKind(d);
		if (dk == CXCursor_ConversionFunction || (dk == CXCursor_CXXMethod && !strcmp(cxstr(w->a, clang_getCursorSpelling(d)), "stream")))
			return ref_of(w, member_base(e), depth + 1);    /* CUDAStream -> cudaStream_t */
		if (dk == CXCursor_FunctionDecl || dk == CXCursor_CXXMethod) {
			const char *q = qualified(w->a, d);
			if (!strcmp(q, "c10::cuda::getCurrentCUDAStream") || !strcmp(q, "at::cuda::getCurrentCUDAStream"))
				r.kind = REF_CURRENT;
			else if (!strcmp(q, "c10::cuda::getDefaultCUDAStream") || !strcmp(q, "at::cuda::getDefaultCUDAStream"))
				r.kind = REF_DEFAULT;
			else if (!strcmp(q, "c10::cuda::getStreamFromPool") || !strcmp(q, "at::cuda::getStreamFromPool"))
				r.kind = REF_POOL;
			r.text = q;
		} else if (dk == CXCursor_Constructor && clang_Cursor_getNumArguments(e) >= 1) {
			/* a copy or conversion, CUDAStream(s), at::Device(at::kCPU): what it was made from */
			return ref_of(w, clang_Cursor_getArgument(e, 0), depth + 1);
		}
		return with_text(w, e, r);
	}
	case CXCursor_CStyleCastExpr:
	case CXCursor_CXXStaticCastExpr:
	case CXCursor_CXXReinterpretCastExpr:
	case CXCursor_CXXFunctionalCastExpr: {
		struct kids kk = kids_of(e);
		if (!kk.n)
			return r;
		r = ref_of(w, kk.last, depth + 1);
		/* (cudaStream_t)0x1 and 0x2 are how the headers spell the legacy and per-thread streams */
		if (r.kind == REF_CONST && r.has_ival && clang_getCanonicalType(clang_getCursorType(e)).kind == CXType_Pointer) {
			if (r.ival == 1) {
				r.kind = REF_LEGACY;
				r.text = "cudaStreamLegacy";
			} else if (r.ival == 2) {
				r.kind = REF_PER_THREAD;
				r.text = "cudaStreamPerThread";
			}
		}
		return r;
	}
	case CXCursor_ParenExpr:
	case CXCursor_UnexposedExpr: {
		struct kids kk = kids_of(e);
		if (kk.n == 1)
			return ref_of(w, kk.v[0], depth + 1);
		return r;
	}
	default:
		return with_text(w, e, r);
	}
}

static struct sir_ev *new_event(struct walker *w, enum sir_ev_kind kind, CXCursor c, const struct ctx *x)
{
	if (w->ev.n == w->ev.cap) {
		w->ev.cap = w->ev.cap ? w->ev.cap * 2 : 64;
		w->ev.v = mem_realloc(w->ev.v, w->ev.cap * sizeof(*w->ev.v));
		w->callee_usr = mem_realloc(w->callee_usr, w->ev.cap * sizeof(*w->callee_usr));
	}
	w->callee_usr[w->ev.n] = NULL;
	struct sir_ev *e = &w->ev.v[w->ev.n++];
	CXSourceLocation l = clang_getCursorLocation(c);
	*e = (struct sir_ev){
		.kind = kind, .loc = loc_of(w, l), .off = offset_of(l), .callee = -1,
		.object = {.kind = REF_NONE, .decl = -1}, .stream = {.kind = REF_NONE, .decl = -1},
		.target = {.kind = REF_NONE, .decl = -1},
		.stmt_begin = x->stmt_begin, .stmt_end = x->stmt_end, .blk_begin = x->blk_begin, .blk_end = x->blk_end,
		.loop = x->loop, .breakable = x->breakable, .cond = x->cond, .loop_control = x->loop_control,
	};
	/* Written through a macro: name it (CHECK_CUDA(...), a debug-sync macro). */
	CXFile sf, ef;
	unsigned soff, eoff;
	clang_getSpellingLocation(l, &sf, NULL, NULL, &soff);
	clang_getExpansionLocation(l, &ef, NULL, NULL, &eoff);
	if (sf != ef || soff != eoff) {
		CXToken *tok = clang_getToken(w->tu, clang_getLocationForOffset(w->tu, ef, eoff));
		if (tok) {
			if (clang_getTokenKind(*tok) == CXToken_Identifier)
				e->macro = cxstr(w->a, clang_getTokenSpelling(w->tu, *tok));
			clang_disposeTokens(w->tu, tok, 1);
		}
	}
	return e;
}

static void set_args(struct walker *w, struct sir_ev *e, CXCursor call)
{
	int n = clang_Cursor_getNumArguments(call);
	if (n <= 0)
		return;
	e->args = arena_alloc(w->a, (size_t)n * sizeof(*e->args));
	e->n_args = (unsigned)n;
	for (int i = 0; i < n; i++)
		e->args[i] = ref_of(w, clang_Cursor_getArgument(call, (unsigned)i), 0);
}

static enum CXChildVisitResult find_global_attr(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_CUDAGlobalAttr) {
		*(bool *)data = true;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Continue;
}

static bool is_kernel(CXCursor fn)
{
	bool found = false;
	clang_visitChildren(fn, find_global_attr, &found);
	return found;
}

static enum CXChildVisitResult find_config(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_CallExpr) {
		CXString s = clang_getCursorSpelling(c);
		const char *sp = clang_getCString(s);
		bool cfg = sp && (!strcmp(sp, "cudaConfigureCall") || !strcmp(sp, "__cudaPushCallConfiguration"));
		clang_disposeString(s);
		if (cfg) {
			*(CXCursor *)data = c;
			return CXChildVisit_Break;
		}
	}
	return CXChildVisit_Continue;
}

static void walk(struct walker *w, CXCursor c, struct ctx x);

struct visit {
	struct walker *w;
	struct ctx x;
	enum CXCursorKind parent;
};

static enum CXChildVisitResult visit_child(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct visit *v = data;
	struct ctx x = v->x;
	if (v->parent == CXCursor_CompoundStmt) {
		extent_of(c, &x.stmt_begin, &x.stmt_end);
		x.discard = true;
	} else if (v->parent != CXCursor_UnexposedExpr && v->parent != CXCursor_ParenExpr) {
		x.discard = false;
	}
	walk(v->w, c, x);
	return CXChildVisit_Continue;
}

static void walk_children(struct walker *w, CXCursor c, struct ctx x)
{
	struct visit v = {w, x, clang_getCursorKind(c)};
	clang_visitChildren(c, visit_child, &v);
}

static int new_loop(struct walker *w, CXCursor c, int up)
{
	struct sir_tu *t = w->out;
	t->loops = grow(w->a, t->loops, t->n_loops, &w->cap_loops, sizeof(*t->loops));
	struct sir_loop *l = &t->loops[t->n_loops];
	extent_of(c, &l->begin, &l->end);
	l->up = up;
	return (int)t->n_loops++;
}

static void on_call(struct walker *w, CXCursor c, const struct ctx *x)
{
	CXCursor d = clang_getCursorReferenced(c);
	enum CXCursorKind dk = clang_getCursorKind(d);
	if (dk != CXCursor_FunctionDecl && dk != CXCursor_CXXMethod && dk != CXCursor_Constructor &&
	    dk != CXCursor_FunctionTemplate && dk != CXCursor_ConversionFunction)
		return;         /* through a function pointer: nothing to name */
	const char *name = qualified(w->a, d);
	if (!strcmp(name, "cudaConfigureCall") || !strcmp(name, "__cudaPushCallConfiguration"))
		return;         /* part of a launch, read there */
	bool launch = dk == CXCursor_FunctionDecl || dk == CXCursor_FunctionTemplate ? is_kernel(d) : false;
	struct sir_ev *e = new_event(w, launch ? EV_LAUNCH : EV_CALL, c, x);
	e->name = name;
	e->used = !x->discard;
	set_args(w, e, c);
	if (launch) {
		CXCursor cfg = clang_getNullCursor();
		clang_visitChildren(c, find_config, &cfg);
		if (!clang_Cursor_isNull(cfg) && clang_Cursor_getNumArguments(cfg) >= 4)
			e->stream = ref_of(w, clang_Cursor_getArgument(cfg, 3), 0);
		else
			e->stream.kind = REF_NONE;
		return;
	}
	if (dk == CXCursor_CXXMethod || dk == CXCursor_ConversionFunction)
		e->object = ref_of(w, member_base(c), 0);
	/* a function this TU defines, resolved once every function is known */
	CXCursor def = clang_getCursorDefinition(d);
	if (!clang_Cursor_isNull(def) && !clang_Location_isInSystemHeader(clang_getCursorLocation(def))) {
		CXString usr = clang_getCursorUSR(def);
		w->callee_usr[w->ev.n - 1] = arena_strdup(w->a, clang_getCString(usr));
		clang_disposeString(usr);
	}
}

static void on_write(struct walker *w, CXCursor c, CXCursor target, CXCursor value, bool counter,
		     const struct ctx *x)
{
	struct sir_ref t = ref_of(w, target, 0);
	if (t.kind != REF_VAR)
		return;
	struct sir_ev *e = new_event(w, EV_WRITE, c, x);
	e->target = t;
	e->counter = counter;
	if (!clang_Cursor_isNull(value)) {
		e->args = arena_alloc(w->a, sizeof(*e->args));
		e->args[0] = ref_of(w, value, 0);
		e->n_args = 1;
		e->from_call = clang_getCursorKind(unwrap(value)) == CXCursor_CallExpr;
	}
}

static void on_var_decl(struct walker *w, CXCursor c, const struct ctx *x)
{
	int idx = decl_index(w, c);
	if (idx < 0)
		return;
	struct kids k = kids_of(c);
	if (!k.n)
		return;
	CXCursor init = k.last;
	CXCursor core = unwrap(init);
	if (clang_getCursorKind(core) == CXCursor_CallExpr &&
	    clang_getCursorKind(clang_getCursorReferenced(core)) == CXCursor_Constructor) {
		/* a guard such as CUDAStreamCaptureModeGuard g{mode}: an object, not a write */
		struct sir_ev *e = new_event(w, EV_VAR, c, x);
		e->name = qualified(w->a, clang_getCursorSemanticParent(clang_getCursorReferenced(core)));
		e->target = (struct sir_ref){.kind = REF_VAR, .decl = idx, .text = w->out->decls[idx].name};
		set_args(w, e, core);
		return;
	}
	if (!clang_isExpression(clang_getCursorKind(init)))
		return;
	struct sir_ev *e = new_event(w, EV_WRITE, c, x);
	e->target = (struct sir_ref){.kind = REF_VAR, .decl = idx, .text = w->out->decls[idx].name};
	e->args = arena_alloc(w->a, sizeof(*e->args));
	e->args[0] = ref_of(w, init, 0);
	e->n_args = 1;
	e->from_call = clang_getCursorKind(core) == CXCursor_CallExpr;
}

static bool is_false(CXCursor cond)
{
	CXEvalResult ev = clang_Cursor_Evaluate(cond);
	bool f = ev && clang_EvalResult_getKind(ev) == CXEval_Int && clang_EvalResult_getAsLongLong(ev) == 0;
	if (ev)
		clang_EvalResult_dispose(ev);
	return f;
}

static void walk(struct walker *w, CXCursor c, struct ctx x)
{
	if (++x.depth > MAX_DEPTH)
		return;
	enum CXCursorKind k = clang_getCursorKind(c);
	switch (k) {
	case CXCursor_LambdaExpr:
		return;         /* its body runs when called, not here */
	case CXCursor_CompoundStmt:
		extent_of(c, &x.blk_begin, &x.blk_end);
		break;
	case CXCursor_ForStmt: {
		/* init, condition and increment are loop control; the body is the last child */
		x.loop = x.breakable = new_loop(w, c, x.breakable);
		x.cond = 0;
		struct kids kk = kids_of(c);
		for (unsigned i = 0; i < kk.n && i < 8; i++) {
			struct ctx y = x;
			y.loop_control = i + 1 < kk.n;
			y.discard = i + 1 == kk.n;
			if (i + 1 == kk.n)
				extent_of(kk.v[i], &y.stmt_begin, &y.stmt_end);
			walk(w, kk.v[i], y);
		}
		return;
	}
	case CXCursor_DoStmt:
		if (is_false(kids_of(c).last)) {
			x.breakable = new_loop(w, c, x.breakable);  /* do { } while (0): a block, not a loop */
			break;
		}
		x.loop = x.breakable = new_loop(w, c, x.breakable);
		x.cond = 0;
		x.loop_control = false;
		break;
	case CXCursor_WhileStmt:
	case CXCursor_CXXForRangeStmt:
		x.loop = x.breakable = new_loop(w, c, x.breakable);
		x.cond = 0;
		x.loop_control = false;
		break;
	case CXCursor_SwitchStmt:
		x.breakable = new_loop(w, c, x.breakable);
		x.cond++;
		break;
	case CXCursor_IfStmt:
	case CXCursor_ConditionalOperator:
		x.cond++;
		break;
	case CXCursor_BinaryOperator: {
		enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
		if (op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr)
			x.cond++;
		else if (op == CXBinaryOperator_Assign) {
			struct kids kk = kids_of(c);
			if (kk.n == 2)
				on_write(w, c, kk.v[0], kk.v[1], false, &x);
		}
		break;
	}
	case CXCursor_CompoundAssignOperator: {
		struct kids kk = kids_of(c);
		if (kk.n == 2)
			on_write(w, c, kk.v[0], kk.v[1], true, &x);
		break;
	}
	case CXCursor_UnaryOperator: {
		enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
		if (op >= CXUnaryOperator_PostInc && op <= CXUnaryOperator_PreDec)
			on_write(w, c, first_child(c), clang_getNullCursor(), true, &x);
		break;
	}
	case CXCursor_VarDecl:
		on_var_decl(w, c, &x);
		break;
	case CXCursor_DeclRefExpr:
	case CXCursor_MemberRefExpr: {
		CXCursor d = clang_getCursorReferenced(c);
		if (is_var_decl(clang_getCursorKind(d))) {
			int i = decl_index(w, d);
			if (i >= 0)
				w->out->decls[i].uses++;
		}
		break;
	}
	case CXCursor_CallExpr:
		on_call(w, c, &x);
		break;
	case CXCursor_ReturnStmt:
		new_event(w, EV_RETURN, c, &x);
		break;
	case CXCursor_BreakStmt:
		new_event(w, EV_BREAK, c, &x);
		break;
	case CXCursor_ContinueStmt:
		new_event(w, EV_CONTINUE, c, &x);
		break;
	case CXCursor_CXXThrowExpr:
		new_event(w, EV_THROW, c, &x);
		break;
	case CXCursor_GotoStmt: {
		struct sir_ev *e = new_event(w, EV_GOTO, c, &x);
		CXCursor label = clang_getCursorReferenced(first_child(c));
		e->jump_to = clang_Cursor_isNull(label) ? 0 : offset_of(clang_getCursorLocation(label));
		break;
	}
	default:
		break;
	}
	walk_children(w, c, x);
}

static bool is_function(enum CXCursorKind k)
{
	return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
	       k == CXCursor_Destructor || k == CXCursor_FunctionTemplate || k == CXCursor_ConversionFunction;
}

static void add_function(struct walker *w, CXCursor c)
{
	struct sir_tu *t = w->out;
	t->fns = grow(w->a, t->fns, t->n_fns, &w->cap_fns, sizeof(*t->fns));
	w->fn_callees = mem_realloc(w->fn_callees, w->cap_fns * sizeof(*w->fn_callees));
	w->fn = (int)t->n_fns;
	struct sir_fn *f = &t->fns[t->n_fns++];
	CXSourceLocation l = clang_getCursorLocation(c);
	*f = (struct sir_fn){.name = qualified(w->a, c), .loc = loc_of(w, l),
			     .in_main = clang_Location_isFromMainFile(l) != 0};
	extent_of(c, &f->begin, &f->end);
	CXString usr = clang_getCursorUSR(c);
	const char *u = arena_strdup(w->a, clang_getCString(usr));
	strmap_put(&w->fns, u, strlen(u), (size_t)w->fn);
	clang_disposeString(usr);
	w->ev.n = 0;
	/* parameters first, so they get their positions before the body refers to them */
	int nargs = clang_Cursor_getNumArguments(c);
	for (int i = 0; i < nargs; i++)
		decl_index(w, clang_Cursor_getArgument(c, (unsigned)i));
	struct ctx x = {.loop = -1, .breakable = -1};
	extent_of(c, &x.stmt_begin, &x.stmt_end);
	CXCursor body = kids_of(c).last;     /* a definition's body is its last child */
	enum CXCursorKind bk = clang_getCursorKind(body);
	if (bk == CXCursor_CompoundStmt || bk == CXCursor_CXXTryStmt)
		walk(w, body, x);
	f = &t->fns[w->fn];
	f->n_ev = w->ev.n;
	f->ev = arena_alloc(w->a, (w->ev.n ? w->ev.n : 1) * sizeof(*f->ev));
	if (w->ev.n)
		memcpy(f->ev, w->ev.v, w->ev.n * sizeof(*f->ev));
	const char **usrs = arena_alloc(w->a, (w->ev.n ? w->ev.n : 1) * sizeof(*usrs));
	if (w->ev.n)
		memcpy(usrs, w->callee_usr, w->ev.n * sizeof(*usrs));
	w->fn_callees[w->fn] = usrs;
}

static enum CXChildVisitResult find_functions(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct walker *w = data;
	CXSourceLocation l = clang_getCursorLocation(c);
	if (clang_Location_isInSystemHeader(l))
		return CXChildVisit_Continue;
	enum CXCursorKind k = clang_getCursorKind(c);
	if (is_function(k)) {
		if (clang_isCursorDefinition(c))
			add_function(w, c);
		return CXChildVisit_Continue;
	}
	if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_ClassDecl ||
	    k == CXCursor_StructDecl || k == CXCursor_ClassTemplate || k == CXCursor_UnexposedDecl)
		return CXChildVisit_Recurse;
	return CXChildVisit_Continue;
}

static void resolve_callees(struct walker *w)
{
	struct sir_tu *t = w->out;
	for (size_t f = 0; f < t->n_fns; f++)
		for (size_t i = 0; i < t->fns[f].n_ev; i++) {
			const char *usr = w->fn_callees[f][i];
			if (!usr)
				continue;
			size_t fn;
			t->fns[f].ev[i].callee = strmap_get(&w->fns, usr, strlen(usr), &fn) ? (int)fn : -1;
		}
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
	unsigned n = clang_getNumDiagnostics(tu);
	for (unsigned i = 0; i < n; i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);
		if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
			if (!msg) {
				CXSourceLocation l = clang_getDiagnosticLocation(d);
				CXFile file;
				unsigned line, col;
				clang_getFileLocation(l, &file, &line, &col, NULL);
				*where = (struct loc){main_path, line, col};
				if (file && !clang_Location_isFromMainFile(l)) {
					const char *fn = cxstr(a, clang_getFileName(file));
					msg = arena_printf(a, "%s:%u:%u: %s", fn, line, col, cxstr(a, clang_getDiagnosticSpelling(d)));
					*where = (struct loc){main_path, 0, 0};
				} else {
					msg = cxstr(a, clang_getDiagnosticSpelling(d));
				}
			}
			(*count)++;
		}
		clang_disposeDiagnostic(d);
	}
	return msg;
}

static CXTranslationUnit parse(struct arena *a, const char *abspath, const char *buf, size_t len,
			       const struct cflags *f)
{
	unsigned nu;
	struct CXUnsavedFile *u = unsaved_files(a, abspath, buf, len, &nu);
	CXIndex ix = clang_createIndex(0, 0);
	CXTranslationUnit tu = NULL;
	/* KeepGoing: a missing header is an error we report, not a silent stop */
	enum CXErrorCode rc = clang_parseTranslationUnit2(ix, abspath, f->v, (int)f->n, u, nu,
							  CXTranslationUnit_KeepGoing,
							  &tu);
	clang_disposeIndex(ix);     /* the TU keeps what it needs */
	return rc == CXError_Success ? tu : NULL;
}

static struct sir_tu *analyse(struct arena *a, CXTranslationUnit tu, const char *path, const char *abspath,
			      const char *buf, size_t len, bool per_thread)
{
	struct walker w = {.a = a, .tu = tu, .main_path = path, .fn = -1, .buf = buf, .len = len,
			   .main_file = clang_getFile(tu, abspath)};
	w.out = arena_alloc(a, sizeof(*w.out));
	w.out->path = path;
	w.out->per_thread_stream = per_thread;
	clang_visitChildren(clang_getTranslationUnitCursor(tu), find_functions, &w);
	resolve_callees(&w);
	free(w.ev.v);
	free(w.callee_usr);
	free(w.fn_callees);
	strmap_release(&w.decls);
	strmap_release(&w.fns);
	return w.out;
}

int fe_clang_parse(struct arena *a, struct diag_list *d, const char *path, const char *buf, size_t len,
		   const struct fe_clang_opts *o, struct sir_tu **out)
{
	*out = NULL;
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
			*out = analyse(a, tu, path, abspath, buf, len, f.per_thread_stream);
			clang_disposeTranslationUnit(tu);
			return 0;
		}
		clang_disposeTranslationUnit(tu);
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

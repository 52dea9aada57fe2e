/* SPDX-License-Identifier: MIT */
/* fe_clang_walk: the functions of a translation unit libclang parsed, walked into sir (sir.h). */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/strmap.h"
#include "source/fe_clang_lib.h"
#include "source/fe_clang_walk.h"   /* after libclang's (fe_clang_lib.h): it declares fe_clang_walk_cxstr only then */
#include "source/sir.h"

#define MAX_DEPTH 400           /* AST nesting walked; clang itself stops at 256 brackets */

bool fe_clang_walk_has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n > m && !strcmp(s + n - m, suf);
}

const char *fe_clang_walk_cxstr(struct arena *a, CXString s)
{
	const char *c = fe_clang_lib.getCString(s);
	const char *r = arena_strdup(a, c ? c : "");
	fe_clang_lib.disposeString(s);
	return r;
}

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
	fe_clang_lib.getFileLocation(l, NULL, NULL, NULL, &off);
	return off;
}

static struct loc loc_of(struct walker *w, CXSourceLocation l)
{
	CXFile file;
	unsigned line, col;
	fe_clang_lib.getFileLocation(l, &file, &line, &col, NULL);
	struct loc r = {w->main_path, line, col};
	if (file && !fe_clang_lib.File_isEqual(file, w->main_file))
		r.path = fe_clang_walk_cxstr(w->a, fe_clang_lib.getFileName(file));
	return r;
}

/* Whether 'l' is in the main file where it was written or, inside a macro, where the macro was
 * used: a function PYBIND11_MODULE(...) defines has its name in clang's scratch space. */
static bool in_main(struct walker *w, CXSourceLocation l)
{
	CXFile file;
	fe_clang_lib.getFileLocation(l, &file, NULL, NULL, NULL);
	return file && fe_clang_lib.File_isEqual(file, w->main_file);
}

static void extent_of(CXCursor c, unsigned *b, unsigned *e)
{
	CXSourceRange r = fe_clang_lib.getCursorExtent(c);
	*b = offset_of(fe_clang_lib.getRangeStart(r));
	*e = offset_of(fe_clang_lib.getRangeEnd(r));
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
		if (fe_clang_walk_has_suffix(name, suffixes[k]))
			return strip_variant(a, arena_strndup(a, name, strlen(name) - strlen(suffixes[k])));
	return name;
}

/* "c10::cuda::getCurrentCUDAStream": namespaces (inline and anonymous ones skipped), classes,
 * the name. */
static const char *qualified(struct arena *a, CXCursor c)
{
	const char *parts[16];
	size_t n = 0;
	for (CXCursor p = c; n < 16 && !fe_clang_lib.Cursor_isNull(p); p = fe_clang_lib.getCursorSemanticParent(p)) {
		enum CXCursorKind k = fe_clang_lib.getCursorKind(p);
		if (k == CXCursor_TranslationUnit || fe_clang_lib.isInvalid(k))
			break;
		if (k == CXCursor_LinkageSpec || (k == CXCursor_Namespace && fe_clang_lib.Cursor_isInlineNamespace(p)))
			continue;
		CXString s = fe_clang_lib.getCursorSpelling(p);
		const char *sp = fe_clang_lib.getCString(s);
		if (sp && *sp)
			parts[n++] = arena_strdup(a, sp);
		fe_clang_lib.disposeString(s);
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
	CXString usr = fe_clang_lib.getCursorUSR(d);
	const char *u = fe_clang_lib.getCString(usr);
	if (!u || !*u) {
		fe_clang_lib.disposeString(usr);
		return -1;
	}
	size_t known;
	if (strmap_get(&w->decls, u, strlen(u), &known)) {
		fe_clang_lib.disposeString(usr);
		return (int)known;
	}
	struct sir_tu *t = w->out;
	strmap_put(&w->decls, arena_strdup(w->a, u), strlen(u), t->n_decls);
	fe_clang_lib.disposeString(usr);
	t->decls = grow(w->a, t->decls, t->n_decls, &w->cap_decls, sizeof(*t->decls));
	struct sir_decl *x = &t->decls[t->n_decls];
	enum CXCursorKind k = fe_clang_lib.getCursorKind(d);
	CXType ty = fe_clang_lib.getCursorType(d);
	CXType canon = fe_clang_lib.getCanonicalType(ty);
	*x = (struct sir_decl){
		.name = fe_clang_walk_cxstr(w->a, fe_clang_lib.getCursorSpelling(d)),
		.type = fe_clang_walk_cxstr(w->a, fe_clang_lib.getTypeSpelling(ty)),
		.kind = k == CXCursor_ParmDecl ? DECL_PARAM : k == CXCursor_FieldDecl ? DECL_FIELD : DECL_GLOBAL,
		.fn = -1,
		.param = -1,
		.off = offset_of(fe_clang_lib.getCursorLocation(d)),
		.loc = loc_of(w, fe_clang_lib.getCursorLocation(d)),
		.in_main = in_main(w, fe_clang_lib.getCursorLocation(d)),
		.scalar = !fe_clang_lib.isConstQualifiedType(canon) &&
			  (canon.kind == CXType_Pointer || canon.kind == CXType_Enum ||
			   (canon.kind >= CXType_FirstBuiltin && canon.kind <= CXType_LastBuiltin)),
	};
	if (k == CXCursor_VarDecl && fe_clang_lib.Cursor_hasVarDeclGlobalStorage(d) != 1)
		x->kind = DECL_LOCAL;
	if (x->kind == DECL_LOCAL || x->kind == DECL_PARAM) {
		x->fn = w->fn;
		if (x->kind == DECL_PARAM) {
			CXCursor parent = fe_clang_lib.getCursorSemanticParent(d);
			int nargs = fe_clang_lib.Cursor_getNumArguments(parent);
			for (int i = 0; i < nargs; i++)
				if (fe_clang_lib.equalCursors(fe_clang_lib.Cursor_getArgument(parent, (unsigned)i), d))
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
	fe_clang_lib.visitChildren(c, collect, &k);
	return k;
}

static CXCursor first_child(CXCursor c)
{
	struct kids k = kids_of(c);
	return k.n ? k.v[0] : fe_clang_lib.getNullCursor();
}

/* Through the implicit wrappers clang puts around an expression (casts, temporaries, braces
 * around one initializer) to what was written. */
static CXCursor unwrap(CXCursor e)
{
	while ((fe_clang_lib.getCursorKind(e) == CXCursor_UnexposedExpr || fe_clang_lib.getCursorKind(e) == CXCursor_InitListExpr) &&
	       kids_of(e).n == 1)
		e = first_child(e);
	return e;
}

/* A call's callee expression, and for a member call the object it is called on. */
static CXCursor member_base(CXCursor call)
{
	CXCursor callee = unwrap(first_child(call));
	if (fe_clang_lib.getCursorKind(callee) != CXCursor_MemberRefExpr)
		return fe_clang_lib.getNullCursor();
	return first_child(callee);
}

/* An expression cglint cannot name (streams[i], ctx->get()) is still the same expression when
 * spelled the same way: keep its spelling, if it is short and written in the main file. */
static struct sir_ref with_text(struct walker *w, CXCursor e, struct sir_ref r)
{
	CXSourceRange ext = fe_clang_lib.getCursorExtent(e);
	CXFile fb, fe;
	unsigned b, end;
	fe_clang_lib.getFileLocation(fe_clang_lib.getRangeStart(ext), &fb, NULL, NULL, &b);
	fe_clang_lib.getFileLocation(fe_clang_lib.getRangeEnd(ext), &fe, NULL, NULL, &end);
	if (fb && fe && fe_clang_lib.File_isEqual(fb, w->main_file) && fe_clang_lib.File_isEqual(fe, w->main_file) && b < end &&
	    end <= w->len && end - b <= 80)
		r.text = arena_strndup(w->a, w->buf + b, end - b);
	return r;
}

static struct sir_ref ref_of(struct walker *w, CXCursor e, unsigned depth)
{
	struct sir_ref r = {.kind = REF_OTHER, .decl = -1};
	if (fe_clang_lib.Cursor_isNull(e) || depth > 16)
		return r;
	enum CXCursorKind k = fe_clang_lib.getCursorKind(e);
	CXSourceRange ext = fe_clang_lib.getCursorExtent(e);
	if (fe_clang_lib.Range_isNull(ext) || offset_of(fe_clang_lib.getRangeStart(ext)) == offset_of(fe_clang_lib.getRangeEnd(ext))) {
		if (k == CXCursor_UnexposedExpr && kids_of(e).n == 0) {
			r.kind = REF_NONE;      /* a default argument the call left out */
			r.decl = -1;
			return r;
		}
	}
	switch (k) {
	case CXCursor_IntegerLiteral: {
		CXEvalResult ev = fe_clang_lib.Cursor_Evaluate(e);
		if (ev && fe_clang_lib.EvalResult_getKind(ev) == CXEval_Int) {
			r.has_ival = true;
			r.ival = fe_clang_lib.EvalResult_getAsLongLong(ev);
		}
		if (ev)
			fe_clang_lib.EvalResult_dispose(ev);
		r.kind = r.has_ival && r.ival == 0 ? REF_NULL : REF_CONST;
		return r;
	}
	case CXCursor_CXXNullPtrLiteralExpr:
	case CXCursor_GNUNullExpr:
		r.kind = REF_NULL;
		return r;
	case CXCursor_StringLiteral:
		r.text = fe_clang_walk_cxstr(w->a, fe_clang_lib.getCursorSpelling(e));
		return r;
	case CXCursor_DeclRefExpr:
	case CXCursor_MemberRefExpr: {
		CXCursor d = fe_clang_lib.getCursorReferenced(e);
		enum CXCursorKind dk = fe_clang_lib.getCursorKind(d);
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
			r.ival = fe_clang_lib.getEnumConstantDeclValue(d);
			r.text = fe_clang_walk_cxstr(w->a, fe_clang_lib.getCursorSpelling(d));
		}
		return r;
	}
	case CXCursor_UnaryOperator: {
		CXCursor op = first_child(e);
		if (fe_clang_lib.getCursorUnaryOperatorKind(e) == CXUnaryOperator_AddrOf) {
			r = ref_of(w, op, depth + 1);
			r.addr = true;
		}
		return r;
	}
	case CXCursor_CallExpr: {
		CXCursor d = fe_clang_lib.getCursorReferenced(e);
		enum CXCursorKind dk = fe_clang_lib.getCursorKind(d);
		if (dk == CXCursor_ConversionFunction ||
		    (dk == CXCursor_CXXMethod && !strcmp(fe_clang_walk_cxstr(w->a, fe_clang_lib.getCursorSpelling(d)), "stream")))
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
		} else if (dk == CXCursor_Constructor && fe_clang_lib.Cursor_getNumArguments(e) >= 1) {
			/* a copy or conversion, CUDAStream(s), at::Device(at::kCPU): what it was made from */
			return ref_of(w, fe_clang_lib.Cursor_getArgument(e, 0), depth + 1);
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
		if (r.kind == REF_CONST && r.has_ival && fe_clang_lib.getCanonicalType(fe_clang_lib.getCursorType(e)).kind == CXType_Pointer) {
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
	CXSourceLocation l = fe_clang_lib.getCursorLocation(c);
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
	fe_clang_lib.getSpellingLocation(l, &sf, NULL, NULL, &soff);
	fe_clang_lib.getExpansionLocation(l, &ef, NULL, NULL, &eoff);
	if (sf != ef || soff != eoff) {
		CXToken *tok = fe_clang_lib.getToken(w->tu, fe_clang_lib.getLocationForOffset(w->tu, ef, eoff));
		if (tok) {
			if (fe_clang_lib.getTokenKind(*tok) == CXToken_Identifier)
				e->macro = fe_clang_walk_cxstr(w->a, fe_clang_lib.getTokenSpelling(w->tu, *tok));
			fe_clang_lib.disposeTokens(w->tu, tok, 1);
		}
	}
	return e;
}

static void set_args(struct walker *w, struct sir_ev *e, CXCursor call)
{
	int n = fe_clang_lib.Cursor_getNumArguments(call);
	if (n <= 0)
		return;
	e->args = arena_alloc(w->a, (size_t)n * sizeof(*e->args));
	e->n_args = (unsigned)n;
	for (int i = 0; i < n; i++)
		e->args[i] = ref_of(w, fe_clang_lib.Cursor_getArgument(call, (unsigned)i), 0);
}

static enum CXChildVisitResult find_global_attr(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	if (fe_clang_lib.getCursorKind(c) == CXCursor_CUDAGlobalAttr) {
		*(bool *)data = true;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Continue;
}

static bool is_kernel(CXCursor fn)
{
	bool found = false;
	fe_clang_lib.visitChildren(fn, find_global_attr, &found);
	return found;
}

static enum CXChildVisitResult find_config(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	if (fe_clang_lib.getCursorKind(c) == CXCursor_CallExpr) {
		CXString s = fe_clang_lib.getCursorSpelling(c);
		const char *sp = fe_clang_lib.getCString(s);
		bool cfg = sp && (!strcmp(sp, "cudaConfigureCall") || !strcmp(sp, "__cudaPushCallConfiguration"));
		fe_clang_lib.disposeString(s);
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
	struct visit *v = data;   /* an unresolved call (dependent) uses its arguments */
	struct ctx x = v->x;
	if (v->parent == CXCursor_CompoundStmt) {
		extent_of(c, &x.stmt_begin, &x.stmt_end);
		x.discard = true;
	} else if ((v->parent != CXCursor_UnexposedExpr || fe_clang_lib.getCursorType(parent).kind == CXType_Dependent) && v->parent != CXCursor_ParenExpr) {
		x.discard = false;
	}
	walk(v->w, c, x);
	return CXChildVisit_Continue;
}

static void walk_children(struct walker *w, CXCursor c, struct ctx x)
{
	struct visit v = {w, x, fe_clang_lib.getCursorKind(c)};
	fe_clang_lib.visitChildren(c, visit_child, &v);
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
	CXCursor d = fe_clang_lib.getCursorReferenced(c);
	enum CXCursorKind dk = fe_clang_lib.getCursorKind(d);
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
		CXCursor cfg = fe_clang_lib.getNullCursor();
		fe_clang_lib.visitChildren(c, find_config, &cfg);
		if (!fe_clang_lib.Cursor_isNull(cfg) && fe_clang_lib.Cursor_getNumArguments(cfg) >= 4)
			e->stream = ref_of(w, fe_clang_lib.Cursor_getArgument(cfg, 3), 0);
		else
			e->stream.kind = REF_NONE;
		return;
	}
	if (dk == CXCursor_CXXMethod || dk == CXCursor_ConversionFunction)
		e->object = ref_of(w, member_base(c), 0);
	/* a function this TU defines, resolved once every function is known */
	CXCursor def = fe_clang_lib.getCursorDefinition(d);
	if (!fe_clang_lib.Cursor_isNull(def) && !fe_clang_lib.Location_isInSystemHeader(fe_clang_lib.getCursorLocation(def))) {
		CXString usr = fe_clang_lib.getCursorUSR(def);
		w->callee_usr[w->ev.n - 1] = arena_strdup(w->a, fe_clang_lib.getCString(usr));
		fe_clang_lib.disposeString(usr);
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
	if (!fe_clang_lib.Cursor_isNull(value)) {
		e->args = arena_alloc(w->a, sizeof(*e->args));
		e->args[0] = ref_of(w, value, 0);
		e->n_args = 1;
		e->from_call = fe_clang_lib.getCursorKind(unwrap(value)) == CXCursor_CallExpr;
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
	if (fe_clang_lib.getCursorKind(core) == CXCursor_CallExpr &&
	    fe_clang_lib.getCursorKind(fe_clang_lib.getCursorReferenced(core)) == CXCursor_Constructor) {
		/* a guard such as CUDAStreamCaptureModeGuard g{mode}: an object, not a write */
		struct sir_ev *e = new_event(w, EV_VAR, c, x);
		e->name = qualified(w->a, fe_clang_lib.getCursorSemanticParent(fe_clang_lib.getCursorReferenced(core)));
		e->target = (struct sir_ref){.kind = REF_VAR, .decl = idx, .text = w->out->decls[idx].name};
		set_args(w, e, core);
		return;
	}
	if (!fe_clang_lib.isExpression(fe_clang_lib.getCursorKind(init)))
		return;
	struct sir_ev *e = new_event(w, EV_WRITE, c, x);
	e->target = (struct sir_ref){.kind = REF_VAR, .decl = idx, .text = w->out->decls[idx].name};
	e->args = arena_alloc(w->a, sizeof(*e->args));
	e->args[0] = ref_of(w, init, 0);
	e->n_args = 1;
	e->from_call = fe_clang_lib.getCursorKind(core) == CXCursor_CallExpr;
}

static bool is_false(CXCursor cond)
{
	CXEvalResult ev = fe_clang_lib.Cursor_Evaluate(cond);
	bool f = ev && fe_clang_lib.EvalResult_getKind(ev) == CXEval_Int && fe_clang_lib.EvalResult_getAsLongLong(ev) == 0;
	if (ev)
		fe_clang_lib.EvalResult_dispose(ev);
	return f;
}

static void walk(struct walker *w, CXCursor c, struct ctx x)
{
	if (++x.depth > MAX_DEPTH)
		return;
	enum CXCursorKind k = fe_clang_lib.getCursorKind(c);
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
		enum CXBinaryOperatorKind op = fe_clang_lib.getCursorBinaryOperatorKind(c);
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
		enum CXUnaryOperatorKind op = fe_clang_lib.getCursorUnaryOperatorKind(c);
		if (op >= CXUnaryOperator_PostInc && op <= CXUnaryOperator_PreDec)
			on_write(w, c, first_child(c), fe_clang_lib.getNullCursor(), true, &x);
		break;
	}
	case CXCursor_VarDecl:
		on_var_decl(w, c, &x);
		break;
	case CXCursor_DeclRefExpr:
	case CXCursor_MemberRefExpr: {
		CXCursor d = fe_clang_lib.getCursorReferenced(c);
		if (is_var_decl(fe_clang_lib.getCursorKind(d))) {
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
		CXCursor label = fe_clang_lib.getCursorReferenced(first_child(c));
		e->jump_to = fe_clang_lib.Cursor_isNull(label) ? 0 : offset_of(fe_clang_lib.getCursorLocation(label));
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
	CXSourceLocation l = fe_clang_lib.getCursorLocation(c);
	*f = (struct sir_fn){.name = qualified(w->a, c), .loc = loc_of(w, l),
			     .in_main = in_main(w, l)};
	extent_of(c, &f->begin, &f->end);
	CXString usr = fe_clang_lib.getCursorUSR(c);
	const char *u = arena_strdup(w->a, fe_clang_lib.getCString(usr));
	strmap_put(&w->fns, u, strlen(u), (size_t)w->fn);
	fe_clang_lib.disposeString(usr);
	w->ev.n = 0;
	/* parameters first, so they get their positions before the body refers to them */
	int nargs = fe_clang_lib.Cursor_getNumArguments(c);
	for (int i = 0; i < nargs; i++)
		decl_index(w, fe_clang_lib.Cursor_getArgument(c, (unsigned)i));
	struct ctx x = {.loop = -1, .breakable = -1};
	extent_of(c, &x.stmt_begin, &x.stmt_end);
	CXCursor body = kids_of(c).last;     /* a definition's body is its last child */
	enum CXCursorKind bk = fe_clang_lib.getCursorKind(body);
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
	CXSourceLocation l = fe_clang_lib.getCursorLocation(c);
	if (fe_clang_lib.Location_isInSystemHeader(l))
		return CXChildVisit_Continue;
	enum CXCursorKind k = fe_clang_lib.getCursorKind(c);
	if (is_function(k)) {
		if (fe_clang_lib.isCursorDefinition(c))
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

struct sir_tu *fe_clang_walk_tu(struct arena *a, struct CXTranslationUnitImpl *tu, const char *path,
				const char *abspath, const char *buf, size_t len, bool per_thread)
{
	struct walker w = {.a = a, .tu = tu, .main_path = path, .fn = -1, .buf = buf, .len = len,
			   .main_file = fe_clang_lib.getFile(tu, abspath)};
	w.out = arena_alloc(a, sizeof(*w.out));
	w.out->path = path;
	w.out->per_thread_stream = per_thread;
	fe_clang_lib.visitChildren(fe_clang_lib.getTranslationUnitCursor(tu), find_functions, &w);
	resolve_callees(&w);
	free(w.ev.v);
	free(w.callee_usr);
	free(w.fn_callees);
	strmap_release(&w.decls);
	strmap_release(&w.fns);
	return w.out;
}

/* SPDX-License-Identifier: MIT */
/* fe_clang_expr: expressions and conditions read off libclang's AST (see fe_clang_expr.h). */
#include "source/fe_clang_expr.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

unsigned fe_clang_expr_offset(CXSourceLocation l)
{
	unsigned off;
	fe_clang_lib.getFileLocation(l, NULL, NULL, NULL, &off);
	return off;
}

struct loc fe_clang_expr_loc(struct fe_clang_expr *x, CXSourceLocation l)
{
	CXFile file;
	unsigned line, col;
	fe_clang_lib.getFileLocation(l, &file, &line, &col, NULL);
	struct loc r = {x->main_path, line, col};
	if (file && !fe_clang_lib.File_isEqual(file, x->main_file))
		r.path = fe_clang_lib_str(x->a, fe_clang_lib.getFileName(file));
	return r;
}

bool fe_clang_expr_in_main(const struct fe_clang_expr *x, CXSourceLocation l)
{
	CXFile file;
	fe_clang_lib.getFileLocation(l, &file, NULL, NULL, NULL);
	return file && fe_clang_lib.File_isEqual(file, x->main_file);
}

void fe_clang_expr_extent(CXCursor c, unsigned *b, unsigned *e)
{
	CXSourceRange r = fe_clang_lib.getCursorExtent(c);
	*b = fe_clang_expr_offset(fe_clang_lib.getRangeStart(r));
	*e = fe_clang_expr_offset(fe_clang_lib.getRangeEnd(r));
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
	for (size_t k = 0; k < 4; k++) {
		size_t n = strlen(name), m = strlen(suffixes[k]);
		if (n > m && !strcmp(name + n - m, suffixes[k]))
			return strip_variant(a, arena_strndup(a, name, n - m));
	}
	return name;
}

/* "c10::cuda::getCurrentCUDAStream": namespaces (inline and anonymous ones skipped), classes,
 * the name. */
const char *fe_clang_expr_name(struct arena *a, CXCursor c)
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

struct param_pos {
	CXCursor want;
	int n, found;
};

static enum CXChildVisitResult param_at(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct param_pos *p = data;
	if (fe_clang_lib.getCursorKind(c) != CXCursor_ParmDecl)
		return CXChildVisit_Continue;
	if (fe_clang_lib.equalCursors(c, p->want))
		p->found = p->n;
	p->n++;
	return CXChildVisit_Continue;
}

int fe_clang_expr_decl(struct fe_clang_expr *x, CXCursor d)
{
	CXString usr = fe_clang_lib.getCursorUSR(d);
	const char *u = fe_clang_lib.getCString(usr);
	if (!u || !*u) {
		fe_clang_lib.disposeString(usr);
		return -1;
	}
	size_t known;
	if (strmap_get(&x->decls, u, strlen(u), &known)) {
		fe_clang_lib.disposeString(usr);
		return (int)known;
	}
	struct sir_tu *t = x->out;
	strmap_put(&x->decls, arena_strdup(x->a, u), strlen(u), t->n_decls);
	fe_clang_lib.disposeString(usr);
	t->decls = arena_grow(x->a, t->decls, t->n_decls, &x->cap_decls, sizeof(*t->decls));
	struct sir_decl *v = &t->decls[t->n_decls];
	enum CXCursorKind k = fe_clang_lib.getCursorKind(d);
	CXType ty = fe_clang_lib.getCursorType(d);
	CXType canon = fe_clang_lib.getCanonicalType(ty);
	*v = (struct sir_decl){
		.name = fe_clang_lib_str(x->a, fe_clang_lib.getCursorSpelling(d)),
		.type = fe_clang_lib_str(x->a, fe_clang_lib.getTypeSpelling(ty)),
		.kind = k == CXCursor_ParmDecl ? DECL_PARAM : k == CXCursor_FieldDecl ? DECL_FIELD : DECL_GLOBAL,
		.fn = -1,
		.param = -1,
		.off = fe_clang_expr_offset(fe_clang_lib.getCursorLocation(d)),
		.loc = fe_clang_expr_loc(x, fe_clang_lib.getCursorLocation(d)),
		.in_main = fe_clang_expr_in_main(x, fe_clang_lib.getCursorLocation(d)),
		.scalar = !fe_clang_lib.isConstQualifiedType(canon) &&
			  (canon.kind == CXType_Pointer || canon.kind == CXType_Enum ||
			   (canon.kind >= CXType_FirstBuiltin && canon.kind <= CXType_LastBuiltin)),
	};
	if (k == CXCursor_VarDecl && fe_clang_lib.Cursor_hasVarDeclGlobalStorage(d) != 1)
		v->kind = DECL_LOCAL;
	if (v->kind == DECL_LOCAL || v->kind == DECL_PARAM) {
		v->fn = x->fn;
		if (v->kind == DECL_PARAM) {
			CXCursor parent = fe_clang_lib.getCursorSemanticParent(d);
			int nargs = fe_clang_lib.Cursor_getNumArguments(parent);
			for (int i = 0; i < nargs; i++)
				if (fe_clang_lib.equalCursors(fe_clang_lib.Cursor_getArgument(parent, (unsigned)i), d))
					v->param = i;
			if (nargs < 0) {        /* a function template: its parameters among its children */
				struct param_pos pp = {d, 0, -1};
				fe_clang_lib.visitChildren(parent, param_at, &pp);
				v->param = pp.found;
			}
		}
	}
	return (int)t->n_decls++;
}

bool fe_clang_expr_is_var(enum CXCursorKind k)
{
	return k == CXCursor_VarDecl || k == CXCursor_ParmDecl || k == CXCursor_FieldDecl;
}


static enum CXChildVisitResult collect(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct fe_clang_kids *k = data;
	if (k->n < 8)
		k->v[k->n] = c;
	k->last = c;
	k->n++;
	return CXChildVisit_Continue;
}

struct fe_clang_kids fe_clang_expr_kids(CXCursor c)
{
	struct fe_clang_kids k = {.n = 0};
	fe_clang_lib.visitChildren(c, collect, &k);
	return k;
}

CXCursor fe_clang_expr_first(CXCursor c)
{
	struct fe_clang_kids k = fe_clang_expr_kids(c);
	return k.n ? k.v[0] : fe_clang_lib.getNullCursor();
}

/* Through the implicit wrappers clang puts around an expression (casts, temporaries, braces
 * around one initializer) to what was written. */
CXCursor fe_clang_expr_unwrap(CXCursor e)
{
	while ((fe_clang_lib.getCursorKind(e) == CXCursor_UnexposedExpr || fe_clang_lib.getCursorKind(e) == CXCursor_InitListExpr) &&
	       fe_clang_expr_kids(e).n == 1)
		e = fe_clang_expr_first(e);
	return e;
}

/* A call's callee expression, and for a member call the object it is called on. */
CXCursor fe_clang_expr_object(CXCursor call)
{
	CXCursor callee = fe_clang_expr_unwrap(fe_clang_expr_first(call));
	if (fe_clang_lib.getCursorKind(callee) != CXCursor_MemberRefExpr)
		return fe_clang_lib.getNullCursor();
	return fe_clang_expr_first(callee);
}

/* An expression cglint cannot name (streams[i], ctx->get()) is still the same expression when
 * spelled the same way: keep its spelling, if it is short and written in the main file. */
static struct sir_ref with_text(struct fe_clang_expr *x, CXCursor e, struct sir_ref r)
{
	CXSourceRange ext = fe_clang_lib.getCursorExtent(e);
	CXFile fb, fe;
	unsigned b, end;
	fe_clang_lib.getFileLocation(fe_clang_lib.getRangeStart(ext), &fb, NULL, NULL, &b);
	fe_clang_lib.getFileLocation(fe_clang_lib.getRangeEnd(ext), &fe, NULL, NULL, &end);
	if (fb && fe && fe_clang_lib.File_isEqual(fb, x->main_file) && fe_clang_lib.File_isEqual(fe, x->main_file) && b < end &&
	    end <= x->len && end - b <= 80)
		r.text = arena_strndup(x->a, x->buf + b, end - b);
	return r;
}

static bool int_value(CXCursor e, int64_t *v)
{
	CXEvalResult ev = fe_clang_lib.Cursor_Evaluate(e);
	bool ok = ev && fe_clang_lib.EvalResult_getKind(ev) == CXEval_Int;
	if (ok)
		*v = fe_clang_lib.EvalResult_getAsLongLong(ev);
	if (ev)
		fe_clang_lib.EvalResult_dispose(ev);
	return ok;
}

static struct sir_ref ref_of(struct fe_clang_expr *x, CXCursor e, unsigned depth);
static const struct sir_ref *base_of(struct fe_clang_expr *x, CXCursor member, unsigned depth);

static const char *lambda_key(struct arena *a, CXCursor c)
{
	CXFile f;
	unsigned off;
	fe_clang_lib.getSpellingLocation(fe_clang_lib.getCursorLocation(c), &f, NULL, NULL, &off);
	const char *name = f ? fe_clang_lib_str(a, fe_clang_lib.getFileName(f)) : "";
	return arena_printf(a, "lambda@%s:%u", name, off);
}

const char *fe_clang_expr_fn_key(struct arena *a, CXCursor fn)
{
	if (fe_clang_lib.getCursorKind(fn) == CXCursor_LambdaExpr)
		return lambda_key(a, fn);
	/* an instantiation (sync_step<float>, Runner<float>::run) is walked as its template's body;
	 * an explicit specialization, written elsewhere, has a body of its own */
	CXCursor def = fe_clang_lib.getCursorDefinition(fn);
	CXCursor tmpl = fe_clang_lib.getSpecializedCursorTemplate(fe_clang_lib.Cursor_isNull(def) ? fn : def);
	if (!fe_clang_lib.Cursor_isNull(tmpl) &&
	    (fe_clang_lib.Cursor_isNull(def) ||
	     fe_clang_lib.equalLocations(fe_clang_lib.getCursorLocation(def), fe_clang_lib.getCursorLocation(tmpl))))
		def = fe_clang_lib.getCursorDefinition(tmpl);
	if (fe_clang_lib.Cursor_isNull(def) || fe_clang_lib.Location_isInSystemHeader(fe_clang_lib.getCursorLocation(def)))
		return NULL;
	if (fe_clang_lib.getCursorKind(def) == CXCursor_CXXMethod) {
		/* a lambda's call operator sits where the lambda is written: "(lambda at f.cu:6:14)" */
		const char *cls = fe_clang_lib_str(a, fe_clang_lib.getCursorSpelling(fe_clang_lib.getCursorSemanticParent(def)));
		if (!strncmp(cls, "(lambda", 7))
			return lambda_key(a, def);
	}
	return fe_clang_lib_str(a, fe_clang_lib.getCursorUSR(def));
}

static bool affine(struct fe_clang_expr *x, CXCursor e, struct sir_bound *b, unsigned depth)
{
	*b = (struct sir_bound){.known = false};
	if (depth > 8 || fe_clang_lib.Cursor_isNull(e))
		return false;
	if (int_value(e, &b->add))
		return b->known = true;
	struct fe_clang_kids kk = fe_clang_expr_kids(e);
	switch (fe_clang_lib.getCursorKind(e)) {
	case CXCursor_ParenExpr:
	case CXCursor_UnexposedExpr:
	case CXCursor_CStyleCastExpr:
	case CXCursor_CXXStaticCastExpr:
		return kk.n && affine(x, kk.last, b, depth + 1);
	case CXCursor_DeclRefExpr:
	case CXCursor_MemberRefExpr: {
		struct sir_ref r = ref_of(x, e, depth);
		if (r.kind != REF_VAR || r.elem)
			return false;
		b->var1 = r.decl + 1;
		return b->known = true;
	}
	case CXCursor_BinaryOperator: {
		enum CXBinaryOperatorKind op = fe_clang_lib.getCursorBinaryOperatorKind(e);
		int64_t c;
		if (kk.n != 2 || (op != CXBinaryOperator_Add && op != CXBinaryOperator_Sub))
			return false;
		if (int_value(kk.v[1], &c) && affine(x, kk.v[0], b, depth + 1)) {
			b->add += op == CXBinaryOperator_Add ? c : -c;
			return true;
		}
		if (op == CXBinaryOperator_Add && int_value(kk.v[0], &c) && affine(x, kk.v[1], b, depth + 1)) {
			b->add += c;
			return true;
		}
		return false;
	}
	default:
		return false;
	}
}

bool fe_clang_expr_affine(struct fe_clang_expr *x, CXCursor e, struct sir_bound *b)
{
	return affine(x, e, b, 0);
}

/* base[index], an array's or a container's element: the base variable, marked an element. */
static struct sir_ref element(struct fe_clang_expr *x, CXCursor e, CXCursor base, CXCursor index, unsigned depth)
{
	struct sir_ref r = ref_of(x, base, depth + 1);
	if (r.kind != REF_VAR || r.addr || r.elem)
		return with_text(x, e, (struct sir_ref){.kind = REF_OTHER, .decl = -1});
	r.elem = true;
	r.const_index = int_value(index, &r.index);
	struct sir_bound b;
	if (!r.const_index && affine(x, index, &b, depth + 1) && b.var1) {
		r.index_var1 = b.var1;
		r.index = b.add;
	}
	return with_text(x, e, r);
}

/* The object a field is read from (p->cb: p), when it is a variable or one's element. */
static const struct sir_ref *base_of(struct fe_clang_expr *x, CXCursor member, unsigned depth)
{
	struct fe_clang_kids kk = fe_clang_expr_kids(member);
	if (!kk.n || fe_clang_lib.getCursorKind(kk.v[0]) == CXCursor_TypeRef)
		return NULL;            /* this->cb: no object written */
	struct sir_ref b = ref_of(x, kk.v[0], depth + 1);
	if (b.kind != REF_VAR)
		return NULL;
	struct sir_ref *r = arena_alloc(x->a, sizeof(*r));
	*r = b;
	return r;
}

static struct sir_ref ref_of(struct fe_clang_expr *x, CXCursor e, unsigned depth)
{
	struct sir_ref r = {.kind = REF_OTHER, .decl = -1};
	if (fe_clang_lib.Cursor_isNull(e) || depth > 16)
		return r;
	enum CXCursorKind k = fe_clang_lib.getCursorKind(e);
	CXSourceRange ext = fe_clang_lib.getCursorExtent(e);
	if (fe_clang_lib.Range_isNull(ext) || fe_clang_expr_offset(fe_clang_lib.getRangeStart(ext)) == fe_clang_expr_offset(fe_clang_lib.getRangeEnd(ext))) {
		if (k == CXCursor_UnexposedExpr && fe_clang_expr_kids(e).n == 0) {
			r.kind = REF_NONE;      /* a default argument the call left out */
			r.decl = -1;
			return r;
		}
	}
	switch (k) {
	case CXCursor_IntegerLiteral:
		r.has_ival = int_value(e, &r.ival);
		r.kind = r.has_ival && r.ival == 0 ? REF_NULL : REF_CONST;
		return r;
	case CXCursor_CXXNullPtrLiteralExpr:
	case CXCursor_GNUNullExpr:
		r.kind = REF_NULL;
		return r;
	case CXCursor_StringLiteral:
		r.text = fe_clang_lib_str(x->a, fe_clang_lib.getCursorSpelling(e));
		return r;
	case CXCursor_DeclRefExpr:
	case CXCursor_MemberRefExpr: {
		CXCursor d = fe_clang_lib.getCursorReferenced(e);
		enum CXCursorKind dk = fe_clang_lib.getCursorKind(d);
		if (fe_clang_expr_is_var(dk)) {
			r.kind = REF_VAR;
			r.decl = fe_clang_expr_decl(x, d);
			if (r.decl < 0)
				r.kind = REF_OTHER;
			else
				r.text = x->out->decls[r.decl].name;
			if (dk == CXCursor_FieldDecl && k == CXCursor_MemberRefExpr && (r.base = base_of(x, e, depth)))
				r = with_text(x, e, r);         /* args->stream */
		} else if (dk == CXCursor_EnumConstantDecl) {
			r.kind = REF_CONST;
			r.has_ival = true;
			r.ival = fe_clang_lib.getEnumConstantDeclValue(d);
			r.text = fe_clang_lib_str(x->a, fe_clang_lib.getCursorSpelling(d));
		} else if (dk == CXCursor_FunctionDecl || dk == CXCursor_CXXMethod || dk == CXCursor_FunctionTemplate) {
			r.fn_key = fe_clang_expr_fn_key(x->a, d);   /* a handler handed on: &handler, handler */
			r.text = fe_clang_lib_str(x->a, fe_clang_lib.getCursorSpelling(d));
		}
		return r;
	}
	case CXCursor_LambdaExpr:
		r.fn_key = fe_clang_expr_fn_key(x->a, e);
		return with_text(x, e, r);
	case CXCursor_UnaryOperator: {
		CXCursor op = fe_clang_expr_first(e);
		if (fe_clang_lib.getCursorUnaryOperatorKind(e) == CXUnaryOperator_AddrOf) {
			r = ref_of(x, op, depth + 1);
			r.addr = true;
		}
		return r;
	}
	case CXCursor_CallExpr: {
		CXCursor d = fe_clang_lib.getCursorReferenced(e);
		enum CXCursorKind dk = fe_clang_lib.getCursorKind(d);
		const char *spelled = dk == CXCursor_CXXMethod ? fe_clang_lib_str(x->a, fe_clang_lib.getCursorSpelling(d)) : "";
		if (dk == CXCursor_ConversionFunction || !strcmp(spelled, "stream"))
			return ref_of(x, fe_clang_expr_object(e), depth + 1);    /* CUDAStream -> cudaStream_t */
		if (!strcmp(spelled, "operator[]") && fe_clang_lib.Cursor_getNumArguments(e) == 2)
			return element(x, e, fe_clang_lib.Cursor_getArgument(e, 0), fe_clang_lib.Cursor_getArgument(e, 1), depth);
		if (!strcmp(spelled, "at") && fe_clang_lib.Cursor_getNumArguments(e) == 1)    /* streams.at(i) */
			return element(x, e, fe_clang_expr_object(e), fe_clang_lib.Cursor_getArgument(e, 0), depth);
		if (dk == CXCursor_FunctionDecl || dk == CXCursor_CXXMethod) {
			const char *q = fe_clang_expr_name(x->a, d);
			if (!strcmp(q, "c10::cuda::getCurrentCUDAStream") || !strcmp(q, "at::cuda::getCurrentCUDAStream"))
				r.kind = REF_CURRENT;
			else if (!strcmp(q, "c10::cuda::getDefaultCUDAStream") || !strcmp(q, "at::cuda::getDefaultCUDAStream"))
				r.kind = REF_DEFAULT;
			else if (!strcmp(q, "c10::cuda::getStreamFromPool") || !strcmp(q, "at::cuda::getStreamFromPool"))
				r.kind = REF_POOL;
			r.text = q;
		} else if (dk == CXCursor_Constructor && fe_clang_lib.Cursor_getNumArguments(e) >= 1) {
			/* a copy or conversion, CUDAStream(s), at::Device(at::kCPU): what it was made from */
			return ref_of(x, fe_clang_lib.Cursor_getArgument(e, 0), depth + 1);
		}
		return with_text(x, e, r);
	}
	case CXCursor_ArraySubscriptExpr: {
		struct fe_clang_kids kk = fe_clang_expr_kids(e);
		return kk.n == 2 ? element(x, e, kk.v[0], kk.v[1], depth) : with_text(x, e, r);
	}
	case CXCursor_CStyleCastExpr:
	case CXCursor_CXXStaticCastExpr:
	case CXCursor_CXXReinterpretCastExpr:
	case CXCursor_CXXFunctionalCastExpr: {
		struct fe_clang_kids kk = fe_clang_expr_kids(e);
		if (!kk.n)
			return r;
		r = ref_of(x, kk.last, depth + 1);
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
		struct fe_clang_kids kk = fe_clang_expr_kids(e);
		if (kk.n == 1)
			return ref_of(x, kk.v[0], depth + 1);
		return r;
	}
	default:
		return with_text(x, e, r);
	}
}

struct sir_ref fe_clang_expr_ref(struct fe_clang_expr *x, CXCursor e)
{
	return ref_of(x, e, 0);
}

unsigned fe_clang_expr_args(struct fe_clang_expr *x, CXCursor call, struct sir_ref **args)
{
	int n = fe_clang_lib.Cursor_getNumArguments(call);
	*args = NULL;
	if (n <= 0)
		return 0;
	*args = arena_alloc(x->a, (size_t)n * sizeof(**args));
	for (int i = 0; i < n; i++)
		(*args)[i] = ref_of(x, fe_clang_lib.Cursor_getArgument(call, (unsigned)i), 0);
	return (unsigned)n;
}

/* ---- functions stored by aggregate initializers -------------------------------------------- */

struct fields {
	CXCursor v[32];
	unsigned n;
};

static enum CXChildVisitResult collect_field(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct fields *f = data;
	if (fe_clang_lib.getCursorKind(c) == CXCursor_FieldDecl && f->n < 32)
		f->v[f->n++] = c;
	return CXChildVisit_Continue;
}

static void add_bind(struct fe_clang_expr *x, int var, int field, int64_t index, CXCursor value)
{
	struct sir_ref r = ref_of(x, value, 0);
	if (!r.fn_key)
		return;
	struct sir_tu *t = x->out;
	t->binds = arena_grow(x->a, t->binds, t->n_binds, &x->cap_binds, sizeof(*t->binds));
	t->binds[t->n_binds++] = (struct sir_bind){var, field, index, r.fn_key, 0};
}

/* Through implicit casts and temporaries, not through braces: {fn} is a list of one. */
static CXCursor bare(CXCursor e)
{
	while (fe_clang_lib.getCursorKind(e) == CXCursor_UnexposedExpr && fe_clang_expr_kids(e).n == 1)
		e = fe_clang_expr_first(e);
	return e;
}

struct list_walk {
	struct fe_clang_expr *x;
	int var;
	int64_t index;
	bool array;
	struct fields fl;
	unsigned i, depth;
};

static void binds_in(struct fe_clang_expr *x, int var, CXCursor list, int64_t index, unsigned depth);

/* One element of a braced list: the i-th field or element, or the one a designator names. */
static enum CXChildVisitResult list_item(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct list_walk *lw = data;
	unsigned i = lw->i++;
	CXCursor v = bare(c);
	int field = !lw->array && i < lw->fl.n ? fe_clang_expr_decl(lw->x, lw->fl.v[i]) : -1;
	struct fe_clang_kids dk = fe_clang_expr_kids(v);
	if (fe_clang_lib.getCursorKind(v) == CXCursor_UnexposedExpr && dk.n >= 2 && dk.n <= 8 &&
	    fe_clang_lib.getCursorKind(dk.v[0]) == CXCursor_MemberRef) {
		field = fe_clang_expr_decl(lw->x, fe_clang_lib.getCursorReferenced(dk.v[dk.n - 2]));
		v = bare(dk.last);      /* .run = fn: designated */
	}
	int64_t at = lw->array && lw->index < 0 ? (int64_t)i : lw->index;
	if (fe_clang_lib.getCursorKind(v) == CXCursor_InitListExpr) {
		if (lw->depth < 4)
			binds_in(lw->x, lw->var, v, at, lw->depth + 1);
	} else if (lw->array || field >= 0) {
		add_bind(lw->x, lw->var, lw->array ? -1 : field, at, v);
	}
	return CXChildVisit_Continue;
}

/* One braced list: an array's elements (their position is the index, at the outermost array)
 * or a struct's fields, in order or by designator (.run = fn). Nested lists go on. */
static void binds_in(struct fe_clang_expr *x, int var, CXCursor list, int64_t index, unsigned depth)
{
	CXType ty = fe_clang_lib.getCanonicalType(fe_clang_lib.getCursorType(list));
	struct list_walk lw = {.x = x, .var = var, .index = index, .depth = depth,
			       .array = ty.kind == CXType_ConstantArray || ty.kind == CXType_IncompleteArray};
	if (ty.kind == CXType_Record)
		fe_clang_lib.visitChildren(fe_clang_lib.getTypeDeclaration(ty), collect_field, &lw.fl);
	else if (!lw.array)
		return;
	fe_clang_lib.visitChildren(list, list_item, &lw);
}

void fe_clang_expr_binds(struct fe_clang_expr *x, int var, CXCursor init)
{
	CXCursor list = bare(init);
	if (fe_clang_lib.getCursorKind(list) == CXCursor_InitListExpr)
		binds_in(x, var, list, -1, 0);
}

/* ---- conditions ---------------------------------------------------------------------------- */

static const struct sir_cond *cond_of(struct fe_clang_expr *x, CXCursor e, unsigned depth)
{
	struct sir_cond *t = arena_alloc(x->a, sizeof(*t));
	t->ref = (struct sir_ref){.kind = REF_NONE, .decl = -1};
	if (fe_clang_lib.Cursor_isNull(e) || depth > 32)
		return t;
	struct fe_clang_kids kk = fe_clang_expr_kids(e);
	switch (fe_clang_lib.getCursorKind(e)) {
	case CXCursor_ParenExpr:
	case CXCursor_UnexposedExpr:
		if (kk.n == 1)
			return cond_of(x, kk.v[0], depth + 1);
		break;
	case CXCursor_CStyleCastExpr:
	case CXCursor_CXXStaticCastExpr:
	case CXCursor_CXXFunctionalCastExpr:
		if (kk.n)
			return cond_of(x, kk.last, depth + 1);    /* static_cast<bool>(x), CaptureStatus(st) */
		break;
	case CXCursor_UnaryOperator:
		if (fe_clang_lib.getCursorUnaryOperatorKind(e) != CXUnaryOperator_LNot || kk.n != 1)
			break;
		t->kind = COND_NOT;
		t->a = cond_of(x, kk.v[0], depth + 1);
		return t;
	case CXCursor_BinaryOperator: {
		static const struct {
			enum CXBinaryOperatorKind op;
			enum sir_cond_kind kind;
		} ops[] = {{CXBinaryOperator_LAnd, COND_AND}, {CXBinaryOperator_LOr, COND_OR},
			   {CXBinaryOperator_EQ, COND_EQ}, {CXBinaryOperator_NE, COND_NE}};
		enum CXBinaryOperatorKind op = fe_clang_lib.getCursorBinaryOperatorKind(e);
		for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]) && kk.n == 2; k++)
			if (ops[k].op == op) {
				t->kind = ops[k].kind;
				t->a = cond_of(x, kk.v[0], depth + 1);
				t->b = cond_of(x, kk.v[1], depth + 1);
				return t;
			}
		break;
	}
	case CXCursor_CallExpr: {
		CXCursor d = fe_clang_lib.getCursorReferenced(e);
		enum CXCursorKind dk = fe_clang_lib.getCursorKind(d);
		if (dk == CXCursor_ConversionFunction)
			return cond_of(x, fe_clang_expr_object(e), depth + 1);        /* operator bool */
		if (dk != CXCursor_FunctionDecl && dk != CXCursor_CXXMethod && dk != CXCursor_FunctionTemplate)
			break;
		t->name = fe_clang_expr_name(x->a, d);
		if (!strcmp(t->name, "__builtin_expect") && fe_clang_lib.Cursor_getNumArguments(e) == 2)
			return cond_of(x, fe_clang_lib.Cursor_getArgument(e, 0), depth + 1);    /* C10_UNLIKELY */
		t->kind = COND_CALL;
		t->n_args = fe_clang_expr_args(x, e, &t->args);
		return t;
	}
	default:
		break;
	}
	t->ref = ref_of(x, e, 0);
	t->kind = t->ref.kind == REF_OTHER && !t->ref.text ? COND_OTHER : COND_REF;
	return t;
}

const struct sir_cond *fe_clang_expr_cond(struct fe_clang_expr *x, CXCursor e)
{
	return cond_of(x, e, 0);
}

/* SPDX-License-Identifier: MIT */
/* fe_clang_walk: the functions of a translation unit libclang parsed, walked into sir (sir.h). */
#include "source/fe_clang_walk.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/strmap.h"
#include "source/fe_clang_callee.h"
#include "source/fe_clang_expr.h"
#include "source/fe_clang_lib.h"
#include "source/sir.h"

#define MAX_DEPTH 400           /* AST nesting walked; clang itself stops at 256 brackets */

bool fe_clang_walk_has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n > m && !strcmp(s + n - m, suf);
}

struct evbuf {
	struct sir_ev *v;
	size_t n, cap;
};

struct walker {
	struct fe_clang_expr x;         /* the unit being filled; x.fn is the function being walked */
	size_t cap_fns, cap_loops, cap_arms;
	struct strmap fns;
	const char **callee_usr;        /* per event of the function being walked */
	const char ***fn_callees;       /* per function: its events' callee USRs */
	struct evbuf ev;
	CXCursor *lambdas;              /* met in the bodies walked, walked as functions after them */
	size_t n_lambdas, cap_lambdas;
};

struct ctx {
	unsigned stmt_begin, stmt_end, blk_begin, blk_end;
	int loop, breakable, arm;
	unsigned cond, depth;
	bool discard, loop_control;
};

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
		.kind = kind, .loc = fe_clang_expr_loc(&w->x, l), .off = fe_clang_expr_offset(l), .callee = -1,
		.object = {.kind = REF_NONE, .decl = -1}, .stream = {.kind = REF_NONE, .decl = -1},
		.target = {.kind = REF_NONE, .decl = -1},
		.stmt_begin = x->stmt_begin, .stmt_end = x->stmt_end, .blk_begin = x->blk_begin, .blk_end = x->blk_end,
		.loop = x->loop, .breakable = x->breakable, .cond = x->cond, .loop_control = x->loop_control,
		.arm = x->arm,
	};
	/* Written through a macro: name it (CHECK_CUDA(...), a debug-sync macro). */
	CXFile sf, ef;
	unsigned soff, eoff;
	fe_clang_lib.getSpellingLocation(l, &sf, NULL, NULL, &soff);
	fe_clang_lib.getExpansionLocation(l, &ef, NULL, NULL, &eoff);
	if (sf != ef || soff != eoff) {
		CXToken *tok = fe_clang_lib.getToken(w->x.tu, fe_clang_lib.getLocationForOffset(w->x.tu, ef, eoff));
		if (tok) {
			if (fe_clang_lib.getTokenKind(*tok) == CXToken_Identifier)
				e->macro = fe_clang_lib_str(w->x.a, fe_clang_lib.getTokenSpelling(w->x.tu, *tok));
			fe_clang_lib.disposeTokens(w->x.tu, tok, 1);
		}
	}
	return e;
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
		fe_clang_expr_extent(c, &x.stmt_begin, &x.stmt_end);
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
	struct sir_tu *t = w->x.out;
	t->loops = arena_grow(w->x.a, t->loops, t->n_loops, &w->cap_loops, sizeof(*t->loops));
	struct sir_loop *l = &t->loops[t->n_loops];
	*l = (struct sir_loop){.up = up};
	fe_clang_expr_extent(c, &l->begin, &l->end);
	return (int)t->n_loops++;
}

/* for (int i = lo; i < hi; i++): the counter and its range, when written so (also i <= hi,
 * hi > i, ++i, i += 1, and an init that assigns instead of declaring). */
static void loop_bounds(struct walker *w, struct sir_loop *l, const struct fe_clang_kids *kk)
{
	CXCursor init = kk->v[0], test = fe_clang_expr_unwrap(kk->v[1]), step = fe_clang_expr_unwrap(kk->v[2]);
	CXCursor var = fe_clang_lib.getNullCursor(), from = var;
	if (fe_clang_lib.getCursorKind(init) == CXCursor_DeclStmt) {
		var = fe_clang_expr_first(init);
		from = fe_clang_expr_kids(var).last;
	} else if (fe_clang_lib.getCursorKind(init) == CXCursor_BinaryOperator &&
		   fe_clang_lib.getCursorBinaryOperatorKind(init) == CXBinaryOperator_Assign) {
		struct fe_clang_kids ik = fe_clang_expr_kids(init);
		var = fe_clang_lib.getCursorReferenced(fe_clang_expr_unwrap(ik.v[0]));
		from = ik.v[1];
	}
	if (fe_clang_lib.getCursorKind(var) != CXCursor_VarDecl)
		return;
	int v = fe_clang_expr_decl(&w->x, var);
	/* the step: ++i, i++, i += 1 */
	enum CXCursorKind sk = fe_clang_lib.getCursorKind(step);
	struct sir_bound one;
	bool up = (sk == CXCursor_UnaryOperator && (fe_clang_lib.getCursorUnaryOperatorKind(step) == CXUnaryOperator_PostInc ||
						     fe_clang_lib.getCursorUnaryOperatorKind(step) == CXUnaryOperator_PreInc)) ||
		  (sk == CXCursor_CompoundAssignOperator && fe_clang_lib.getCursorBinaryOperatorKind(step) == CXBinaryOperator_AddAssign &&
		   fe_clang_expr_affine(&w->x, fe_clang_expr_kids(step).last, &one) && !one.var1 && one.add == 1);
	struct fe_clang_kids tk = fe_clang_expr_kids(test);
	if (!up || v < 0 || fe_clang_lib.getCursorKind(test) != CXCursor_BinaryOperator || tk.n != 2)
		return;
	/* i < hi, i <= hi, hi > i, hi >= i */
	enum CXBinaryOperatorKind op = fe_clang_lib.getCursorBinaryOperatorKind(test);
	struct sir_bound lhs, hi;
	bool flip = op == CXBinaryOperator_GT || op == CXBinaryOperator_GE;
	bool incl = op == CXBinaryOperator_LE || op == CXBinaryOperator_GE;
	if (op != CXBinaryOperator_LT && op != CXBinaryOperator_LE && !flip && !incl)
		return;
	if (!fe_clang_expr_affine(&w->x, tk.v[flip ? 1 : 0], &lhs) || lhs.var1 != v + 1 || lhs.add)
		return;
	l->var1 = v + 1;
	fe_clang_expr_affine(&w->x, from, &l->lo);
	if (fe_clang_expr_affine(&w->x, tk.v[flip ? 0 : 1], &hi))
		l->hi = (struct sir_bound){true, hi.var1, hi.add + incl};
}

static int new_arm(struct walker *w, CXCursor c, int up, const struct sir_cond *cond, bool when)
{
	struct sir_tu *t = w->x.out;
	t->arms = arena_grow(w->x.a, t->arms, t->n_arms, &w->cap_arms, sizeof(*t->arms));
	t->arms[t->n_arms] = (struct sir_arm){.fn = w->x.fn, .up = up, .cond = cond, .when = when, .ev = w->ev.n,
					      .loc = fe_clang_expr_loc(&w->x, fe_clang_lib.getCursorLocation(c))};
	return (int)t->n_arms++;
}

/* A variable tested against null ('other' the null, or none for a truth test): counted apart
 * from its other uses, since testing a graph handle does not hand it on. */
static void null_test(struct walker *w, CXCursor e, CXCursor other)
{
	CXCursor v = fe_clang_expr_unwrap(e);
	if (fe_clang_lib.getCursorKind(v) != CXCursor_DeclRefExpr ||
	    (!fe_clang_lib.Cursor_isNull(other) && fe_clang_expr_ref(&w->x, other).kind != REF_NULL))
		return;
	CXCursor d = fe_clang_lib.getCursorReferenced(v);
	int i = fe_clang_expr_is_var(fe_clang_lib.getCursorKind(d)) ? fe_clang_expr_decl(&w->x, d) : -1;
	if (i >= 0)
		w->x.out->decls[i].tests++;
}

/* Whether an if's last child is its else: after the declarations it may start with (a
 * condition variable, a C++17 init-statement), a condition, the then part, and one more. */
static bool has_else(const struct fe_clang_kids *kk)
{
	unsigned lead = 0;
	while (lead < kk->n && lead < 8) {
		enum CXCursorKind k = fe_clang_lib.getCursorKind(kk->v[lead]);
		if (!fe_clang_lib.isDeclaration(k) && k != CXCursor_DeclStmt)
			break;
		lead++;
	}
	return kk->n - lead >= 3;
}

/* The children of an if, ?: or && / ||: those from 'first' on in arms of their own, the first
 * of them when 'cond' holds (negated: when it does not), the next (an else) when it does not. */
static void walk_arms(struct walker *w, CXCursor c, const struct fe_clang_kids *kk, unsigned first,
		      const struct sir_cond *cond, bool when, struct ctx x)
{
	x.discard = false;
	for (unsigned i = 0; i < kk->n && i < 8; i++) {
		struct ctx y = x;
		if (i >= first)
			y.arm = new_arm(w, c, x.arm, cond, i == first ? when : !when);
		walk(w, kk->v[i], y);
	}
}

/* A call through a function pointer (fp(s), engine.run(s)): what is called is the callee
 * expression, whose target the checks look up. */
static void on_pointer_call(struct walker *w, CXCursor c, const struct ctx *x)
{
	struct sir_ev *e = new_event(w, EV_CALL, c, x);
	e->indirect = true;
	e->used = !x->discard;
	e->object = fe_clang_expr_ref(&w->x, fe_clang_expr_first(c));
	e->n_args = fe_clang_expr_args(&w->x, c, &e->args);
}

/* obj(args) on a lambda or std::function: libclang counts the object as the first argument. */
static void object_call(struct walker *w, struct sir_ev *e, CXCursor d)
{
	if (!e->n_args)
		return;
	e->object = e->args[0];
	e->args++;
	e->n_args--;
	const char *key = fe_clang_expr_fn_key(w->x.a, d);
	if (key && !strncmp(key, "lambda@", 7))
		w->callee_usr[w->ev.n - 1] = key;
	else if (!key)
		e->indirect = true;     /* std::function: what it holds is looked up */
}

static void on_call(struct walker *w, CXCursor c, const struct ctx *x)
{
	CXCursor d = fe_clang_lib.getCursorReferenced(c);
	if (fe_clang_lib.Cursor_isNull(d) || fe_clang_lib.getCursorKind(d) == CXCursor_OverloadedDeclRef)
		d = fe_clang_callee_dependent(&w->x, c);
	enum CXCursorKind dk = fe_clang_lib.getCursorKind(d);
	if (fe_clang_expr_is_var(dk) ||
	    (fe_clang_lib.Cursor_isNull(d) && fe_clang_lib.getCursorKind(fe_clang_expr_unwrap(fe_clang_expr_first(c))) == CXCursor_ArraySubscriptExpr)) {
		on_pointer_call(w, c, x);       /* fp(s), p->run(s), handlers[k](s) */
		return;
	}
	if (dk != CXCursor_FunctionDecl && dk != CXCursor_CXXMethod && dk != CXCursor_Constructor &&
	    dk != CXCursor_FunctionTemplate && dk != CXCursor_ConversionFunction)
		return;
	const char *name = fe_clang_expr_name(w->x.a, d);
	if (!strcmp(name, "cudaConfigureCall") || !strcmp(name, "__cudaPushCallConfiguration"))
		return;         /* part of a launch, read there */
	bool launch = dk == CXCursor_FunctionDecl || dk == CXCursor_FunctionTemplate ? fe_clang_callee_is_kernel(d) : false;
	struct sir_ev *e = new_event(w, launch ? EV_LAUNCH : EV_CALL, c, x);
	e->name = name;
	e->used = !x->discard;
	e->n_args = fe_clang_expr_args(&w->x, c, &e->args);
	if (launch) {
		CXCursor cfg = fe_clang_callee_config(c);
		if (!fe_clang_lib.Cursor_isNull(cfg) && fe_clang_lib.Cursor_getNumArguments(cfg) >= 4)
			e->stream = fe_clang_expr_ref(&w->x, fe_clang_lib.Cursor_getArgument(cfg, 3));
		else
			e->stream.kind = REF_NONE;
		return;
	}
	if (dk == CXCursor_CXXMethod || dk == CXCursor_ConversionFunction)
		e->object = fe_clang_expr_ref(&w->x, fe_clang_expr_object(c));
	if (dk == CXCursor_CXXMethod && fe_clang_lib.getCursorKind(fe_clang_expr_unwrap(fe_clang_expr_first(c))) != CXCursor_MemberRefExpr &&
	    fe_clang_walk_has_suffix(name, "operator()")) {
		object_call(w, e, d);
		return;
	}
	/* a function this TU defines, resolved once every function is known */
	CXCursor def = fe_clang_lib.getCursorDefinition(d);
	if (!fe_clang_lib.Cursor_isNull(def) && !fe_clang_lib.Location_isInSystemHeader(fe_clang_lib.getCursorLocation(def)))
		w->callee_usr[w->ev.n - 1] = fe_clang_expr_fn_key(w->x.a, def);
	else if (fe_clang_lib.Cursor_isNull(def) && dk != CXCursor_Constructor &&
		 !fe_clang_lib.Location_isInSystemHeader(fe_clang_lib.getCursorLocation(d)))
		e->no_body = true;      /* the project's, defined in another file */
}

/* A value that is a test (a comparison, &&, ||, !), read as one: bool capturing = st != None. */
static const struct sir_cond *test_of(struct walker *w, CXCursor value)
{
	CXCursor v = fe_clang_expr_unwrap(value);
	enum CXCursorKind k = fe_clang_lib.getCursorKind(v);
	bool test = (k == CXCursor_BinaryOperator && fe_clang_lib.getCursorBinaryOperatorKind(v) >= CXBinaryOperator_LT &&
		     fe_clang_lib.getCursorBinaryOperatorKind(v) <= CXBinaryOperator_LOr) ||
		    (k == CXCursor_UnaryOperator && fe_clang_lib.getCursorUnaryOperatorKind(v) == CXUnaryOperator_LNot);
	return test ? fe_clang_expr_cond(&w->x, v) : NULL;
}

static void on_write(struct walker *w, CXCursor c, CXCursor target, CXCursor value, bool counter,
		     const struct ctx *x)
{
	struct sir_ref t = fe_clang_expr_ref(&w->x, target);
	if (t.kind != REF_VAR || t.elem)
		return;
	struct sir_ev *e = new_event(w, EV_WRITE, c, x);
	e->target = t;
	e->counter = counter;
	if (!fe_clang_lib.Cursor_isNull(value)) {
		e->args = arena_alloc(w->x.a, sizeof(*e->args));
		e->args[0] = fe_clang_expr_ref(&w->x, value);
		e->n_args = 1;
		e->from_call = fe_clang_lib.getCursorKind(fe_clang_expr_unwrap(value)) == CXCursor_CallExpr;
		e->value = test_of(w, value);
	}
}

static void on_var_decl(struct walker *w, CXCursor c, const struct ctx *x)
{
	int idx = fe_clang_expr_decl(&w->x, c);
	if (idx < 0)
		return;
	struct fe_clang_kids k = fe_clang_expr_kids(c);
	if (!k.n)
		return;
	CXCursor init = k.last;
	CXCursor core = fe_clang_expr_unwrap(init);
	if (fe_clang_lib.getCursorKind(core) == CXCursor_CallExpr &&
	    fe_clang_lib.getCursorKind(fe_clang_lib.getCursorReferenced(core)) == CXCursor_Constructor) {
		/* a guard such as CUDAStreamCaptureModeGuard g{mode}: an object, not a write */
		struct sir_ev *e = new_event(w, EV_VAR, c, x);
		e->name = fe_clang_expr_name(w->x.a, fe_clang_lib.getCursorSemanticParent(fe_clang_lib.getCursorReferenced(core)));
		e->target = (struct sir_ref){.kind = REF_VAR, .decl = idx, .text = w->x.out->decls[idx].name};
		e->n_args = fe_clang_expr_args(&w->x, core, &e->args);
		return;
	}
	if (!fe_clang_lib.isExpression(fe_clang_lib.getCursorKind(init)))
		return;
	fe_clang_expr_binds(&w->x, idx, init);
	struct sir_ev *e = new_event(w, EV_WRITE, c, x);
	e->target = (struct sir_ref){.kind = REF_VAR, .decl = idx, .text = w->x.out->decls[idx].name};
	e->args = arena_alloc(w->x.a, sizeof(*e->args));
	e->args[0] = fe_clang_expr_ref(&w->x, init);
	e->value = test_of(w, init);
	e->n_args = 1;
	e->from_call = fe_clang_lib.getCursorKind(core) == CXCursor_CallExpr;
}

/* The variable of a range-for holds each element of the range in turn: a write of "some element"
 * of it (an element whose index cglint does not know), when the range is a variable. */
static void range_var(struct walker *w, CXCursor var, CXCursor range, const struct ctx *x)
{
	int idx = fe_clang_expr_decl(&w->x, var);
	struct sir_ref r = fe_clang_expr_ref(&w->x, range);
	if (idx < 0 || r.kind != REF_VAR || r.elem || r.addr)
		return;
	const char *name = r.text ? r.text : w->x.out->decls[r.decl].name;
	r.elem = true;
	r.const_index = false;
	r.index = 0;
	r.index_var1 = 0;
	r.text = arena_printf(w->x.a, "%s[...]", name);
	struct sir_ev *e = new_event(w, EV_WRITE, var, x);
	e->target = (struct sir_ref){.kind = REF_VAR, .decl = idx, .text = w->x.out->decls[idx].name};
	e->args = arena_alloc(w->x.a, sizeof(*e->args));
	e->args[0] = r;
	e->n_args = 1;
	e->loop_control = true;
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
	case CXCursor_LambdaExpr:       /* its body runs when called, not here: a function of its own */
		if (!fe_clang_lib.Location_isInSystemHeader(fe_clang_lib.getCursorLocation(c))) {
			if (w->n_lambdas == w->cap_lambdas) {
				w->cap_lambdas = w->cap_lambdas ? 2 * w->cap_lambdas : 8;
				w->lambdas = mem_realloc(w->lambdas, w->cap_lambdas * sizeof(*w->lambdas));
			}
			w->lambdas[w->n_lambdas++] = c;
		}
		return;
	case CXCursor_CompoundStmt:
		fe_clang_expr_extent(c, &x.blk_begin, &x.blk_end);
		break;
	case CXCursor_ForStmt: {
		/* init, condition and increment are loop control; the body is the last child */
		x.loop = x.breakable = new_loop(w, c, x.breakable);
		x.cond = 0;
		struct fe_clang_kids kk = fe_clang_expr_kids(c);
		if (kk.n == 4)
			loop_bounds(w, &w->x.out->loops[x.loop], &kk);
		for (unsigned i = 0; i < kk.n && i < 8; i++) {
			struct ctx y = x;
			y.loop_control = i + 1 < kk.n;
			y.discard = i + 1 == kk.n;
			if (i + 1 == kk.n)
				fe_clang_expr_extent(kk.v[i], &y.stmt_begin, &y.stmt_end);
			walk(w, kk.v[i], y);
		}
		return;
	}
	case CXCursor_DoStmt:
		if (is_false(fe_clang_expr_kids(c).last)) {
			x.breakable = new_loop(w, c, x.breakable);  /* do { } while (0): a block, not a loop */
			break;
		}
		x.loop = x.breakable = new_loop(w, c, x.breakable);
		x.cond = 0;
		x.loop_control = false;
		break;
	case CXCursor_WhileStmt:
		x.loop = x.breakable = new_loop(w, c, x.breakable);
		x.cond = 0;
		x.loop_control = false;
		break;
	case CXCursor_CXXForRangeStmt: {
		x.loop = x.breakable = new_loop(w, c, x.breakable);
		x.cond = 0;
		x.loop_control = false;
		/* for (auto s : streams): the variable, then the range, then the body */
		struct fe_clang_kids kk = fe_clang_expr_kids(c);
		if (kk.n < 3 || fe_clang_lib.getCursorKind(kk.v[0]) != CXCursor_VarDecl)
			break;
		range_var(w, kk.v[0], kk.v[kk.n - 2], &x);
		for (unsigned i = 1; i < kk.n && i < 8; i++)
			walk(w, kk.v[i], x);
		return;
	}
	case CXCursor_SwitchStmt:
		x.breakable = new_loop(w, c, x.breakable);
		x.arm = new_arm(w, c, x.arm, NULL, true);
		x.cond++;
		break;
	case CXCursor_IfStmt: {
		x.cond++;
		struct fe_clang_kids kk = fe_clang_expr_kids(c);
		if (kk.n < 2)
			break;
		unsigned then = kk.n - (has_else(&kk) ? 2 : 1);     /* before it: init, variable, condition */
		null_test(w, kk.v[then - 1], fe_clang_lib.getNullCursor());
		walk_arms(w, c, &kk, then, then ? fe_clang_expr_cond(&w->x, kk.v[then - 1]) : NULL, true, x);
		return;
	}
	case CXCursor_ConditionalOperator: {
		x.cond++;
		struct fe_clang_kids kk = fe_clang_expr_kids(c);
		if (kk.n != 3)
			break;
		null_test(w, kk.v[0], fe_clang_lib.getNullCursor());
		walk_arms(w, c, &kk, 1, fe_clang_expr_cond(&w->x, kk.v[0]), true, x);
		return;
	}
	case CXCursor_BinaryOperator: {
		enum CXBinaryOperatorKind op = fe_clang_lib.getCursorBinaryOperatorKind(c);
		if (op == CXBinaryOperator_LAnd || op == CXBinaryOperator_LOr) {
			x.cond++;
			struct fe_clang_kids kk = fe_clang_expr_kids(c);
			if (kk.n != 2)
				break;
			null_test(w, kk.v[0], fe_clang_lib.getNullCursor());
			null_test(w, kk.v[1], fe_clang_lib.getNullCursor());
			walk_arms(w, c, &kk, 1, fe_clang_expr_cond(&w->x, kk.v[0]), op == CXBinaryOperator_LAnd, x);
			return;
		} else if (op == CXBinaryOperator_EQ || op == CXBinaryOperator_NE) {
			struct fe_clang_kids kk = fe_clang_expr_kids(c);
			if (kk.n == 2) {
				null_test(w, kk.v[0], kk.v[1]);
				null_test(w, kk.v[1], kk.v[0]);
			}
		} else if (op == CXBinaryOperator_Assign) {
			struct fe_clang_kids kk = fe_clang_expr_kids(c);
			if (kk.n == 2)
				on_write(w, c, kk.v[0], kk.v[1], false, &x);
		}
		break;
	}
	case CXCursor_CompoundAssignOperator: {
		struct fe_clang_kids kk = fe_clang_expr_kids(c);
		if (kk.n == 2)
			on_write(w, c, kk.v[0], kk.v[1], true, &x);
		break;
	}
	case CXCursor_UnaryOperator: {
		enum CXUnaryOperatorKind op = fe_clang_lib.getCursorUnaryOperatorKind(c);
		if (op >= CXUnaryOperator_PostInc && op <= CXUnaryOperator_PreDec)
			on_write(w, c, fe_clang_expr_first(c), fe_clang_lib.getNullCursor(), true, &x);
		else if (op == CXUnaryOperator_LNot)
			null_test(w, fe_clang_expr_first(c), fe_clang_lib.getNullCursor());
		break;
	}
	case CXCursor_VarDecl:
		on_var_decl(w, c, &x);
		break;
	case CXCursor_DeclRefExpr:
	case CXCursor_MemberRefExpr: {
		CXCursor d = fe_clang_lib.getCursorReferenced(c);
		if (fe_clang_expr_is_var(fe_clang_lib.getCursorKind(d))) {
			int i = fe_clang_expr_decl(&w->x, d);
			if (i >= 0)
				w->x.out->decls[i].uses++;
		}
		break;
	}
	case CXCursor_CallExpr:
		on_call(w, c, &x);
		break;
	case CXCursor_ReturnStmt: {
		struct sir_ev *e = new_event(w, EV_RETURN, c, &x);
		struct fe_clang_kids kk = fe_clang_expr_kids(c);
		if (kk.n == 1) {
			e->value = fe_clang_expr_cond(&w->x, kk.v[0]);
			e->args = arena_alloc(w->x.a, sizeof(*e->args));
			e->args[0] = fe_clang_expr_ref(&w->x, kk.v[0]);
			e->n_args = 1;
		}
		break;
	}
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
		CXCursor label = fe_clang_lib.getCursorReferenced(fe_clang_expr_first(c));
		e->jump_to = fe_clang_lib.Cursor_isNull(label) ? 0 : fe_clang_expr_offset(fe_clang_lib.getCursorLocation(label));
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

static enum CXChildVisitResult lambda_params(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	if (fe_clang_lib.getCursorKind(c) == CXCursor_ParmDecl)
		fe_clang_expr_decl(data, c);
	return CXChildVisit_Continue;
}

/* A function definition, or a lambda (named after its line, keyed where it is written). */
static void add_function(struct walker *w, CXCursor c)
{
	struct sir_tu *t = w->x.out;
	bool lambda = fe_clang_lib.getCursorKind(c) == CXCursor_LambdaExpr;
	t->fns = arena_grow(w->x.a, t->fns, t->n_fns, &w->cap_fns, sizeof(*t->fns));
	w->fn_callees = mem_realloc(w->fn_callees, w->cap_fns * sizeof(*w->fn_callees));
	w->x.fn = (int)t->n_fns;
	struct sir_fn *f = &t->fns[t->n_fns++];
	CXSourceLocation l = fe_clang_lib.getCursorLocation(c);
	*f = (struct sir_fn){.name = fe_clang_expr_name(w->x.a, c), .loc = fe_clang_expr_loc(&w->x, l),
			     .in_main = fe_clang_expr_in_main(&w->x, l)};
	if (lambda)
		f->name = arena_printf(w->x.a, "the lambda at line %u", f->loc.line);
	fe_clang_expr_extent(c, &f->begin, &f->end);
	const char *u = lambda ? fe_clang_expr_fn_key(w->x.a, c) : fe_clang_lib_str(w->x.a, fe_clang_lib.getCursorUSR(c));
	strmap_put(&w->fns, u, strlen(u), (size_t)w->x.fn);
	w->ev.n = 0;
	/* parameters first, so they get their positions before the body refers to them */
	int nargs = lambda ? 0 : fe_clang_lib.Cursor_getNumArguments(c);
	for (int i = 0; i < nargs; i++)
		fe_clang_expr_decl(&w->x, fe_clang_lib.Cursor_getArgument(c, (unsigned)i));
	if (lambda || nargs < 0)        /* a lambda's or a template's: among its children */
		fe_clang_lib.visitChildren(c, lambda_params, &w->x);
	struct ctx x = {.loop = -1, .breakable = -1, .arm = -1};
	fe_clang_expr_extent(c, &x.stmt_begin, &x.stmt_end);
	CXCursor body = fe_clang_expr_kids(c).last;     /* a definition's body is its last child */
	enum CXCursorKind bk = fe_clang_lib.getCursorKind(body);
	if (bk == CXCursor_CompoundStmt || bk == CXCursor_CXXTryStmt)
		walk(w, body, x);
	f = &t->fns[w->x.fn];
	f->n_ev = w->ev.n;
	f->ev = arena_alloc(w->x.a, (w->ev.n ? w->ev.n : 1) * sizeof(*f->ev));
	if (w->ev.n)
		memcpy(f->ev, w->ev.v, w->ev.n * sizeof(*f->ev));
	const char **usrs = arena_alloc(w->x.a, (w->ev.n ? w->ev.n : 1) * sizeof(*usrs));
	if (w->ev.n)
		memcpy(usrs, w->callee_usr, w->ev.n * sizeof(*usrs));
	w->fn_callees[w->x.fn] = usrs;
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
	if (k == CXCursor_VarDecl) {
		/* a table of handlers or a struct of callbacks: { "name", fn } */
		struct fe_clang_kids kk = fe_clang_expr_kids(c);
		int fn = w->x.fn, idx;
		w->x.fn = -1;
		if (kk.n && fe_clang_lib.isExpression(fe_clang_lib.getCursorKind(kk.last)) &&
		    (idx = fe_clang_expr_decl(&w->x, c)) >= 0)
			fe_clang_expr_binds(&w->x, idx, kk.last);
		w->x.fn = fn;
		return CXChildVisit_Continue;
	}
	if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_ClassDecl ||
	    k == CXCursor_StructDecl || k == CXCursor_ClassTemplate || k == CXCursor_UnexposedDecl)
		return CXChildVisit_Recurse;
	return CXChildVisit_Continue;
}

/* A local that only ever holds an element of one array (cudaStream_t cur = streams[i % n], the
 * variable of a range-for over it), and whose address is never taken: that element. All the
 * writes' indices the same constant keep it, else the element is "some element". */
static void find_elem_aliases(struct arena *a, struct sir_tu *t)
{
	for (size_t f = 0; f < t->n_fns; f++)
		for (size_t i = 0; i < t->fns[f].n_ev; i++) {
			const struct sir_ev *e = &t->fns[f].ev[i];
			for (unsigned k = 0; k < e->n_args; k++)        /* &cur: written where cglint cannot see */
				if (e->args[k].kind == REF_VAR && e->args[k].addr && !e->args[k].elem)
					t->decls[e->args[k].decl].alias_bad = true;
			if (e->kind != EV_WRITE || e->target.kind != REF_VAR || e->target.elem)
				continue;
			struct sir_decl *d = &t->decls[e->target.decl];
			const struct sir_ref *v = e->n_args ? &e->args[0] : NULL;
			if (d->alias_bad)
				continue;
			if (d->kind != DECL_LOCAL || e->counter || !v || v->kind != REF_VAR || !v->elem || v->addr ||
			    (d->elem_of && d->elem_of->decl != v->decl)) {
				d->alias_bad = true;
				d->elem_of = NULL;
				continue;
			}
			if (!d->elem_of) {
				d->elem_of = v;
				continue;
			}
			if (d->elem_of->const_index && v->const_index && d->elem_of->index == v->index)
				continue;
			if (d->elem_of->const_index || d->elem_of->index_var1) {     /* another index: some element */
				struct sir_ref *some = arena_alloc(a, sizeof(*some));
				*some = *v;
				some->const_index = false;
				some->index = 0;
				some->index_var1 = 0;
				d->elem_of = some;
			}
		}
	for (size_t k = 0; k < t->n_decls; k++)
		if (t->decls[k].alias_bad)
			t->decls[k].elem_of = NULL;
}

static void resolve_ref(struct walker *w, struct sir_ref *r)
{
	size_t fn;
	if (r->fn_key && strmap_get(&w->fns, r->fn_key, strlen(r->fn_key), &fn))
		r->fn1 = (int)fn + 1;
}

static void resolve_callees(struct walker *w)
{
	struct sir_tu *t = w->x.out;
	for (size_t f = 0; f < t->n_fns; f++)
		for (size_t i = 0; i < t->fns[f].n_ev; i++) {
			struct sir_ev *e = &t->fns[f].ev[i];
			const char *usr = w->fn_callees[f][i];
			size_t fn;
			if (usr)
				e->callee = strmap_get(&w->fns, usr, strlen(usr), &fn) ? (int)fn : -1;
			resolve_ref(w, &e->object);
			resolve_ref(w, &e->target);
			for (unsigned k = 0; k < e->n_args; k++)
				resolve_ref(w, &e->args[k]);
		}
	for (size_t b = 0; b < t->n_binds; b++) {
		struct sir_ref r = {.fn_key = t->binds[b].fn_key};
		resolve_ref(w, &r);
		t->binds[b].fn1 = r.fn1;
	}
}

struct sir_tu *fe_clang_walk_tu(struct arena *a, struct CXTranslationUnitImpl *tu, const char *path,
				const char *abspath, const char *buf, size_t len, bool per_thread)
{
	struct walker w = {.x = {.a = a, .tu = tu, .main_path = path, .fn = -1, .buf = buf, .len = len,
				 .main_file = fe_clang_lib.getFile(tu, abspath)}};
	struct sir_tu *out = w.x.out = arena_alloc(a, sizeof(*w.x.out));
	out->path = path;
	out->per_thread_stream = per_thread;
	fe_clang_lib.visitChildren(fe_clang_lib.getTranslationUnitCursor(tu), find_functions, &w);
	for (size_t k = 0; k < w.n_lambdas; k++)        /* a lambda's body may hold more */
		add_function(&w, w.lambdas[k]);
	resolve_callees(&w);
	find_elem_aliases(a, out);
	free(w.lambdas);
	free(w.ev.v);
	free(w.callee_usr);
	free(w.fn_callees);
	strmap_release(&w.x.decls);
	strmap_release(&w.fns);
	return out;
}

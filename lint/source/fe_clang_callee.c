/* SPDX-License-Identifier: MIT */
/* fe_clang_callee: what a call calls, where the cursor alone does not say (see fe_clang_callee.h). */
#include "source/fe_clang_callee.h"

#include <ctype.h>
#include <string.h>

#include "source/fe_clang_expr.h"
#include "source/fe_clang_lib.h"

static enum CXChildVisitResult find_global_attr(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	if (fe_clang_lib.getCursorKind(c) == CXCursor_CUDAGlobalAttr) {
		*(bool *)data = true;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Continue;
}

bool fe_clang_callee_is_kernel(CXCursor fn)
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

CXCursor fe_clang_callee_config(CXCursor launch)
{
	CXCursor cfg = fe_clang_lib.getNullCursor();
	fe_clang_lib.visitChildren(launch, find_config, &cfg);
	return cfg;
}

/* A function looked up by name among a class template's members. */
struct named {
	const char *name;
	size_t len;
	CXCursor found;
};

static enum CXChildVisitResult find_method(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct named *n = data;
	enum CXCursorKind k = fe_clang_lib.getCursorKind(c);
	if (k != CXCursor_CXXMethod && k != CXCursor_FunctionTemplate)
		return CXChildVisit_Continue;
	CXString s = fe_clang_lib.getCursorSpelling(c);
	const char *sp = fe_clang_lib.getCString(s);
	bool same = sp && strlen(sp) == n->len && !strncmp(sp, n->name, n->len);
	fe_clang_lib.disposeString(s);
	if (!same)
		return CXChildVisit_Continue;
	n->found = c;
	return CXChildVisit_Break;
}

static bool ident_char(char c)
{
	return c == '_' || isalnum((unsigned char)c);
}

/* Traits<T>::launch(...): a member of a class template named through the template's own
 * arguments; clang leaves the name unresolved, so it is read from the text (main file). */
static CXCursor dependent_member(const struct fe_clang_expr *x, CXCursor callee)
{
	CXCursor scope = fe_clang_expr_first(callee);
	if (fe_clang_lib.getCursorKind(scope) != CXCursor_TemplateRef)
		return fe_clang_lib.getNullCursor();
	unsigned b, e;
	fe_clang_expr_extent(callee, &b, &e);
	if (!fe_clang_expr_in_main(x, fe_clang_lib.getCursorLocation(callee)) || e > x->len || b >= e)
		return fe_clang_lib.getNullCursor();
	const char *t = x->buf;
	while (e > b && ident_char(t[e - 1]))
		e--;
	size_t len = 0;
	while (e + len < x->len && ident_char(t[e + len]))
		len++;
	struct named n = {t + e, len, fe_clang_lib.getNullCursor()};
	if (len && e >= 2 && t[e - 1] == ':')
		fe_clang_lib.visitChildren(fe_clang_lib.getCursorReferenced(scope), find_method, &n);
	return n.found;
}

CXCursor fe_clang_callee_dependent(const struct fe_clang_expr *x, CXCursor call)
{
	CXCursor callee = fe_clang_expr_unwrap(fe_clang_expr_first(call));
	if (fe_clang_lib.getCursorKind(callee) == CXCursor_DeclRefExpr && fe_clang_lib.Cursor_isNull(fe_clang_lib.getCursorReferenced(callee)))
		return dependent_member(x, callee);
	if (fe_clang_lib.getCursorKind(callee) != CXCursor_OverloadedDeclRef)
		callee = fe_clang_expr_first(callee);   /* sync_step<T>(...): the name under the template-id */
	if (fe_clang_lib.getCursorKind(callee) != CXCursor_OverloadedDeclRef || !fe_clang_lib.getNumOverloadedDecls(callee))
		return fe_clang_lib.getNullCursor();
	return fe_clang_lib.getOverloadedDecl(callee, 0);
}

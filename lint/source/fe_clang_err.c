/* SPDX-License-Identifier: MIT */
/* fe_clang_err: a translation unit's errors, missing declarations apart (see fe_clang_err.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "source/fe_clang_err.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/strmap.h"
#include "source/fe_clang_lib.h"

#define MAX_NAMES 8

/* What clang says when it meets a name nothing declares; it goes on past these. */
static const char *const missing_forms[] = {
	"file not found",                       /* 'helper_cuda.h' file not found */
	"use of undeclared identifier ",
	"unknown type name ",
	"no member named ",
	"no template named ",
	"no type named ",
	"call to undeclared function ",
	"undeclared identifier ",
	"is not a class, namespace, or enumeration",
	"no matching function for call to ",    /* an overload the missing declarations would add */
	"invalid operands to binary expression",        /* float3 * float without helper_math.h */
	"no viable overloaded ",
};

struct names {
	struct arena *a;
	struct strmap seen;
	struct sbuf sb;
	unsigned n, more;
};

static void add_name(struct names *nm, const char *name, size_t len)
{
	size_t dummy;
	if (!len || strmap_get(&nm->seen, name, len, &dummy))
		return;
	strmap_put(&nm->seen, arena_strndup(nm->a, name, len), len, 0);
	if (nm->n++ >= MAX_NAMES) {
		nm->more++;
		return;
	}
	if (nm->sb.len)
		sbuf_adds(&nm->sb, ", ");
	sbuf_addn(&nm->sb, name, len);
}

/* The quoted name in "unknown type name 'clock_t'", or the header in "'x.h' file not found". */
static void name_of(struct names *nm, const char *msg)
{
	const char *q = strchr(msg, '\'');
	const char *e = q ? strchr(q + 1, '\'') : NULL;
	if (!e)
		return;
	if (strstr(msg, "file not found"))
		add_name(nm, q, (size_t)(e - q) + 1);   /* a header keeps its quotes */
	else
		add_name(nm, q + 1, (size_t)(e - q - 1));
}

bool fe_clang_err_is_missing(const char *msg)
{
	for (size_t k = 0; k < sizeof(missing_forms) / sizeof(missing_forms[0]); k++)
		if (strstr(msg, missing_forms[k]))
			return true;
	return false;
}

/* A call to a name nothing declares: clang keeps it as an empty overload set. After a header
 * is not found clang reports nothing more, so these are read off the AST. */
static enum CXChildVisitResult unresolved(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	if (!fe_clang_lib.Location_isFromMainFile(fe_clang_lib.getCursorLocation(c)))
		return CXChildVisit_Continue;
	if (fe_clang_lib.getCursorKind(c) == CXCursor_OverloadedDeclRef && fe_clang_lib.getNumOverloadedDecls(c) == 0) {
		struct names *nm = data;
		const char *s = fe_clang_lib_str(nm->a, fe_clang_lib.getCursorSpelling(c));
		add_name(nm, s, strlen(s));
	}
	return CXChildVisit_Recurse;
}

static bool inside(const char *file, const char *const *dirs)
{
	for (; *dirs; dirs++) {
		size_t n = strlen(*dirs);
		if (!strncmp(file, *dirs, n) && (file[n] == '/' || !file[n] || (n && (*dirs)[n - 1] == '/')))
			return true;
	}
	return false;
}

/* One error: clang's message, its file (NULL: the driver's), position, and whether it is in the
 * main file. */
struct reading {
	struct arena *a;
	const char *path;
	const char *const *trusted;
	struct fe_clang_err *e;
	struct names nm;
	size_t cap;
	bool any_missing;
};

static void one(struct reading *r, const char *msg, const char *name, unsigned line, unsigned col, unsigned off,
		bool main)
{
	struct fe_clang_err *e = r->e;
	char real[PATH_MAX];    /* "repo/../secret.txt" is not inside repo/ */
	bool quoted = main || !name || inside(realpath(name, real) ? real : name, r->trusted);
	const char *text = main || !name ? msg
			 : quoted ? arena_printf(r->a, "%s:%u:%u: %s", name, line, col, msg)
			 : arena_printf(r->a, "%s:%u:%u: an error in a file outside the repository (not quoted)", name,
					line, col);
	if (!e->count++) {
		e->first = text;
		if (main)
			e->where = (struct loc){r->path, line, col};
	}
	if (fe_clang_err_is_missing(msg)) {
		r->any_missing = true;
		if (quoted)
			name_of(&r->nm, msg);
	} else if (!main) {
		if (!e->other_elsewhere)
			e->other_first = text;
		e->other_elsewhere = true;
	} else {
		if (e->n_other == r->cap) {
			unsigned *v = arena_alloc(r->a, (r->cap = r->cap ? r->cap * 2 : 8) * sizeof(*v));
			if (e->n_other)
				memcpy(v, e->other_off, e->n_other * sizeof(*v));
			e->other_off = v;
		}
		e->other_off[e->n_other++] = off;
	}
}

void fe_clang_err_read(struct arena *a, struct CXTranslationUnitImpl *tu, const char *path,
		       const char *const *trusted, const struct fe_clang_err_item *pre, size_t n_pre,
		       struct fe_clang_err *e)
{
	*e = (struct fe_clang_err){.where = {path, 0, 0}};
	struct reading r = {.a = a, .path = path, .trusted = trusted, .e = e, .nm = {.a = a}};
	sbuf_init(&r.nm.sb);
	for (size_t k = 0; k < n_pre; k++)
		one(&r, pre[k].msg, pre[k].file, pre[k].line, pre[k].col, 0, false);
	unsigned n = fe_clang_lib.getNumDiagnostics(tu);
	for (unsigned i = 0; i < n; i++) {
		CXDiagnostic d = fe_clang_lib.getDiagnostic(tu, i);
		if (fe_clang_lib.getDiagnosticSeverity(d) < CXDiagnostic_Error) {
			fe_clang_lib.disposeDiagnostic(d);
			continue;
		}
		CXSourceLocation l = fe_clang_lib.getDiagnosticLocation(d);
		CXFile file;
		unsigned line, col, off;
		fe_clang_lib.getFileLocation(l, &file, &line, &col, &off);
		const char *msg = fe_clang_lib_str(a, fe_clang_lib.getDiagnosticSpelling(d));
		if (!file && strstr(msg, "too many errors emitted")) {  /* -ferror-limit, not an error */
			fe_clang_lib.disposeDiagnostic(d);
			continue;
		}
		bool main = file && fe_clang_lib.Location_isFromMainFile(l);   /* no file: the driver's */
		one(&r, msg, file ? fe_clang_lib_str(a, fe_clang_lib.getFileName(file)) : NULL, line, col, off, main);
		fe_clang_lib.disposeDiagnostic(d);
	}
	if (r.any_missing) {
		fe_clang_lib.visitChildren(fe_clang_lib.getTranslationUnitCursor(tu), unresolved, &r.nm);
		if (r.nm.more)
			sbuf_printf(&r.nm.sb, " and %u more", r.nm.more);
		e->missing = r.nm.sb.len ? arena_strdup(a, r.nm.sb.buf) : "names clang could not resolve";
	}
	sbuf_release(&r.nm.sb);
	strmap_release(&r.nm.seen);
}

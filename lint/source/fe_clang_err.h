/* SPDX-License-Identifier: MIT */
/*
 * fe_clang_err: the errors of a parsed translation unit, sorted by what they cost the analysis.
 * clang recovers from a name it does not know (a header not found, an undeclared function or
 * type): the functions around such a name still parse, and a call to it is a call cglint knows
 * nothing about. Those are "missing declarations", reported once per file (CG919). Any other
 * error (a syntax error, an #error) in a function's body leaves that function out; one in the
 * main file outside every function is named in the warning, and the functions whose bodies
 * parsed are still analysed. Only a file none of whose functions could be analysed is refused
 * (CG911).
 */
#ifndef CGLINT_FE_CLANG_ERR_H
#define CGLINT_FE_CLANG_ERR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/loc.h"

struct arena;
struct CXTranslationUnitImpl;

struct fe_clang_err {
	const char *first;              /* the first error: "file:line:col: what" outside the main file */
	struct loc where;               /* its place in the main file; line 0 when it is elsewhere */
	unsigned count;                 /* errors */
	bool other_elsewhere;           /* an error other than a missing declaration outside the main file */
	const char *other_first;        /* the first of those, as 'first' */
	unsigned *other_off;            /* main-file offsets of errors other than missing declarations */
	size_t n_other;
	const char *missing;            /* "checkCudaErrors, 'helper_cuda.h'": what is not declared, or NULL */
};

/* Whether clang's message is about a name nothing declares (a header not found, an undeclared
 * identifier, ...): clang goes on past these, and so does the analysis. */
bool fe_clang_err_is_missing(const char *msg);

/* An error the precompiled preamble a unit was parsed from held when it was made, outside the
 * main file (fe_clang_tu.c keeps them beside it): the unit does not report them again. */
struct fe_clang_err_item {
	const char *file, *msg;
	unsigned line, col;
};

/*
 * Read the diagnostics of 'tu' (libclang's CXTranslationUnit), after the n_pre errors of its
 * preamble 'pre' (in the order a parse without the preamble reports them); 'path' names the main file.
 * clang's messages quote the text they are about ("unknown type name 'root'"): an error in a
 * file outside the folders in 'trusted' (NULL-terminated: the repository, the toolkit, the
 * system's headers) is reported by its position alone, so that a compile database's
 * `-include /etc/passwd` cannot print a line of it into a public CI log.
 */
void fe_clang_err_read(struct arena *a, struct CXTranslationUnitImpl *tu, const char *path,
		       const char *const *trusted, const struct fe_clang_err_item *pre, size_t n_pre,
		       struct fe_clang_err *e);

#endif

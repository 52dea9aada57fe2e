/* SPDX-License-Identifier: MIT */
/*
 * fe_clang_lib: libclang, loaded when the first source is analysed rather than linked, so a run
 * over configs never pays for it. Private to fe_clang*.c; the table's types are libclang's own
 * prototypes.
 *
 * Found, in order: $CGLINT_LIBCLANG (a path to libclang.so; when set, the only place tried), the
 * libclang cglint was built against, and the `libclang` package of the Python environment
 * cglint was installed into (<prefix>/lib/python3.X/site-packages/clang/native/libclang.so).
 */
#ifndef CGLINT_FE_CLANG_LIB_H
#define CGLINT_FE_CLANG_LIB_H

#include <clang-c/CXCompilationDatabase.h>
#include <clang-c/Index.h>

struct fe_clang_lib {
#define FN(name) __typeof__(clang_##name) *name;
#include "source/fe_clang_lib.def"
#undef FN
};

/* Filled by fe_clang_lib_load(); read-only after. */
extern struct fe_clang_lib fe_clang_lib;

/* Load once (thread-safe). NULL when loaded, else why not, with what to do about it. */
const char *fe_clang_lib_load(void);

struct arena;
/* A libclang string copied into 'a' ("" for none), disposed of. */
const char *fe_clang_lib_str(struct arena *a, CXString s);

#endif

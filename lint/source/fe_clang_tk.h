/* SPDX-License-Identifier: MIT */
/*
 * fe_clang_tk: the CUDA toolkit whose headers a source is parsed against. Asked for (--cuda-path
 * DIR, or $CGLINT_CUDA_PATH), refused ("none": cglint's shim), or found: $CUDA_PATH, $CUDA_HOME,
 * /usr/local/cuda, then the toolkit of the nvcc on $PATH. A compile database's own include path
 * to a toolkit's include folder names the toolkit for its files (fe_clang.c).
 */
#ifndef CGLINT_FE_CLANG_TK_H
#define CGLINT_FE_CLANG_TK_H

#include <stdbool.h>

#define FE_CLANG_TK_NONE "none"

/* The toolkit root for 'given' (a folder, "none", "auto" or NULL; $CGLINT_CUDA_PATH stands in
 * for NULL and "auto"): a folder given, else 'from_db' (the toolkit the compile database
 * includes), else one found (looked for once per process). NULL: the shim. */
const char *fe_clang_tk_pick(const char *given, const char *from_db);
/* Whether 'given' (or $CGLINT_CUDA_PATH in its place) asks for the shim alone. */
bool fe_clang_tk_refused(const char *given);
/* Whether 'dir' is a toolkit's include folder (it holds cuda_runtime.h and crt/host_config.h). */
bool fe_clang_tk_is_include(const char *dir);
/* The toolkit root above such a folder (<root>/include, <root>/targets/<arch>/include), malloc'd. */
char *fe_clang_tk_root_of(const char *include_dir);

#endif

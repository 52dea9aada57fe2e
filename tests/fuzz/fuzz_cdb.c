/* SPDX-License-Identifier: MIT */
/*
 * A libFuzzer target over compile databases: the bytes as the compile_commands.json of a folder
 * in the target's temporary folder, read by libclang's reader and turned into the flags the
 * scanner would parse with (fe_clang_args: the file's own entry, or for a header or a file the
 * database does not name the nearest source's; cflags: the flags that change parsing, response
 * files the folder holds, -Xcompiler lists) for a CUDA source, a C++ source and a header, with
 * the shim (no toolkit is looked for). The same bytes, one argument a line, also go to cflags
 * as a command. No source is parsed.
 */
#include "fuzz.h"

#include "source/cflags.h"
#include "source/fe_clang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const files[] = {"cdb/a.cu", "cdb/src/k.cpp", "cdb/inc/h.cuh"};
	enum { N_FILES = sizeof(files) / sizeof(files[0]) };
	static char *dir, *db, *paths[N_FILES];
	if (!dir) {
		fuzz_mkdir("cdb/src");
		fuzz_mkdir("cdb/inc");
		for (size_t k = 0; k < N_FILES; k++)
			fuzz_write(paths[k] = fuzz_path(files[k]), "int x;\n", 7);
		static const char rsp[] = "-I inc \"-DNAME=a b\" -Xcompiler=-DHOST=1,-fPIC\n--default-stream per-thread\n";
		char *p = fuzz_path("cdb/flags.rsp");
		fuzz_write(p, rsp, sizeof(rsp) - 1);
		free(p);
		dir = fuzz_path("cdb");
		db = fuzz_path("cdb/compile_commands.json");
	}
	fuzz_write(db, data, size);
	struct arena *a = arena_new();
	struct fe_clang_opts o = {.cuda_path = "none", .cdb_dir = dir, .cdbs = fe_clang_cdbs_new()};
	for (size_t k = 0; k < N_FILES; k++) {
		bool shim;
		const char **drop;
		fe_clang_args(a, paths[k], "", 0, &o, &shim, &drop);
	}
	fe_clang_cdbs_free(o.cdbs);
	/* one argument a line */
	char *text = arena_strndup(a, (const char *)data, size);
	size_t argc = 0;
	const char **argv = arena_alloc(a, (size + 2) * sizeof(*argv));
	for (char *s = text, *nl; *s; s = nl + 1) {
		nl = strchr(s, '\n');
		argv[argc++] = s;
		if (!nl)
			break;
		*nl = 0;
	}
	struct cflags f = {0};
	if (argc)
		cflags_from_command(a, &f, argv, argc, dir);
	arena_free(a);
	return 0;
}

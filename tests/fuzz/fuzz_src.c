/* SPDX-License-Identifier: MIT */
/*
 * A libFuzzer target over the source scanner: the bytes as a CUDA file through the driver
 * (lint_buffer, lint_finish), so whatever AST libclang makes of them -- mostly near-valid code
 * mutated from the fixtures -- goes through the walk, the regions and every check. The same
 * bytes go through preamble_len (the language server's preamble), which must end at a line's end.
 */
#include <stddef.h>
#include <stdint.h>

#include "config/pack.h"
#include "source/preamble.h"
#include "run/lint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pack *p;
	if (!p) {
		p = pack_new();
		pack_load_builtin(p);
	}
	struct lint_opts o = {.target = {.mcore = 190, .bridge = 60}, .sources = {.jobs = 1, .in_process = true}};
	struct lint_run r;
	lint_run_init(&r, p, &o, NULL, NULL);
	lint_buffer(&r, "fuzz.cu", (const char *)data, size);
	lint_finish(&r);
	lint_run_release(&r);
	size_t n = preamble_len((const char *)data, size);
	if (n > size || (n && data[n - 1] != '\n'))
		__builtin_trap();
	return 0;
}

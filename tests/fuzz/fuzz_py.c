/* SPDX-License-Identifier: MIT */
/*
 * A libFuzzer target over the Python front-end: the bytes as a recipe (.py) through a session
 * (tree-sitter, the statement walk, literals, units, then the checks and the post stage's inline
 * suppressions and fingerprints), in a b200/ folder for the newest target (the GPU from the
 * path) or for an old target without Bridge, as the first byte picks (fuzz_pick). The recipe lies in an empty temporary folder, so
 * the modules it imports are looked for and not found.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct session *s[2];
	static char *path[2];
	if (!s[0]) {
		s[0] = fuzz_session((struct target){.mcore = 190, .bridge = 60});
		s[1] = fuzz_session((struct target){.mcore = 150, .bridge = TARGET_NO_BRIDGE});
		fuzz_mkdir("b200");
		path[0] = fuzz_path("b200/llama3_pretrain.py");
		path[1] = fuzz_path("recipe.py");
	}
	unsigned k = fuzz_pick(&data, &size, 2);
	struct session_result r;
	session_lint_buffer(s[k], path[k], (const char *)data, size, &r);
	session_result_release(&r);
	return 0;
}

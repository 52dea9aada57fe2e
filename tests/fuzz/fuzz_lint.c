/* SPDX-License-Identifier: MIT */
/*
 * A libFuzzer target over the whole input path: the same bytes read as a Bridge/Megatron-LM
 * YAML file and as a launch script, through the driver (lint_buffer), for an old, a middle and
 * the newest target, with defaults assumed so every normalization step and rule runs; and as an
 * --env-file (fe_env). Build with -DCGLINT_FUZZ=ON and clang (tests/fuzz/run.sh).
 */
#include "fuzz.h"

#include "base/mem.h"
#include "config/target.h"
#include "front/fe_env.h"
#include "run/lint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct target targets[] = {
		{.mcore = 150, .bridge = TARGET_NO_BRIDGE},
		{.mcore = TARGET_MCORE_DEV, .bridge = 20},
		{.mcore = 170, .bridge = 40, .gpu_major = 9},
		{.mcore = 190, .bridge = 60, .gpu_major = 10},
	};
	static const char *const names[] = {"fuzz.yaml", "fuzz.sh"};
	const struct pack *p = fuzz_pack();
	for (size_t k = 0; k < sizeof(targets) / sizeof(targets[0]); k++)
		for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
			struct lint_opts o = {.target = targets[k], .assume_defaults = (k + n) % 2 == 0};
			struct lint_run r;
			lint_run_init(&r, p, &o, NULL, NULL);
			lint_buffer(&r, names[n], (const char *)data, size);
			lint_run_release(&r);
		}
	struct arena *a = arena_new();
	struct diag_list d;
	struct env_list env = {0};
	diag_init(&d, a, &p->lookup, NULL);
	fe_env_parse(a, &d, "fuzz.env", (const char *)data, size, &env);
	fe_env_release(&env);
	diag_release(&d);
	arena_free(a);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * A libFuzzer target over the whole input path: the bytes read as a Bridge/Megatron-LM YAML file
 * or as a launch script, through the driver (lint_buffer), for an old, a middle or the newest
 * target, with or without defaults assumed so every normalization step and rule runs; or as an
 * --env-file (fe_env). The first byte picks which (fuzz_pick). Build with -DCGLINT_FUZZ=ON and
 * clang (tests/fuzz/run.sh).
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
	enum { N_TARGETS = sizeof(targets) / sizeof(targets[0]) };
	static const char *const names[] = {"fuzz.yaml", "fuzz.sh"};
	const struct pack *p = fuzz_pack();
	/* 0 .. 15: a target, a file name and defaults assumed or not; 16: an --env-file */
	unsigned k = fuzz_pick(&data, &size, 2 * 2 * N_TARGETS + 1);
	if (k < 2 * 2 * N_TARGETS) {
		struct lint_opts o = {.target = targets[k % N_TARGETS], .assume_defaults = k / (2 * N_TARGETS),
				      .sources = {.in_process = true}};
		struct lint_run r;
		lint_run_init(&r, p, &o, NULL, NULL);
		lint_buffer(&r, names[k / N_TARGETS % 2], (const char *)data, size);
		lint_finish(&r);        /* inputs are queued until then */
		lint_run_release(&r);
		return 0;
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

/* SPDX-License-Identifier: MIT */
/*
 * A libFuzzer target over the condition language of rule packs (config/expr): the bytes, up to
 * a NUL, as one 'when:' expression, parsed, then each key path it reads listed, and evaluated
 * against a config's facts for an old and the newest target, with the keys no input sets both
 * unknown and defaulted (three-valued logic, the functions, lists and comparisons).
 */
#include "fuzz.h"

#include "config/expr.h"
#include "config/target.h"

static void count_path(const char *path, void *ctx)
{
	*(size_t *)ctx += path[0] != 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct target targets[] = {
		{.mcore = 150, .bridge = TARGET_NO_BRIDGE},
		{.mcore = 190, .bridge = 60, .gpu_major = 10, .gpu = "b200"},
	};
	struct arena *a = arena_new();
	const char *src = arena_strndup(a, (const char *)data, size);
	const char *err;
	unsigned col;
	struct expr *e = expr_parse(a, src, &err, &col);
	if (e) {
		size_t paths = 0;
		expr_each_path(e, count_path, &paths);
		for (size_t k = 0; k < sizeof(targets) / sizeof(targets[0]); k++)
			for (int closed = 0; closed < 2; closed++) {
				struct facts t;
				fuzz_facts(&t, a, closed);
				struct expr_env env = {.facts = &t, .target = &targets[k], .arena = a};
				struct value v = expr_eval(e, &env);
				value_string(a, &v, false);
				expr_truth(e, &env);
				facts_release(&t);
			}
	} else if (!err || col == 0) {
		abort();        /* a syntax error always says what and where */
	}
	arena_free(a);
	return 0;
}

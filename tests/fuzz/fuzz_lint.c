/* SPDX-License-Identifier: MIT */
/*
 * A libFuzzer target over the whole config path: bytes -> fe_yaml -> facts (as a full dump,
 * so every default, normalization step and rule runs) -> diagnostics. Build with
 * -DCGLINT_FUZZ=ON and clang (tests/fuzz/run.sh); not part of ctest.
 */
#include <stddef.h>
#include <stdint.h>

#include "cfg.h"
#include "diag.h"
#include "engine.h"
#include "fact.h"
#include "fe_yaml.h"
#include "mem.h"
#include "node.h"
#include "pack.h"
#include "target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pack *p;
	static const struct target targets[] = {{.mcore = 16, .bridge = 3}, {.mcore = 17, .bridge = 4, .gpu_major = 9}};
	if (!p) {
		p = pack_new();
		pack_load_builtin(p);
	}
	for (size_t k = 0; k < sizeof(targets) / sizeof(targets[0]); k++) {
		struct arena *a = arena_new();
		struct diag_list d;
		diag_init(&d, a, p, NULL);
		struct node *root;
		if (fe_yaml_parse(a, &d, "fuzz.yaml", (const char *)data, size, &root) == 0) {
			struct facts t;
			facts_init(&t, a);
			cfg_from_yaml(&t, root, "config");
			cfg_env_vars(&t);
			t.closed = k == 0;
			struct engine e = {.pack = p, .target = &targets[k], .facts = &t, .diags = &d, .arena = a,
					   .unit_path = "fuzz.yaml"};
			engine_run(&e);
			facts_release(&t);
		}
		diag_release(&d);
		arena_free(a);
	}
	return 0;
}

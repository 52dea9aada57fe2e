/* SPDX-License-Identifier: MIT */
/*
 * A libFuzzer target over rule packs (config/pack), as --rules reads them: the bytes as a pack
 * loaded into a pack of its own (problems reported as the built-in CG910). A pack that loads is
 * then used: its defaults, normalization steps and rules run against a config's facts for an old
 * and the newest target (the expressions it holds evaluated, messages and fixes filled in), and
 * each rule is explained as `cglint explain` and the rule pages do.
 */
#include "fuzz.h"

#include "config/engine.h"
#include "config/explain.h"
#include "config/target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct target targets[] = {
		{.mcore = 150, .bridge = TARGET_NO_BRIDGE},
		{.mcore = 190, .bridge = 60, .gpu_major = 10, .gpu = "b200"},
	};
	static FILE *null;
	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	struct arena *a = arena_new();
	struct diag_list d;
	diag_init(&d, a, &fuzz_pack()->lookup, NULL);
	struct pack *p = pack_new();
	if (pack_load(p, &d, "fuzz-pack.yaml", (const char *)data, size) == 0) {
		for (size_t k = 0; k < sizeof(targets) / sizeof(targets[0]); k++)
			for (int closed = 0; closed < 2; closed++) {
				struct facts t;
				struct engine_notes notes = {0};
				fuzz_facts(&t, a, closed);
				struct engine e = {
					.pack = p,
					.unit = {.target = &targets[k], .facts = &t, .diags = &d, .arena = a,
						 .unit_path = "fuzz.yaml"},
					.notes = &notes,
				};
				engine_run(&e);
				engine_notes_release(&notes);
				facts_release(&t);
			}
		for (size_t k = 0; k < p->n_rules; k++) {
			explain_rule(null, p, p->rules[k], k % 2);
			pack_find(p, p->rules[k]->head.name);
		}
		pack_closest_rule(p, "cuda-graph");
	}
	pack_free(p);
	diag_release(&d);
	arena_free(a);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * A libFuzzer target over project configs (config/proj, `.cglint.yaml`): the bytes as the config
 * of a folder inside the target's temporary folder, whose own config sits one level up (for
 * inherit:), beside a small rule pack it may name (rules: [policy.yaml]); then the settings,
 * excludes and rule scopes asked for files at several depths, as the driver and the post stage
 * ask. Each input starts with a pack of its own holding a few rules, the built-ins left out so
 * that loading stays cheap (problems are still reported as the built-in CG915).
 */
#include "fuzz.h"

#include "config/proj.h"

/* What a session's pack would hold, in small: two rules by id and name. */
static const char base[] =
	"pack: base\n"
	"rules:\n"
	"  - id: CG101\n"
	"    name: te-rng-tracker-required\n"
	"    severity: error\n"
	"    when: model.cuda_graph_impl != \"none\" and not model.use_te_rng_tracker\n"
	"    at: model.cuda_graph_impl\n"
	"    message: \"the RNG tracker is required\"\n"
	"    doc: \"Base.\"\n"
	"  - id: CG201\n"
	"    name: expandable-segments\n"
	"    severity: error\n"
	"    when: known(env.PYTORCH_CUDA_ALLOC_CONF)\n"
	"    message: \"expandable segments\"\n"
	"    doc: \"Base.\"\n";

/* A pack the config may name. */
static const char policy[] =
	"pack: policy\n"
	"rules:\n"
	"  - id: TEAM001\n"
	"    name: team-no-local-graphs\n"
	"    severity: warning\n"
	"    when: model.cuda_graph_impl == \"local\"\n"
	"    message: \"Transformer Engine graphs only\"\n"
	"    doc: \"Team policy.\"\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const files[] = {"proj/a.yaml", "proj/legacy/b.py", "proj/vendor/c.sh",
					    "proj/src/k.cu", "proj/deep/x/y.yaml", "top.yaml"};
	enum { N_FILES = sizeof(files) / sizeof(files[0]) };
	static char *config, *paths[N_FILES];
	if (!config) {
		fuzz_mkdir("proj/legacy");
		fuzz_mkdir("proj/vendor");
		fuzz_mkdir("proj/src");
		fuzz_mkdir("proj/deep/x");
		char *p = fuzz_path(".cglint.yaml");
		static const char parent[] = "target: {mcore: \"0.17\", bridge: \"0.4\", gpu: h100}\n"
					     "ignore: [CG2]\nseverity: {CG101: warning}\nexclude: [proj/vendor]\n";
		fuzz_write(p, parent, sizeof(parent) - 1);
		free(p);
		p = fuzz_path("proj/policy.yaml");
		fuzz_write(p, policy, sizeof(policy) - 1);
		free(p);
		for (size_t k = 0; k < N_FILES; k++)
			fuzz_write(paths[k] = fuzz_path(files[k]), "", 0);
		config = fuzz_path("proj/.cglint.yaml");
	}
	fuzz_write(config, data, size);
	struct arena *a = arena_new();
	struct diag_list problems;
	diag_init(&problems, a, &fuzz_pack()->lookup, NULL);
	struct pack *p = pack_new();
	if (pack_load(p, &problems, "base.yaml", base, sizeof(base) - 1))
		abort();
	struct proj *pj = proj_new(a, &problems, p);
	for (size_t k = 0; k < N_FILES; k++) {
		struct proj_settings s;
		proj_settings(pj, paths[k], &s);
		proj_excluded(pj, paths[k]);
		for (size_t i = 0; i < p->n_rules; i++)
			proj_rule_applies(pj, p->rules[i], paths[k]);
	}
	proj_free(pj);
	pack_free(p);
	diag_release(&problems);
	arena_free(a);
	return 0;
}

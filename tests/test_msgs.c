/* SPDX-License-Identifier: MIT */
/*
 * msgs: what the config rules say (issue 30). A check whose verdict waits on a key names that
 * key, even through the packs' derived keys; `local` with per-layer names is CG170 in every
 * input form; messages name the key as written; severities and version numbers follow the
 * target's code; provenance cites the provider in use; fixes are in the input's language.
 */
#define _GNU_SOURCE /* asprintf */
#include <criterion/criterion.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

TestSuite(msgs, .init = harness_init, .fini = harness_fini);

/* `cglint ARGS 2>&1` in the test folder: the exit status, and what it printed in '*out'. */
static int run(const char *args, char **out)
{
	char *a;
	cr_assert_neq(asprintf(&a, "%s 2>&1", args), -1);
	int rc = harness_run(harness_dir, a, out);
	free(a);
	cr_assert_not_null(*out);
	return rc;
}

#define expect_has(out, s) cr_expect(strstr(out, s), "wanted '%s' in:\n%s", s, out)
#define expect_lacks(out, s) cr_expect(!strstr(out, s), "did not want '%s' in:\n%s", s, out)

/* Item 1: a rule reading only derived keys (CG170 reads model._bridge_local_rejected) was never
 * reported undecided: `local` alone passed silently. */
Test(msgs, undecided_names_the_keys_behind_derived_ones)
{
	harness_put("local.yaml", "model:\n  cuda_graph_impl: local\n  use_te_rng_tracker: true\n");
	char *out;
	cr_expect_eq(run("--show-undecided --bridge 0.6 local.yaml", &out), 0);
	expect_has(out, "local.yaml:2:3: note: check undecided: it depends on model.cuda_graph_modules (no input sets it), "
			"model.cuda_graph_scope (no input sets it), model.inference_cuda_graph_scope (no input sets it) "
			"[CG170 local-graphs-full-iteration-only]");
	free(out);
}

/* Item 1: the override form of the harness's `--cuda_graph_impl local --cuda_graph_scope attn`. */
Test(msgs, local_with_a_per_layer_scope_is_cg170_in_every_form)
{
	harness_put("o.yaml", "model:\n  cuda_graph_impl: local\n  cuda_graph_scope: [attn]\n  use_te_rng_tracker: true\n");
	harness_put("run.sh", "python scripts/performance/run_script.py -g h100 --cuda_graph_impl local --cuda_graph_scope attn \\\n"
			      "    -m llama3 -mr llama3_8b\n");
	char *out;
	cr_expect_eq(run("--bridge 0.6 -q o.yaml", &out), 1);
	expect_has(out, "o.yaml:2:3: error: Megatron Bridge supports");
	free(out);
	cr_expect_eq(run("--bridge 0.6 -q run.sh", &out), 1);
	expect_has(out, "[CG170 local-graphs-full-iteration-only]");
	free(out);
	cr_expect_eq(run("--bridge 0.6 -q o.yaml model.cuda_graph_modules=full_iteration", &out), 1);
	expect_has(out, "[CG131 scope-and-modules-together]");      /* the one world CG170 leaves out */
	free(out);
}

/* Item 7: the scope spelling Bridge 0.6's docs and recipes use is accepted and converted by MCore
 * 0.19 with a DeprecationWarning Python hides: a note with a fix, which --fail-on warning passes. */
Test(msgs, a_silently_converted_spelling_is_a_note_with_a_fix)
{
	harness_put("te.yaml", "model:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_scope: [attn, mlp]\n"
			       "  use_te_rng_tracker: true\n");
	char *out;
	cr_expect_eq(run("--fail-on warning te.yaml", &out), 0);
	expect_has(out, "te.yaml:3:3: note: cuda_graph_scope is deprecated, use cuda_graph_modules instead. [CG132");
	expect_has(out, "    fix: ");
	free(out);
	/* MCore 0.17 has no cuda_graph_modules: nothing to say */
	cr_expect_eq(run("--mcore 0.17 --bridge 0.4 --fail-on note te.yaml", &out), 0);
	expect_lacks(out, "CG132");
	free(out);
	/* a deprecated switch MCore warns about on the console stays a warning */
	harness_put("ext.yaml", "model:\n  external_cuda_graph: true\n  use_te_rng_tracker: true\n");
	cr_expect_eq(run("--fail-on warning ext.yaml", &out), 1);
	expect_has(out, "warning: external_cuda_graph is deprecated");
	free(out);
}

/* Item 6: -v cited NemotronVL's provider for every model; it cites the class whose code runs. */
Test(msgs, provenance_cites_the_provider_in_use)
{
	harness_put("llama.py", "from megatron.bridge.models import AutoBridge\n\n"
				"def llama_config():\n"
				"    cfg = _pretrain_common()\n"
				"    cfg.model = AutoBridge.from_hf_pretrained(\"meta-llama/Llama-3.2-1B\").to_megatron_provider()\n"
				"    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
				"    return cfg\n");
	harness_put("mamba.yaml", "model:\n  _target_: megatron.bridge.models.mamba.mamba_provider.MambaModelProvider\n"
				  "  cuda_graph_impl: transformer_engine\n");
	char *out;
	run("-v --bridge 0.6 llama.py 2>&1 | grep 'model._asserts_te_rng:'", &out);
	expect_has(out, "src/megatron/bridge/models/gpt_provider.py:233-237 (GPTModelProvider.provide)");
	expect_lacks(out, "nemotron_vl");
	free(out);
	run("-v --bridge 0.6 mamba.yaml 2>&1 | grep 'model._asserts_te_rng:'", &out);
	expect_has(out, "hybrid_provider.py:276 (HybridModelProvider.provide)");
	expect_lacks(out, "nemotron_vl");
	free(out);
}

/* Item 3: a finding on a cuda_graph_scope line named cuda_graph_modules, the key MCore migrates it
 * to; the message names the key as written and the migrated one only as the reason. */
Test(msgs, messages_name_the_key_as_written)
{
	harness_put("s.yaml", "model:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_scope: [moe, moe_router]\n"
			      "  use_te_rng_tracker: true\n");
	harness_put("l.py", "def local_config(cfg):\n"
			    "    cfg.model.cuda_graph_impl = \"local\"\n"
			    "    cfg.model.cuda_graph_scope = [\"attn\"]\n"
			    "    return cfg\n");
	char *out;
	run("s.yaml", &out);
	expect_has(out, "s.yaml:3:3: error: cuda_graph_scope must not contain both moe and moe_router. (cuda_graph_scope is "
			"read as cuda_graph_modules: the deprecated cuda_graph_scope is copied into cuda_graph_modules");
	free(out);
	run("--bridge 0.6 l.py", &out);
	expect_has(out, "related: l.py:3:34: model.cuda_graph_scope is ['attn'] here (read as model.cuda_graph_modules: ['attn'])");
	expect_lacks(out, "model.cuda_graph_modules comes from this line");
	free(out);
}

/* The options a fixture runs under (its '# cglint-args:' line), or "". */
static void fixture_args(const char *path, char *args, size_t size)
{
	FILE *f = fopen(path, "rb");
	char line[4096];
	args[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		const char *a = strstr(line, "cglint-args:");
		if (a && (strstr(line, "# cglint-args:") || strstr(line, "// cglint-args:"))) {
			snprintf(args, size, "%s", a + strlen("cglint-args:"));
			args[strcspn(args, "\r\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
}

/* "LINE RULE" for each finding of 'doc' in file 'base', one a line. */
static char *finding_keys(json_t *doc, const char *base)
{
	size_t cap = 1 << 12, n = 0, i;
	char *s = calloc(1, cap);
	json_t *d;
	json_array_foreach(json_object_get(doc, "diagnostics"), i, d)
	{
		const char *path = json_string_value(json_object_get(d, "path"));
		char one[256];
		int k = snprintf(one, sizeof(one), "\n%s:%lld %s\n", path && !strcmp(path, base) ? "" : path,
				 (long long)json_integer_value(json_object_get(d, "line")),
				 json_string_value(json_object_get(d, "rule")));
		if (n + (size_t)k + 1 >= cap)
			s = realloc(s, cap *= 2);
		memcpy(s + n, one, (size_t)k + 1);
		n += (size_t)k - 1;     /* keep the leading newline of the next one as this one's end */
	}
	return s;
}

/* A fix hint in YAML's "key: value" form on a finding outside a YAML file, or NULL. */
static const char *yaml_fix_elsewhere(json_t *doc, const regex_t *yaml)
{
	size_t i;
	json_t *d;
	json_array_foreach(json_object_get(doc, "diagnostics"), i, d)
	{
		const char *path = json_string_value(json_object_get(d, "path")), *fix = json_string_value(json_object_get(d, "fix"));
		size_t n = path ? strlen(path) : 0;
		if (fix && n > 5 && strcmp(path + n - 5, ".yaml") && !regexec(yaml, fix, 0, NULL, 0))
			return fix;
	}
	return NULL;
}

/* Item 5: every mechanical fix the fixtures get, applied with --fix, leaves no finding that was
 * not there before (a fix that itself fails cglint), and no fix hint on a script or a recipe is
 * written as YAML ("cuda_graph_impl: full_iteration" on a run_script.py line). */
Test(msgs, applied_fixes_bring_no_new_finding, .timeout = 170)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "cp -r '%s/config' '%s/mlm' '%s/perf' '%s/python' '%s/examples' '%s/'", CGLINT_FIXTURES,
		 CGLINT_FIXTURES, CGLINT_FIXTURES, CGLINT_FIXTURES, CGLINT_FIXTURES, harness_dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "cd '%s' && grep -rlE 'expect: (error|warning|note) CG[12]' config mlm perf python examples", harness_dir);
	FILE *list = popen(cmd, "r");
	cr_assert_not_null(list);
	char rel[512];
	unsigned fixed = 0;
	regex_t yaml;
	cr_assert_eq(regcomp(&yaml, "[a-z_]: [a-z_\"]", REG_EXTENDED | REG_NOSUB), 0);
	while (fgets(rel, sizeof(rel), list)) {
		rel[strcspn(rel, "\n")] = '\0';
		char path[1024], args[2048], sub[600], run_args[4096];
		snprintf(path, sizeof(path), "%s/%s", harness_dir, rel);
		fixture_args(path, args, sizeof(args));
		snprintf(sub, sizeof(sub), "%s", rel);
		char *slash = strrchr(sub, '/');
		*slash = '\0';
		snprintf(path, sizeof(path), "%s/%s", harness_dir, sub);
		snprintf(run_args, sizeof(run_args), "%s -- '%s'", args, slash + 1);
		json_t *before, *after;
		harness_run_json(path, run_args, &before);
		if (!before)
			continue;       /* a fixture that expects a usage error */
		const char *bad = yaml_fix_elsewhere(before, &yaml);
		cr_expect_null(bad, "%s: a fix in YAML's syntax: %s", rel, bad);
		snprintf(run_args, sizeof(run_args), "--fix %s -- '%s' 2>&1 | grep -c '^cglint: fixed'", args, slash + 1);
		char *out = NULL;
		harness_run(path, run_args, &out);
		fixed += out && atoi(out) > 0;
		free(out);
		snprintf(run_args, sizeof(run_args), "%s -- '%s'", args, slash + 1);
		harness_run_json(path, run_args, &after);
		cr_assert_not_null(after, "%s: no JSON after --fix", rel);
		char *was = finding_keys(before, slash + 1), *now = finding_keys(after, slash + 1);
		/* each finding after the fixes was there before */
		for (char *p = now; *p == '\n' && p[1];) {
			char *e = strchr(p + 1, '\n');
			char one[256];
			snprintf(one, sizeof(one), "%.*s", (int)(e - p + 1), p);
			cr_expect(strstr(was, one), "%s: --fix brought a new finding:%s--- before:%s--- after:%s", rel, one, was, now);
			p = e;
		}
		free(was);
		free(now);
		json_decref(before);
		json_decref(after);
	}
	pclose(list);
	regfree(&yaml);
	cr_expect_gt(fixed, 10, "only %u fixtures got a fix", fixed);
}

/* Item 5: CG111's fix on a run_script.py line said 'cuda_graph_impl: full_iteration', which that
 * harness rejects (CG145). Each input gets the fix in its own language, and the fix as written
 * passes cglint. */
Test(msgs, fixes_are_written_in_the_inputs_language)
{
	harness_put("h.sh", "python scripts/performance/run_script.py -g h100 --cuda_graph_impl transformer_engine "
			    "--cuda_graph_scope attn -rl 4\n");
	harness_put("m.sh", "torchrun pretrain_gpt.py --cuda-graph-impl transformer_engine --cuda-graph-modules attn "
			    "--recompute-granularity full --recompute-method block --recompute-num-layers 4 --te-rng-tracker\n");
	harness_put("p.py", "def full_recompute_config(cfg):\n"
			    "    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
			    "    cfg.model.recompute_granularity = \"full\"\n"
			    "    cfg.model.use_te_rng_tracker = True\n"
			    "    return cfg\n");
	static const char *const cases[][3] = {
		/* file, the fix as printed, the file with the fix applied */
		{"h.sh", "fix: use --cuda_graph_impl local --cuda_graph_scope full_iteration",
		 "python scripts/performance/run_script.py -g h100 --cuda_graph_impl local "
		 "--cuda_graph_scope full_iteration -rl 4\n"},
		{"m.sh", "fix: use --cuda-graph-impl full_iteration",
		 "torchrun pretrain_gpt.py --cuda-graph-impl full_iteration --no-check-for-nan-in-loss-and-grad "
		 "--recompute-granularity full --recompute-method block --recompute-num-layers 4 --te-rng-tracker\n"},
		{"p.py", "fix: set cfg.model.cuda_graph_impl = \"full_iteration\"",
		 "def full_recompute_config(cfg):\n"
		 "    cfg.model.cuda_graph_impl = \"full_iteration\"\n"
		 "    cfg.model.recompute_granularity = \"full\"\n"
		 "    cfg.model.use_te_rng_tracker = True\n"
		 "    cfg.rerun_state_machine.check_for_nan_in_loss = False\n"
		 "    return cfg\n"},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *out, args[256];
		snprintf(args, sizeof(args), "--bridge %s %s", cases[k][0][0] == 'm' ? "none" : "0.6", cases[k][0]);
		run(args, &out);
		expect_has(out, "[CG111 full-recompute-needs-full-iteration]");
		expect_has(out, cases[k][1]);
		free(out);
		harness_put(cases[k][0], cases[k][2]);
		cr_expect_eq(run(args, &out), 0, "%s with the fix applied", cases[k][0]);
		expect_lacks(out, "error:");
		free(out);
	}
}

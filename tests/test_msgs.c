/* SPDX-License-Identifier: MIT */
/*
 * msgs: what the config rules say (issue 30). A check whose verdict waits on a key names that
 * key, even through the packs' derived keys; `local` with per-layer names is CG170 in every
 * input form; messages name the key as written; severities and version numbers follow the
 * target's code; provenance cites the provider in use; fixes are in the input's language.
 */
#define _GNU_SOURCE /* asprintf */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

static char dir[64];

static void mkdir_tmp(void)
{
	cr_assert(harness_tmpdir(dir, sizeof(dir), "msgs"));
}

static void rm_tmp(void)
{
	cr_expect_eq(harness_rmdir(dir), 0);
}

TestSuite(msgs, .init = mkdir_tmp, .fini = rm_tmp);

static void put(const char *name, const char *text)
{
	free(harness_write(dir, name, text, strlen(text)));
}

/* `cglint ARGS 2>&1` in the test folder: the exit status, and what it printed in '*out'. */
static int run(const char *args, char **out)
{
	char *a;
	cr_assert_neq(asprintf(&a, "%s 2>&1", args), -1);
	int rc = harness_run(dir, a, out);
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
	put("local.yaml", "model:\n  cuda_graph_impl: local\n  use_te_rng_tracker: true\n");
	char *out;
	cr_expect_eq(run("-v --bridge 0.6 local.yaml", &out), 0);
	expect_has(out, "local.yaml:2:3: note: check undecided: it depends on model.cuda_graph_modules (no input sets it), "
			"model.cuda_graph_scope (no input sets it), model.inference_cuda_graph_scope (no input sets it) "
			"[CG170 local-graphs-full-iteration-only]");
	free(out);
}

/* Item 1: the override form of the harness's `--cuda_graph_impl local --cuda_graph_scope attn`. */
Test(msgs, local_with_a_per_layer_scope_is_cg170_in_every_form)
{
	put("o.yaml", "model:\n  cuda_graph_impl: local\n  cuda_graph_scope: [attn]\n  use_te_rng_tracker: true\n");
	put("run.sh", "python scripts/performance/run_script.py -g h100 --cuda_graph_impl local --cuda_graph_scope attn \\\n"
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
	put("te.yaml", "model:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_scope: [attn, mlp]\n"
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
	put("ext.yaml", "model:\n  external_cuda_graph: true\n  use_te_rng_tracker: true\n");
	cr_expect_eq(run("--fail-on warning ext.yaml", &out), 1);
	expect_has(out, "warning: external_cuda_graph is deprecated");
	free(out);
}

/* Item 6: -v cited NemotronVL's provider for every model; it cites the class whose code runs. */
Test(msgs, provenance_cites_the_provider_in_use)
{
	put("llama.py", "from megatron.bridge.models import AutoBridge\n\n"
			"def llama_config():\n"
			"    cfg = _pretrain_common()\n"
			"    cfg.model = AutoBridge.from_hf_pretrained(\"meta-llama/Llama-3.2-1B\").to_megatron_provider()\n"
			"    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
			"    return cfg\n");
	put("mamba.yaml", "model:\n  _target_: megatron.bridge.models.mamba.mamba_provider.MambaModelProvider\n"
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
	put("s.yaml", "model:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_scope: [moe, moe_router]\n"
		      "  use_te_rng_tracker: true\n");
	put("l.py", "def local_config(cfg):\n"
		    "    cfg.model.cuda_graph_impl = \"local\"\n"
		    "    cfg.model.cuda_graph_scope = [\"attn\"]\n"
		    "    return cfg\n");
	char *out;
	run("s.yaml", &out);
	expect_has(out, "s.yaml:3:3: error: cuda_graph_scope must not contain both moe and moe_router. (cuda_graph_scope is "
			"read as cuda_graph_modules: the deprecated cuda_graph_scope is copied into cuda_graph_modules");
	free(out);
	run("--bridge 0.6 l.py", &out);
	expect_has(out, "l.py:3:34: note: model.cuda_graph_scope is ['attn'] here (read as model.cuda_graph_modules: ['attn'])");
	expect_lacks(out, "model.cuda_graph_modules comes from this line");
	free(out);
}

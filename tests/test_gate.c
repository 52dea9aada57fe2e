/* SPDX-License-Identifier: MIT */
/*
 * gate: a CI gate never passes what cglint did not read (issue 41, item 1). An unreadable or
 * unparsable input is reported, with its position, and is exit status 2 in every mode: lint,
 * --diff, --fix, suggest (plain, --diff, --fix) and facts; --diff keeps stdout a patch and says
 * it on stderr. A subcommand word after options is the subcommand (cglint -j 1 suggest x.yaml,
 * as git -C DIR status), not a path. A Python file that cglint reads as a recipe (its text
 * mentions a CUDA-graph key) and that does not parse is CG917, never "all checks passed".
 * A word of a launch command that the program's parser rejects is CG931, status 2 (item 5):
 * 0.15's one-value --cuda-graph-scope given two words, run_recipe.py's --config-file.
 */
#define _GNU_SOURCE /* asprintf */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"

TestSuite(gate, .init = harness_init, .fini = harness_fini);

#define expect_has(text, want, what) \
	cr_expect(strstr(text, want) != NULL, "%s: wanted\n%s\n--- in:\n%s", what, want, text)
#define expect_lacks(text, bad, what) \
	cr_expect(strstr(text, bad) == NULL, "%s: did not want\n%s\n--- in:\n%s", what, bad, text)

static void sub(const char *name)
{
	char *path;
	cr_assert_neq(asprintf(&path, "%s/%s", harness_dir, name), -1);
	cr_assert_eq(mkdir(path, 0755), 0, "mkdir %s", path);
	free(path);
}

/* The exit status of cglint ARGS, and its last stderr line (the summary) in '*summary'. */
static int gate(const char *args, char **summary)
{
	char *out, *err;
	int rc = harness_run_in("", args, &out, &err);
	char *end = err + strlen(err), *start = end > err ? end - 1 : end;
	while (start > err && start[-1] != '\n')
		start--;
	*summary = strdup(start);
	free(out);
	free(err);
	return rc;
}

static size_t count(const char *text, const char *what)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static const char bad_yaml[] = "model:\n  cuda_graph_impl: [local\n  x: : :\n";
static const char bad_head[] = "bad.yaml:3:4: error: YAML syntax error: did not find expected ',' or ']' while "
			       "parsing a flow sequence [CG901 yaml-syntax]\n"
			       "    3 |   x: : :\n"
			       "      |    ^\n";
static const char missing_head[] = "missing.yaml:1:1: error: cannot open: No such file or directory "
				   "[CG904 unreadable-path]\n";
/* a partial override --fix repairs (CG101 on Bridge 0.3) */
static const char fixable[] = "model:\n    cuda_graph_impl: transformer_engine\n    use_te_rng_tracker: false\n"
			      "rng:\n    te_rng_tracker: false\n";

/* Every mode, on a missing file and on a YAML syntax error: status 2, the diagnostic as lint
 * prints it (position, and the line for a syntax error), and no "passed". */
Test(gate, input_errors_are_status_2_in_every_mode)
{
	harness_put("bad.yaml", bad_yaml);
	static const char *const modes[] = {"", "--diff", "--fix", "suggest", "suggest --diff", "suggest --fix", "facts",
					    "facts --format json", "suggest --format json", "--format json --diff"};
	static const char *const inputs[][2] = {{"missing.yaml", missing_head}, {"bad.yaml", bad_head}};
	for (size_t m = 0; m < sizeof(modes) / sizeof(*modes); m++)
		for (size_t i = 0; i < 2; i++) {
			char *args, *out, *err, *what;
			cr_assert_neq(asprintf(&args, "%s %s", modes[m], inputs[i][0]), -1);
			int rc = harness_run_in("", args, &out, &err);
			cr_assert_neq(asprintf(&what, "cglint %s (stdout+stderr)", args), -1);
			cr_expect_eq(rc, 2, "cglint %s: exit %d, wanted 2", args, rc);
			char *both;
			cr_assert_neq(asprintf(&both, "%s%s", out, err), -1);
			expect_has(both, inputs[i][1], what);
			expect_lacks(both, "passed", what);
			free(both);
			free(what);
			free(args);
			free(out);
			free(err);
		}
	/* the file was not changed by --fix */
	char *now = harness_read(harness_dir, "bad.yaml", NULL);
	cr_expect_str_eq(now, bad_yaml);
	free(now);
}

/* --diff with one input it could not read: the patch for the rest on stdout, untouched by the
 * problem, which is on stderr; status 2 (not 1) since a gate must not pass on a partial read. */
Test(gate, diff_keeps_the_patch_and_says_the_problem)
{
	harness_put("bad.yaml", bad_yaml);
	harness_put("b.yaml", fixable);
	char *out, *err;
	int rc = harness_run_in("", "--mcore 0.16 --bridge 0.3 --diff b.yaml bad.yaml", &out, &err);
	cr_expect_eq(rc, 2);
	cr_expect_str_eq(out, "--- a/b.yaml\n"
			      "+++ b/b.yaml\n"
			      "@@ -2,4 +2,4 @@\n"
			      "     cuda_graph_impl: transformer_engine\n"
			      "     use_te_rng_tracker: false\n"
			      " rng:\n"
			      "-    te_rng_tracker: false\n"
			      "+    te_rng_tracker: true\n");
	expect_has(err, bad_head, "--diff stderr");
	free(out);
	free(err);
	/* stdin, as a pre-commit or editor pipe gives it */
	rc = harness_run_in("", "--diff --stdin-filename s.yaml - < bad.yaml", &out, &err);
	cr_expect_eq(rc, 2);
	cr_expect_str_eq(out, "");
	expect_has(err, "s.yaml:3:4: error: YAML syntax error", "--diff - stderr");
	free(out);
	free(err);
}

/* A subcommand word after options is the subcommand; after 'lint' or '--', or spelt ./NAME, a
 * path. --help says so. */
Test(gate, subcommand_after_options)
{
	harness_put("bad.yaml", bad_yaml);
	char *out, *err, *out1, *err1;
	int rc = harness_run_in("", "-j 1 suggest bad.yaml", &out, &err);
	int rc1 = harness_run_in("", "suggest -j 1 bad.yaml", &out1, &err1);
	cr_expect_eq(rc, 2);
	cr_expect_eq(rc, rc1);
	cr_expect_str_eq(out, out1);
	cr_expect_str_eq(err, err1);
	expect_has(err, "cglint suggest: no unit with model settings found\n", "-j 1 suggest");
	expect_lacks(out, "suggest:1:1", "-j 1 suggest");
	free(out);
	free(err);
	free(out1);
	free(err1);

	rc = harness_run_in("", "--mcore 0.17 explain CG101", &out, &err);
	cr_expect_eq(rc, 0);
	cr_expect(!strncmp(out, "CG101 te-rng-tracker-required", 29), "explain after --mcore:\n%s", out);
	free(out);
	free(err);

	/* a file called like a subcommand: after 'lint', after '--', or as ./suggest */
	harness_put("suggest", fixable);
	static const char *const as_path[] = {"--mcore 0.16 --bridge 0.3 lint suggest", "--mcore 0.16 --bridge 0.3 -- suggest",
					      "--mcore 0.16 --bridge 0.3 ./suggest"};
	for (size_t k = 0; k < 3; k++) {
		rc = harness_run_in("", as_path[k], &out, &err);
		cr_expect_eq(rc, 1, "cglint %s: exit %d", as_path[k], rc);
		expect_has(out, "[CG101 te-rng-tracker-required]", as_path[k]);
		free(out);
		free(err);
	}

	rc = harness_run_in("", "-q completion bash", &out, &err);
	cr_expect_eq(rc, 2);
	cr_expect_str_eq(err, "cglint: completion takes no options: cglint completion bash|zsh|fish\n"
			      "(try 'cglint --help')\n");
	free(out);
	free(err);

	rc = harness_run_in("", "--help", &out, &err);
	cr_expect_eq(rc, 0);
	expect_has(out, "The subcommand may follow options (cglint -j 1 suggest x.py", "--help");
	expect_has(out, "the same with --diff, --fix,\nsuggest and facts", "--help");
	free(out);
	free(err);
}

static const char broken_recipe[] = "def f(:\n    pass\ncfg.model.cuda_graph_impl = \"local\"\n";
static const char py_head[] = "bad.py:1:7: error: Python syntax error: missing ')' [CG917 python-syntax]\n"
			      "    1 | def f(:\n"
			      "      |       ^\n";

/* A recipe candidate that does not parse is CG917 and status 2, as python3 -m py_compile
 * refuses it, in every mode; never "no CUDA-graph settings found" or "all checks passed". */
Test(gate, python_that_does_not_parse)
{
	harness_put("bad.py", broken_recipe);
	static const char *const modes[] = {"", "--diff", "--fix", "suggest", "facts", "-j 2"};
	for (size_t m = 0; m < sizeof(modes) / sizeof(*modes); m++) {
		char *args, *out, *err, *both;
		cr_assert_neq(asprintf(&args, "%s bad.py", modes[m]), -1);
		int rc = harness_run_in("", args, &out, &err);
		cr_expect_eq(rc, 2, "cglint %s: exit %d, wanted 2", args, rc);
		cr_assert_neq(asprintf(&both, "%s%s", out, err), -1);
		expect_has(both, py_head, args);
		expect_lacks(both, "no CUDA-graph settings found", args);
		expect_lacks(both, "passed", args);
		free(both);
		free(args);
		free(out);
		free(err);
	}
	/* the same text with the def repaired: no error */
	harness_put("good.py", "def f():\n    pass\ncfg.model.cuda_graph_impl = \"local\"\n");
	char *out, *err;
	cr_expect_eq(harness_run_in("", "good.py", &out, &err), 0);
	expect_lacks(out, "CG917", "good.py");
	free(out);
	free(err);

	/* walked: reported where it mentions a CUDA-graph key; unrelated broken Python stays quiet */
	char *sub;
	cr_assert_neq(asprintf(&sub, "%s/tree", harness_dir), -1);
	cr_assert_eq(mkdir(sub, 0755), 0);
	free(sub);
	cr_assert_neq(asprintf(&sub, "%s/tree/lib", harness_dir), -1);
	cr_assert_eq(mkdir(sub, 0755), 0);
	free(sub);
	harness_put("tree/recipe.py", broken_recipe);
	harness_put("tree/lib/util.py", "def g(:\n    return 1\n");
	int rc = harness_run_in("", "tree", &out, &err);
	cr_expect_eq(rc, 2);
	char *heads = harness_heads(out);
	cr_expect_str_eq(heads, "tree/recipe.py:1:7: error: Python syntax error: missing ')' [CG917 python-syntax]\n");
	free(heads);
	free(out);
	free(err);
	/* a key read, not written, makes it a candidate as well */
	harness_put("tree/lib/util.py", "def g(:\n    return cfg.model.cuda_graph_scope\n");
	rc = harness_run_in("", "tree", &out, &err);
	cr_expect_eq(rc, 2);
	heads = harness_heads(out);
	cr_expect_str_eq(heads, "tree/lib/util.py:1:7: error: Python syntax error: missing ')' [CG917 python-syntax]\n"
				"tree/recipe.py:1:7: error: Python syntax error: missing ')' [CG917 python-syntax]\n");
	free(heads);
	free(out);
	free(err);
}

/* Megatron-LM 0.15's --cuda-graph-scope is type=str without nargs: argparse takes 'attn' and stops
 * on 'mlp' ("error: unrecognized arguments: mlp"); 0.16 takes the list. The word was dropped in
 * silence, and the job judged as if it would run (issue 41, item 5). */
Test(gate, word_megatron_lm_rejects)
{
	harness_put("job.sh", "#!/bin/bash\n"
			      "torchrun pretrain_gpt.py --cuda-graph-impl local --cuda-graph-scope attn mlp --bf16\n");
	static const char head[] = "job.sh:2:74: error: no flag takes 'mlp': --cuda-graph-scope takes one value in "
				   "Megatron-LM 0.15 (a list from 0.16), and Megatron-LM's parser has no positional "
				   "arguments; argparse stops with 'error: unrecognized arguments: mlp' "
				   "[CG931 argument-rejected]\n";
	static const char *const modes[] = {"", "--diff", "suggest", "facts", "-j 2"};
	for (size_t m = 0; m < sizeof(modes) / sizeof(*modes); m++) {
		char *args, *out, *err, *both;
		cr_assert_neq(asprintf(&args, "%s --mcore 0.15 --bridge none job.sh", modes[m]), -1);
		int rc = harness_run_in("", args, &out, &err);
		cr_expect_eq(rc, 2, "cglint %s: exit %d, wanted 2", args, rc);
		cr_assert_neq(asprintf(&both, "%s%s", out, err), -1);
		expect_has(both, head, args);
		expect_has(both, "    2 | torchrun pretrain_gpt.py --cuda-graph-impl local --cuda-graph-scope attn mlp --bf16\n"
				 "      |                                                                          ^^^\n", args);
		free(both);
		free(args);
		free(out);
		free(err);
	}
	/* 0.16 takes both words; a flag cglint does not know may take any number of words */
	char *out, *err;
	cr_expect_eq(harness_run_in("", "--mcore 0.16 --bridge none job.sh", &out, &err), 0);
	expect_lacks(out, "CG931", "0.16");
	free(out);
	free(err);
	harness_put("job.sh", "#!/bin/bash\ntorchrun pretrain_gpt.py --cuda-graph-impl local --cuda-graph-scope attn "
			      "--data-path 0.5 /a 0.5 /b --bf16\n");
	cr_expect_eq(harness_run_in("", "--mcore 0.15 --bridge none job.sh", &out, &err), 0);
	expect_lacks(out, "CG931", "unknown flag's words");
	free(out);
	free(err);
}

/* run_recipe.py has no --config-file in any Bridge release: 0.6 stops with parser.error, 0.3 to 0.5
 * hand it to Hydra's override parser, which refuses it. It gave "no findings", the override never
 * read. Bridge 0.2 has no run_recipe.py: nothing to judge its options against. */
Test(gate, option_the_recipe_runner_rejects)
{
	harness_put("override.yaml", "model:\n  cuda_graph_impl: transformer_engine\n  use_te_rng_tracker: false\n");
	harness_put("run.sh", "#!/bin/bash\n"
			      "torchrun scripts/training/run_recipe.py --config-file override.yaml model.cuda_graph_impl=local\n");
	static const struct { const char *bridge, *head; } cases[] = {
		{"0.6", "run.sh:2:41: error: Megatron-Bridge 0.6's run_recipe.py refuses '--config-file': argparse stops "
			"with 'run_recipe.py: error: Unknown option: --config-file' (the runner has no --config-file: give "
			"its overrides as KEY=VALUE words) [CG931 argument-rejected]\n"},
		{"0.4", "run.sh:2:41: error: Megatron-Bridge 0.4's run_recipe.py has no option '--config-file': it goes to "
			"the config overrides, and Hydra's override parser refuses it before training ('OverridesError: "
			"Failed to parse Hydra overrides') (the runner has no --config-file: give its overrides as "
			"KEY=VALUE words) [CG931 argument-rejected]\n"},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
		char *args, *out, *err;
		cr_assert_neq(asprintf(&args, "--bridge %s run.sh", cases[k].bridge), -1);
		int rc = harness_run_in("", args, &out, &err);
		cr_expect_eq(rc, 2, "cglint %s: exit %d, wanted 2", args, rc);
		char *heads = harness_heads(out);
		cr_expect_str_eq(heads, cases[k].head, "%s", args);
		expect_lacks(err, "no findings", args);
		free(heads);
		free(args);
		free(out);
		free(err);
	}
	char *out, *err;
	int rc = harness_run_in("", "--bridge 0.2 run.sh", &out, &err);
	cr_expect_eq(rc, 0, "Bridge 0.2: exit %d", rc);
	expect_lacks(out, "CG931", "Bridge 0.2");
	free(out);
	free(err);
}

static const char on_bridge[] = "from megatron.bridge.recipes.llama.llama3 import llama3_8b_pretrain_config\n"
				"from team_helpers import tune\n\n\n"
				"def my_config():\n"
				"    cfg = llama3_8b_pretrain_config()\n"
				"    cfg.model.cuda_graph_impl = \"local\"\n"
				"    cfg.model.use_te_rng_tracker = False\n"
				"    tune(cfg.checkpoint)\n"
				"    return cfg\n";
/* a partial override: no finding, checks left undecided */
static const char partial[] = "model:\n  cuda_graph_impl: transformer_engine\n  use_te_rng_tracker: true\n"
			      "rng:\n  te_rng_tracker: true\n";

/* Item 2: the Bridge import is a warning, the team's own a note; undecided checks fail a gate
 * only under --fail-on undecided, and the summary says how to decide them. */
Test(gate, undecided_checks_can_fail_a_gate)
{
	harness_put("r.py", on_bridge);
	char *out, *err, *s;
	int rc = harness_run_in("", "--format concise r.py", &out, &err);
	cr_expect_eq(rc, 0, "a warning does not fail the default gate");
	expect_has(out, "r.py:1:50: warning: cannot resolve import 'megatron.bridge.recipes.llama.llama3' (not found "
			"above this file or on the Python path): 'llama3_8b_pretrain_config' is not followed "
			"[CG924 megatron-import-not-followed]\n", "Bridge import");
	expect_has(out, "r.py:2:26: note: cannot resolve import 'team_helpers'", "team import");
	expect_has(out, "[CG921 python-not-followed]", "team import");
	expect_has(err, " checks undecided (--show-undecided lists them; --python-path decides them)\n", "summary");
	free(out);
	free(err);

	cr_expect_eq(gate("--fail-on undecided r.py", &s), 1);
	expect_has(s, " checks undecided, which fail the run under fail-on undecided (--show-undecided lists them; --python-path "
		      "decides them)\n", "--fail-on undecided");
	free(s);
	cr_expect_eq(gate("--fail-on warning r.py", &s), 1, "CG924 is a warning");
	free(s);

	/* no finding, only undecided checks */
	harness_put("o.yaml", partial);
	cr_expect_eq(gate("o.yaml", &s), 0);
	expect_has(s, "cglint: no findings (1 file checked; ", "default");
	expect_has(s, " checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them))\n", "default");
	free(s);
	cr_expect_eq(gate("--fail-on note o.yaml", &s), 0, "undecided checks are below note");
	free(s);
	cr_expect_eq(gate("--fail-on undecided o.yaml", &s), 1);
	expect_has(s, "undecided, which fail the run under fail-on undecided (--show-undecided lists them; --assume-defaults or "
		      "-E/--env-file decide them))\n", "--fail-on undecided");
	free(s);
	cr_expect_eq(gate("--fail-on undecided --exit-zero o.yaml", &s), 0);
	expect_lacks(s, "fail the run", "--exit-zero");
	free(s);
	/* the defaults leave only the job's environment undecided; -E decides that too */
	cr_expect_eq(gate("--fail-on undecided --assume-defaults o.yaml", &s), 1);
	expect_has(s, "(1 file checked; 1 check undecided, which fail the run under fail-on undecided (--show-undecided lists them; "
		      "-E/--env-file decides them))\n", "--assume-defaults");
	free(s);
	cr_expect_eq(gate("--fail-on undecided --assume-defaults -E PYTORCH_CUDA_ALLOC_CONF= o.yaml", &s), 0);
	cr_expect_str_eq(s, "cglint: all checks passed (1 file checked)\n");
	free(s);
	/* --show-undecided lists them: the summary keeps only what decides them */
	cr_expect_eq(gate("--show-undecided --fail-on undecided --assume-defaults o.yaml", &s), 1);
	expect_has(s, "1 check undecided, which fail the run under fail-on undecided (-E/--env-file decides them))\n", "--show-undecided");
	free(s);

	rc = harness_run_in("", "--fail-on never o.yaml", &out, &err);
	cr_expect_eq(rc, 2);
	cr_expect_str_eq(err, "cglint: --fail-on is error, warning, note or undecided, not 'never'\n(try 'cglint --help')\n");
	free(out);
	free(err);
	rc = harness_run_in("", "--help", &out, &err);
	expect_has(out, "undecided: on any finding or undecided check", "--help");
	free(out);
	free(err);
	rc = harness_run_in("", "completion bash", &out, &err);
	expect_has(out, "compgen -W 'error warning note undecided'", "completion");
	free(out);
	free(err);
}

/* Item 2: fail-on in .cglint.yaml, at the top and per path; the command line wins. */
Test(gate, fail_on_in_the_project_config)
{
	sub("legacy");
	harness_put("o.yaml", partial);
	harness_put("legacy/o.yaml", partial);
	harness_put(".cglint.yaml", "fail-on: undecided\nper-path:\n  - paths: [\"legacy/**\"]\n    fail-on: error\n");
	char *s;
	cr_expect_eq(gate("o.yaml", &s), 1);
	expect_has(s, "which fail the run under fail-on undecided", "fail-on: undecided");
	free(s);
	cr_expect_eq(gate("legacy/o.yaml", &s), 0, "per-path fail-on: error");
	expect_lacks(s, "fail the run", "legacy");
	free(s);
	cr_expect_eq(gate("--fail-on error o.yaml", &s), 0, "--fail-on wins over the config");
	free(s);
	cr_expect_eq(gate("--isolated o.yaml", &s), 0);
	free(s);
	/* both files in one run: the checks of o.yaml fail it, legacy's do not */
	cr_expect_eq(gate("o.yaml legacy/o.yaml", &s), 1);
	expect_has(s, "(2 files checked; 58 checks undecided, 29 of which fail the run under fail-on undecided", "both");
	free(s);

	harness_put(".cglint.yaml", "fail-on: never\n");
	char *out, *err;
	cr_expect_eq(harness_run_in("", "--format concise o.yaml", &out, &err), 2);
	expect_has(out, ".cglint.yaml:1:10: error: fail-on is error, warning, note or undecided [CG915", "bad fail-on");
	free(out);
	free(err);
}

/* Item 2: a model whose config.json is not in the Hugging Face cache: the cache decides. */
Test(gate, summary_names_the_hugging_face_cache)
{
	sub("hub");
	harness_put("hf.py", "from megatron.bridge import AutoBridge\n\n\n"
			     "def my_config():\n"
			     "    cfg = ConfigContainer()\n"
			     "    cfg.model = AutoBridge.from_hf_pretrained(\"org/tiny\").to_megatron_provider()\n"
			     "    cfg.model.cuda_graph_impl = \"local\"\n"
			     "    cfg.rng.te_rng_tracker = True\n"
			     "    return cfg\n");
	char *hub, *s;
	cr_assert_neq(asprintf(&hub, "%s/hub", harness_dir), -1);
	setenv("HF_HUB_CACHE", hub, 1);        /* each test runs in a process of its own */
	free(hub);
	cr_expect_eq(gate("hf.py", &s), 0);
	expect_has(s, "checks undecided (--show-undecided lists them; a Hugging Face cache decides them))\n", "HF");
	free(s);
}

static const char m925_015[] = "a Megatron-Bridge recipe judged as plain Megatron-LM: no Megatron-Bridge release "
			       "ships Megatron Core 0.15, so the target has no Bridge and Bridge's checks are off; pass "
			       "--bridge 0.2 (it ships Megatron Core 0.15-dev) or --mcore 0.15-dev "
			       "[CG925 bridge-input-without-bridge]\n";

/* Item 3: --mcore 0.15 alone on a Bridge recipe says it drops Bridge, once per file, naming the
 * flags; with them Bridge's checks (CG101) come back. */
Test(gate, bridge_input_without_bridge)
{
	harness_put("b.py", "def base_config():\n"
			    "    cfg = ConfigContainer()\n"
			    "    cfg.model.cuda_graph_impl = \"local\"\n"
			    "    cfg.model.use_te_rng_tracker = False\n"
			    "    cfg.rng.te_rng_tracker = False\n"
			    "    return cfg\n\n\n"
			    "def other_config():\n"
			    "    cfg = base_config()\n"
			    "    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
			    "    return cfg\n");
	char *out, *err;
	cr_expect_eq(harness_run_in("", "--format concise --mcore 0.15 b.py", &out, &err), 0);
	char *want;
	cr_assert_neq(asprintf(&want, "b.py:1:5: warning: %s", m925_015), -1);
	cr_expect_str_eq(out, want, "--mcore 0.15");
	free(want);
	free(out);
	free(err);
	static const char *const with_bridge[] = {"--mcore 0.15-dev", "--bridge 0.2"};
	for (size_t k = 0; k < 2; k++) {
		char *args;
		cr_assert_neq(asprintf(&args, "--format concise %s b.py", with_bridge[k]), -1);
		cr_expect_eq(harness_run_in("", args, &out, &err), 1, "%s", args);
		expect_lacks(out, "CG925", args);
		cr_expect_eq(count(out, "[CG101 te-rng-tracker-required]"), 2, "%s:\n%s", args, out);
		free(args);
		free(out);
		free(err);
	}

	/* a Bridge override file with --mcore alone: the Bridge that ships that Megatron Core */
	harness_put("o.yaml", "model:\n  cuda_graph_impl: local\n");
	cr_expect_eq(harness_run_in("", "--format concise --mcore 0.17 --bridge none o.yaml", &out, &err), 0);
	cr_expect_str_eq(out, "", "--bridge none says it: %s", out);
	free(out);
	free(err);
	/* .cglint.yaml's bridge: none says it too; its mcore alone does not; a YAML that sets no
	 * CUDA-graph key is no Bridge input */
	harness_put(".cglint.yaml", "target:\n  mcore: \"0.16\"\n  bridge: none\n");
	harness_put("ci.yaml", "stages: [build, test]\n");
	cr_expect_eq(harness_run_in("", "--format concise o.yaml ci.yaml", &out, &err), 0);
	cr_expect_str_eq(out, "", "bridge: none says it: %s", out);
	free(out);
	free(err);
	harness_put(".cglint.yaml", "target:\n  mcore: \"0.15\"\n");
	cr_expect_eq(harness_run_in("", "--format concise o.yaml ci.yaml", &out, &err), 0);
	cr_expect_str_eq(out, "o.yaml:2:3: warning: a Megatron-Bridge config judged as plain Megatron-LM: no Megatron-Bridge "
			      "release ships Megatron Core 0.15, so the target has no Bridge and Bridge's checks are off; pass "
			      "--bridge 0.2 (it ships Megatron Core 0.15-dev) or --mcore 0.15-dev "
			      "[CG925 bridge-input-without-bridge]\n");
	free(out);
	free(err);

	/* Bridge's launcher is Bridge's input; Megatron-LM's command line is not */
	harness_put("go.sh", "#!/bin/bash\n"
			     "python scripts/training/run_recipe.py --recipe llama3_8b_pretrain_config model.cuda_graph_impl=local\n"
			     "torchrun pretrain_gpt.py --cuda-graph-impl local --te-rng-tracker\n");
	cr_expect_eq(harness_run_in("", "--format concise --isolated --mcore 0.15 go.sh", &out, &err), 0);
	cr_expect_eq(count(out, "[CG925 bridge-input-without-bridge]"), 1, "%s", out);
	expect_has(out, "go.sh:2:8: warning: a Megatron-Bridge launcher command judged as plain Megatron-LM: no "
			"Megatron-Bridge release ships Megatron Core 0.15", "launcher");
	free(out);
	free(err);
}

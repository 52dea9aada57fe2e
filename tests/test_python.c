/* SPDX-License-Identifier: MIT */
/*
 * python: Python recipes get what YAML gets around the checks, end to end. --fix and --diff edit
 * the Python value in place (fix_for itself is test_pyfix.c); .cglint.yaml applies to .py files;
 * a named file without CUDA-graph settings says so; the JSON, SARIF and GitHub outputs of a
 * Python finding. Inline suppressions in Python comments are fixtures
 * (fixtures/python/CG913-python.*), the language server's .py documents test_lsp_doc.c.
 *
 * Each test builds a project in a temporary folder whose root holds .git and an empty
 * .cglint.yaml, so neither a config above /tmp nor another root can leak in.
 */
#define _GNU_SOURCE /* asprintf */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness.h"

#define expect_str(got, want) cr_expect_str_eq(got, want, "\n--- got:\n%s\n--- wanted:\n%s", got, want)

/* ---- end to end --------------------------------------------------------------------------- */

/* The root holds .git and a .cglint.yaml: neither a config above /tmp nor another root leaks in. */
static void init(void)
{
	cr_assert(harness_tmpdir(harness_dir, sizeof(harness_dir), "python", HARNESS_CONFIG | HARNESS_GIT));
}

TestSuite(python, .init = init, .fini = harness_fini);

#define M101 "Transformer engine's RNG tracker is required for cudagraphs, it can be enabled with use_te_rng_tracker=True'."
#define R101 " [CG101 te-rng-tracker-required]\n"

static const char recipe[] =
	"from megatron.bridge.training.config import RNGConfig\n"
	"\n"
	"\n"
	"def assign_config():\n"
	"    cfg = llama3_8b_pretrain_config()\n"
	"    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
	"    cfg.model.use_te_rng_tracker = False\n"
	"    cfg.rng.te_rng_tracker = False  # was: the A/B run\n"
	"    return cfg\n"
	"\n"
	"\n"
	"def ctor_config():\n"
	"    return ConfigContainer(\n"
	"        model=GPTModelProvider(cuda_graph_impl='transformer_engine', use_te_rng_tracker=False),\n"
	"        rng=RNGConfig(te_rng_tracker=False, seed=1234),\n"
	"    )\n"
	"\n"
	"\n"
	"def chain_config():\n"
	"    cfg = llama3_8b_pretrain_config()\n"
	"    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
	"    cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = False\n"
	"    return cfg\n";

static const char recipe_diff[] =
	"--- a/r.py\n"
	"+++ b/r.py\n"
	"@@ -5,19 +5,19 @@\n"
	"     cfg = llama3_8b_pretrain_config()\n"
	"     cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
	"     cfg.model.use_te_rng_tracker = False\n"
	"-    cfg.rng.te_rng_tracker = False  # was: the A/B run\n"
	"+    cfg.rng.te_rng_tracker = True  # was: the A/B run\n"
	"     return cfg\n"
	" \n"
	" \n"
	" def ctor_config():\n"
	"     return ConfigContainer(\n"
	"         model=GPTModelProvider(cuda_graph_impl='transformer_engine', use_te_rng_tracker=False),\n"
	"-        rng=RNGConfig(te_rng_tracker=False, seed=1234),\n"
	"+        rng=RNGConfig(te_rng_tracker=True, seed=1234),\n"
	"     )\n"
	" \n"
	" \n"
	" def chain_config():\n"
	"     cfg = llama3_8b_pretrain_config()\n"
	"     cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
	"-    cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = False\n"
	"+    cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = True\n"
	"     return cfg\n";

Test(python, diff_shows_the_python_edits_and_changes_nothing)
{
	harness_put("r.py", recipe);
	char *out, *err;
	int rc = harness_run_in("", "--mcore 0.17 --bridge 0.4 --diff r.py", &out, &err);
	cr_expect_eq(rc, 1);
	expect_str(out, recipe_diff);
	expect_str(err, "");
	free(out);
	free(err);
	char *now = harness_read(harness_dir, "r.py", NULL);
	expect_str(now, recipe);
	free(now);
}

Test(python, fix_writes_the_python_values)
{
	harness_put("r.py", recipe);
	char *out, *err;
	int rc = harness_run_in("", "--mcore 0.17 --bridge 0.4 --fix r.py", &out, &err);
	cr_expect_eq(rc, 0, "everything fixed: %s", out);
	expect_str(out, "");
	expect_str(err, "cglint: fixed 3 finding(s)\ncglint: no findings (1 file checked; 51 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them))\n");
	free(out);
	free(err);
	char *now = harness_read(harness_dir, "r.py", NULL);
	/* the diff's new side, applied */
	char *want = strdup(recipe);
	for (char *p; (p = strstr(want, "tracker=False, seed")) || (p = strstr(want, "tracker = False  #")) ||
		      (p = strstr(want, "use_te_rng_tracker = False\n    return"));) {
		char *f = strstr(p, "False");
		memcpy(f, "True ", 5);
		memmove(f + 4, f + 5, strlen(f + 5) + 1);
	}
	expect_str(now, want);
	free(want);
	free(now);
	harness_expect_lint("", "--mcore 0.17 --bridge 0.4 r.py", 0, "");
}

/* A value that is no literal, or a literal another key shares, is the user's to change. */
Test(python, fix_leaves_what_it_cannot_rewrite)
{
	static const char text[] = "def f(flag):\n"
				   "    cfg = llama3_8b_pretrain_config()\n"
				   "    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
				   "    cfg.model.use_te_rng_tracker = False\n"
				   "    cfg.rng.te_rng_tracker = cfg.train.manual_gc = False\n"
				   "    return cfg\n";
	harness_put("c.py", text);
	char *out;
	cr_expect_eq(harness_run_in("", "--mcore 0.17 --bridge 0.4 --diff c.py", &out, NULL), 0);
	expect_str(out, "");
	free(out);
	harness_expect_lint("", "--mcore 0.17 --bridge 0.4 c.py", 1, "c.py:5:13: error: " M101 " (in f)" R101);
}

/* select, ignore, severity, exclude and per-path, from .cglint.yaml, on .py files. */
Test(python, cglint_yaml_applies_to_python)
{
	static const char text[] = "def te_config():\n"
				   "    cfg = llama3_8b_pretrain_config()\n"
				   "    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
				   "    cfg.model.cuda_graph_scop = [\"attn\"]\n"
				   "    cfg.model.use_te_rng_tracker = False\n"
				   "    cfg.rng.te_rng_tracker = False\n"
				   "    return cfg\n";
	harness_put(".cglint.yaml", "target:\n  mcore: \"0.17\"\n  bridge: \"0.4\"\n"
				    "severity:\n  CG101: warning\n"
				    "exclude: [\"vendor/**\"]\n"
				    "per-path:\n"
				    "  - paths: [\"legacy/*.py\"]\n    ignore: [CG101]\n"
				    "  - paths: [\"strict/*.py\"]\n    select: [CG101]\n    severity: {CG101: error}\n");
	harness_put("recipes/r.py", text);
	harness_put("legacy/l.py", text);
	harness_put("strict/s.py", text);
	harness_put("vendor/v.py", text);
	const char *w905 = "warning: unknown key 'cuda_graph_scop'; did you mean 'cuda_graph_scope'? (in te_config) "
			   "[CG905 unknown-key]\n";
	char want[2048];
	snprintf(want, sizeof(want),
		 "legacy/l.py:4:15: %s"
		 "recipes/r.py:4:15: %s"
		 "recipes/r.py:6:13: warning: " M101 " (in te_config)" R101
		 "strict/s.py:6:13: error: " M101 " (in te_config)" R101,
		 w905, w905);
	harness_expect_lint("", "legacy recipes strict vendor", 1, want);
	/* a named file under exclude: is skipped too */
	harness_expect_lint("", "vendor/v.py", 0, "");
	/* the config's select: a rule it leaves out is not reported */
	harness_put(".cglint.yaml", "target:\n  mcore: \"0.17\"\n  bridge: \"0.4\"\nselect: [CG905]\n");
	snprintf(want, sizeof(want), "recipes/r.py:4:15: %s", w905);
	harness_expect_lint("", "recipes/r.py", 0, want);
}

Test(python, named_file_without_settings_says_so)
{
	harness_put("tools/plot.py", "import matplotlib\n\n\ndef main():\n    x = {'a': 1}\n    print(x['a'])\n");
	harness_put("tools/broken.py", "def main(:\n    return [1,\n");
	harness_put("tools/other.yaml", "model:\n  cuda_graph_impl: transformer_engine\n");
	char *out, *err;
	int rc = harness_run_in("", "tools/plot.py", &out, &err);
	cr_expect_eq(rc, 0);
	expect_str(out, "");
	expect_str(err, "cglint: tools/plot.py: no CUDA-graph settings found\ncglint: all checks passed (1 file checked)\n");
	free(out);
	free(err);
	/* a syntax error in a file without settings is no YAML error and no finding */
	rc = harness_run_in("", "--format json tools/broken.py", &out, &err);
	cr_expect_eq(rc, 0);
	cr_expect_not_null(strstr(out, "\"diagnostics\": []"), "%s", out);
	expect_str(err, "cglint: tools/broken.py: no CUDA-graph settings found\ncglint: all checks passed (1 file checked)\n");
	free(out);
	free(err);
	/* a folder walk stays quiet about them: only the summary, which counts them as checked */
	rc = harness_run_in("", "tools", &out, &err);
	cr_expect_eq(rc, 0);
	expect_str(out, "");
	expect_str(err, "cglint: no findings (3 files checked; 30 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them))\n");
	free(out);
	free(err);
	/* from stdin, named by --stdin-filename */
	rc = harness_run_in("", "--stdin-filename s.py - < tools/plot.py", &out, &err);
	cr_expect_eq(rc, 0);
	expect_str(err, "cglint: s.py: no CUDA-graph settings found\ncglint: all checks passed (1 file checked)\n");
	free(out);
	free(err);
}

/* ---- outputs ------------------------------------------------------------------------------ */

static const char wide[] = "def w_config():\n"
			   "    cfg = llama3_8b_pretrain_config()\n"
			   "    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
			   "    cfg.model.use_te_rng_tracker = False\n"
			   "    note = \"\xc3\xa9\xe2\x82\xac\"; cfg.rng.te_rng_tracker = False\n"
			   "    return cfg\n";

static json_t *run_json(const char *args)
{
	char *out;
	harness_run_in("", args, &out, NULL);
	json_error_t e;
	json_t *doc = json_loads(out, 0, &e);
	cr_assert_not_null(doc, "not JSON: %s", out);
	free(out);
	return doc;
}

Test(python, json_output)
{
	harness_put("recipes/w.py", wide);
	json_t *doc = run_json("--mcore 0.17 --bridge 0.4 --format json recipes/w.py");
	json_t *ds = json_object_get(doc, "diagnostics");
	cr_assert_eq(json_array_size(ds), 1);
	json_t *d = json_array_get(ds, 0);
	cr_expect_str_eq(json_string_value(json_object_get(d, "rule")), "CG101");
	cr_expect_str_eq(json_string_value(json_object_get(d, "path")), "recipes/w.py");
	cr_expect_eq(json_integer_value(json_object_get(d, "line")), 5);
	/* fe_py counts bytes, as the shell front-end does: 'é' is 2, '€' 3 */
	cr_expect_eq(json_integer_value(json_object_get(d, "column")), 29);
	cr_expect_str_eq(json_string_value(json_object_get(d, "message")), M101 " (in w_config)");
	json_decref(doc);
}

Test(python, sarif_output)
{
	harness_put("recipes/w.py", wide);
	json_t *log = run_json("--mcore 0.17 --bridge 0.4 --format sarif recipes/w.py");
	json_t *res = json_array_get(json_object_get(json_array_get(json_object_get(log, "runs"), 0), "results"), 0);
	cr_assert_not_null(res);
	cr_expect_str_eq(json_string_value(json_object_get(res, "ruleId")), "CG101");
	json_t *pl = json_object_get(json_array_get(json_object_get(res, "locations"), 0), "physicalLocation");
	json_t *art = json_object_get(pl, "artifactLocation");
	cr_expect_str_eq(json_string_value(json_object_get(art, "uri")), "recipes/w.py");
	cr_expect_str_eq(json_string_value(json_object_get(art, "uriBaseId")), "%SRCROOT%");
	/* SARIF columns are code points: the 5 bytes of "é€" are 2 */
	json_t *reg = json_object_get(pl, "region");
	cr_expect_eq(json_integer_value(json_object_get(reg, "startLine")), 5);
	cr_expect_eq(json_integer_value(json_object_get(reg, "startColumn")), 26);
	cr_expect_eq(json_integer_value(json_object_get(reg, "endColumn")), 26 + (json_int_t)strlen("te_rng_tracker"));
	json_decref(log);
}

Test(python, github_output)
{
	harness_put("recipes/w.py", wide);
	char *out;
	cr_expect_eq(harness_run_in("", "--mcore 0.17 --bridge 0.4 --format github recipes/w.py", &out, NULL), 1);
	const char *want = "::error file=recipes/w.py,line=5,col=29,title=cglint CG101 (te-rng-tracker-required)::";
	cr_expect(!strncmp(out, want, strlen(want)), "got:\n%s", out);
	cr_expect_not_null(strstr(out, "(in w_config)"), "got:\n%s", out);
	free(out);
}

/* A helper that four recipe functions reach (itself a unit too) gives one finding at its
 * line, naming three and counting the rest; d_config, fixed after the call, is not among them. */
/* What a helper sets lands on each call that reaches it (issue 28 item 5), with the helper's
 * line as a related location: a suppression on the call covers it. A private helper its file
 * calls is judged through its callers only; a public one is a recipe of its own too. */
Test(python, a_helper_finding_lands_on_each_call)
{
	harness_put("recipes/many.py", "def _graphs(c):\n"
				       "    c.model.cuda_graph_impl = \"transformer_engine\"\n"
				       "    c.rng.te_rng_tracker = c.model.use_te_rng_tracker = False\n"
				       "\n\n"
				       "def a_config():\n    cfg = base()\n    _graphs(cfg)\n    return cfg\n\n\n"
				       "def b_config():\n    cfg = base()\n    _graphs(cfg)  # cglint: disable=CG101\n    return cfg\n\n\n"
				       "def c_config():\n    cfg = base()\n    _graphs(cfg)\n    return cfg\n\n\n"
				       "def d_config():\n    cfg = base()\n    _graphs(cfg)\n"
				       "    cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = True\n    return cfg\n");
	json_t *doc = run_json("--mcore 0.17 --bridge 0.4 --format json recipes/many.py");
	json_t *ds = json_object_get(doc, "diagnostics");
	cr_assert_eq(json_array_size(ds), 2, "%s", json_dumps(ds, 0));
	static const int lines[] = {8, 20};
	static const char *const units[] = {"a_config", "c_config"};
	for (size_t k = 0; k < 2; k++) {
		json_t *d = json_array_get(ds, k);
		cr_expect_str_eq(json_string_value(json_object_get(d, "rule")), "CG101");
		cr_expect_eq(json_integer_value(json_object_get(d, "line")), lines[k]);
		char want[256];
		snprintf(want, sizeof(want), M101 " (in %s)", units[k]);
		cr_expect_str_eq(json_string_value(json_object_get(d, "message")), want);
		{               /* the helper's line, where the tracker is turned off */
			json_t *n = json_array_get(json_object_get(d, "notes"), json_array_size(json_object_get(d, "notes")) - 1);
			cr_expect_eq(json_integer_value(json_object_get(n, "line")), 3);
			cr_expect_str_eq(json_string_value(json_object_get(n, "message")), "rng.te_rng_tracker is written here");
		}
	}
	json_decref(doc);
	/* the same helper made public: a recipe of its own, judged alone too */
	harness_put("recipes/pub.py", "def graphs_config():\n    cfg = base()\n    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
				      "    cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = False\n    return cfg\n\n\n"
				      "def a_config():\n    cfg = graphs_config()\n    return cfg\n");
	doc = run_json("--mcore 0.17 --bridge 0.4 --format json recipes/pub.py");
	ds = json_object_get(doc, "diagnostics");
	cr_expect_eq(json_array_size(ds), 2, "%s", json_dumps(ds, 0));
	json_decref(doc);
}

/* A recipe folder linted from inside its package: an import walks up to the package root and
 * back down to a file that is also an input ('../../megatron/bridge/recipes/base.py' from
 * megatron/bridge, 'base.py' from recipes when it was walked as './base.py'). The module is the
 * input, under the input's name: one finding for the write in it, its units summed up, and two
 * files in the closing line, not a third path to the same file with a finding of its own. */
Test(python, a_module_that_is_also_an_input_has_the_inputs_name)
{
	static const char *const pkgs[] = {"src/megatron/__init__.py", "src/megatron/bridge/__init__.py",
					   "src/megatron/bridge/recipes/__init__.py",
					   "src/megatron/bridge/recipes/team/__init__.py"};
	for (size_t k = 0; k < sizeof(pkgs) / sizeof(*pkgs); k++)
		harness_put(pkgs[k], "");
	harness_put("src/megatron/bridge/recipes/base.py", "def apply_graphs(cfg):\n"
							   "    cfg.model.cuda_graph_impl = \"local\"\n"
							   "    cfg.model.cuda_graph_scope = [\"full_iteration\"]\n"
							   "    cfg.rng.te_rng_tracker = True\n\n\n"
							   "def graphs_config():\n    cfg = base()\n    apply_graphs(cfg)\n    return cfg\n");
	harness_put("src/megatron/bridge/recipes/team/a.py", "from megatron.bridge.recipes.base import apply_graphs\n\n\n"
							     "def a_config():\n    cfg = base()\n    apply_graphs(cfg)\n"
							     "    cfg.train.micro_batch_size = 2\n    return cfg\n");
#define SCOPE "cuda_graph_scope is deprecated, use cuda_graph_modules instead."
#define FULL "cuda_graph_modules 'full_iteration' is deprecated. Use cuda_graph_impl='full_iteration' instead."
	/* where, what, the inputs' prefix, the units in the order they reached the write: the
	 * third names base.py two ways (as an input, and as './base.py' from ./team/a.py's import),
	 * and the first name it met wins */
	static const char *const runs[][4] = {
		{"src/megatron/bridge", "recipes", "recipes/", "apply_graphs, graphs_config, a_config"},
		{"src/megatron/bridge/recipes", ".", "./", "apply_graphs, graphs_config, a_config"},
		{"src/megatron/bridge/recipes", "./team base.py", "./", "a_config, apply_graphs, graphs_config"},
	};
	for (size_t k = 0; k < sizeof(runs) / sizeof(*runs); k++) {
		const char *at = runs[k][2];
		char *want, *err, args[128];
		cr_assert_neq(asprintf(&want,
				       "%sbase.py:3:15: note: " SCOPE " (in apply_graphs) [CG132 deprecated-cuda-graph-scope]\n"
				       "%sbase.py:3:34: note: " FULL " (in 3 functions: %s) [CG133 deprecated-full-iteration-module]\n"
				       "%sbase.py:9:5: note: " SCOPE " (in graphs_config) [CG132 deprecated-cuda-graph-scope]\n"
				       "%steam/a.py:6:5: note: " SCOPE " (in a_config) [CG132 deprecated-cuda-graph-scope]\n",
				       at, at, runs[k][3], at, at), -1);
		snprintf(args, sizeof(args), "--mcore 0.19 --bridge 0.6 -j 1 %s", runs[k][1]);
		int rc;
		char *got = harness_lint(runs[k][0], args, &rc, &err);
		expect_str(got, want);
		cr_expect_eq(rc, 0, "cglint %s: exit %d", args, rc);
		cr_expect(strstr(err, "4 notes in 2 files;") != NULL, "%s", err);
		free(got);
		free(err);
		free(want);
	}
#undef SCOPE
#undef FULL
}

/* A 'from megatron... import *' that cglint cannot read is said for the recipe a call may take
 * from it (a *_config name), not for every name the file calls that nothing here binds: len,
 * print and int are builtins, not Bridge's. */
Test(python, an_unread_star_import_is_said_for_a_recipe_not_for_builtins)
{
	harness_put("team.py", "from megatron.bridge.recipes.qwen import *\n\n\n"
			       "def team_config():\n    cfg = qwen3_8b_pretrain_config()\n"
			       "    cfg.train.micro_batch_size = len([1, 2])\n    print(cfg)\n"
			       "    cfg.train.global_batch_size = int('8')\n    return cfg\n");
	json_t *doc = run_json("--format json team.py");
	json_t *ds = json_object_get(doc, "diagnostics");
	cr_assert_eq(json_array_size(ds), 1, "%s", json_dumps(ds, 0));
	json_t *d = json_array_get(ds, 0);
	cr_expect_str_eq(json_string_value(json_object_get(d, "rule")), "CG924");
	cr_expect_eq(json_integer_value(json_object_get(d, "line")), 1);
	cr_expect(strstr(json_string_value(json_object_get(d, "message")), "'qwen3_8b_pretrain_config' is not followed"));
	json_decref(doc);
}

/* A section a recipe sets keys under is a fact of its own, with one entry per child its keys
 * name (a child named twice, or with keys of its own, counts once). */
Test(python, a_section_counts_the_children_its_keys_name)
{
	harness_put("team.yaml", "rules:\n"
				 "  - {id: TEAM002, name: two-overlap-entries, severity: error, when: \"len(comm_overlap) == 2\",\n"
				 "     at: comm_overlap, message: two entries, doc: d}\n"
				 "  - {id: TEAM003, name: three-overlap-entries, severity: error, when: \"len(comm_overlap) == 3\",\n"
				 "     at: comm_overlap, message: three entries, doc: d}\n");
	harness_put("r.py", "def overlap_config():\n"
			    "    cfg = llama3_8b_pretrain_config()\n"
			    "    cfg.model.cuda_graph_impl = \"none\"\n"
			    "    cfg.comm_overlap.tp_comm_overlap = True\n"
			    "    cfg.comm_overlap.tp_comm_overlap_cfg.a = 1\n"
			    "    cfg.comm_overlap.tp_comm_overlap_cfg.b = 2\n"
			    "    cfg.comm_overlap.tp_comm_overlap = False\n"
			    "    return cfg\n");
	harness_expect_lint("", "--mcore 0.17 --bridge 0.4 --rules team.yaml r.py", 1,
			    "r.py:4:22: error: two entries (in overlap_config) [TEAM002 two-overlap-entries]\n");
}

/* An alias re-bound in a chain makes its keys longer at each step; past 16 parts a key names no
 * config field, is not read, and the chain stops there. */
Test(python, keys_past_sixteen_parts_are_not_read)
{
	char *text = strdup("def deep_config():\n"
			    "    cfg = llama3_8b_pretrain_config()\n"
			    "    cfg.model.cuda_graph_impl = \"local\"\n");
	for (int k = 0; k < 12; k++) {
		char *more;
		cr_assert(asprintf(&more, "%s    x = cfg.model\n    x.a = cfg\n", text) > 0);
		free(text);
		text = more;
	}
	harness_put("r.py", text);
	free(text);
	char *out = NULL;
	/* model.cuda_graph_impl, then model.a.model.cuda_graph_impl (4 parts) up to 16 parts */
	harness_run(harness_dir, "--mcore 0.17 --bridge 0.4 -v r.py 2>&1 | grep 'keys read'", &out);
	expect_str(out, "r.py:1:5: note: deep_config: 7 keys read, 0 unknown\n");
	free(out);
}

/* Bridge's MixedPrecisionConfig.setup() copies the section onto the model before validation
 * (steps-bridge-setup.yaml BR-mixed-precision): a preset function's MixedPrecisionConfig(...) is
 * followed with its class defaults, __setattr__'s twins (fp8_param, fp8_param_gather) stay
 * equal, and the model's fp8 is the section's; a preset name not resolved leaves it unknown. */
Test(python, mixed_precision_section_is_copied_onto_the_model)
{
	harness_put("mp.py", "from dataclasses import dataclass\n"
			     "from typing import Optional\n"
			     "\n"
			     "@dataclass(kw_only=True)\n"
			     "class MixedPrecisionConfig:\n"
			     "    bf16: bool = False\n"
			     "    fp8: Optional[str] = None\n"
			     "    fp8_param: Optional[bool] = None\n"
			     "    fp8_param_gather: bool = False\n"
			     "\n"
			     "    def __setattr__(self, name, value):\n"
			     "        object.__setattr__(self, name, value)\n"
			     "        if name == 'fp8_param_gather' and hasattr(self, 'fp8_param'):\n"
			     "            object.__setattr__(self, 'fp8_param', value)\n"
			     "        elif name == 'fp8_param' and hasattr(self, 'fp8_param_gather'):\n"
			     "            object.__setattr__(self, 'fp8_param_gather', value)\n"
			     "\n"
			     "def bf16_mixed():\n"
			     "    return MixedPrecisionConfig(bf16=True)\n"
			     "\n"
			     "def fp8_mixed():\n"
			     "    cfg = bf16_mixed()\n"
			     "    cfg.fp8 = 'hybrid'\n"
			     "    cfg.fp8_param_gather = True\n"
			     "    return cfg\n");
	harness_put("r.py", "from mp import fp8_mixed, bf16_mixed\n"
			    "\n"
			    "def a_config():\n"
			    "    cfg = ConfigContainer()\n"
			    "    cfg.model.fp8 = None\n"
			    "    cfg.mixed_precision = fp8_mixed()\n"
			    "    return cfg\n"
			    "\n"
			    "def b_config():\n"
			    "    cfg = ConfigContainer()\n"
			    "    cfg.model.fp8 = 'e4m3'\n"
			    "    mp = bf16_mixed()\n"
			    "    mp.fp8_param = True\n"
			    "    cfg.mixed_precision = mp\n"
			    "    return cfg\n"
			    "\n"
			    "def c_config():\n"
			    "    cfg = ConfigContainer()\n"
			    "    cfg.model.fp8 = 'hybrid'\n"
			    "    cfg.mixed_precision = 'bf16_mixed'\n"
			    "    return cfg\n");
	char *out = NULL;
	harness_run(harness_dir, "facts --bridge 0.6 --function a_config r.py 2>&1 | grep -E '^  model\\.fp8(_param)? '", &out);
	expect_str(out, "  model.fp8 = \"hybrid\"  [config mp.py:23:15; written null]\n"
			"  model.fp8_param = true  [normalized mp.py:24:28]\n");
	free(out);
	harness_run(harness_dir, "facts --bridge 0.6 --function b_config r.py 2>&1 | grep -E '^  (model|mixed_precision)\\.fp8(_param)?(_gather)? ' | cut -d'[' -f1", &out);
	expect_str(out, "  model.fp8 = null  \n"
			"  mixed_precision.fp8 = null  \n"
			"  mixed_precision.fp8_param = true  \n"
			"  mixed_precision.fp8_param_gather = true  \n"
			"  model.fp8_param = true  \n");
	free(out);
	harness_run(harness_dir, "facts --bridge 0.6 --function c_config r.py 2>&1 | grep -E '^  model\\.fp8 ' | cut -d'[' -f1", &out);
	expect_str(out, "  model.fp8 = (unknown)  \n");
	free(out);
}

/* A helper handed the config reads what its caller set (Bridge's _benchmark_common reads
 * cfg.model through getattr() to decide the TE-RNG flags): each caller gets the helper's answer
 * for its own values, a summary is not reused for a caller whose values differ, getattr()'s
 * default is not taken for a field that is there, and hasattr() of a field set is true. */
Test(python, a_helper_reads_what_its_caller_set)
{
	harness_put("common.py", "def _bench(cfg):\n"
				 "    impl = getattr(cfg.model, 'cuda_graph_impl', None)\n"
				 "    if impl == 'none':\n"
				 "        cfg.model.cuda_graph_scope = []\n"
				 "    if impl is not None:\n"
				 "        cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = impl != 'none'\n"
				 "    if hasattr(cfg.model, 'moe_router_dtype') and cfg.model.recompute_granularity == 'full':\n"
				 "        cfg.model.moe_router_dtype = 'fp32'\n");
	harness_put("r.py", "from common import _bench\n"
			    "\n"
			    "def te_config():\n"
			    "    cfg = ConfigContainer()\n"
			    "    cfg.model.cuda_graph_impl = 'transformer_engine'\n"
			    "    cfg.model.moe_router_dtype = None\n"
			    "    cfg.model.recompute_granularity = 'full'\n"
			    "    _bench(cfg)\n"
			    "    return cfg\n"
			    "\n"
			    "def off_config():\n"
			    "    cfg = ConfigContainer()\n"
			    "    cfg.model.cuda_graph_impl = 'none'\n"
			    "    _bench(cfg)\n"
			    "    return cfg\n"
			    "\n"
			    "def unset_config():\n"
			    "    cfg = ConfigContainer()\n"
			    "    _bench(cfg)\n"
			    "    return cfg\n");
	/* [] then cleared to null as Bridge 0.6 clears an impl-none scope; hasattr() of a field
	 * cglint does not see set is not known */
	static const char *const want[][2] = {
		{"te_config", "  model.moe_router_dtype = \"fp32\"  \n  rng.te_rng_tracker = true  \n"
			      "  model.use_te_rng_tracker = true  \n"},
		{"off_config", "  model.cuda_graph_scope = null  \n  rng.te_rng_tracker = false  \n"
			       "  model.use_te_rng_tracker = false  \n  model.moe_router_dtype = (unknown)  \n"},
		{"unset_config", "  model.cuda_graph_scope = (unknown)  \n  rng.te_rng_tracker = (unknown)  \n"
				 "  model.use_te_rng_tracker = (unknown)  \n  model.moe_router_dtype = (unknown)  \n"},
	};
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		char *cmd = NULL, *out = NULL;
		cr_assert(asprintf(&cmd, "facts --bridge 0.6 --function %s r.py 2>&1 | grep -E "
				   "'^  (rng|model)\\.(te_rng|use_te|cuda_graph_scope|moe_router)' | cut -d'[' -f1",
				   want[k][0]) > 0);
		harness_run(harness_dir, cmd, &out);
		expect_str(out, want[k][1]);
		free(out);
		free(cmd);
	}
}

/* What MCore's TransformerConfig.__post_init__ does to a field the packs' steps recompute
 * (cuda_graph_scope, recompute_modules, moe_expert_capacity_factor) is left to those steps: the
 * class default stands, and a negative capacity factor becomes null as MCore makes it. A
 * provider's own __post_init__ the steps do not replay: what it assigns stays unknown. A
 * setattr(self, name, ...) with a name cglint cannot read may set any string of the method, but
 * not one only a raise, an assert or a warning holds. */
Test(python, post_init_of_mcore_is_the_packs_and_a_providers_own_is_unknown)
{
	harness_put("megatron/__init__.py", "");
	harness_put("megatron/core/__init__.py", "");
	harness_put("megatron/core/transformer/__init__.py", "");
	harness_put("megatron/core/transformer/transformer_config.py",
		    "import warnings\n"
		    "from dataclasses import dataclass\n"
		    "\n"
		    "@dataclass\n"
		    "class TransformerConfig:\n"
		    "    cuda_graph_scope: list = None\n"
		    "    moe_expert_capacity_factor: float = None\n"
		    "    moe_pad_expert_input_to_capacity: bool = False\n"
		    "    recompute_modules: list = None\n"
		    "\n"
		    "    def __post_init__(self):\n"
		    "        if self.moe_expert_capacity_factor is not None and self.moe_expert_capacity_factor < 0:\n"
		    "            self.moe_expert_capacity_factor = None\n"
		    "        if self.recompute_modules is None:\n"
		    "            self.recompute_modules = ['core_attn']\n"
		    "        if self.moe_pad_expert_input_to_capacity and self.moe_expert_capacity_factor is None:\n"
		    "            raise ValueError('moe_expert_capacity_factor must be set to use moe_pad_expert_input_to_capacity')\n"
		    "        for attr, value in self.migrations():\n"
		    "            warnings.warn(f'{attr} is deprecated', DeprecationWarning)\n"
		    "            setattr(self, attr, value)\n"
		    "        self.cuda_graph_scope = self.cuda_graph_scope or []\n");
	harness_put("providers.py", "from dataclasses import dataclass\n"
				    "from megatron.core.transformer.transformer_config import TransformerConfig\n"
				    "\n"
				    "@dataclass\n"
				    "class GPTModelProvider(TransformerConfig):\n"
				    "    pass\n"
				    "\n"
				    "@dataclass\n"
				    "class OwnModelProvider(TransformerConfig):\n"
				    "    def __post_init__(self):\n"
				    "        super().__post_init__()\n"
				    "        self.cuda_graph_scope = ['attn']\n");
	harness_put("r.py", "from providers import GPTModelProvider, OwnModelProvider\n"
			    "\n"
			    "def gpt_config():\n"
			    "    cfg = ConfigContainer(model=GPTModelProvider(moe_expert_capacity_factor=-1.0))\n"
			    "    return cfg\n"
			    "\n"
			    "def own_config():\n"
			    "    cfg = ConfigContainer(model=OwnModelProvider())\n"
			    "    return cfg\n");
	char *out = NULL;
	harness_run(harness_dir, "facts --mcore 0.19 --bridge 0.6 --function gpt_config r.py 2>&1 | "
				 "grep -E '^  model\\.(cuda_graph_scope|moe_expert_capacity_factor|moe_pad_expert_input_to_capacity|"
				 "recompute_modules) ' | sed 's/  \\[.*//' | sort", &out);
	expect_str(out, "  model.cuda_graph_scope = null\n"
			"  model.moe_expert_capacity_factor = null\n"
			"  model.moe_pad_expert_input_to_capacity = false\n"
			"  model.recompute_modules = [\"core_attn\"]\n");
	free(out);
	harness_run(harness_dir, "facts --mcore 0.19 --bridge 0.6 --function own_config r.py 2>&1 | "
				 "grep -E '^  model\\.cuda_graph_scope' | cut -d'[' -f1", &out);
	expect_str(out, "  model.cuda_graph_scope = (unknown)  \n");
	free(out);
	/* Bridge's finalize(): in-batch packing with pipeline parallelism (0.6's name, 0.4/0.5's) */
	harness_put("p.yaml", "dataset: {enable_in_batch_packing: true, pack_sequences_in_batch: true}\n"
			      "model: {pipeline_model_parallel_size: 2, variable_seq_lengths: false}\n");
	harness_put("q.yaml", "dataset: {enable_in_batch_packing: true}\nmodel: {variable_seq_lengths: false}\n");
	static const char *const runs[][2] = {
		{"--bridge 0.6 p.yaml", "  model.variable_seq_lengths = true"},
		{"--bridge 0.5 --mcore 0.17 p.yaml", "  model.variable_seq_lengths = true"},
		{"--bridge 0.3 --mcore 0.16 p.yaml", "  model.variable_seq_lengths = false"},
		{"--bridge 0.6 q.yaml", "  model.variable_seq_lengths = (unknown)"},
	};
	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		char *cmd = NULL;
		cr_assert(asprintf(&cmd, "facts %s | grep -E '^  model\\.variable_seq_lengths ' | sed 's/  \\[.*//'",
				   runs[k][0]) > 0);
		harness_run(harness_dir, cmd, &out);
		char want[128];
		snprintf(want, sizeof(want), "%s\n", runs[k][1]);
		cr_expect_str_eq(out, want, "%s", runs[k][0]);
		free(out);
		free(cmd);
	}
}

Test(python, a_default_factory_that_asks_for_a_module_depends_on_the_machine)
{
	harness_put("fusions.py", "def can_fuse():\n"
				  "    try:\n"
				  "        import fused_kernel  # noqa: F401\n"
				  "        return True\n"
				  "    except ImportError:\n"
				  "        return False\n"
				  "\n"
				  "def build_list():\n"
				  "    return []\n");
	harness_put("providers.py", "from dataclasses import dataclass, field\n"
				    "import fusions\n"
				    "\n"
				    "@dataclass\n"
				    "class MyModelProvider:\n"
				    "    fuse: bool = field(default_factory=fusions.can_fuse)\n"
				    "    other: list = field(default_factory=fusions.build_list)\n");
	harness_put("r.py", "from providers import MyModelProvider\n"
			    "\n"
			    "def gpt_config():\n"
			    "    return ConfigContainer(model=MyModelProvider())\n");
	char *out = NULL;
	harness_run(harness_dir, "facts --mcore 0.19 --bridge 0.6 --function gpt_config r.py 2>&1 | "
				 "grep -E '^  model\\.(fuse|other) ' | sed 's/.*r.py:4:34: //' | sort", &out);
	expect_str(out, "the default of MyModelProvider.fuse: depends on the machine that runs the job: "
			"default_factory=fusions.can_fuse returns whether 'fused_kernel' imports there]\n"
			"the default of MyModelProvider.other: from default_factory=fusions.build_list, which cglint "
			"does not call]\n");
	free(out);
}

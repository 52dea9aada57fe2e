/* SPDX-License-Identifier: MIT */
/*
 * ux: what a new user meets first (issue 17). Unknown rules in --select/--ignore are usage
 * errors; every run ends with one summary line on stderr (-q drops it) that never splices
 * into stdout's lines; a folder with no input says so; YAML streams are read document by
 * document; folder walks honour git's ignore rules (--no-ignore walks everything);
 * --write-baseline says which option and file it needs. Misspelt ids and options get a
 * did-you-mean; text output escapes bytes that are not text; too old a release names the oldest
 * (issue 30).
 */
#define _GNU_SOURCE /* asprintf */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "harness.h"

TestSuite(ux, .init = harness_init, .fini = harness_fini);

#define expect_str(got, want) cr_expect_str_eq(got, want, "\n--- got:\n%s\n--- wanted:\n%s", got, want)

/* Run 'script' (as sh() does); expect exit status 'rc' and exactly 'want' on stdout. */
static void expect_run(const char *script, int rc, const char *want)
{
	char *out;
	int got = harness_sh(harness_dir, script, &out);
	cr_expect_eq(got, rc, "%s: exit %d", script, got);
	expect_str(out, want);
	free(out);
}

static const char bad_impl[] = "model:\n  cuda_graph_impl: bogus\n";
#define M121 "error: Invalid cuda graph implementation: bogus [CG121 invalid-cuda-graph-impl]\n"

/* ---- 1. silence means clean ---- */

Test(ux, unknown_select_and_ignore_are_usage_errors)
{
	harness_put("a.yaml", bad_impl);
	char *out;
	int rc = harness_sh(harness_dir, "cglint --select CG1O1 a.yaml 2>&1", &out);
	cr_expect_eq(rc, 2);
	expect_str(out, "cglint: --select: no rule matches 'CG1O1'; did you mean 'CG101'?\n"
			"(cglint rules lists the rule ids and names)\n");
	free(out);
	rc = harness_sh(harness_dir, "cglint --ignore CG101,te-rng-tracker-requird,CG9 a.yaml 2>&1", &out);
	cr_expect_eq(rc, 2);
	expect_str(out, "cglint: --ignore: no rule matches 'te-rng-tracker-requird'; did you mean "
			"'te-rng-tracker-required'?\n(cglint rules lists the rule ids and names)\n");
	free(out);
	/* ids, prefixes and names that match are fine */
	rc = harness_sh(harness_dir, "cglint --format concise --select CG1,invalid-cuda-graph-impl --ignore CG101 a.yaml 2>/dev/null", &out);
	cr_expect_eq(rc, 1);
	expect_str(out, "a.yaml:2:3: " M121);
	free(out);
	/* cglint rules filters by the same patterns, so it checks them too */
	rc = harness_sh(harness_dir, "cglint rules --select XX9 2>&1 >/dev/null", &out);
	cr_expect_eq(rc, 2);
	cr_expect(strstr(out, "--select: no rule matches 'XX9'") != NULL, "%s", out);
	free(out);
}

/* A rule with per-version variants is explained for the target first: --mcore 0.19 (the
 * default) starts with the 0.18/0.19 CG111, --mcore 0.15 with 0.15's. */
Test(ux, explain_starts_with_the_targets_variant)
{
	expect_run("cglint explain CG111 | sed -n 2p", 0, "applies to: mcore 0.18, 0.19, main@2a75ac12, main\n");
	expect_run("cglint explain --mcore 0.15 CG111 | sed -n 2p", 0, "applies to: mcore 0.15\n");
	expect_run("cglint explain --mcore 0.17 CG111 | grep -c '^applies to'", 0, "1\n");
}

/* Issue 30 item 8: ids in any case wherever they are typed; look-alikes (O/0, l/1, I/1) nearest;
 * unknown options get a suggestion too. */
Test(ux, did_you_mean_ids_in_any_case_and_options)
{
	harness_put("a.yaml", bad_impl);
	expect_run("cglint --select CG1O4 a.yaml 2>&1", 2,
		   "cglint: --select: no rule matches 'CG1O4'; did you mean 'CG104'?\n"
		   "(cglint rules lists the rule ids and names)\n");
	expect_run("cglint --format concise --select cg121 a.yaml 2>/dev/null", 1, "a.yaml:2:3: " M121);
	expect_run("cglint -q --ignore cg1 a.yaml 2>&1", 0, "");
	expect_run("cglint explain cg104 2>&1 | head -1", 0, "CG104 moe-and-moe-router-scopes (error)\n");
	expect_run("cglint explain cg1o4 2>&1", 2,
		   "cglint: no rule 'cg1o4'; did you mean 'CG104'? (cglint rules lists them)\n(try 'cglint --help')\n");
	expect_run("cglint --fixx a.yaml 2>&1", 2,
		   "cglint: unknown or incomplete option '--fixx'; did you mean '--fix'?\n(try 'cglint --help')\n");
	/* a known option without its argument is not misspelt */
	expect_run("cglint a.yaml --mcore 2>&1", 2, "cglint: unknown or incomplete option '--mcore'\n(try 'cglint --help')\n");
	harness_put(".cglint.yaml", "select: [cg121]\n");
	harness_put("b.yaml", "model:\n  cuda_graph_impl: bogus  # cglint: disable=cg12l\n");
	expect_run("cglint --format concise b.yaml 2>/dev/null", 2,
		   "b.yaml:2:3: " M121 "b.yaml:2:29: error: no rule 'cg12l' to disable; did you mean 'CG121'? "
		   "[CG914 bad-suppression]\n");
}

Test(ux, summary_line_counts_files)
{
	harness_put("a.yaml", bad_impl);
	harness_put("b.yaml", "model:\n  cuda_graph_impl: none\n");
	harness_put("c/d.sh", "#!/bin/bash\npython train.py\n");
	harness_put("c/e.txt", "not an input\n");
	char *out;
	int rc = harness_sh(harness_dir, "cglint . 2>&1 >/dev/null", &out);
	cr_expect_eq(rc, 1);
	expect_str(out, "cglint: 1 error in 1 file; 3 files checked; 3 checks undecided (--show-undecided lists them; --assume-defaults decides them)\n");
	free(out);
	rc = harness_sh(harness_dir, "cglint b.yaml c 2>&1 >/dev/null", &out);
	cr_expect_eq(rc, 0);
	expect_str(out, "cglint: no findings (2 files checked; 1 check undecided (--show-undecided lists them; --assume-defaults decides them))\n");
	free(out);
	/* the summary is on stderr in every format, and -q drops it */
	rc = harness_sh(harness_dir, "cglint --format json b.yaml 2>&1 >/dev/null", &out);
	expect_str(out, "cglint: no findings (1 file checked; 1 check undecided (--show-undecided lists them; --assume-defaults decides them))\n");
	free(out);
	rc = harness_sh(harness_dir, "cglint -q a.yaml 2>&1 >/dev/null; cglint --quiet b.yaml 2>&1", &out);
	cr_expect_eq(rc, 0);
	expect_str(out, "");
	free(out);
	/* a config's exclude: is counted as skipped */
	harness_put("sub/.cglint.yaml", "exclude: [x.yaml]\n");
	harness_put("sub/x.yaml", bad_impl);
	harness_put("sub/y.yaml", bad_impl);
	rc = harness_sh(harness_dir, "cglint sub 2>&1 >/dev/null", &out);
	cr_expect_eq(rc, 1);
	expect_str(out, "cglint: 1 error in 1 file; 1 file checked, 1 skipped; 2 checks undecided (--show-undecided lists them; --assume-defaults decides them)\n");
	free(out);
}

/* Findings past stdio's buffer: with 2>&1 the summary used to land inside the last finding. */
Test(ux, summary_never_splices_into_stdout)
{
	char name[32];
	for (int k = 0; k < 60; k++) {
		snprintf(name, sizeof(name), "many/f%02d.yaml", k);
		harness_put(name, bad_impl);
	}
	char *out;
	int rc = harness_sh(harness_dir, "cglint many 2>&1 | cat", &out);
	cr_expect_eq(rc, 0);    /* cat's */
	size_t n = strlen(out);
	cr_assert_gt(n, 4096, "the output must outgrow one stdio buffer");
	const char *last = out + n - 1;
	while (last > out && last[-1] != '\n')
		last--;
	expect_str(last, "cglint: 60 errors in 60 files; 60 files checked; 120 checks undecided (--show-undecided lists them; --assume-defaults decides them)\n");
	cr_expect_eq(strstr(out, "cglint: 60 errors"), last, "the summary is the last line, once");
	free(out);
}

Test(ux, folder_without_input_says_so)
{
	harness_put("docs/readme.txt", "nothing to lint\n");
	char *out;
	int rc = harness_sh(harness_dir, "cglint docs 2>&1", &out);
	cr_expect_eq(rc, 0, "ruff exits 0 too");
	expect_str(out, "cglint: warning: no input found in docs (YAML, launch scripts, Python recipes or "
			"C/C++/CUDA sources)\ncglint: no files checked\n");
	free(out);
	rc = harness_sh(harness_dir, "cglint -q docs 2>&1", &out);
	expect_str(out, "");
	free(out);
}

/* A launch script named on the command line in which no launch command was found says so, as a
 * recipe without settings does: its exports were read but nothing judged them. Walked: quiet. */
Test(ux, script_without_launch_command_says_so)
{
	harness_put("jobs/env.sh", "#!/bin/bash\nexport PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\necho ready\n");
	harness_put("jobs/train.sh", "#!/bin/bash\ntorchrun --nproc-per-node 8 pretrain_gpt.py --cuda-graph-impl none\n");
	expect_run("cglint jobs/env.sh 2>&1", 0,
		   "cglint: jobs/env.sh: no launch command found (pretrain_*.py, run_recipe.py, run_script.py): "
		   "nothing checked\ncglint: all checks passed (1 file checked)\n");
	/* a script with a launch command, and a folder walk, stay quiet */
	expect_run("cglint jobs/train.sh 2>&1", 0, "cglint: all checks passed (1 file checked)\n");
	expect_run("cglint jobs 2>&1", 0, "cglint: all checks passed (2 files checked)\n");
}

/* What cglint says on stderr of an input (a -v note's value, a named file's path) is escaped as
 * the text format escapes findings: a BEL in a scope value, an ESC in a file name. */
Test(ux, stderr_escapes_what_inputs_hold)
{
	harness_put("n.yaml", "model:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_scope: [\"at\\u0007tn\"]\n");
	expect_run("cglint -v --mcore 0.19 n.yaml 2>&1 >/dev/null | grep 'normalized: model.cuda_graph_scope:'", 0,
		   "n.yaml:3:3: normalized: model.cuda_graph_scope: ['at\\x07tn'] -> None (MC-04: the deprecated "
		   "cuda_graph_scope is copied into cuda_graph_modules and becomes None; "
		   "megatron/core/transformer/transformer_config.py:2383-2406)\n");
	harness_put("e\033.sh", "#!/bin/bash\necho ready\n");
	expect_run("cglint e?.sh 2>&1 | head -1", 0,
		   "cglint: e\\x1b.sh: no launch command found (pretrain_*.py, run_recipe.py, run_script.py): "
		   "nothing checked\n");
}

/* ---- 5. inputs ---- */

/* Each document is its own unit: the second's use_te_rng_tracker does not reach the first. */
Test(ux, yaml_documents_are_units_of_their_own)
{
	harness_put("m.yaml", "# two override sets\n"
			      "model:\n"
			      "  cuda_graph_impl: transformer_engine\n"
			      "  use_te_rng_tracker: false\n"
			      "rng:\n"
			      "  te_rng_tracker: false\n"
			      "---\n"
			      "model:\n"
			      "  use_te_rng_tracker: true\n"
			      "rng:\n"
			      "  te_rng_tracker: true\n"
			      "---\n"
			      "model:\n"
			      "  cuda_graph_impl: bogus\n"
			      "---\n");
	char *out;
	int rc = harness_sh(harness_dir, "cglint --format concise --mcore 0.16 --bridge 0.3 m.yaml 2>&1", &out);
	cr_expect_eq(rc, 1);
	expect_str(out, "m.yaml:6:3: error: Transformer engine's RNG tracker is required for cudagraphs, it can be "
			"enabled with use_te_rng_tracker=True'. [CG101 te-rng-tracker-required]\n"
			"m.yaml:14:3: " M121
			"cglint: 2 errors in 1 file; 1 file checked; 26 checks undecided (--show-undecided lists them; --assume-defaults or "
			"-E/--env-file decide them)\n");
	free(out);
	/* anchors belong to their document */
	harness_put("alias.yaml", "a: &x 1\n---\nb: *x\n");
	rc = harness_sh(harness_dir, "cglint alias.yaml >o.txt 2>/dev/null; rc=$?; grep -v '^    ' o.txt; exit $rc", &out);
	cr_expect_eq(rc, 2);
	expect_str(out, "alias.yaml:3:4: error: alias '*x' names no earlier anchor [CG901 yaml-syntax]\n");
	free(out);
}

Test(ux, walk_honours_gitignore)
{
	harness_put("repo/.gitignore", "build/\n*.gen.yaml\n");
	harness_put("repo/build/a.yaml", bad_impl);
	harness_put("repo/src/b.yaml", bad_impl);
	harness_put("repo/src/c.gen.yaml", bad_impl);
	harness_put("repo/src/d.yaml", bad_impl);
	harness_put("repo/src/e.yaml", bad_impl);
	harness_put("home/.config/git/ignore", "e.yaml\n");
	char *out;
	int rc = harness_sh(harness_dir, "git init -q repo && echo src/d.yaml > repo/.git/info/exclude && export HOME=\"$PWD/home\" && unset XDG_CONFIG_HOME && "
			    "cglint repo 2>&1 | grep -v '^    '", &out);
	cr_expect_eq(rc, 0);
	expect_str(out, "repo/src/b.yaml:2:3: " M121 "cglint: 1 error in 1 file; 1 file checked; 2 checks undecided (--show-undecided lists them; --assume-defaults decides them)\n");
	free(out);
	rc = harness_sh(harness_dir, "export HOME=\"$PWD/home\" && unset XDG_CONFIG_HOME && cglint --no-ignore repo 2>&1 | grep -c '\\[CG121'", &out);
	expect_str(out, "5\n");
	free(out);
	/* a file or an ignored folder named on the command line is linted */
	rc = harness_sh(harness_dir, "cglint repo/src/c.gen.yaml repo/build 2>&1 | grep -c '\\[CG121'", &out);
	expect_str(out, "2\n");
	free(out);
	/* a nested repository's own rules apply inside it */
	harness_put("repo/src/vendor/.gitignore", "*.yaml\n");
	harness_put("repo/src/vendor/v.yaml", bad_impl);
	rc = harness_sh(harness_dir, "git init -q repo/src/vendor && cglint --no-ignore repo/src/vendor 2>&1 | grep -c '\\[CG121'; "
			"cglint repo/src 2>&1 | grep -c vendor", &out);
	expect_str(out, "1\n0\n");
	free(out);
	/* a worktree's .git is a file, found from a folder below it as from its root */
	harness_put("wt-ignore", "*.gen.yaml\n");
	rc = harness_sh(harness_dir, "git -C repo -c user.email=t@t -c user.name=t commit -q --allow-empty -m x && "
			"git -C repo worktree add -q ../wt 2>/dev/null && test -f wt/.git && mv wt-ignore wt/.gitignore && "
			"mkdir wt/sub && cp repo/src/b.yaml wt/sub/x.gen.yaml && cp repo/src/b.yaml wt/sub/y.yaml && "
			"cglint wt/sub 2>&1 | grep -o 'wt/sub/[a-z.]*yaml' | sort -u", &out);
	expect_str(out, "wt/sub/y.yaml\n");
	free(out);
}

Test(ux, write_baseline_names_option_and_file)
{
	harness_put("a.yaml", bad_impl);
	char *out;
	int rc = harness_sh(harness_dir, "cglint --write-baseline a.yaml 2>&1", &out);
	cr_expect_eq(rc, 2);
	expect_str(out, "cglint: --write-baseline: no file to write: name it with --baseline FILE (for example "
			"--baseline .cglint-baseline.json)\n(try 'cglint --help')\n");
	free(out);
	rc = harness_sh(harness_dir, "cglint --baseline nodir/b.json --write-baseline a.yaml 2>&1", &out);
	cr_expect_eq(rc, 2);
	expect_str(out, "cglint: --write-baseline: cannot write --baseline nodir/b.json: No such file or directory\n");
	free(out);
	harness_put("broken.yaml", "a: [\n");
	rc = harness_sh(harness_dir, "cglint --baseline b.json --write-baseline broken.yaml 2>&1 >/dev/null", &out);
	cr_expect_eq(rc, 2);
	expect_str(out, "cglint: --write-baseline: an input could not be read or parsed; b.json not written\n");
	free(out);
}

/* Issue 30 item 11: text output escapes what is not UTF-8 text (the excerpt of CG906 too), and a
 * release older than the oldest supported is told the oldest. */
Test(ux, terminal_hygiene_and_old_releases)
{
	harness_put("bad.sh", "#!/bin/bash\necho caf\xe9 \x1b[2J\n");
	char *out;
	harness_sh(harness_dir, "cglint bad.sh 2>/dev/null", &out);
	cr_expect(strstr(out, "    2 | echo caf\\xe9 \\x1b[2J\n"), "%s", out);
	cr_expect(!strchr(out, '\xe9') && !strchr(out, '\x1b'), "%s", out);
	free(out);
	harness_put("a.yaml", bad_impl);
	expect_run("cglint --mcore 0.12 a.yaml 2>&1", 2,
		   "cglint: Megatron Core 0.12 is older than the oldest supported release, 0.15 (supported: 0.15, "
		   "0.15-dev, 0.16, 0.17, 0.18, 0.19, main@2a75ac12, main)\n(try 'cglint --help')\n");
	expect_run("cglint --bridge 0.1 a.yaml 2>&1", 2,
		   "cglint: Megatron-Bridge 0.1 is older than the oldest supported release, 0.2 (supported: 0.2, 0.3, "
		   "0.4, 0.5, 0.6, main, none)\n(try 'cglint --help')\n");
	expect_run("cglint --mcore 0.42 a.yaml 2>&1", 2,
		   "cglint: Megatron Core 0.42 is not supported yet (supported: 0.15, 0.15-dev, 0.16, 0.17, 0.18, "
		   "0.19, main@2a75ac12, main)\n(try 'cglint --help')\n");
}

/* ---- undecided checks and the facts view (issue 28) ---- */

/* A rule whose verdict waits for a key no input sets is counted and named, never passed. */
Test(ux, undecided_checks_are_counted_and_named)
{
	harness_put("u.yaml", "model:\n  cuda_graph_impl: local\n  cuda_graph_scope: [full_iteration]\n"
			      "  use_te_rng_tracker: false\n");
	char *out;
	int rc = harness_sh(harness_dir, "cglint u.yaml 2>&1 >/dev/null", &out);
	cr_expect_eq(rc, 0, "undecided checks are no findings");
	cr_expect(strstr(out, "checks undecided (--show-undecided lists them; --assume-defaults decides them)\n"), "%s", out);
	free(out);
	rc = harness_sh(harness_dir, "cglint --show-undecided --format concise u.yaml 2>&1 | grep 'CG101 te-rng'", &out);
	expect_str(out, "u.yaml:4:3: note: check undecided: it depends on model.use_te_rng_tracker (BR-01 computes "
			"it from rng.te_rng_tracker (no input sets it)) [CG101 te-rng-tracker-required]\n");
	free(out);
	json_t *doc;
	cr_expect_eq(harness_run_json(harness_dir, "u.yaml", &doc), 0);
	cr_assert_not_null(doc);
	size_t k, cg101 = 0, cg103 = 0;
	json_t *d;
	json_array_foreach(json_object_get(doc, "undecided"), k, d) {
		const char *id = json_string_value(json_object_get(d, "rule"));
		cg101 += !strcmp(id, "CG101");
		cg103 += !strcmp(id, "CG103");
		cr_expect_str_eq(json_string_value(json_object_get(d, "severity")), "note");
	}
	cr_expect_eq(cg101, 1);
	cr_expect_eq(cg103, 1, "the NaN check's default is not assumed for a partial file");
	json_decref(doc);
	/* the missing key given: CG101 is decided, an error */
	harness_put("v.yaml", "model:\n  cuda_graph_impl: local\n  use_te_rng_tracker: false\nrng:\n  te_rng_tracker: false\n");
	rc = harness_sh(harness_dir, "cglint --format concise v.yaml 2>/dev/null | grep -c CG101", &out);
	expect_str(out, "1\n");
	free(out);
	/* every key known: nothing is undecided, and the summary says no more than before */
	rc = harness_sh(harness_dir, "cglint --assume-defaults --format concise v.yaml 2>&1 >/dev/null", &out);
	cr_expect_eq(rc, 1);
	expect_str(out, "cglint: 2 errors in 1 file; 1 file checked\n");
	free(out);
}

Test(ux, facts_shows_each_key_and_its_origin)
{
	harness_put("r.yaml", "model:\n  cuda_graph_impl: local\n  cuda_graph_scope: [full_iteration]\n"
			      "  use_te_rng_tracker: false\n");
	expect_run("cglint facts r.yaml", 0,
		   "r.yaml:1:\n"
		   "  model.cuda_graph_impl = \"full_iteration\"  [config r.yaml:2:3; written \"local\"]\n"
		   "  model.cuda_graph_scope = null  [config r.yaml:3:3; written [\"full_iteration\"]]\n"
		   "  model.use_te_rng_tracker = (unknown)  [config r.yaml:4:3; written false: BR-01 computes it from "
		   "rng.te_rng_tracker (no input sets it)]\n"
		   "  model.cuda_graph_modules = []  [normalized r.yaml:3:3]\n");
	/* a value Bridge recomputes from what only the running job knows is unknown, and says so */
	harness_put("co.yaml", "ddp:\n  overlap_grad_reduce: true\n  use_distributed_optimizer: true\n"
			       "comm_overlap:\n  tp_comm_overlap: false\n");
	char *co;
	harness_sh(harness_dir, "cglint facts co.yaml | grep overlap_grad_reduce", &co);
	expect_str(co, "  ddp.overlap_grad_reduce = (unknown)  [config co.yaml:2:3; written true: BR-07c computes it from "
		       "runtime.data_parallel_size (known only when the job runs)]\n");
	free(co);
	/* a recipe function: every function is a unit, --function keeps one */
	harness_put("rec.py", "def base():\n    cfg = ConfigContainer()\n    cfg.train.micro_batch_size = 1\n    return cfg\n\n"
			      "def mine():\n    cfg = base()\n    cfg.model.cuda_graph_impl = \"local\"\n    return cfg\n");
	json_t *doc;
	char *out;
	cr_expect_eq(harness_sh(harness_dir, "cglint facts --format json --function mine rec.py", &out), 0);
	doc = json_loads(out, 0, NULL);
	free(out);
	cr_assert_not_null(doc);
	json_t *units = json_object_get(doc, "units");
	cr_assert_eq(json_array_size(units), 1);
	json_t *u = json_array_get(units, 0);
	cr_expect_str_eq(json_string_value(json_object_get(u, "function")), "mine");
	cr_expect_eq(json_integer_value(json_object_get(u, "line")), 6);
	size_t k, seen = 0;
	json_t *key;
	json_array_foreach(json_object_get(u, "keys"), k, key) {
		const char *name = json_string_value(json_object_get(key, "key"));
		if (!strcmp(name, "train.micro_batch_size")) {    /* from the base recipe, at its line */
			cr_expect_eq(json_integer_value(json_object_get(key, "value")), 1);
			cr_expect_str_eq(json_string_value(json_object_get(key, "at")), "rec.py:7:11");     /* the call */
			cr_expect_str_eq(json_string_value(json_object_get(key, "written_at")), "rec.py:3:15");
			seen++;
		} else if (!strcmp(name, "model.cuda_graph_impl")) {
			cr_expect_str_eq(json_string_value(json_object_get(key, "value")), "local");
			seen++;
		}
	}
	cr_expect_eq(seen, 2);
	json_decref(doc);
	/* what belongs to facts alone, and what facts cannot print */
	expect_run("cglint --function mine rec.py 2>&1", 2,
		   "cglint: --function belongs to 'cglint facts' and 'cglint suggest'\n(try 'cglint --help')\n");
	cr_expect_eq(harness_sh(harness_dir, "cglint facts --format sarif rec.py 2>/dev/null", &out), 2);
	free(out);
	cr_expect_eq(harness_sh(harness_dir, "cglint facts 2>/dev/null", &out), 2);
	free(out);
	expect_run("cglint facts --function nothing rec.py 2>&1", 0, "cglint facts: no unit named nothing found\n");
}

/* A recipe built on an installed package: its imports are found where Python finds them. */
Test(ux, imports_resolve_through_the_python_environment)
{
	harness_put("site/megatron/bridge/__init__.py", "");
	harness_put("site/megatron/bridge/recipes/__init__.py", "from .base import base_config as renamed_config\n");
	harness_put("site/megatron/bridge/recipes/base.py", "def base_config():\n    cfg = ConfigContainer()\n"
							   "    cfg.model.use_te_rng_tracker = False\n    cfg.rng.te_rng_tracker = False\n"
							   "    return cfg\n");
	harness_put("p/mine.py", "from megatron.bridge.recipes import renamed_config\n\n\ndef my_config():\n"
				 "    cfg = renamed_config()\n    cfg.model.cuda_graph_impl = \"transformer_engine\"\n    return cfg\n");
	const char *cg101 = "1\n";
	char *out;
	/* not found: the settings the base recipe makes are unknown, the check undecided */
	harness_sh(harness_dir, "CGLINT_PYTHON=none PYTHONPATH= cglint --format concise p/mine.py 2>&1 | grep -c 'CG101'", &out);
	expect_str(out, "0\n");
	free(out);
	harness_sh(harness_dir, "CGLINT_PYTHON=none PYTHONPATH= cglint --show-undecided --format concise p/mine.py 2>&1 | grep -c 'undecided.*CG101'", &out);
	expect_str(out, "1\n");
	free(out);
	/* PYTHONPATH, --python-path, .cglint.yaml python-path: (relative to the config) */
	harness_sh(harness_dir, "CGLINT_PYTHON=none PYTHONPATH=site cglint --format concise p/mine.py | grep -c 'error: .*CG101'", &out);
	expect_str(out, cg101);
	free(out);
	harness_sh(harness_dir, "CGLINT_PYTHON=none PYTHONPATH= cglint --python-path site --format concise p/mine.py | grep -c 'error: .*CG101'",
		   &out);
	expect_str(out, cg101);
	free(out);
	harness_put("p/.cglint.yaml", "python-path: [../site]\n");
	harness_sh(harness_dir, "CGLINT_PYTHON=none PYTHONPATH= cglint --format concise p/mine.py | grep -c 'error: .*CG101'", &out);
	expect_str(out, cg101);
	free(out);
	harness_sh(harness_dir, "rm p/.cglint.yaml", &out);
	free(out);
	/* the active virtual environment's python, asked once: its answer is kept until a folder it
	 * names changes (a package installed, a .pth added) */
	harness_put("venv/bin/python", "#!/bin/sh\necho run >> \"$(dirname \"$0\")/asked\"\necho \"$(dirname \"$0\")/../pkgs\"\n");
	char *chmod_cmd;
	cr_assert_neq(asprintf(&chmod_cmd, "chmod +x '%s/venv/bin/python' && ln -s ../site '%s/venv/pkgs'", harness_dir, harness_dir), -1);
	cr_assert_eq(system(chmod_cmd), 0);
	free(chmod_cmd);
	harness_sh(harness_dir, "export CGLINT_PYTHON= PYTHONPATH= VIRTUAL_ENV=\"$PWD/venv\" XDG_CACHE_HOME=\"$PWD/cache\"; "
		   "cglint --format concise p/mine.py | grep -c 'error: .*CG101'; "
		   "cglint p/mine.py >/dev/null 2>&1; wc -l < venv/bin/asked; "
		   "mkdir site/newpkg; cglint -v p/mine.py 2>&1 | grep -c 'Python search path: sys.path of'; "
		   "wc -l < venv/bin/asked", &out);
	expect_str(out, "1\n1\n1\n2\n");
	free(out);
	/* a second environment whose python links to the same interpreter is an environment of its
	 * own: its answer (here: no site with the package) is not the first one's */
	harness_sh(harness_dir, "mkdir -p venv2/bin && ln -s \"$PWD/venv/bin/python\" venv2/bin/python && "
		   "export CGLINT_PYTHON= PYTHONPATH= VIRTUAL_ENV=\"$PWD/venv2\" XDG_CACHE_HOME=\"$PWD/cache\"; "
		   "cglint --format concise p/mine.py | grep -c 'error: .*CG101'", &out);
	expect_str(out, "0\n");
	free(out);
}

/* Bridge's launchers name a recipe: train.sh / run_recipe.py --recipe NAME (or --model M --mode
 * MODE) lint that recipe with the command line's overrides over it. */
Test(ux, launchers_lint_the_recipe_they_name)
{
	/* a checkout's src/ layout: the package is found from scripts/ through ../src */
	harness_put("tree/src/megatron/bridge/__init__.py", "");
	/* as Bridge's recipes/__init__.py: star imports of each family */
	harness_put("tree/src/megatron/bridge/recipes/__init__.py", "from megatron.bridge.recipes.other import *\n"
								   "from megatron.bridge.recipes.base import *\n");
	harness_put("tree/src/megatron/bridge/recipes/other.py", "def other_pretrain_config():\n    return None\n");
	harness_put("tree/src/megatron/bridge/recipes/base.py",
		    "def tiny_pretrain_config():\n    cfg = ConfigContainer()\n    cfg.model.use_te_rng_tracker = False\n"
		    "    cfg.rng.te_rng_tracker = False\n    return cfg\n");
	harness_put("tree/scripts/training/go.sh", "#!/bin/bash\n./scripts/training/train.sh --nodes 2 \\\n"
						   "    --recipe tiny_pretrain_config \\\n"
						   "    model.cuda_graph_impl=transformer_engine\n");
	harness_put("tree/scripts/training/model.sh", "#!/bin/bash\npython scripts/training/run_recipe.py --model tiny "
						      "--mode pretrain model.cuda_graph_impl=transformer_engine\n");
	/* the recipe's settings are placed at the word naming it */
	expect_run("cglint --format concise tree/scripts/training/go.sh tree/scripts/training/model.sh 2>/dev/null", 1,
		   "tree/scripts/training/go.sh:3:14: error: Transformer engine's RNG tracker is required for cudagraphs, "
		   "it can be enabled with use_te_rng_tracker=True'. [CG101 te-rng-tracker-required]\n"
		   "tree/scripts/training/model.sh:2:47: error: Transformer engine's RNG tracker is required for "
		   "cudagraphs, it can be enabled with use_te_rng_tracker=True'. [CG101 te-rng-tracker-required]\n");
	/* a recipe it cannot find is said, and its checks stay undecided */
	harness_put("other/go.sh", "#!/bin/bash\nrun_recipe.py --recipe nowhere_pretrain_config model.cuda_graph_impl=local\n");
	char *out;
	harness_sh(harness_dir, "cglint --format concise other/go.sh 2>&1", &out);
	cr_expect(strstr(out, "other/go.sh:2:24: warning: cannot find recipe 'nowhere_pretrain_config': no "
			      "megatron.bridge package above this script"), "%s", out);
	cr_expect(strstr(out, "checks undecided"), "%s", out);
	free(out);
	harness_put("tree/scripts/training/typo.sh", "#!/bin/bash\nrun_recipe.py --recipe tiny_pretrain_cfg\n");
	harness_sh(harness_dir, "cglint --format concise tree/scripts/training/typo.sh 2>&1", &out);
	cr_expect(strstr(out, "typo.sh:2:24: note: cannot find recipe 'tiny_pretrain_cfg': "
			      "tree/src/megatron/bridge/recipes/__init__.py defines or exports no such function"), "%s", out);
	free(out);
}

/* Where a key no input sets reads as null: an env_vars dict Bridge builds empty, or one a recipe
 * writes whole; not one with a '**' entry cglint cannot read. */
Test(ux, facts_say_where_absent_keys_are_null)
{
	harness_put("env.py", "def empty_config():\n    cfg = ConfigContainer(model=GPTModelProvider())\n"
			      "    cfg.model.cuda_graph_impl = \"local\"\n    return cfg\n\n\n"
			      "def whole_config():\n    cfg = empty_config()\n    cfg.env_vars = {\"NCCL_GRAPH_REGISTER\": \"0\"}\n"
			      "    return cfg\n\n\n"
			      "def spread_config():\n    cfg = empty_config()\n    cfg.env_vars = {**NOT_READ, \"A\": \"1\"}\n"
			      "    return cfg\n");
	char *out;
	cr_expect_eq(harness_sh(harness_dir, "cglint facts --format json env.py", &out), 0);
	json_t *doc = json_loads(out, 0, NULL);
	free(out);
	cr_assert_not_null(doc);
	size_t k;
	json_t *u;
	const char *want[] = {"[\"env_vars\"]", "[\"env_vars\"]", "[]"};
	json_array_foreach(json_object_get(doc, "units"), k, u) {
		cr_assert_lt(k, 3);
		char *under = json_dumps(json_object_get(json_object_get(u, "absent_is_null"), "under"), JSON_COMPACT);
		cr_expect_str_eq(under, want[k], "%s", json_string_value(json_object_get(u, "function")));
		free(under);
	}
	cr_expect_eq(k, 3);
	json_decref(doc);
}

/* A helper that returns sections in a tuple (Bridge's optimizer_utils: optimizer, scheduler):
 * unpacked, each section keeps what the helper set. */
Test(ux, facts_follow_sections_returned_in_a_tuple)
{
	harness_put("opt.py", "def adam_with_cosine(lr=3e-4):\n    optimizer = OptimizerConfig(lr=lr, optimizer_cuda_graph=False)\n"
			      "    scheduler = SchedulerConfig(lr_warmup_iters=10)\n    return optimizer, scheduler\n\n\n"
			      "def my_config():\n    opt, sched = adam_with_cosine(lr=1e-4)\n"
			      "    cfg = ConfigContainer(optimizer=opt, scheduler=sched)\n"
			      "    cfg.model.cuda_graph_impl = \"none\"\n    return cfg\n");
	char *out;
	harness_sh(harness_dir, "cglint facts --function my_config opt.py | grep -E 'optimizer\\.(lr|optimizer_cuda_graph) '", &out);
	expect_str(out, "  optimizer.lr = 0.0001  [config opt.py:8:18, written at opt.py:2:33]\n"
			"  optimizer.optimizer_cuda_graph = false  [config opt.py:8:18, written at opt.py:2:40]\n");
	free(out);
}

/* cfg.mixed_precision = "NAME": the preset Bridge registers under that name ('-' read as '_'),
 * whose fields Bridge copies onto the model. */
Test(ux, facts_follow_a_mixed_precision_preset_name)
{
	harness_put("mp/src/megatron/bridge/__init__.py", "");
	harness_put("mp/src/megatron/bridge/training/__init__.py", "");
	harness_put("mp/src/megatron/bridge/training/mixed_precision.py",
		    "def bf16_mixed():\n    return MixedPrecisionConfig(bf16=True, fp8=None)\n\n\n"
		    "def bf16_fp8_mixed():\n    cfg = bf16_mixed()\n    cfg.fp8 = \"hybrid\"\n    return cfg\n");
	harness_put("mp/recipes/r.py", "def r_config():\n    cfg = ConfigContainer()\n    cfg.model.cuda_graph_impl = \"none\"\n"
				       "    cfg.mixed_precision = \"bf16-fp8-mixed\"\n    return cfg\n\n\n"
				       "def unknown_config():\n    cfg = ConfigContainer()\n    cfg.model.cuda_graph_impl = \"none\"\n"
				       "    cfg.mixed_precision = \"no_such_preset\"\n    return cfg\n");
	char *out;
	harness_sh(harness_dir, "cd mp && cglint facts --bridge 0.6 recipes/r.py | grep -E '^recipes|model.fp8 '", &out);
	expect_str(out, "recipes/r.py:1: r_config\n"
			"  model.fp8 = \"hybrid\"  [normalized src/megatron/bridge/training/mixed_precision.py:7:15]\n"
			"recipes/r.py:8: unknown_config\n");
	free(out);
}

/* Issue 41 item 7: output a person can read. A binary file named .yaml prints one clipped excerpt,
 * not megabytes of escapes; undecided checks have their own view (--show-undecided, first, by the
 * key each waits for) and -v keeps to normalization; related locations are no extra notes; -q
 * leaves --format github without a summary on stdout. */
Test(ux, output_a_person_can_read)
{
	char *out;
	int rc = harness_sh(harness_dir, "head -c 1000000 /dev/zero > bin.yaml && cglint --color never bin.yaml 2>&1 | wc -c", &out);
	cr_expect_eq(rc, 0);
	cr_expect_lt(atol(out), 2000, "a binary file printed %s bytes", out);
	free(out);
	rc = harness_sh(harness_dir, "cglint --color never bin.yaml 2>&1 | sed -n 2p | grep -c 'more bytes)$'", &out);
	expect_str(out, "1\n");
	free(out);
	/* a long line: the window keeps the finding's word and its carets */
	char line[400];
	snprintf(line, sizeof(line), "model: {cuda_graph_impl: local, use_te_rng_tracker: false, %*s x: 1, cuda_graph_scope: [moe, moe_router]}\n",
		 250, "");
	harness_put("long.yaml", line);
	rc = harness_sh(harness_dir, "cglint --color never --mcore 0.16 --bridge 0.3 long.yaml 2>/dev/null | grep -A2 '^long.yaml:1:.*CG104' | tail -2", &out);
	cr_expect(strstr(out, "    1 | ...") && strstr(out, "cuda_graph_scope") && strlen(out) < 2 * 200, "%s", out);
	const char *nl = strchr(out, '\n'), *word = strstr(out, "cuda_graph_scope");
	const char *caret = nl ? strchr(nl + 1, '^') : NULL;
	cr_expect(word && caret && word - out == caret - (nl + 1), "carets under the word:\n%s", out);
	free(out);

	harness_put("u.yaml", "model:\n  cuda_graph_impl: local\n  use_te_rng_tracker: false\n");
	rc = harness_sh(harness_dir, "cglint --show-undecided --color never u.yaml 2>/dev/null | sed -n '1p;2p'", &out);
	cr_expect_eq(rc, 0);
	cr_expect(!strncmp(out, "cglint: ", 8) && strstr(out, "undecided, by the key each waits for:\n== "), "%s", out);
	free(out);
	rc = harness_sh(harness_dir, "cglint --show-undecided --color never u.yaml 2>/dev/null | grep -c '^== '", &out);
	cr_expect_gt(atoi(out), 1, "grouped by key: %s", out);
	free(out);
	rc = harness_sh(harness_dir, "cglint -v u.yaml 2>&1 | grep -c 'check undecided'", &out);
	expect_str(out, "0\n");
	free(out);
	rc = harness_sh(harness_dir, "cglint -v u.yaml 2>&1 | grep -c ': normalized: '", &out);
	cr_expect_gt(atoi(out), 0, "-v keeps normalization: %s", out);
	free(out);

	harness_put("v.yaml", "model:\n  cuda_graph_impl: local\n  cuda_graph_scope: [full_iteration]\n  use_te_rng_tracker: false\n"
			      "rng:\n  te_rng_tracker: false\n");
	rc = harness_sh(harness_dir, "cglint --color never v.yaml 2>&1 >/dev/null", &out);
	cr_expect_eq(rc, 1);
	cr_expect(strstr(out, "cglint: 1 error, 2 notes in 1 file"), "%s", out);
	free(out);
	rc = harness_sh(harness_dir, "cglint --color never v.yaml 2>/dev/null | grep -c ': note: '", &out);
	expect_str(out, "2\n");         /* as many note lines as the summary counts */
	free(out);
	expect_run("cglint --format github -q v.yaml | grep -c '^cglint'", 1, "0\n");
	rc = harness_sh(harness_dir, "cglint --format github v.yaml 2>&1 >/dev/null | grep -c '^cglint: 1 error'", &out);
	expect_str(out, "1\n");
	free(out);
}

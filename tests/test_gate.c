/* SPDX-License-Identifier: MIT */
/*
 * gate: a CI gate never passes what cglint did not read (issue 41, item 1). An unreadable or
 * unparsable input is reported, with its position, and is exit status 2 in every mode: lint,
 * --diff, --fix, suggest (plain, --diff, --fix) and facts; --diff keeps stdout a patch and says
 * it on stderr. A subcommand word after options is the subcommand (cglint -j 1 suggest x.yaml,
 * as git -C DIR status), not a path. A Python file that cglint reads as a recipe (its text
 * mentions a CUDA-graph key) and that does not parse is CG917, never "all checks passed".
 */
#define _GNU_SOURCE /* asprintf */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"

static char dir[64];

static void mkdir_tmp(void)
{
	cr_assert(harness_tmpdir(dir, sizeof(dir), "gate"));
}

static void rm_tmp(void)
{
	cr_expect_eq(harness_rmdir(dir), 0);
}

TestSuite(gate, .init = mkdir_tmp, .fini = rm_tmp);

static void put(const char *name, const char *text)
{
	free(harness_write(dir, name, text, strlen(text)));
}

static char *slurp(const char *name)
{
	char *path;
	cr_assert_neq(asprintf(&path, "%s/%s", dir, name), -1);
	FILE *f = fopen(path, "rb");
	free(path);
	cr_assert_not_null(f, "%s", name);
	size_t cap = 1 << 16, n = 0, got;
	char *buf = malloc(cap);
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0)
		if ((n += got) + 1 >= cap)
			buf = realloc(buf, cap *= 2);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* cglint ARGS in the test folder: the exit status; stdout in '*out', stderr in '*err'. */
static int run(const char *args, char **out, char **err)
{
	char *a;
	cr_assert_neq(asprintf(&a, "%s 2>stderr.txt", args), -1);
	int rc = harness_run(dir, a, out);
	free(a);
	*err = slurp("stderr.txt");
	return rc;
}

#define expect_has(text, want, what) \
	cr_expect(strstr(text, want) != NULL, "%s: wanted\n%s\n--- in:\n%s", what, want, text)
#define expect_lacks(text, bad, what) \
	cr_expect(strstr(text, bad) == NULL, "%s: did not want\n%s\n--- in:\n%s", what, bad, text)

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
	put("bad.yaml", bad_yaml);
	static const char *const modes[] = {"", "--diff", "--fix", "suggest", "suggest --diff", "suggest --fix", "facts",
					    "facts --format json", "suggest --format json", "--format json --diff"};
	static const char *const inputs[][2] = {{"missing.yaml", missing_head}, {"bad.yaml", bad_head}};
	for (size_t m = 0; m < sizeof(modes) / sizeof(*modes); m++)
		for (size_t i = 0; i < 2; i++) {
			char *args, *out, *err, *what;
			cr_assert_neq(asprintf(&args, "%s %s", modes[m], inputs[i][0]), -1);
			int rc = run(args, &out, &err);
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
	char *now = slurp("bad.yaml");
	cr_expect_str_eq(now, bad_yaml);
	free(now);
}

/* --diff with one input it could not read: the patch for the rest on stdout, untouched by the
 * problem, which is on stderr; status 2 (not 1) since a gate must not pass on a partial read. */
Test(gate, diff_keeps_the_patch_and_says_the_problem)
{
	put("bad.yaml", bad_yaml);
	put("b.yaml", fixable);
	char *out, *err;
	int rc = run("--mcore 0.16 --bridge 0.3 --diff b.yaml bad.yaml", &out, &err);
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
	rc = run("--diff --stdin-filename s.yaml - < bad.yaml", &out, &err);
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
	put("bad.yaml", bad_yaml);
	char *out, *err, *out1, *err1;
	int rc = run("-j 1 suggest bad.yaml", &out, &err);
	int rc1 = run("suggest -j 1 bad.yaml", &out1, &err1);
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

	rc = run("--mcore 0.17 explain CG101", &out, &err);
	cr_expect_eq(rc, 0);
	cr_expect(!strncmp(out, "CG101 te-rng-tracker-required", 29), "explain after --mcore:\n%s", out);
	free(out);
	free(err);

	/* a file called like a subcommand: after 'lint', after '--', or as ./suggest */
	put("suggest", fixable);
	static const char *const as_path[] = {"--mcore 0.16 --bridge 0.3 lint suggest", "--mcore 0.16 --bridge 0.3 -- suggest",
					      "--mcore 0.16 --bridge 0.3 ./suggest"};
	for (size_t k = 0; k < 3; k++) {
		rc = run(as_path[k], &out, &err);
		cr_expect_eq(rc, 1, "cglint %s: exit %d", as_path[k], rc);
		expect_has(out, "[CG101 te-rng-tracker-required]", as_path[k]);
		free(out);
		free(err);
	}

	rc = run("-q completion bash", &out, &err);
	cr_expect_eq(rc, 2);
	cr_expect_str_eq(err, "cglint: completion takes no options: cglint completion bash|zsh|fish\n"
			      "(try 'cglint --help')\n");
	free(out);
	free(err);

	rc = run("--help", &out, &err);
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
	put("bad.py", broken_recipe);
	static const char *const modes[] = {"", "--diff", "--fix", "suggest", "facts", "-j 2"};
	for (size_t m = 0; m < sizeof(modes) / sizeof(*modes); m++) {
		char *args, *out, *err, *both;
		cr_assert_neq(asprintf(&args, "%s bad.py", modes[m]), -1);
		int rc = run(args, &out, &err);
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
	put("good.py", "def f():\n    pass\ncfg.model.cuda_graph_impl = \"local\"\n");
	char *out, *err;
	cr_expect_eq(run("good.py", &out, &err), 0);
	expect_lacks(out, "CG917", "good.py");
	free(out);
	free(err);

	/* walked: reported where it mentions a CUDA-graph key; unrelated broken Python stays quiet */
	char *sub;
	cr_assert_neq(asprintf(&sub, "%s/tree", dir), -1);
	cr_assert_eq(mkdir(sub, 0755), 0);
	free(sub);
	cr_assert_neq(asprintf(&sub, "%s/tree/lib", dir), -1);
	cr_assert_eq(mkdir(sub, 0755), 0);
	free(sub);
	put("tree/recipe.py", broken_recipe);
	put("tree/lib/util.py", "def g(:\n    return 1\n");
	int rc = run("tree", &out, &err);
	cr_expect_eq(rc, 2);
	char *heads = harness_heads(out);
	cr_expect_str_eq(heads, "tree/recipe.py:1:7: error: Python syntax error: missing ')' [CG917 python-syntax]\n");
	free(heads);
	free(out);
	free(err);
	/* a key read, not written, makes it a candidate as well */
	put("tree/lib/util.py", "def g(:\n    return cfg.model.cuda_graph_scope\n");
	rc = run("tree", &out, &err);
	cr_expect_eq(rc, 2);
	heads = harness_heads(out);
	cr_expect_str_eq(heads, "tree/lib/util.py:1:7: error: Python syntax error: missing ')' [CG917 python-syntax]\n"
				"tree/recipe.py:1:7: error: Python syntax error: missing ')' [CG917 python-syntax]\n");
	free(heads);
	free(out);
	free(err);
}

/* SPDX-License-Identifier: MIT */
/*
 * project: what a team sets up around the checks. .cglint.yaml discovery, layering, errors,
 * exclude, per-path and rule packs; inline suppressions (CG913, CG914); the baseline (CG916)
 * and fingerprints; --fix and --diff; --output. Every test builds its own tree in a temporary
 * folder whose root holds an empty .cglint.yaml, so a config above /tmp cannot leak in.
 *
 * Several tests pin down defects found while writing this suite (now fixed in lint/).
 */
#define _GNU_SOURCE /* asprintf */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static char dir[] = "/tmp/cglint-project-XXXXXX";

static void put(const char *name, const char *text);

static void mkdir_tmp(void)
{
	strcpy(dir, "/tmp/cglint-project-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	put(".cglint.yaml", "# the root of the test tree: nothing set, and no search above\n");
}

static void rm_tmp(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'", dir, dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(project, .init = mkdir_tmp, .fini = rm_tmp);

/* ---- helpers ---- */

static char *path_of(const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* Write DIR/NAME (any folders on the way are made). */
static void put_n(const char *name, const char *text, size_t len)
{
	char *p = path_of(name);
	for (char *s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	free(p);
	free(harness_write(dir, name, text, len));
}

static void put(const char *name, const char *text)
{
	put_n(name, text, strlen(text));
}

/* DIR/NAME's bytes (NUL-terminated), or NULL. */
static char *get(const char *name, size_t *len)
{
	char *p = path_of(name);
	FILE *f = fopen(p, "rb");
	free(p);
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap);
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0)
		if ((n += got) + 1 >= cap)
			buf = realloc(buf, cap *= 2);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

/*
 * Run `cglint ARGS` in DIR/CWD ("" for DIR); returns the exit status. stdout and stderr go to
 * '*out' and '*err' (malloc'd; either pointer may be NULL).
 */
static int run_at(const char *cwd, const char *args, char **out, char **err)
{
	char *where = *cwd ? path_of(cwd) : strdup(dir);
	char *errf = path_of(".stderr");
	size_t n = strlen(args) + strlen(errf) + 16;
	char *a = malloc(n);
	snprintf(a, n, "%s 2>'%s'", args, errf);
	char *o = NULL;
	int rc = harness_run(where, a, &o);
	cr_assert_neq(rc, -1, "cglint %s died on a signal", args);
	if (out)
		*out = o;
	else
		free(o);
	if (err) {
		*err = get(".stderr", NULL);
		cr_assert_not_null(*err);
	}
	free(a);
	free(errf);
	free(where);
	return rc;
}

/* Run in DIR/CWD and return the diagnostics' head lines (--format concise, which a later --format
 * overrides); the exit status goes to '*rc'. */
static char *lint_at(const char *cwd, const char *args, int *rc, char **err)
{
	char *out, *a;
	cr_assert(asprintf(&a, "--format concise %s", args) > 0);
	*rc = run_at(cwd, a, &out, err);
	free(a);
	char *h = harness_heads(out);
	free(out);
	return h;
}

#define expect_str(got, want) cr_expect_str_eq(got, want, "\n--- got:\n%s\n--- wanted:\n%s", got, want)

/* The fingerprints of a JSON run's diagnostics, "CG101@7=0123456789abcdef ", in order. */
static char *prints(const char *cwd, const char *args)
{
	char *out;
	size_t n = strlen(args) + 32;
	char *a = malloc(n);
	snprintf(a, n, "--format json %s", args);
	run_at(cwd, a, &out, NULL);
	free(a);
	json_error_t e;
	json_t *doc = json_loads(out, 0, &e);
	cr_assert_not_null(doc, "not JSON: %s", out);
	free(out);
	char *buf = calloc(1, 4096);
	size_t i;
	json_t *d;
	json_array_foreach(json_object_get(doc, "diagnostics"), i, d) {
		const char *fp = json_string_value(json_object_get(d, "fingerprint"));
		cr_assert_not_null(fp);
		cr_expect_eq(strlen(fp), 16, "fingerprint '%s' is not 16 hex digits", fp);
		cr_expect_eq(strspn(fp, "0123456789abcdef"), 16, "fingerprint '%s' is not 16 hex digits", fp);
		size_t l = strlen(buf);
		snprintf(buf + l, 4096 - l, "%s@%d=%s ", json_string_value(json_object_get(d, "rule")),
			 (int)json_integer_value(json_object_get(d, "line")), fp);
	}
	json_decref(doc);
	return buf;
}

/* The message part of the text output (after "path:line:col: severity: "). */
#define M101 "Transformer engine's RNG tracker is required for cudagraphs, it can be enabled with " \
	     "use_te_rng_tracker=True'. [CG101 te-rng-tracker-required]\n"
#define M122 "--cuda-graph-scope should be full or attn, got ['attn']. [CG122 unknown-cuda-graph-scope]\n"
#define M132 "cuda_graph_scope is deprecated, use cuda_graph_modules instead. [CG132 deprecated-cuda-graph-scope]\n"
#define M925 "a Megatron-Bridge config judged as plain Megatron-LM: no Megatron-Bridge release ships Megatron Core 0.15, " \
	     "so the target has no Bridge and Bridge's checks are off; pass --bridge 0.2 (it ships Megatron Core 0.15-dev) " \
	     "or --mcore 0.15-dev [CG925 bridge-input-without-bridge]\n"
#define M905 "unknown key 'cuda_graph_warmup_stepz'; did you mean 'cuda_graph_warmup_steps'? [CG905 unknown-key]\n"
#define M301 "cudaDeviceSynchronize inside a capture of 's' (begun at line 5): cudaErrorStreamCaptureUnsupported " \
	     "(900) in every capture mode, from any thread; the capture is invalidated [CG301 sync-in-capture]\n"

/*
 * A recipe whose findings tell the target apart: MCore 0.15 reports CG122 (line 3) and CG905
 * (line 5); 0.16 and 0.17 report CG905 and CG101 (line 7); 0.18 and later add CG132 (line 3).
 */
static const char recipe[] =
	"model:\n"
	"  cuda_graph_impl: transformer_engine\n"
	"  cuda_graph_scope: [attn]\n"
	"  use_te_rng_tracker: false\n"
	"  cuda_graph_warmup_stepz: 3\n"
	"rng:\n"
	"  te_rng_tracker: false\n";

/* What the recipe gives for each target, as the file NAME. */
static char *at_015(const char *name)
{
	char *s = malloc(1024);
	snprintf(s, 1024, "%s:2:3: warning: " M925 "%s:3:3: error: " M122 "%s:5:3: warning: " M905, name, name, name);
	return s;
}

static char *at_016(const char *name)
{
	char *s = malloc(1024);
	snprintf(s, 1024, "%s:5:3: warning: " M905 "%s:7:3: error: " M101, name, name);
	return s;
}

static char *at_018(const char *name)
{
	char *s = malloc(1024);
	snprintf(s, 1024, "%s:3:3: note: " M132 "%s:5:3: warning: " M905 "%s:7:3: error: " M101, name, name, name);
	return s;
}

static void expect_lint(const char *cwd, const char *args, int want_rc, const char *want)
{
	int rc;
	char *got = lint_at(cwd, args, &rc, NULL);
	expect_str(got, want);
	cr_expect_eq(rc, want_rc, "cglint %s: exit %d, expected %d", args, rc, want_rc);
	free(got);
}

/* ---- 1. discovery and layering ---- */

Test(project, closest_config_replaces_the_parent)
{
	put(".cglint.yaml", "target:\n  mcore: \"0.15\"\n");
	put("t.yaml", recipe);
	put("sub/t.yaml", recipe);
	put("sub/.cglint.yaml", "ignore: [CG132]\n");   /* no inherit: the target is the default again */
	char *root = at_015("t.yaml");
	char want[2048];
	snprintf(want, sizeof(want), "sub/t.yaml:5:3: warning: " M905 "sub/t.yaml:7:3: error: " M101 "%s", root);
	expect_lint("", "t.yaml sub/t.yaml", 1, want);
	free(root);
}

Test(project, inherit_layers_both_files)
{
	put(".cglint.yaml", "target:\n  mcore: \"0.16\"\n  bridge: \"0.3\"\n"
			    "select: [CG1, CG9]\n"
			    "ignore: [CG101]\n"
			    "severity:\n  CG132: note\n  CG905: error\n");
	put("sub/.cglint.yaml", "inherit: true\n"
				"target:\n  mcore: \"0.18\"\n"
				"select: [CG132, CG905, CG101]\n"
				"severity:\n  CG132: error\n");
	put("t.yaml", recipe);
	put("sub/t.yaml", recipe);
	/*
	 * sub: the child's mcore (CG132 appears), its select replaces the parent's, the parent's
	 * ignore still holds (no CG101), the child's severity wins for CG132 and the parent's
	 * applies to CG905. The root file is judged on 0.16 with the parent's settings.
	 */
	expect_lint("", "t.yaml sub/t.yaml", 1,
		    "sub/t.yaml:3:3: error: " M132
		    "sub/t.yaml:5:3: error: " M905
		    "t.yaml:5:3: error: " M905);
	/* the same child without inherit: only its own settings (and the default bridge) */
	put("sub/.cglint.yaml", "target:\n  mcore: \"0.18\"\n"
				"select: [CG132, CG905, CG101]\n"
				"severity:\n  CG132: error\n");
	expect_lint("", "t.yaml sub/t.yaml", 1,
		    "sub/t.yaml:3:3: error: " M132
		    "sub/t.yaml:5:3: warning: " M905
		    "sub/t.yaml:7:3: error: " M101
		    "t.yaml:5:3: error: " M905);
}

Test(project, inherit_keeps_the_parents_bridge)
{
	/* Bridge none from the parent: no Bridge rule (CG101) even with the child's mcore */
	put(".cglint.yaml", "target:\n  mcore: \"0.16\"\n  bridge: none\n");
	put("sub/.cglint.yaml", "inherit: true\ntarget:\n  mcore: \"0.18\"\n");
	put("sub/t.yaml", recipe);
	expect_lint("", "sub/t.yaml", 0, "sub/t.yaml:3:3: note: " M132 "sub/t.yaml:5:3: warning: " M905);
}

Test(project, yml_spelling_is_found)
{
	put("sub/.cglint.yml", "target:\n  mcore: \"0.15\"\n");
	put("sub/t.yaml", recipe);
	char *want = at_015("sub/t.yaml");
	expect_lint("", "sub/t.yaml", 1, want);
	free(want);
	/* beside a .cglint.yaml, the .yaml one is read */
	put("sub/.cglint.yaml", "target:\n  mcore: \"0.16\"\n  bridge: \"0.3\"\n");
	want = at_016("sub/t.yaml");
	expect_lint("", "sub/t.yaml", 1, want);
	free(want);
}

Test(project, isolated_ignores_configs)
{
	put(".cglint.yaml", "target:\n  mcore: \"0.15\"\nignore: [CG905]\n");
	put("sub/.cglint.yaml", "bogus: 1\n");  /* not even read */
	put("t.yaml", recipe);
	put("sub/t.yaml", recipe);
	expect_lint("", "t.yaml", 1, "t.yaml:2:3: warning: " M925 "t.yaml:3:3: error: " M122);
	char *a = at_018("sub/t.yaml"), *b = at_018("t.yaml");
	char want[4096];
	snprintf(want, sizeof(want), "%s%s", a, b);
	expect_lint("", "--isolated --mcore 0.18 t.yaml sub/t.yaml", 1, want);
	free(a);
	free(b);
}

Test(project, command_line_mcore_beats_the_config)
{
	put(".cglint.yaml", "target:\n  mcore: \"0.15\"\n");
	put("t.yaml", recipe);
	char *want = at_018("t.yaml");
	expect_lint("", "--mcore 0.18 t.yaml", 1, want);
	free(want);
	want = at_015("t.yaml");
	expect_lint("", "t.yaml", 1, want);
	free(want);
}

Test(project, config_above_the_cwd_applies)
{
	put("proj/.cglint.yaml", "target:\n  mcore: \"0.15\"\n");
	put("proj/deep/er/t.yaml", recipe);
	put("proj/t.yaml", recipe);
	char *a = at_015("../../t.yaml"), *b = at_015("t.yaml");
	char want[4096];
	snprintf(want, sizeof(want), "%s%s", a, b);
	expect_lint("proj/deep/er", "t.yaml ../../t.yaml", 1, want);
	free(a);
	free(b);
}

/* ---- 2. config errors ---- */

Test(project, unknown_top_level_key)
{
	put(".cglint.yaml", "# project settings\ntargte:\n  mcore: \"0.16\"\n");
	put("t.yaml", recipe);
	char *want = at_018("t.yaml");
	char buf[4096];
	snprintf(buf, sizeof(buf),
		 ".cglint.yaml:2:1: error: unknown key 'targte' in the project config; did you mean 'target'? "
		 "[CG915 bad-project-config]\n%s", want);
	expect_lint("", "--mcore 0.18 t.yaml", 2, buf);
	free(want);
}

Test(project, unknown_keys_in_target_and_per_path)
{
	put(".cglint.yaml", "target:\n  mcore: \"0.16\"\n  brige: \"0.3\"\n"
			    "per-path:\n  - paths: [x]\n    selct: [CG1]\n");
	put("t.yaml", "model:\n  cuda_graph_impl: none\n");
	expect_lint("", "t.yaml", 2,
		    ".cglint.yaml:3:3: error: unknown key 'brige' in target; did you mean 'bridge'? [CG915 bad-project-config]\n"
		    ".cglint.yaml:6:5: error: unknown key 'selct' in a per-path entry; did you mean 'select'? "
		    "[CG915 bad-project-config]\n");
}

Test(project, bad_severity_word)
{
	put(".cglint.yaml", "severity:\n  CG101: fatal\n");
	put("t.yaml", "model:\n  cuda_graph_impl: none\n");
	expect_lint("", "t.yaml", 2,
		    ".cglint.yaml:2:10: error: severity of CG101 is error, warning, note or off [CG915 bad-project-config]\n");
}

Test(project, unsupported_target_versions)
{
	put(".cglint.yaml", "target:\n  mcore: \"0.42\"\n");
	put("t.yaml", "model:\n  cuda_graph_impl: none\n");
	expect_lint("", "t.yaml", 2,
		    ".cglint.yaml:2:10: error: Megatron Core 0.42 is not supported yet (supported: 0.15, 0.15-dev, 0.16, "
		    "0.17, 0.18, 0.19) [CG915 bad-project-config]\n");
	put(".cglint.yaml", "target:\n  bridge: \"0.9\"\n");
	expect_lint("", "t.yaml", 2,
		    ".cglint.yaml:2:11: error: Megatron-Bridge 0.9 is not supported yet (supported: 0.2, 0.3, 0.4, 0.5, "
		    "0.6, none) [CG915 bad-project-config]\n");
	put(".cglint.yaml", "target:\n  mcore: 0.16.x\n");
	expect_lint("", "t.yaml", 2,
		    ".cglint.yaml:2:10: error: target.mcore wants a version like \"0.18\" [CG915 bad-project-config]\n");
}

Test(project, rule_pattern_matching_no_rule)
{
	put(".cglint.yaml", "ignore: [CG10x]\nseverity:\n  GC101: warning\n");
	put("t.yaml", "model:\n  cuda_graph_impl: none\n");
	expect_lint("", "t.yaml", 2,
		    ".cglint.yaml:1:10: error: no rule matches 'CG10x' in ignore; did you mean 'CG102'? "
		    "[CG915 bad-project-config]\n"
		    ".cglint.yaml:3:3: error: no rule matches 'GC101' in severity; did you mean 'CG101'? "
		    "[CG915 bad-project-config]\n");
}

Test(project, wrong_kinds_of_values)
{
	put(".cglint.yaml", "inherit: yes\nexclude: {a: 1}\nper-path: {}\n");
	put("t.yaml", "model:\n  cuda_graph_impl: none\n");
	expect_lint("", "t.yaml", 2,
		    ".cglint.yaml:1:10: error: inherit is true or false [CG915 bad-project-config]\n"
		    ".cglint.yaml:2:10: error: exclude wants a list of strings [CG915 bad-project-config]\n"
		    ".cglint.yaml:3:11: error: per-path wants a list of {paths: [...], ...} entries "
		    "[CG915 bad-project-config]\n");
}

Test(project, severity_off_ignores_a_rule)
{
	put(".cglint.yaml", "target:\n  mcore: \"0.16\"\n  bridge: \"0.3\"\nseverity:\n  CG101: \"off\"\n  CG905: note\n");
	put("t.yaml", recipe);
	expect_lint("", "t.yaml", 0, "t.yaml:5:3: note: " M905);
	/* unquoted off (YAML 1.1's false) is the same word to cglint */
	put(".cglint.yaml", "target:\n  mcore: \"0.16\"\n  bridge: \"0.3\"\nseverity:\n  te-rng-tracker-required: off\n");
	expect_lint("", "t.yaml", 0, "t.yaml:5:3: warning: " M905);
}

Test(project, config_error_in_json)
{
	put(".cglint.yaml", "selet: [CG1]\n");
	put("t.yaml", "model:\n  cuda_graph_impl: none\n");
	json_t *doc;
	int rc = harness_run_json(dir, "t.yaml", &doc);
	cr_assert_not_null(doc);
	cr_expect_eq(rc, 2);
	json_t *ds = json_object_get(doc, "diagnostics");
	cr_assert_eq(json_array_size(ds), 1);
	json_t *d = json_array_get(ds, 0);
	cr_expect_str_eq(json_string_value(json_object_get(d, "rule")), "CG915");
	cr_expect_str_eq(json_string_value(json_object_get(d, "path")), ".cglint.yaml");
	cr_expect_eq(json_integer_value(json_object_get(d, "line")), 1);
	cr_expect_eq(json_integer_value(json_object_get(d, "column")), 1);
	cr_expect_str_eq(json_string_value(json_object_get(d, "message")),
			 "unknown key 'selet' in the project config; did you mean 'select'?");
	json_decref(doc);
}

/*
 * BUG: a config's own select (or ignore) filters out the CG915 that reports it. Here the one
 * select pattern is misspelt, so nothing is selected, the CG915 saying so is dropped too, and
 * cglint exits 2 having printed nothing at all.
 */
Test(project, config_select_typo_hides_its_own_error)
{
	put(".cglint.yaml", "select: [te-rng-tracker-requird]\n");
	put("t.yaml", recipe);
	int rc;
	char *got = lint_at("", "--mcore 0.16 --bridge 0.3 t.yaml", &rc, NULL);
	cr_expect_eq(rc, 2);
	/* one line; whether it has a did-you-mean is the next bug's business */
	const char *head = ".cglint.yaml:1:10: error: no rule matches 'te-rng-tracker-requird' in select",
		   *tail = " [CG915 bad-project-config]\n";
	size_t n = strlen(got);
	cr_expect(!strncmp(got, head, strlen(head)) && n > strlen(tail) && !strcmp(got + n - strlen(tail), tail) &&
			  strchr(got, '\n') == got + n - 1,
		  "\n--- got:\n%s\n--- wanted one line:\n%s...%s", got, head, tail);
	free(got);
}

/* ---- 3. exclude ---- */

static void exclude_tree(void)
{
	put(".cglint.yaml", "target:\n  mcore: \"0.16\"\n  bridge: \"0.3\"\n"
			    "exclude: [vendor, \"gen/**\", /x.yaml, skip.yaml]\n");
	put("a.yaml", recipe);
	put("x.yaml", recipe);                  /* /x.yaml: only at the top */
	put("lib/x.yaml", recipe);
	put("lib/skip.yaml", recipe);           /* no '/': at any depth */
	put("vendor/v.yaml", recipe);
	put("vendor/deep/v.yaml", recipe);
	put("gen/x/g.yaml", recipe);
}

Test(project, exclude_when_walking)
{
	exclude_tree();
	int rc;
	char *err;
	char *got = lint_at("", ".", &rc, &err);
	char *a = at_016("./a.yaml"), *b = at_016("./lib/x.yaml");
	char want[4096];
	snprintf(want, sizeof(want), "%s%s", a, b);
	expect_str(got, want);
	cr_expect_eq(rc, 1);
	/* vendor, gen, x.yaml and lib/skip.yaml */
	expect_str(err, "cglint: 2 errors, 2 warnings in 2 files; 2 files checked, 4 skipped; 24 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them)\n");
	free(a);
	free(b);
	free(got);
	free(err);
}

/* '**' is matched by segment with memory, not by backtracking: ten of them against a path 30
 * folders deep used to take past 20 s (the timeout only stops a regression from hanging). */
Test(project, many_double_stars_at_depth_30, .timeout = 60)
{
	put(".cglint.yaml", "exclude: [\"**/**/**/**/**/**/**/**/**/**/nomatch.yaml\"]\n");
	char path[512] = "";
	for (int k = 0; k < 30; k++)
		strcat(path, k % 2 ? "a/" : "b/");
	strcat(path, "deep.yaml");
	put(path, recipe);
	int rc;
	char *err;
	char *got = lint_at("", path, &rc, &err);
	cr_expect_eq(rc, 1, "the file is linted (not excluded): %s", err);
	free(got);
	free(err);
	put(".cglint.yaml", "exclude: [\"**/a/**/a/**/a/**/**/**/a/**/a/**/b/**/a/**/deep.yaml\"]\n");
	got = lint_at("", path, &rc, &err);
	cr_expect_eq(rc, 0, "the file is excluded: %s", err);
	free(got);
	free(err);
}

/* A .cglint.yaml that is there but cannot be read is an error (exit 2), never taken as absent. */
Test(project, unreadable_config_links_are_errors)
{
	put("sub/a.yaml", "model:\n  cuda_graph_impl: none\n");
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "cd '%s/sub' && ln -s loop .cglint.yaml && ln -s .cglint.yaml loop", dir);
	cr_assert_eq(system(cmd), 0);
	int rc;
	char *err;
	char *got = lint_at("sub", "a.yaml", &rc, &err);
	cr_expect_eq(rc, 2);
	cr_expect(strstr(got, ".cglint.yaml:1:1: error: cannot open: symbolic link loop [CG904"), "%s", got);
	free(got);
	free(err);
	snprintf(cmd, sizeof(cmd), "cd '%s/sub' && rm .cglint.yaml loop && ln -s nowhere .cglint.yaml", dir);
	cr_assert_eq(system(cmd), 0);
	got = lint_at("sub", "a.yaml", &rc, &err);
	cr_expect_eq(rc, 2);
	cr_expect(strstr(got, ".cglint.yaml:1:1: error: cannot open: No such file or directory [CG904"), "%s", got);
	free(got);
	free(err);
}

/* The search for a .cglint.yaml stops at the repository's root: one above it (a home or CI
 * workspace folder) cannot switch the repository's rules off. */
Test(project, config_search_stops_at_the_repository)
{
	put(".cglint.yaml", "ignore: [ALL]\n");
	put("repo/.git/HEAD", "ref: refs/heads/main\n");
	put("repo/a.yaml", "model:\n  cuda_graph_impl: bogus\n");
	int rc;
	char *err;
	char *got = lint_at("repo", "a.yaml", &rc, &err);
	cr_expect_eq(rc, 1, "the config above the repository was applied: %s", err);
	cr_expect(strstr(got, "[CG121"), "%s", got);
	free(got);
	free(err);
	got = lint_at("", "repo/a.yaml", &rc, &err);    /* named from above: still the repository's file */
	cr_expect_eq(rc, 1, "%s", err);
	free(got);
	free(err);
}

/* In a repository, a .cglint.yaml names rule packs inside it only: a pull request's config
 * cannot make cglint read (and quote) any other file of the CI machine. */
Test(project, packs_stay_inside_the_repository)
{
	put("repo/.git/HEAD", "ref: refs/heads/main\n");
	put("repo/policy.yaml", "pack: p\nrules: []\n");
	put("outside.yaml", "pack: secret\nrules: [{id: SECRET-LINE}]\n");
	put("repo/.cglint.yaml", "rules: [policy.yaml, ../outside.yaml]\n");
	put("repo/a.yaml", "model:\n  cuda_graph_impl: none\n");
	int rc;
	char *err;
	char *got = lint_at("repo", "a.yaml", &rc, &err);
	cr_expect_eq(rc, 2);
	expect_str(got, ".cglint.yaml:1:22: error: rule pack '../outside.yaml' is outside this repository: a "
			".cglint.yaml names packs inside it (or in ~/.config/cglint) only; pass --rules to use it "
			"[CG915 bad-project-config]\n");
	cr_expect(!strstr(got, "SECRET") && !strstr(err, "SECRET"), "the outside file was read");
	free(got);
	free(err);
}

Test(project, exclude_named_files)
{
	exclude_tree();
	int rc;
	char *err;
	char *got = lint_at("", "vendor/v.yaml x.yaml lib/x.yaml gen/x/g.yaml lib/skip.yaml vendor/deep/v.yaml", &rc, &err);
	char *want = at_016("lib/x.yaml");
	expect_str(got, want);
	cr_expect_eq(rc, 1);
	expect_str(err, "cglint: 1 error, 1 warning in 1 file; 1 file checked, 5 skipped; 12 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them)\n");
	free(want);
	free(got);
	free(err);
	/* from inside lib/, the patterns are still relative to the config's folder */
	got = lint_at("lib", "x.yaml skip.yaml ../x.yaml", &rc, &err);
	want = at_016("x.yaml");
	expect_str(got, want);
	expect_str(err, "cglint: 1 error, 1 warning in 1 file; 1 file checked, 2 skipped; 12 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them)\n");
	free(want);
	free(got);
	free(err);
}

Test(project, exclude_stdin_by_its_name)
{
	exclude_tree();
	int rc;
	char *err;
	char *got = lint_at("", "--stdin-filename vendor/z.yaml - < a.yaml", &rc, &err);
	expect_str(got, "");
	cr_expect_eq(rc, 0);
	expect_str(err, "cglint: no files checked, 1 skipped\n");
	free(got);
	free(err);
	got = lint_at("", "--stdin-filename lib/z.yaml - < a.yaml", &rc, NULL);
	char *want = at_016("lib/z.yaml");
	expect_str(got, want);
	cr_expect_eq(rc, 1);
	free(want);
	free(got);
}

/* ---- 4. per-path ---- */

Test(project, per_path_globs)
{
	put("proj/.cglint.yaml", "target:\n  mcore: \"0.16\"\n  bridge: \"0.3\"\n"
				 "per-path:\n"
				 "  - paths: [\"recipes/*.yaml\"]\n    ignore: [CG905]\n"
				 "  - paths: [\"**/legacy/*.yaml\"]\n    select: [CG132]\n    target: {mcore: \"0.18\"}\n"
				 "  - paths: [/r.yaml]\n    severity: {CG101: note}\n");
	put("proj/r.yaml", recipe);
	put("proj/recipes/r.yaml", recipe);
	put("proj/recipes/b/r.yaml", recipe);
	put("proj/recipes/a/legacy/l.yaml", recipe);
	put("proj/legacy/l.yaml", recipe);
	put("proj/other/r.yaml", recipe);
	/* run from proj/other: the globs stay relative to proj/ */
	expect_lint("proj/other", "../r.yaml ../recipes/r.yaml ../recipes/b/r.yaml ../recipes/a/legacy/l.yaml "
				  "../legacy/l.yaml r.yaml", 1,
		    "../legacy/l.yaml:3:3: note: " M132
		    "../r.yaml:5:3: warning: " M905
		    "../r.yaml:7:3: note: " M101
		    "../recipes/a/legacy/l.yaml:3:3: note: " M132
		    "../recipes/b/r.yaml:5:3: warning: " M905
		    "../recipes/b/r.yaml:7:3: error: " M101
		    "../recipes/r.yaml:7:3: error: " M101
		    "r.yaml:5:3: warning: " M905
		    "r.yaml:7:3: error: " M101);
}

/* ---- 5. rule packs of a config ---- */

static const char team_pack[] =
	"pack: team\n"
	"rules:\n"
	"  - id: TEAM001\n"
	"    name: team-no-local-graphs\n"
	"    severity: error\n"
	"    when: model.cuda_graph_impl == \"local\"\n"
	"    at: model.cuda_graph_impl\n"
	"    message: \"our clusters run Transformer Engine graphs only\"\n"
	"    fix: \"set model.cuda_graph_impl: transformer_engine\"\n"
	"    doc: \"Team policy.\"\n";

static const char local_recipe[] =
	"model:\n"
	"  cuda_graph_impl: local\n"
	"  cuda_graph_scope: [full_iteration]\n"
	"rng:\n"
	"  te_rng_tracker: true\n"
	"rerun_state_machine:\n"
	"  check_for_nan_in_loss: false\n";

Test(project, config_pack_applies_only_under_its_config)
{
	put("team/.policy.yaml", team_pack);
	put("team/.cglint.yaml", "rules: [.policy.yaml]\n");
	put("team/x.yaml", local_recipe);
	put("team/deep/y.yaml", local_recipe);
	put("other/x.yaml", local_recipe);
	put("x.yaml", local_recipe);
	expect_lint("", "--mcore 0.17 --bridge 0.4 x.yaml team/x.yaml other/x.yaml team/deep/y.yaml", 1,
		    "team/deep/y.yaml:2:3: error: our clusters run Transformer Engine graphs only [TEAM001 team-no-local-graphs]\n"
		    "team/x.yaml:2:3: error: our clusters run Transformer Engine graphs only [TEAM001 team-no-local-graphs]\n");
	/* the config's severity and select know the pack's rules */
	put("team/.cglint.yaml", "rules: [.policy.yaml]\nseverity:\n  team-no-local-graphs: warning\n");
	expect_lint("", "--mcore 0.17 --bridge 0.4 other/x.yaml team/x.yaml", 0,
		    "team/x.yaml:2:3: warning: our clusters run Transformer Engine graphs only [TEAM001 team-no-local-graphs]\n");
}

/*
 * BUG: two configs naming one pack: it is loaded once and scoped to the folder of the config
 * read first, so the other folder silently loses the rules; which one depends on the order of
 * the files on the command line.
 */
Test(project, pack_shared_by_two_configs)
{
	put("shared/policy.yaml", team_pack);
	put("a/.cglint.yaml", "rules: [../shared/policy.yaml]\n");
	put("b/.cglint.yaml", "rules: [../shared/policy.yaml]\n");
	put("a/x.yaml", local_recipe);
	put("b/x.yaml", local_recipe);
	const char *want =
		"a/x.yaml:2:3: error: our clusters run Transformer Engine graphs only [TEAM001 team-no-local-graphs]\n"
		"b/x.yaml:2:3: error: our clusters run Transformer Engine graphs only [TEAM001 team-no-local-graphs]\n";
	expect_lint("", "--mcore 0.17 --bridge 0.4 a/x.yaml b/x.yaml", 1, want);
	expect_lint("", "--mcore 0.17 --bridge 0.4 b/x.yaml a/x.yaml", 1, want);
}

/*
 * BUG: --fix lints twice (before and after the edits); the second run reads the configs again
 * and loads their rule packs a second time into the session's pack, so every pack rule is
 * "defined twice" (CG910) and the run ends with status 2 after a successful fix.
 */
Test(project, fix_under_a_config_pack_reloads_the_pack)
{
	put("team/.policy.yaml", team_pack);
	put("team/.cglint.yaml", "rules: [.policy.yaml]\n");
	put("team/f.yaml", "model:\n  cuda_graph_impl: transformer_engine\n  use_te_rng_tracker: false\n"
			   "rng:\n  te_rng_tracker: false\n");
	int rc;
	char *err;
	char *got = lint_at("", "--mcore 0.16 --bridge 0.3 --fix team/f.yaml", &rc, &err);
	expect_str(got, "");
	expect_str(err, "cglint: fixed 1 finding(s)\ncglint: no findings (1 file checked; 24 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them))\n");
	cr_expect_eq(rc, 0);
	free(got);
	free(err);
}

/* ---- 6. inline suppressions ---- */

Test(project, suppressions_in_yaml)
{
	put("s.yaml", "model:\n"
		      "  cuda_graph_impl: transformer_engine\n"
		      "  cuda_graph_scope: [attn]   # cglint: disable=CG132 -- migrating in Q3\n"
		      "  use_te_rng_tracker: false\n"
		      "  # cglint: disable=unknown-key\n"            /* alone: the next line of code */
		      "  # another comment\n"
		      "\n"
		      "  cuda_graph_warmup_stepz: 3\n"               /* line 8 */
		      "rng:\n"
		      "  # cglint: disable-next-line=CG101,CG905 -- both, CG905 for nothing\n"
		      "  te_rng_tracker: false\n"                    /* line 11 */
		      "  seed: 1  # cglint: disable=CG101\n"         /* nothing here */
		      "  note: \"x # cglint: disable=CG101\"\n"      /* in a string: no directive */
		      "  other: 'y # cglint: disable=CG999'\n");
	int rc;
	char *err;
	char *got = lint_at("", "--mcore 0.18 s.yaml", &rc, &err);
	expect_str(got, "s.yaml:10:5: warning: this suppression of CG905 covers nothing on line 11 [CG913 unused-suppression]\n"
			"s.yaml:12:14: warning: this suppression of CG101 covers nothing on line 12 [CG913 unused-suppression]\n");
	expect_str(err, "cglint: 2 warnings in 1 file; 1 file checked; 16 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them); 3 suppressed inline\n");
	cr_expect_eq(rc, 0);
	free(got);
	free(err);
	/* an audit: everything the comments hide, and no CG913 */
	got = lint_at("", "--mcore 0.18 --no-inline-suppressions s.yaml", &rc, &err);
	expect_str(got, "s.yaml:3:3: note: " M132 "s.yaml:8:3: warning: " M905 "s.yaml:11:3: error: " M101);
	expect_str(err, "cglint: 1 error, 1 warning, 1 note in 1 file; 1 file checked; 16 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them)\n");
	cr_expect_eq(rc, 1);
	free(got);
	free(err);
}

Test(project, disable_file_by_id_and_name)
{
	put("f.yaml", "# cglint: disable-file=CG101,unknown-key -- legacy file\n"
		      "model:\n  cuda_graph_impl: transformer_engine\n  use_te_rng_tracker: false\n"
		      "  cuda_graph_warmup_stepz: 3\n"
		      "rng:\n  te_rng_tracker: false\n");
	int rc;
	char *err;
	char *got = lint_at("", "--mcore 0.16 --bridge 0.3 f.yaml", &rc, &err);
	expect_str(got, "");
	expect_str(err, "cglint: no findings (1 file checked; 24 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them); 2 suppressed inline)\n");
	cr_expect_eq(rc, 0);
	free(got);
	free(err);
	put("g.yaml", "# cglint: disable-file=CG132\nmodel:\n  cuda_graph_impl: transformer_engine\n");
	expect_lint("", "--mcore 0.16 --bridge 0.3 g.yaml", 0,
		    "g.yaml:1:3: warning: this suppression of CG132 covers nothing in this file [CG913 unused-suppression]\n");
}

Test(project, suppression_in_a_shell_script)
{
	put("run.sh", "#!/bin/bash\n"
		      "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True  # cglint: disable=CG201 -- NCCL is 0 there\n"
		      "torchrun --nproc-per-node 8 pretrain_gpt.py --cuda-graph-impl transformer_engine --te-rng-tracker\n");
	int rc;
	char *err;
	char *got = lint_at("", "--mcore 0.17 --bridge none --no-inline-suppressions run.sh", &rc, &err);
	expect_str(got, "run.sh:2:32: error: PYTORCH_CUDA_ALLOC_CONF has expandable_segments:True but NCCL_GRAPH_REGISTER "
			"is not 0: graph capture asserts (illegal memory access otherwise) "
			"[CG201 expandable-segments-need-nccl-graph-register-0]\n");
	cr_expect_eq(rc, 1);
	free(got);
	free(err);
	got = lint_at("", "--mcore 0.17 --bridge none run.sh", &rc, &err);
	expect_str(got, "");
	expect_str(err, "cglint: all checks passed (1 file checked; 1 suppressed inline)\n");
	cr_expect_eq(rc, 0);
	free(got);
	free(err);
}

static const char cu_head[] =
	"#include <cuda_runtime.h>\n"
	"\n"
	"cudaError_t cap(cudaStream_t s, cudaGraph_t *out)\n"
	"{\n"
	"\tcudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n";      /* line 5 */

Test(project, suppressions_in_c)
{
	char text[2048];
	snprintf(text, sizeof(text), "%s"
		 "\tcudaDeviceSynchronize();  // cglint: disable=CG301 -- tested by hand\n"        /* 6 */
		 "\t/* cglint: disable-next-line=sync-in-capture */\n"                             /* 7 */
		 "\t// and a comment line between\n"
		 "\tcudaDeviceSynchronize();\n"                                                    /* 9 */
		 "\tcudaDeviceSynchronize(); /* cglint: disable=CG301 */\n"                        /* 10 */
		 "\tconst char *m = \"// cglint: disable=CG301\"; (void)m; cudaDeviceSynchronize();\n" /* 11 */
		 "\tcudaDeviceSynchronize(); // cglint: disable=device-sync\n"                     /* 12 */
		 "\treturn cudaStreamEndCapture(s, out);\n"
		 "}\n", cu_head);
	put("k.cu", text);
	int rc;
	char *err;
	char *got = lint_at("", "k.cu", &rc, &err);
	expect_str(got, "k.cu:11:55: error: " M301
			"k.cu:12:2: error: " M301
			"k.cu:12:30: error: no rule 'device-sync' to disable [CG914 bad-suppression]\n");
	expect_str(err, "cglint: 3 errors in 1 file; 1 file checked; 3 suppressed inline\n");
	cr_expect_eq(rc, 2);     /* a suppression naming no rule is broken input */
	free(got);
	free(err);
}

Test(project, malformed_suppressions)
{
	put("n.yaml", "model:\n"
		      "  a: 1  # cglint: disable=GC101\n"
		      "  b: 1  # cglint: enable=CG101\n"
		      "  c: 1  # cglint: disable CG101\n"
		      "  d: 1  # cglint: disable=CG101 because\n"
		      "  e: 1  # cglint: disable= -- nothing\n");
	expect_lint("", "--isolated n.yaml", 2,
		    "n.yaml:2:11: error: no rule 'GC101' to disable; did you mean 'CG101'? [CG914 bad-suppression]\n"
		    "n.yaml:3:11: error: unknown directive 'cglint: enable'; the directives are disable=, "
		    "disable-next-line= and disable-file= [CG914 bad-suppression]\n"
		    "n.yaml:4:11: error: 'cglint: disable' wants '=' and the rules it disables, e.g. disable=CG101 "
		    "[CG914 bad-suppression]\n"
		    "n.yaml:5:11: error: unexpected 'because' after the rules; a reason follows '--' [CG914 bad-suppression]\n"
		    "n.yaml:6:11: error: a suppression names no rule: give ids or names, e.g. disable=CG101 "
		    "[CG914 bad-suppression]\n");
	/* malformed ones suppress nothing */
	put("m.yaml", "model:\n  cuda_graph_impl: transformer_engine\n  use_te_rng_tracker: false\n"
		      "rng:\n  te_rng_tracker: false  # cglint: disable CG101\n");
	expect_lint("", "--mcore 0.16 --bridge 0.3 m.yaml", 2,
		    "m.yaml:5:3: error: " M101
		    "m.yaml:5:28: error: 'cglint: disable' wants '=' and the rules it disables, e.g. disable=CG101 "
		    "[CG914 bad-suppression]\n");
}

/* BUG: a misspelt rule name gets no did-you-mean (only ids are candidates). */
Test(project, misspelt_rule_name_gets_no_suggestion)
{
	put("n.yaml", "model:\n  a: 1  # cglint: disable=te-rng-tracker-requird\n");
	expect_lint("", "--isolated n.yaml", 2,
		    "n.yaml:2:11: error: no rule 'te-rng-tracker-requird' to disable; did you mean "
		    "'te-rng-tracker-required'? [CG914 bad-suppression]\n");
}

/*
 * BUG: a lower-case id both suppresses the finding (ids compare case-insensitively there) and
 * is reported as naming no rule (CG914). It must be one or the other.
 */
Test(project, lower_case_id_suppresses_and_is_unknown)
{
	put("c.yaml", "model:\n  cuda_graph_impl: transformer_engine\n  use_te_rng_tracker: false\n"
		      "rng:\n  te_rng_tracker: false  # cglint: disable=cg101\n");
	int rc;
	char *got = lint_at("", "--mcore 0.16 --bridge 0.3 c.yaml", &rc, NULL);
	bool suppressed = !strstr(got, "[CG101 ");
	bool unknown = strstr(got, "[CG914 ") != NULL;
	cr_expect(suppressed != unknown, "suppressed=%d and reported unknown=%d:\n%s", suppressed, unknown, got);
	free(got);
}

/*
 * BUG: a block comment that opens a line of code is taken for a comment alone on its line, so
 * it covers the NEXT line: here line 6 stays reported and line 7's finding is hidden.
 */
Test(project, leading_block_comment_covers_its_own_line)
{
	char text[1024];
	snprintf(text, sizeof(text), "%s"
		 "\t/* cglint: disable=CG301 */ cudaDeviceSynchronize();\n"
		 "\tcudaDeviceSynchronize();\n"
		 "\treturn cudaStreamEndCapture(s, out);\n"
		 "}\n", cu_head);
	put("m.cu", text);
	expect_lint("", "m.cu", 1, "m.cu:7:2: error: " M301);
}

/* BUG: YAML's '' inside a single-quoted string ends the string for the comment scanner. */
Test(project, doubled_quote_in_single_quoted_yaml)
{
	put("q.yaml", "model:\n  cuda_graph_impl: none\n  note: 'it''s # cglint: disable=CG101'\n");
	expect_lint("", "--isolated q.yaml", 0, "");
}

/* BUG: a '# cglint:' line inside a YAML block scalar is text, not a comment. */
Test(project, directive_text_in_a_block_scalar)
{
	put("b.yaml", "description: |\n  Run with:\n  # cglint: disable=CG101\nmodel:\n  cuda_graph_impl: none\n");
	expect_lint("", "--isolated b.yaml", 0, "");
}

/* ---- 7. baseline ---- */

static const char rng_off[] =
	"model:\n"
	"  cuda_graph_impl: transformer_engine\n"
	"  use_te_rng_tracker: false\n"
	"rng:\n"
	"  te_rng_tracker: false\n";
static const char rng_on[] =
	"model:\n"
	"  cuda_graph_impl: transformer_engine\n"
	"  use_te_rng_tracker: false\n"
	"rng:\n"
	"  te_rng_tracker: true\n";

Test(project, write_baseline_from_another_cwd)
{
	put("r/a.yaml", rng_off);
	put("other/.keep", "");
	int rc;
	char *out, *err;
	rc = run_at("other", "--mcore 0.16 --bridge 0.3 --baseline ../r/base.json --write-baseline ../r/a.yaml", &out,
		    &err);
	cr_expect_eq(rc, 0);
	expect_str(out, "");
	expect_str(err, "cglint: wrote 1 finding(s) to ../r/base.json\n");
	free(out);
	free(err);
	char *fp = prints("", "--mcore 0.16 --bridge 0.3 r/a.yaml");
	char *text = get("r/base.json", NULL);
	cr_assert_not_null(text);
	json_error_t e;
	json_t *doc = json_loads(text, 0, &e);
	cr_assert_not_null(doc, "baseline is not JSON: %s", text);
	cr_expect_eq(json_integer_value(json_object_get(doc, "version")), 1);
	cr_expect(json_is_integer(json_object_get(doc, "version")));
	cr_expect_str_eq(json_string_value(json_object_get(doc, "tool")), "cglint");
	json_t *fs = json_object_get(doc, "findings");
	cr_assert_eq(json_array_size(fs), 1);
	json_t *f = json_array_get(fs, 0);
	cr_expect_str_eq(json_string_value(json_object_get(f, "path")), "a.yaml");
	cr_expect_str_eq(json_string_value(json_object_get(f, "rule")), "CG101");
	char want[64];
	snprintf(want, sizeof(want), "CG101@5=%s ", json_string_value(json_object_get(f, "fingerprint")));
	cr_expect_str_eq(fp, want);
	cr_expect_str_eq(json_string_value(json_object_get(f, "message")),
			 "Transformer engine's RNG tracker is required for cudagraphs, it can be enabled with "
			 "use_te_rng_tracker=True'.");
	cr_expect_eq(text[strlen(text) - 1], '\n');
	json_decref(doc);
	free(text);
	free(fp);

	/* read back from the baseline's own folder and from the top */
	char *got = lint_at("r", "--mcore 0.16 --bridge 0.3 --baseline base.json a.yaml", &rc, &err);
	expect_str(got, "");
	expect_str(err, "cglint: no findings (1 file checked; 24 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them); 1 in the baseline)\n");
	cr_expect_eq(rc, 0);
	free(got);
	free(err);
	expect_lint("", "--mcore 0.16 --bridge 0.3 --baseline r/base.json r/a.yaml", 0, "");
}

Test(project, baseline_survives_lines_added_above)
{
	put("a.yaml", rng_off);
	int rc = run_at("", "--mcore 0.16 --bridge 0.3 --baseline base.json --write-baseline a.yaml", NULL, NULL);
	cr_expect_eq(rc, 0);
	char text[512];
	snprintf(text, sizeof(text), "# added\n# after the baseline\n\n%s", rng_off);
	put("a.yaml", text);
	int got_rc;
	char *err;
	char *got = lint_at("", "--mcore 0.16 --bridge 0.3 --baseline base.json a.yaml", &got_rc, &err);
	expect_str(got, "");
	expect_str(err, "cglint: no findings (1 file checked; 24 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them); 1 in the baseline)\n");
	cr_expect_eq(got_rc, 0);
	free(got);
	free(err);
	/* the same finding in another file is new */
	put("b.yaml", rng_off);
	expect_lint("", "--mcore 0.16 --bridge 0.3 --baseline base.json a.yaml b.yaml", 1, "b.yaml:5:3: error: " M101);
}

Test(project, baseline_entry_matches_one_finding)
{
	char text[1024];
	snprintf(text, sizeof(text), "%s\tcudaDeviceSynchronize();\n\treturn cudaStreamEndCapture(s, out);\n}\n", cu_head);
	put("k.cu", text);
	cr_expect_eq(run_at("", "--baseline k.json --write-baseline k.cu", NULL, NULL), 0);
	/* a second, identical finding below the recorded one */
	snprintf(text, sizeof(text), "%s\tcudaDeviceSynchronize();\n\tcudaDeviceSynchronize();\n"
		 "\treturn cudaStreamEndCapture(s, out);\n}\n", cu_head);
	put("k.cu", text);
	int rc;
	char *err;
	char *got = lint_at("", "--baseline k.json k.cu", &rc, &err);
	expect_str(got, "k.cu:7:2: error: " M301);
	expect_str(err, "cglint: 1 error in 1 file; 1 file checked; 1 in the baseline\n");
	cr_expect_eq(rc, 1);
	free(got);
	free(err);
}

/* Each exit that leaves a capture open is a finding of its own: two of the same text keep
 * distinct fingerprints, survive lines added above, and a third is new. */
Test(project, baseline_holds_each_exit_of_a_region)
{
	static const char check[] = "#define CHECK(x) do { cudaError_t e_ = (x); if (e_) return e_; } while (0)\n";
	static const char exits[] = "\tCHECK(cudaMemsetAsync(0, 0, 4, s));\n"
				    "\tCHECK(cudaMemsetAsync(0, 0, 4, s));\n"
				    "\tif (!out)\n\t\treturn cudaErrorInvalidValue;\n";
	static const char end[] = "\treturn cudaStreamEndCapture(s, out);\n}\n";
	char text[2048];
	snprintf(text, sizeof(text), "%s%s%s%s", check, cu_head, exits, end);
	put("e.cu", text);
	char *fps = prints("", "e.cu");
	char a[20], b[20];
	cr_assert_eq(sscanf(fps, "CG410@7=%16s CG410@8=%16s CG404@10=", a, b), 2, "one finding per exit: %s", fps);
	cr_expect_str_neq(a, b, "the same text twice, two fingerprints");
	cr_expect_eq(run_at("", "--baseline e.json --write-baseline e.cu", NULL, NULL), 0);
	snprintf(text, sizeof(text), "// added\n\n%s%s%s\tCHECK(cudaMemsetAsync(0, 0, 4, s));\n%s", check, cu_head, exits,
		 end);
	put("e.cu", text);
	int rc;
	char *err;
	char *got = lint_at("", "--baseline e.json e.cu", &rc, &err);
	cr_expect(strstr(got, "e.cu:13:2: warning: this return (in macro CHECK)"), "%s", got);
	cr_expect(!strchr(strchr(got, '\n') + 1, '\n'), "only the new exit: %s", got);
	expect_str(err, "cglint: 1 warning in 1 file; 1 file checked; 3 in the baseline\n");
	cr_expect_eq(rc, 0);
	free(got);
	free(err);
	free(fps);
}

/*
 * BUG: a finding outside the baseline's folder is recorded with its path as given (relative to
 * the cwd, "other/x.yaml"), not relative to the baseline's folder ("../other/x.yaml"), so it
 * matches only when cglint runs from the same cwd again.
 */
Test(project, baseline_path_outside_its_folder)
{
	put("other/x.yaml", rng_off);
	put("r/.keep", "");
	cr_expect_eq(run_at("", "--mcore 0.16 --bridge 0.3 --baseline r/base.json --write-baseline other/x.yaml", NULL,
			    NULL), 0);
	expect_lint("", "--mcore 0.16 --bridge 0.3 --baseline r/base.json other/x.yaml", 0, "");
	expect_lint("other", "--mcore 0.16 --bridge 0.3 --baseline ../r/base.json x.yaml", 0, "");
	char *text = get("r/base.json", NULL);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "\"path\": \"../other/x.yaml\"") != NULL, "%s", text);
	free(text);
}

Test(project, malformed_baselines)
{
	put("a.yaml", rng_off);
	put("bad.json", "{\"version\": 1, \"findings\": [\n");
	expect_lint("", "--baseline bad.json a.yaml", 2,
		    "bad.json:2:1: error: not a cglint baseline: ']' expected near end of file [CG916 bad-baseline]\n");
	put("v2.json", "{\"version\": 2, \"findings\": []}\n");
	expect_lint("", "--baseline v2.json a.yaml", 2,
		    "v2.json:1:1: error: not a cglint baseline: it wants {\"version\": 1, \"findings\": [...]} "
		    "[CG916 bad-baseline]\n");
	put("nofp.json", "{\"version\": 1, \"findings\": [{\"path\": \"a.yaml\", \"rule\": \"CG101\"}]}\n");
	expect_lint("", "--baseline nofp.json a.yaml", 2,
		    "nofp.json:1:1: error: finding 1 lacks a string path, rule or fingerprint [CG916 bad-baseline]\n");
}

Test(project, write_baseline_needs_a_file)
{
	put("a.yaml", rng_off);
	char *out, *err;
	int rc = run_at("", "--write-baseline a.yaml", &out, &err);
	cr_expect_eq(rc, 2);
	expect_str(out, "");
	expect_str(err, "cglint: --write-baseline: no file to write: name it with --baseline FILE (for example "
			"--baseline .cglint-baseline.json)\n"
			"(try 'cglint --help')\n");
	free(out);
	free(err);
	cr_expect_null(get("base.json", NULL));
}

/* ---- 8. fingerprints ---- */

Test(project, fingerprints_in_json)
{
	put("t.yaml", recipe);
	char *before = prints("", "--mcore 0.16 --bridge 0.3 t.yaml");
	char text[1024];
	snprintf(text, sizeof(text), "# one\n# two\n%s", recipe);
	put("t.yaml", text);
	char *after = prints("", "--mcore 0.16 --bridge 0.3 t.yaml");
	/* "CG905@5=<16> CG101@7=<16> ": the hashes are equal, the lines moved by 2 */
	cr_assert_eq(strlen(before), 2 * 25, "%s", before);
	cr_assert_eq(strlen(after), 2 * 25, "%s", after);
	cr_expect(!strncmp(before, "CG905@5=", 8) && !strncmp(after, "CG905@7=", 8), "%s / %s", before, after);
	cr_expect(!strncmp(before + 25, "CG101@7=", 8) && !strncmp(after + 25, "CG101@9=", 8), "%s / %s", before, after);
	cr_expect(!strncmp(before + 8, after + 8, 16), "%s / %s", before, after);
	cr_expect(!strncmp(before + 33, after + 33, 16), "%s / %s", before, after);
	/* two different findings */
	cr_expect(strncmp(before + 8, before + 33, 16), "same fingerprint for CG905 and CG101: %s", before);
	free(before);
	free(after);
}

/* ---- 9. --fix and --diff ---- */

static const char crlf[] =
	"# recipe: keep me\r\n"
	"model: {cuda_graph_impl: transformer_engine, use_te_rng_tracker: false}\r\n"
	"rng: {te_rng_tracker: false, seed: 1234}   # flow\r\n"
	"train:\r\n"
	"    micro_batch_size: 1\r\n";
static const char crlf_fixed[] =
	"# recipe: keep me\r\n"
	"model: {cuda_graph_impl: transformer_engine, use_te_rng_tracker: false}\r\n"
	"rng: {te_rng_tracker: true, seed: 1234}   # flow\r\n"
	"train:\r\n"
	"    micro_batch_size: 1\r\n";
static const char block[] =
	"model:\n"
	"    cuda_graph_impl: transformer_engine   # per layer\n"
	"    use_te_rng_tracker: false\n"
	"rng:\n"
	"    te_rng_tracker:   false   # legacy, see the A/B run\n"
	"    seed: 1234\n";
static const char block_fixed[] =
	"model:\n"
	"    cuda_graph_impl: transformer_engine   # per layer\n"
	"    use_te_rng_tracker: false\n"
	"rng:\n"
	"    te_rng_tracker:   true   # legacy, see the A/B run\n"
	"    seed: 1234\n";

static void expect_file(const char *name, const char *want)
{
	size_t n;
	char *got = get(name, &n);
	cr_assert_not_null(got, "%s is gone", name);
	cr_expect_eq(n, strlen(want), "%s: %zu bytes, expected %zu", name, n, strlen(want));
	expect_str(got, want);
	free(got);
}

Test(project, diff_prints_and_changes_nothing)
{
	put("r.yaml", crlf);
	put("b.yaml", block);
	char *out, *err;
	int rc = run_at("", "--mcore 0.16 --bridge 0.3 --diff r.yaml b.yaml", &out, &err);
	cr_expect_eq(rc, 1);
	expect_str(out, "--- a/r.yaml\n"
			"+++ b/r.yaml\n"
			"@@ -1,5 +1,5 @@\n"
			" # recipe: keep me\r\n"
			" model: {cuda_graph_impl: transformer_engine, use_te_rng_tracker: false}\r\n"
			"-rng: {te_rng_tracker: false, seed: 1234}   # flow\r\n"
			"+rng: {te_rng_tracker: true, seed: 1234}   # flow\r\n"
			" train:\r\n"
			"     micro_batch_size: 1\r\n"
			"--- a/b.yaml\n"
			"+++ b/b.yaml\n"
			"@@ -2,5 +2,5 @@\n"
			"     cuda_graph_impl: transformer_engine   # per layer\n"
			"     use_te_rng_tracker: false\n"
			" rng:\n"
			"-    te_rng_tracker:   false   # legacy, see the A/B run\n"
			"+    te_rng_tracker:   true   # legacy, see the A/B run\n"
			"     seed: 1234\n");
	expect_str(err, "");
	free(out);
	free(err);
	expect_file("r.yaml", crlf);
	expect_file("b.yaml", block);
	/* nothing to fix: no diff, status 0 */
	put("ok.yaml", block_fixed);
	rc = run_at("", "--mcore 0.16 --bridge 0.3 --diff ok.yaml", &out, NULL);
	cr_expect_eq(rc, 0);
	expect_str(out, "");
	free(out);
}

Test(project, diff_without_a_final_newline)
{
	put("n.yaml", "model:\n  cuda_graph_impl: transformer_engine\n  use_te_rng_tracker: false\nrng:\n"
		      "  te_rng_tracker: false");
	char *out;
	cr_expect_eq(run_at("", "--mcore 0.16 --bridge 0.3 --diff n.yaml", &out, NULL), 1);
	expect_str(out, "--- a/n.yaml\n+++ b/n.yaml\n@@ -2,4 +2,4 @@\n"
			"   cuda_graph_impl: transformer_engine\n"
			"   use_te_rng_tracker: false\n"
			" rng:\n"
			"-  te_rng_tracker: false\n\\ No newline at end of file\n"
			"+  te_rng_tracker: true\n\\ No newline at end of file\n");
	free(out);
}

Test(project, fix_edits_only_the_value)
{
	put("r.yaml", crlf);
	put("b.yaml", block);
	put("c.yaml", "rng:\r\n  te_rng_tracker: false\r\n  seed: 1\r\nmodel:\r\n  cuda_graph_impl: transformer_engine\r\n  use_te_rng_tracker: false\r\n");
	char *out, *err;
	int rc = run_at("", "--mcore 0.16 --bridge 0.3 --fix r.yaml b.yaml c.yaml", &out, &err);
	cr_expect_eq(rc, 0);
	expect_str(out, "");
	expect_str(err, "cglint: fixed 3 finding(s)\ncglint: no findings (3 files checked; 72 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them))\n");
	expect_file("c.yaml", "rng:\r\n  te_rng_tracker: true\r\n  seed: 1\r\nmodel:\r\n  cuda_graph_impl: transformer_engine\r\n  use_te_rng_tracker: false\r\n");
	free(out);
	free(err);
	expect_file("r.yaml", crlf_fixed);
	expect_file("b.yaml", block_fixed);
	/* again: nothing to do */
	rc = run_at("", "--mcore 0.16 --bridge 0.3 --fix r.yaml b.yaml c.yaml", &out, &err);
	cr_expect_eq(rc, 0);
	expect_str(out, "");
	expect_str(err, "cglint: fixed 0 finding(s)\ncglint: no findings (3 files checked; 72 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them))\n");
	free(out);
	free(err);
	expect_file("r.yaml", crlf_fixed);
	expect_file("b.yaml", block_fixed);
}

Test(project, fix_reports_what_is_left)
{
	put("t.yaml", recipe);
	int rc;
	char *err;
	char *got = lint_at("", "--mcore 0.18 --fix t.yaml", &rc, &err);
	expect_str(got, "t.yaml:3:3: note: " M132 "t.yaml:5:3: warning: " M905);
	expect_str(err, "cglint: fixed 1 finding(s)\ncglint: 1 warning, 1 note in 1 file; 1 file checked; 16 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them)\n");
	cr_expect_eq(rc, 0);
	free(got);
	free(err);
	expect_file("t.yaml", "model:\n"
			      "  cuda_graph_impl: transformer_engine\n"
			      "  cuda_graph_scope: [attn]\n"
			      "  use_te_rng_tracker: false\n"
			      "  cuda_graph_warmup_stepz: 3\n"
			      "rng:\n"
			      "  te_rng_tracker: true\n");
	/* warnings left fail at --fail-on warning */
	put("t.yaml", recipe);
	expect_lint("", "--mcore 0.18 --fix --fail-on warning t.yaml", 1,
		    "t.yaml:3:3: note: " M132 "t.yaml:5:3: warning: " M905);
}

Test(project, fix_keeps_mode_and_symlinks)
{
	put("real/t.yaml", rng_off);
	char *real = path_of("real/t.yaml"), *link = path_of("link.yaml"), *plain = path_of("p.yaml");
	put("p.yaml", rng_off);
	cr_assert_eq(chmod(real, 0600), 0);
	cr_assert_eq(chmod(plain, 0751), 0);
	cr_assert_eq(symlink("real/t.yaml", link), 0);
	char *out, *err;
	int rc = run_at("", "--mcore 0.16 --bridge 0.3 --fix link.yaml p.yaml", &out, &err);
	cr_expect_eq(rc, 0);
	expect_str(out, "");
	expect_str(err, "cglint: fixed 2 finding(s)\ncglint: no findings (2 files checked; 48 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them))\n");
	free(out);
	free(err);
	struct stat st;
	cr_assert_eq(lstat(link, &st), 0);
	cr_expect(S_ISLNK(st.st_mode), "link.yaml is no longer a symbolic link");
	cr_assert_eq(stat(real, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0600, "mode %o", st.st_mode & 07777);
	cr_assert_eq(stat(plain, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0751, "mode %o", st.st_mode & 07777);
	expect_file("real/t.yaml", rng_on);
	expect_file("p.yaml", rng_on);
	/* no temporary file left beside them */
	char *cmd;
	cr_assert(asprintf(&cmd, "find '%s' -name '*.cglint-*' | wc -l", dir) > 0);
	FILE *p = popen(cmd, "r");
	char buf[16] = "";
	cr_assert_not_null(fgets(buf, sizeof(buf), p));
	pclose(p);
	cr_expect_str_eq(buf, "0\n");
	free(cmd);
	free(real);
	free(link);
	free(plain);
}

Test(project, fix_in_a_read_only_folder)
{
	put("ro/t.yaml", rng_off);
	char *ro = path_of("ro"), *file = path_of("ro/t.yaml"), *cfg = path_of(".cglint.yaml");
	cr_assert_eq(chmod(dir, 0755), 0);
	cr_assert_eq(chmod(file, 0644), 0);     /* whatever the umask */
	cr_assert_eq(chmod(cfg, 0644), 0);
	cr_assert_eq(chmod(ro, 0555), 0);
	/* root writes anywhere: run as nobody then (setpriv, util-linux) */
	char *cmd;
	cr_assert(asprintf(&cmd, "cd '%s' && %s '%s' --mcore 0.16 --bridge 0.3 --fix ro/t.yaml 2>&1; echo rc=$?", dir,
			   geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups" : "", CGLINT_BIN) > 0);
	FILE *p = popen(cmd, "r");
	char buf[1024];
	size_t n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	pclose(p);
	expect_str(buf, "cglint: --fix: not writing ro/t.yaml: you may not write it (cglint replaces a file only "
			"where you could edit it)\nrc=2\n");
	expect_file("ro/t.yaml", rng_off);
	free(cmd);
	free(ro);
	free(file);
	free(cfg);
}

/* The output of a shell command run in the test's folder, as the unprivileged 'nobody' when
 * the suite runs as root. */
static char *as_user(const char *script, bool nobody)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "cd '%s' && %s sh -c '%s' 2>&1; echo rc=$?", dir,
			   nobody && geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups" : "", script) > 0);
	FILE *p = popen(cmd, "r");
	static char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	pclose(p);
	free(cmd);
	return buf;
}

/* In a world-writable folder a user could rename over someone else's file; --fix does not. */
Test(project, fix_never_replaces_what_the_user_may_not_write)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to make a file that belongs to someone else");
	put("pub/t.yaml", rng_off);
	char *pub = path_of("pub"), *file = path_of("pub/t.yaml"), *cfg = path_of(".cglint.yaml");
	cr_assert_eq(chmod(dir, 0755), 0);
	cr_assert_eq(chmod(cfg, 0644), 0);
	cr_assert_eq(chmod(pub, 01777 & ~01000), 0);    /* world-writable, no sticky bit */
	cr_assert_eq(chmod(file, 0644), 0);             /* root's, read-only to others */
	char script[1024];
	snprintf(script, sizeof(script), "%s --mcore 0.16 --bridge 0.3 --fix pub/t.yaml", CGLINT_BIN);
	expect_str(as_user(script, true), "cglint: --fix: not writing pub/t.yaml: you may not write it (cglint replaces "
					  "a file only where you could edit it)\nrc=2\n");
	expect_file("pub/t.yaml", rng_off);
	struct stat st;
	cr_assert_eq(stat(file, &st), 0);
	cr_expect_eq(st.st_uid, 0u, "the file is still root's");
	free(pub);
	free(file);
	free(cfg);
}

/* Run as root on another user's file, --fix keeps its owner and group. */
Test(project, fix_keeps_owner_and_group)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to make a file that belongs to someone else");
	put("t.yaml", rng_off);
	char *file = path_of("t.yaml");
	cr_assert_eq(chown(file, 65534, 65534), 0);
	char script[1024];
	snprintf(script, sizeof(script), "%s --mcore 0.16 --bridge 0.3 --fix -q t.yaml >/dev/null", CGLINT_BIN);
	as_user(script, false);
	size_t n;
	char *text = get("t.yaml", &n);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "  te_rng_tracker: true\n"), "not fixed:\n%s", text);
	free(text);
	struct stat st;
	cr_assert_eq(stat(file, &st), 0);
	cr_expect_eq(st.st_uid, 65534u);
	cr_expect_eq(st.st_gid, 65534u);
	free(file);
}

/* A file with a second hard link is left alone: replacing it would silently split the two. */
Test(project, fix_refuses_hard_links)
{
	put("t.yaml", rng_off);
	char script[1024];
	snprintf(script, sizeof(script), "ln t.yaml other.yaml && %s --mcore 0.16 --bridge 0.3 --fix t.yaml", CGLINT_BIN);
	expect_str(as_user(script, false), "cglint: --fix: not writing t.yaml: it has more than one hard link, which "
					   "replacing it would break\nrc=2\n");
	expect_file("t.yaml", rng_off);
	expect_file("other.yaml", rng_off);
}

/* Walking a folder, a symbolic link out of it is not followed into a write. */
Test(project, fix_stays_inside_the_paths_given)
{
	put("outside.yaml", rng_off);
	put("in/keep.txt", "");
	char script[1024];
	snprintf(script, sizeof(script), "ln -s ../outside.yaml in/t.yaml && %s --mcore 0.16 --bridge 0.3 --fix in", CGLINT_BIN);
	expect_str(as_user(script, false), "cglint: --fix: not writing in/t.yaml: it lies outside the paths given "
					   "(through a symbolic link)\nrc=2\n");
	expect_file("outside.yaml", rng_off);
}

Test(project, fix_and_diff_exclude_each_other)
{
	put("a.yaml", rng_off);
	char *out, *err;
	int rc = run_at("", "--fix --diff a.yaml", &out, &err);
	cr_expect_eq(rc, 2);
	expect_str(out, "");
	expect_str(err, "cglint: --fix and --diff exclude each other: --diff shows what --fix would do\n"
			"(try 'cglint --help')\n");
	free(out);
	free(err);
	expect_file("a.yaml", rng_off);
}

Test(project, fix_leaves_stdin_alone)
{
	put("a.yaml", rng_off);
	int rc;
	char *err;
	char *got = lint_at("", "--mcore 0.16 --bridge 0.3 --fix - < a.yaml", &rc, &err);
	expect_str(got, "<stdin>:5:3: error: " M101);
	expect_str(err, "cglint: fixed 0 finding(s)\ncglint: 1 error in 1 file; 1 file checked; 24 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them)\n");
	cr_expect_eq(rc, 1);
	free(got);
	free(err);
	expect_file("a.yaml", rng_off);
}

/* ---- 10. --output ---- */

Test(project, output_files_match_separate_runs)
{
	put("t.yaml", recipe);
	char *out, *err;
	int rc = run_at("", "--mcore 0.18 --format concise -o json=out.json --output concise=out.txt t.yaml", &out, &err);
	cr_expect_eq(rc, 1);
	char *text_run, *json_run;
	cr_expect_eq(run_at("", "--mcore 0.18 --format concise t.yaml", &text_run, NULL), 1);
	cr_expect_eq(run_at("", "--mcore 0.18 --format json t.yaml", &json_run, NULL), 1);
	expect_str(out, text_run);
	expect_file("out.txt", text_run);
	expect_file("out.json", json_run);
	expect_str(err, "cglint: 1 error, 1 warning, 1 note in 1 file; 1 file checked; 16 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them)\n");
	char *h = harness_heads(text_run);
	char *want = at_018("t.yaml");
	expect_str(h, want);
	free(want);
	free(h);
	free(out);
	free(err);
	free(text_run);
	free(json_run);
}

Test(project, output_errors)
{
	put("t.yaml", recipe);
	char *out, *err;
	int rc = run_at("", "--mcore 0.18 -o xml=a.xml t.yaml", &out, &err);
	cr_expect_eq(rc, 2);
	expect_str(out, "");
	expect_str(err, "cglint: --output wants FORMAT=PATH with FORMAT one of text|concise|json|sarif|github|gitlab|junit, not 'xml'\n"
			"(try 'cglint --help')\n");
	free(out);
	free(err);
	cr_expect_null(get("a.xml", NULL));
	rc = run_at("", "--mcore 0.18 -o json t.yaml", &out, &err);
	cr_expect_eq(rc, 2);
	expect_str(err, "cglint: --output wants FORMAT=PATH with FORMAT one of text|concise|json|sarif|github|gitlab|junit, not 'json'\n"
			"(try 'cglint --help')\n");
	free(out);
	free(err);
	rc = run_at("", "--mcore 0.18 -o json=nodir/x.json t.yaml", &out, &err);
	cr_expect_eq(rc, 2);
	expect_str(err, "cglint: --output nodir/x.json: No such file or directory\n"
			"cglint: 1 error, 1 warning, 1 note in 1 file; 1 file checked; 16 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them)\n");
	free(out);
	free(err);
}

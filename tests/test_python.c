/* SPDX-License-Identifier: MIT */
/*
 * python: Python recipes get what YAML gets around the checks. The mechanical fixes edit the
 * Python value in place (fix_for on made-up rules, then --fix and --diff end to end);
 * .cglint.yaml applies to .py files; a named file without CUDA-graph settings says so; the JSON,
 * SARIF and GitHub outputs of a Python finding. Inline suppressions in Python comments are
 * fixtures (fixtures/python/CG913-python.*), the language server's .py documents test_lsp.c.
 *
 * The end-to-end tests build a project in a temporary folder whose root holds .git and an empty
 * .cglint.yaml, so neither a config above /tmp nor another root can leak in.
 */
#define _GNU_SOURCE /* asprintf */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/pack.h"
#include "harness.h"
#include "report/fix.h"

#define expect_str(got, want) cr_expect_str_eq(got, want, "\n--- got:\n%s\n--- wanted:\n%s", got, want)

/* ---- fix_for on Python text ------------------------------------------------------------- */

static const char *fix_keys[] = {"rng.te_rng_tracker", "model.use_te_rng_tracker", "model.cuda_graph_impl",
				 "model.cuda_graph_scope", "train.note"};
static const char *fix_values[] = {"true", "true", "transformer_engine", "null", "it's \"x\""};
static const struct rule fix_rule = {.head = {"CG999", "made-up", SEV_ERROR, NULL},
				     .autofix_keys = fix_keys, .autofix_values = fix_values, .n_autofix = 5};

/*
 * The text after the fix of 'key' for a diagnostic on line 'line' at the first 'at' of that line
 * (fe_py's byte column); NULL when fix_for offers none. '*title' (if asked) the edit's title.
 */
static char *fixed(struct arena *a, const char *text, unsigned line, const char *at, const char *key,
		   const char **title)
{
	const char *l = text;
	for (unsigned k = 1; k < line; k++)
		l = strchr(l, '\n') + 1;
	const char *p = strstr(l, at);
	cr_assert_not_null(p, "'%s' is not in the text", at);
	struct diag d = {.rule = &fix_rule, .sev = SEV_ERROR, .loc = {"r.py", line, (unsigned)(p - l) + 1}, .key = key};
	struct fix_edit e;
	if (!fix_for(a, &d, text, strlen(text), &e))
		return NULL;
	size_t n;
	char *out = fix_apply(a, text, strlen(text), &e, 1, &n);
	if (title)
		*title = e.title;
	return out;
}

#define expect_fix(text, line, at, key, want)                                         \
	do {                                                                          \
		char *got_ = fixed(a, text, line, at, key, NULL);                     \
		cr_expect_not_null(got_, "no fix for %s in:\n%s", key, text);         \
		if (got_)                                                             \
			expect_str(got_, want);                                       \
	} while (0)

#define expect_no_fix(text, line, at, key)                                                 \
	do {                                                                               \
		char *got_ = fixed(a, text, line, at, key, NULL);                          \
		cr_expect_null(got_, "a fix for %s although unsafe:\n%s", key, got_ ? got_ : ""); \
	} while (0)

Test(pyfix, literals_in_python_spelling)
{
	struct arena *a = arena_new();
	const char *title;
	char *got = fixed(a, "def f():\n    cfg.rng.te_rng_tracker = False  # keep me\n", 2, "te_rng_tracker",
			  "rng.te_rng_tracker", &title);
	cr_assert_not_null(got);
	expect_str(got, "def f():\n    cfg.rng.te_rng_tracker = True  # keep me\n");
	expect_str(title, "set rng.te_rng_tracker = True");
	/* strings keep their quote; None for null; escapes where the quote is in the value */
	expect_fix("cfg.model.cuda_graph_impl = 'local'\n", 1, "cuda_graph_impl", "model.cuda_graph_impl",
		   "cfg.model.cuda_graph_impl = 'transformer_engine'\n");
	expect_fix("cfg.model.cuda_graph_impl = \"local\";x = 1\n", 1, "cuda_graph_impl", "model.cuda_graph_impl",
		   "cfg.model.cuda_graph_impl = \"transformer_engine\";x = 1\n");
	expect_fix("cfg.model.cuda_graph_scope = \"full\"\n", 1, "cuda_graph_scope", "model.cuda_graph_scope",
		   "cfg.model.cuda_graph_scope = None\n");
	expect_fix("cfg.train.note = 'a'\n", 1, "note", "train.note", "cfg.train.note = 'it\\'s \"x\"'\n");
	expect_fix("cfg.train.note = \"a\"\n", 1, "note", "train.note", "cfg.train.note = \"it's \\\"x\\\"\"\n");
	/* a number or None replaced by a string gets double quotes; CRLF stays */
	expect_fix("cfg.model.cuda_graph_impl = None\r\n", 1, "cuda_graph_impl", "model.cuda_graph_impl",
		   "cfg.model.cuda_graph_impl = \"transformer_engine\"\r\n");
	/* a statement after another on its line, a ';' inside a string before it */
	expect_fix("x = 'a;b'; cfg.rng.te_rng_tracker = False; y = 1\n", 1, "te_rng_tracker", "rng.te_rng_tracker",
		   "x = 'a;b'; cfg.rng.te_rng_tracker = True; y = 1\n");
	/* already right: nothing to do */
	expect_no_fix("cfg.rng.te_rng_tracker = True\n", 1, "te_rng_tracker", "rng.te_rng_tracker");
	arena_free(a);
}

Test(pyfix, keywords_dict_entries_and_positions_on_the_literal)
{
	struct arena *a = arena_new();
	const char *ctor = "cfg = ConfigContainer(\n"
			   "    model=GPTModelProvider(cuda_graph_impl=\"local\", use_te_rng_tracker=False),\n"
			   "    rng=RNGConfig(te_rng_tracker=False, seed=1),\n"
			   ")\n";
	expect_fix(ctor, 3, "te_rng_tracker", "rng.te_rng_tracker",
		   "cfg = ConfigContainer(\n"
		   "    model=GPTModelProvider(cuda_graph_impl=\"local\", use_te_rng_tracker=False),\n"
		   "    rng=RNGConfig(te_rng_tracker=True, seed=1),\n"
		   ")\n");
	expect_fix(ctor, 2, "use_te_rng_tracker", "model.use_te_rng_tracker",
		   "cfg = ConfigContainer(\n"
		   "    model=GPTModelProvider(cuda_graph_impl=\"local\", use_te_rng_tracker=True),\n"
		   "    rng=RNGConfig(te_rng_tracker=False, seed=1),\n"
		   ")\n");
	/* the position on the literal, as value positions are */
	expect_fix(ctor, 2, "\"local\"", "model.cuda_graph_impl",
		   "cfg = ConfigContainer(\n"
		   "    model=GPTModelProvider(cuda_graph_impl=\"transformer_engine\", use_te_rng_tracker=False),\n"
		   "    rng=RNGConfig(te_rng_tracker=False, seed=1),\n"
		   ")\n");
	expect_fix("    te_rng_tracker = False,\n", 1, "False", "rng.te_rng_tracker", "    te_rng_tracker = True,\n");
	expect_fix("overrides = {\"cuda_graph_impl\": 'local', \"x\": 1}\n", 1, "\"cuda_graph_impl\"",
		   "model.cuda_graph_impl", "overrides = {\"cuda_graph_impl\": 'transformer_engine', \"x\": 1}\n");
	expect_fix("overrides = {\"cuda_graph_impl\": 'local'}\n", 1, "'local'", "model.cuda_graph_impl",
		   "overrides = {\"cuda_graph_impl\": 'transformer_engine'}\n");
	/* a literal after another key, or after a comparison, is not this key's */
	expect_no_fix("f(use_te_rng_tracker=False)\n", 1, "False", "rng.te_rng_tracker");
	expect_no_fix("ok = cfg.rng.te_rng_tracker == False\n", 1, "te_rng_tracker", "rng.te_rng_tracker");
	expect_no_fix("ok = te_rng_tracker <= False\n", 1, "False", "rng.te_rng_tracker");
	arena_free(a);
}

Test(pyfix, chains_only_when_every_target_wants_the_value)
{
	struct arena *a = arena_new();
	expect_fix("    cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = False\n", 1, "te_rng_tracker",
		   "rng.te_rng_tracker", "    cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = True\n");
	expect_fix("    cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = False\n", 1, "use_te_rng_tracker",
		   "model.use_te_rng_tracker", "    cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = True\n");
	/* the literal is also another key's value, which the fix does not want changed */
	expect_no_fix("    cfg.rng.te_rng_tracker = cfg.train.check = False\n", 1, "te_rng_tracker", "rng.te_rng_tracker");
	expect_no_fix("    cfg.model.cuda_graph_impl = cfg.rng.te_rng_tracker = \"local\"\n", 1, "cuda_graph_impl",
		      "model.cuda_graph_impl");
	arena_free(a);
}

Test(pyfix, values_it_cannot_rewrite_are_left_alone)
{
	struct arena *a = arena_new();
	static const char *const texts[] = {
		"cfg.rng.te_rng_tracker = flag\n",
		"cfg.rng.te_rng_tracker = False or flag\n",
		"cfg.rng.te_rng_tracker = not True\n",
		"cfg.rng.te_rng_tracker = (False)\n",
		"cfg.rng.te_rng_tracker = False \\\n    or flag\n",
		"cfg.rng.te_rng_tracker = base.te_rng_tracker = False if x else True\n",
		"cfg.rng.te_rng_tracker += False\n",
		"cfg.rng.te_rng_tracker: bool = False\n",
		"cfg.rng.te_rng_tracker = get(te_rng_tracker=False)\n",
		"if x: cfg.rng.te_rng_tracker = False\n",
	};
	for (size_t k = 0; k < sizeof(texts) / sizeof(texts[0]); k++)
		expect_no_fix(texts[k], 1, "te_rng_tracker", "rng.te_rng_tracker");
	static const char *const impl[] = {
		"cfg.model.cuda_graph_impl = f\"loc{al}\"\n",
		"cfg.model.cuda_graph_impl = \"lo\" \"cal\"\n",
		"cfg.model.cuda_graph_impl = \"\"\"local\"\"\"\n",
		"cfg.model.cuda_graph_impl = IMPL\n",
		"cfg.model.cuda_graph_impl = \"local\" + suffix\n",
		"cfg.model.cuda_graph_impl = \"local\n",
	};
	for (size_t k = 0; k < sizeof(impl) / sizeof(impl[0]); k++)
		expect_no_fix(impl[k], 1, "cuda_graph_impl", "model.cuda_graph_impl");
	arena_free(a);
}

/* ---- end to end --------------------------------------------------------------------------- */

static char dir[] = "/tmp/cglint-python-XXXXXX";

static void put(const char *name, const char *text);

static void mkdir_tmp(void)
{
	strcpy(dir, "/tmp/cglint-python-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	char git[128];
	snprintf(git, sizeof(git), "%s/.git", dir);
	cr_assert_eq(mkdir(git, 0755), 0);
	put(".cglint.yaml", "# the root of the test tree: nothing set, and no search above\n");
}

static void rm_tmp(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(python, .init = mkdir_tmp, .fini = rm_tmp);

static char *path_of(const char *name)
{
	char *p;
	cr_assert(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

/* Write DIR/NAME (any folders on the way are made). */
static void put(const char *name, const char *text)
{
	char *p = path_of(name);
	for (char *s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	free(p);
	free(harness_write(dir, name, text, strlen(text)));
}

/* DIR/NAME's bytes, NUL-terminated. */
static char *get(const char *name)
{
	char *p = path_of(name);
	FILE *f = fopen(p, "rb");
	free(p);
	cr_assert_not_null(f, "%s is gone", name);
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap);
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0)
		if ((n += got) + 1 >= cap)
			buf = realloc(buf, cap *= 2);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Run `cglint ARGS` in DIR; the exit status, stdout and stderr (malloc'd; NULL pointers allowed). */
static int run(const char *args, char **out, char **err)
{
	char *a;
	cr_assert(asprintf(&a, "%s 2>'%s/.stderr'", args, dir) > 0);
	char *o = NULL;
	int rc = harness_run(dir, a, &o);
	cr_assert_neq(rc, -1, "cglint %s died on a signal", args);
	free(a);
	if (out)
		*out = o;
	else
		free(o);
	if (err)
		*err = get(".stderr");
	return rc;
}

static void expect_lint(const char *args, int want_rc, const char *want)
{
	char *out, *a;
	cr_assert(asprintf(&a, "--format concise %s", args) > 0);
	int rc = run(a, &out, NULL);
	free(a);
	char *h = harness_heads(out);
	expect_str(h, want);
	cr_expect_eq(rc, want_rc, "cglint %s: exit %d, expected %d", args, rc, want_rc);
	free(h);
	free(out);
}

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
	put("r.py", recipe);
	char *out, *err;
	int rc = run("--mcore 0.17 --bridge 0.4 --diff r.py", &out, &err);
	cr_expect_eq(rc, 1);
	expect_str(out, recipe_diff);
	expect_str(err, "");
	free(out);
	free(err);
	char *now = get("r.py");
	expect_str(now, recipe);
	free(now);
}

Test(python, fix_writes_the_python_values)
{
	put("r.py", recipe);
	char *out, *err;
	int rc = run("--mcore 0.17 --bridge 0.4 --fix r.py", &out, &err);
	cr_expect_eq(rc, 0, "everything fixed: %s", out);
	expect_str(out, "");
	expect_str(err, "cglint: fixed 3 finding(s)\ncglint: no findings (1 file checked; 51 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them))\n");
	free(out);
	free(err);
	char *now = get("r.py");
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
	expect_lint("--mcore 0.17 --bridge 0.4 r.py", 0, "");
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
	put("c.py", text);
	char *out;
	cr_expect_eq(run("--mcore 0.17 --bridge 0.4 --diff c.py", &out, NULL), 0);
	expect_str(out, "");
	free(out);
	expect_lint("--mcore 0.17 --bridge 0.4 c.py", 1, "c.py:5:13: error: " M101 " (in f)" R101);
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
	put(".cglint.yaml", "target:\n  mcore: \"0.17\"\n  bridge: \"0.4\"\n"
			    "severity:\n  CG101: warning\n"
			    "exclude: [\"vendor/**\"]\n"
			    "per-path:\n"
			    "  - paths: [\"legacy/*.py\"]\n    ignore: [CG101]\n"
			    "  - paths: [\"strict/*.py\"]\n    select: [CG101]\n    severity: {CG101: error}\n");
	put("recipes/r.py", text);
	put("legacy/l.py", text);
	put("strict/s.py", text);
	put("vendor/v.py", text);
	const char *w905 = "warning: unknown key 'cuda_graph_scop'; did you mean 'cuda_graph_scope'? (in te_config) "
			   "[CG905 unknown-key]\n";
	char want[2048];
	snprintf(want, sizeof(want),
		 "legacy/l.py:4:15: %s"
		 "recipes/r.py:4:15: %s"
		 "recipes/r.py:6:13: warning: " M101 " (in te_config)" R101
		 "strict/s.py:6:13: error: " M101 " (in te_config)" R101,
		 w905, w905);
	expect_lint("legacy recipes strict vendor", 1, want);
	/* a named file under exclude: is skipped too */
	expect_lint("vendor/v.py", 0, "");
	/* the config's select: a rule it leaves out is not reported */
	put(".cglint.yaml", "target:\n  mcore: \"0.17\"\n  bridge: \"0.4\"\nselect: [CG905]\n");
	snprintf(want, sizeof(want), "recipes/r.py:4:15: %s", w905);
	expect_lint("recipes/r.py", 0, want);
}

Test(python, named_file_without_settings_says_so)
{
	put("tools/plot.py", "import matplotlib\n\n\ndef main():\n    x = {'a': 1}\n    print(x['a'])\n");
	put("tools/broken.py", "def main(:\n    return [1,\n");
	put("tools/other.yaml", "model:\n  cuda_graph_impl: transformer_engine\n");
	char *out, *err;
	int rc = run("tools/plot.py", &out, &err);
	cr_expect_eq(rc, 0);
	expect_str(out, "");
	expect_str(err, "cglint: tools/plot.py: no CUDA-graph settings found\ncglint: all checks passed (1 file checked)\n");
	free(out);
	free(err);
	/* a syntax error in a file without settings is no YAML error and no finding */
	rc = run("--format json tools/broken.py", &out, &err);
	cr_expect_eq(rc, 0);
	cr_expect_not_null(strstr(out, "\"diagnostics\": []"), "%s", out);
	expect_str(err, "cglint: tools/broken.py: no CUDA-graph settings found\ncglint: all checks passed (1 file checked)\n");
	free(out);
	free(err);
	/* a folder walk stays quiet about them: only the summary, which counts them as checked */
	rc = run("tools", &out, &err);
	cr_expect_eq(rc, 0);
	expect_str(out, "");
	expect_str(err, "cglint: no findings (3 files checked; 30 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them))\n");
	free(out);
	free(err);
	/* from stdin, named by --stdin-filename */
	rc = run("--stdin-filename s.py - < tools/plot.py", &out, &err);
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
	run(args, &out, NULL);
	json_error_t e;
	json_t *doc = json_loads(out, 0, &e);
	cr_assert_not_null(doc, "not JSON: %s", out);
	free(out);
	return doc;
}

Test(python, json_output)
{
	put("recipes/w.py", wide);
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
	put("recipes/w.py", wide);
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
	put("recipes/w.py", wide);
	char *out;
	cr_expect_eq(run("--mcore 0.17 --bridge 0.4 --format github recipes/w.py", &out, NULL), 1);
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
	put("recipes/many.py", "def _graphs(c):\n"
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
	put("recipes/pub.py", "def graphs_config():\n    cfg = base()\n    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
			      "    cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = False\n    return cfg\n\n\n"
			      "def a_config():\n    cfg = graphs_config()\n    return cfg\n");
	doc = run_json("--mcore 0.17 --bridge 0.4 --format json recipes/pub.py");
	ds = json_object_get(doc, "diagnostics");
	cr_expect_eq(json_array_size(ds), 2, "%s", json_dumps(ds, 0));
	json_decref(doc);
}

/* A section a recipe sets keys under is a fact of its own, with one entry per child its keys
 * name (a child named twice, or with keys of its own, counts once). */
Test(python, a_section_counts_the_children_its_keys_name)
{
	put("team.yaml", "rules:\n"
			 "  - {id: TEAM002, name: two-overlap-entries, severity: error, when: \"len(comm_overlap) == 2\",\n"
			 "     at: comm_overlap, message: two entries, doc: d}\n"
			 "  - {id: TEAM003, name: three-overlap-entries, severity: error, when: \"len(comm_overlap) == 3\",\n"
			 "     at: comm_overlap, message: three entries, doc: d}\n");
	put("r.py", "def overlap_config():\n"
		    "    cfg = llama3_8b_pretrain_config()\n"
		    "    cfg.model.cuda_graph_impl = \"none\"\n"
		    "    cfg.comm_overlap.tp_comm_overlap = True\n"
		    "    cfg.comm_overlap.tp_comm_overlap_cfg.a = 1\n"
		    "    cfg.comm_overlap.tp_comm_overlap_cfg.b = 2\n"
		    "    cfg.comm_overlap.tp_comm_overlap = False\n"
		    "    return cfg\n");
	expect_lint("--mcore 0.17 --bridge 0.4 --rules team.yaml r.py", 1,
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
	put("r.py", text);
	free(text);
	char *out = NULL;
	/* model.cuda_graph_impl, then model.a.model.cuda_graph_impl (4 parts) up to 16 parts */
	harness_run(dir, "--mcore 0.17 --bridge 0.4 -v r.py 2>&1 | grep 'keys read'", &out);
	expect_str(out, "r.py:1:5: note: deep_config: 7 keys read, 0 unknown\n");
	free(out);
}

/* Bridge's MixedPrecisionConfig.setup() copies the section onto the model before validation
 * (steps-bridge-setup.yaml BR-mixed-precision): a preset function's MixedPrecisionConfig(...) is
 * followed with its class defaults, __setattr__'s twins (fp8_param, fp8_param_gather) stay
 * equal, and the model's fp8 is the section's; a preset name not resolved leaves it unknown. */
Test(python, mixed_precision_section_is_copied_onto_the_model)
{
	put("mp.py", "from dataclasses import dataclass\n"
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
	put("r.py", "from mp import fp8_mixed, bf16_mixed\n"
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
	harness_run(dir, "facts --bridge 0.6 --function a_config r.py 2>&1 | grep -E '^  model\\.fp8(_param)? '", &out);
	expect_str(out, "  model.fp8 = \"hybrid\"  [config mp.py:23:15; written null]\n"
			"  model.fp8_param = true  [normalized mp.py:24:28]\n");
	free(out);
	harness_run(dir, "facts --bridge 0.6 --function b_config r.py 2>&1 | grep -E '^  (model|mixed_precision)\\.fp8(_param)?(_gather)? ' | cut -d'[' -f1", &out);
	expect_str(out, "  model.fp8 = null  \n"
			"  mixed_precision.fp8 = null  \n"
			"  mixed_precision.fp8_param = true  \n"
			"  mixed_precision.fp8_param_gather = true  \n"
			"  model.fp8_param = true  \n");
	free(out);
	harness_run(dir, "facts --bridge 0.6 --function c_config r.py 2>&1 | grep -E '^  model\\.fp8 ' | cut -d'[' -f1", &out);
	expect_str(out, "  model.fp8 = (unknown)  \n");
	free(out);
}

/* A helper handed the config reads what its caller set (Bridge's _benchmark_common reads
 * cfg.model through getattr() to decide the TE-RNG flags): each caller gets the helper's answer
 * for its own values, a summary is not reused for a caller whose values differ, getattr()'s
 * default is not taken for a field that is there, and hasattr() of a field set is true. */
Test(python, a_helper_reads_what_its_caller_set)
{
	put("common.py", "def _bench(cfg):\n"
			 "    impl = getattr(cfg.model, 'cuda_graph_impl', None)\n"
			 "    if impl == 'none':\n"
			 "        cfg.model.cuda_graph_scope = []\n"
			 "    if impl is not None:\n"
			 "        cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = impl != 'none'\n"
			 "    if hasattr(cfg.model, 'moe_router_dtype') and cfg.model.recompute_granularity == 'full':\n"
			 "        cfg.model.moe_router_dtype = 'fp32'\n");
	put("r.py", "from common import _bench\n"
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
		harness_run(dir, cmd, &out);
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
	put("megatron/__init__.py", "");
	put("megatron/core/__init__.py", "");
	put("megatron/core/transformer/__init__.py", "");
	put("megatron/core/transformer/transformer_config.py",
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
	put("providers.py", "from dataclasses import dataclass\n"
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
	put("r.py", "from providers import GPTModelProvider, OwnModelProvider\n"
		    "\n"
		    "def gpt_config():\n"
		    "    cfg = ConfigContainer(model=GPTModelProvider(moe_expert_capacity_factor=-1.0))\n"
		    "    return cfg\n"
		    "\n"
		    "def own_config():\n"
		    "    cfg = ConfigContainer(model=OwnModelProvider())\n"
		    "    return cfg\n");
	char *out = NULL;
	harness_run(dir, "facts --mcore 0.19 --bridge 0.6 --function gpt_config r.py 2>&1 | "
			 "grep -E '^  model\\.(cuda_graph_scope|moe_expert_capacity_factor|moe_pad_expert_input_to_capacity|"
			 "recompute_modules) ' | sed 's/  \\[.*//' | sort", &out);
	expect_str(out, "  model.cuda_graph_scope = null\n"
			"  model.moe_expert_capacity_factor = null\n"
			"  model.moe_pad_expert_input_to_capacity = false\n"
			"  model.recompute_modules = [\"core_attn\"]\n");
	free(out);
	harness_run(dir, "facts --mcore 0.19 --bridge 0.6 --function own_config r.py 2>&1 | "
			 "grep -E '^  model\\.cuda_graph_scope' | cut -d'[' -f1", &out);
	expect_str(out, "  model.cuda_graph_scope = (unknown)  \n");
	free(out);
	/* Bridge's finalize(): in-batch packing with pipeline parallelism (0.6's name, 0.4/0.5's) */
	put("p.yaml", "dataset: {enable_in_batch_packing: true, pack_sequences_in_batch: true}\n"
		      "model: {pipeline_model_parallel_size: 2, variable_seq_lengths: false}\n");
	put("q.yaml", "dataset: {enable_in_batch_packing: true}\nmodel: {variable_seq_lengths: false}\n");
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
		harness_run(dir, cmd, &out);
		char want[128];
		snprintf(want, sizeof(want), "%s\n", runs[k][1]);
		cr_expect_str_eq(out, want, "%s", runs[k][0]);
		free(out);
		free(cmd);
	}
}

Test(python, a_default_factory_that_asks_for_a_module_depends_on_the_machine)
{
	put("fusions.py", "def can_fuse():\n"
			  "    try:\n"
			  "        import fused_kernel  # noqa: F401\n"
			  "        return True\n"
			  "    except ImportError:\n"
			  "        return False\n"
			  "\n"
			  "def build_list():\n"
			  "    return []\n");
	put("providers.py", "from dataclasses import dataclass, field\n"
			    "import fusions\n"
			    "\n"
			    "@dataclass\n"
			    "class MyModelProvider:\n"
			    "    fuse: bool = field(default_factory=fusions.can_fuse)\n"
			    "    other: list = field(default_factory=fusions.build_list)\n");
	put("r.py", "from providers import MyModelProvider\n"
		    "\n"
		    "def gpt_config():\n"
		    "    return ConfigContainer(model=MyModelProvider())\n");
	char *out = NULL;
	harness_run(dir, "facts --mcore 0.19 --bridge 0.6 --function gpt_config r.py 2>&1 | "
			 "grep -E '^  model\\.(fuse|other) ' | sed 's/.*r.py:4:34: //' | sort", &out);
	expect_str(out, "the default of MyModelProvider.fuse: depends on the machine that runs the job: "
			"default_factory=fusions.can_fuse returns whether 'fused_kernel' imports there]\n"
			"the default of MyModelProvider.other: from default_factory=fusions.build_list, which cglint "
			"does not call]\n");
	free(out);
}

/* SPDX-License-Identifier: MIT */
/*
 * hostile: inputs built to crash, hang or exhaust a linter. Each must end in a CG9xx
 * diagnostic with a position and exit status 2 (or 0 where the input is merely odd), never a
 * signal. ctest's timeout is the guard against hangs; no test measures time.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

TestSuite(hostile, .init = harness_init_bare, .fini = harness_fini);

/* Run on DIR/NAME; require exit 'rc' and, if 'rule', a diagnostic of it with a line >= 1. */
static json_t *expect_run(const char *args, int rc, const char *rule)
{
	json_t *doc;
	int got = harness_run_json(harness_dir, args, &doc);
	cr_assert_neq(got, -1, "cglint %s died on a signal", args);
	cr_assert_not_null(doc, "cglint %s printed no JSON", args);
	cr_expect_eq(got, rc, "cglint %s: exit %d, expected %d", args, got, rc);
	if (rule) {
		bool seen = false;
		size_t i;
		json_t *d;
		json_array_foreach(json_object_get(doc, "diagnostics"), i, d)
		{
			if (!strcmp(json_string_value(json_object_get(d, "rule")), rule)) {
				seen = true;
				cr_expect_geq(json_integer_value(json_object_get(d, "line")), 1);
				cr_expect_not_null(json_string_value(json_object_get(d, "message")));
			}
		}
		cr_expect(seen, "cglint %s: no %s", args, rule);
	}
	return doc;
}

Test(hostile, alias_bomb)
{
	/* nine levels of nine aliases: 9^9 nodes if expanded */
	char text[2048] = "a: &a [x, x, x, x, x, x, x, x, x]\n";
	for (char c = 'b'; c <= 'i'; c++) {
		char line[128];
		snprintf(line, sizeof(line), "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", c, c, c - 1, c - 1,
			 c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1);
		strcat(text, line);
	}
	harness_put("bomb.yaml", text);
	json_decref(expect_run("bomb.yaml", 2, "CG903"));
}

Test(hostile, deep_nesting)
{
	size_t n = 100000;
	char *text = malloc(2 * n + 2);
	memset(text, '[', n);
	memset(text + n, ']', n);
	text[2 * n] = '\n';
	free(harness_write(harness_dir, "deep.yaml", text, 2 * n + 1));
	free(text);
	json_decref(expect_run("deep.yaml", 2, "CG903"));
}

Test(hostile, alias_chain_depth)
{
	/* each anchor nests the previous one: shallow text, deep once expanded */
	char text[8192] = "a0: &a0 [x]\n";
	for (int k = 1; k < 100; k++) {
		char line[64];
		snprintf(line, sizeof(line), "a%d: &a%d [*a%d]\n", k, k, k - 1);
		strcat(text, line);
	}
	harness_put("chain.yaml", text);
	json_decref(expect_run("chain.yaml", 2, "CG903"));
}

Test(hostile, huge_file)
{
	size_t n = (9u << 20);
	char *text = malloc(n);
	memset(text, '#', n);
	for (size_t k = 79; k < n; k += 80)
		text[k] = '\n';
	free(harness_write(harness_dir, "huge.yaml", text, n));
	free(text);
	json_t *doc = expect_run("huge.yaml", 2, NULL);
	json_t *d = json_array_get(json_object_get(doc, "diagnostics"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(d, "rule")), "CG903");
	json_decref(doc);
}

Test(hostile, many_keys_and_duplicates)
{
	size_t n = 60000, len = 0;
	char *text = malloc(n * 24 + 64);
	for (size_t k = 0; k < n; k++)
		len += (size_t)sprintf(text + len, "key_%zu: %zu\n", k, k);
	len += (size_t)sprintf(text + len, "key_7: 8\n");
	free(harness_write(harness_dir, "keys.yaml", text, len));
	free(text);
	json_t *doc = expect_run("keys.yaml", 2, "CG902");
	json_t *d = json_array_get(json_object_get(doc, "diagnostics"), 0);
	cr_expect_eq(json_integer_value(json_object_get(d, "line")), (json_int_t)n + 1);
	json_decref(doc);
}

Test(hostile, invalid_utf8_and_nul)
{
	free(harness_write(harness_dir, "utf8.yaml", "model:\n  cuda_graph_impl: loc\xff\xfe" "al\n", 30));
	json_t *doc = expect_run("utf8.yaml", 2, "CG906");
	cr_expect_eq(json_integer_value(json_object_get(json_array_get(json_object_get(doc, "diagnostics"), 0), "line")), 2);
	json_decref(doc);
	free(harness_write(harness_dir, "nul.yaml", "a: \"x\\0y\"\nb: c\0d\n", 17));
	json_decref(expect_run("nul.yaml", 2, "CG906"));
}

Test(hostile, syntax_errors)
{
	harness_put("syntax.yaml", "model:\n  cuda_graph_impl: local\n   cuda_graph_scope: [attn\n");
	json_decref(expect_run("syntax.yaml", 2, "CG901"));
	harness_put("tab.yaml", "model:\n\tcuda_graph_impl: local\n");
	json_decref(expect_run("tab.yaml", 2, "CG901"));
	harness_put("alias.yaml", "a: *nowhere\n");
	json_decref(expect_run("alias.yaml", 2, "CG901"));
	/* a stream of documents is linted document by document (test_ux.c); an override layered
	 * over every input must be one document */
	harness_put("two.yaml", "a: 1\n---\nb: 2\n");
	json_decref(expect_run("two.yaml", 0, NULL));
	harness_put("one.yaml", "a: 1\n");
	json_decref(expect_run("--config-file two.yaml one.yaml", 2, "CG901"));
}

Test(hostile, unreadable_paths)
{
	json_decref(expect_run("missing.yaml", 2, NULL));
	char path[256];
	snprintf(path, sizeof(path), "%s/fifo.yaml", harness_dir);
	cr_assert_eq(mkfifo(path, 0600), 0);
	json_decref(expect_run("fifo.yaml", 2, NULL));       /* must not block on the FIFO */
	snprintf(path, sizeof(path), "%s/loop1.yaml", harness_dir);
	cr_assert_eq(symlink("loop2.yaml", path), 0);
	snprintf(path, sizeof(path), "%s/loop2.yaml", harness_dir);
	cr_assert_eq(symlink("loop1.yaml", path), 0);
	json_decref(expect_run("loop1.yaml", 2, NULL));
	char *out = NULL;
	harness_run(harness_dir, "--format json loop1.yaml", &out);
	cr_expect(out && strstr(out, "symbolic link loop"), "the message names the loop: %s", out);
	free(out);
}

Test(hostile, folder_loop_is_walked_once)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/sub", harness_dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/sub/up", harness_dir);
	cr_assert_eq(symlink("..", path), 0);
	harness_put("sub/ok.yaml", "model: {cuda_graph_impl: none}\n");
	json_t *doc = expect_run(".", 2, "CG904");
	json_decref(doc);
}

Test(hostile, empty_and_odd_but_valid)
{
	harness_put("empty.yaml", "");
	json_decref(expect_run("empty.yaml", 0, NULL));
	harness_put("scalar.yaml", "just a string\n");
	json_decref(expect_run("scalar.yaml", 0, NULL));
	harness_put("list.yaml", "- a\n- b\n");
	json_decref(expect_run("list.yaml", 0, NULL));
	/* an empty folder: nothing to check, said on stderr (its walk handed qsort a NULL array,
	 * which the sanitizer build reports: this fails there without the fix) */
	char *empty = harness_path("nothing");
	cr_assert_eq(mkdir(empty, 0755), 0);
	free(empty);
	json_t *doc = expect_run("nothing", 0, NULL);
	cr_expect_eq(json_array_size(json_object_get(doc, "diagnostics")), 0);
	json_decref(doc);
}

Test(hostile, bad_rule_pack_and_env_file)
{
	harness_put("pack.yaml", "rules:\n  - id: ORG001\n    name: x\n    severity: fatal\n    when: a ==\n    message: m\n    doc: d\n");
	harness_put("c.yaml", "a: 1\n");
	char *out = NULL;
	int rc = harness_run(harness_dir, "--rules pack.yaml c.yaml 2>&1", &out);
	cr_expect_eq(rc, 2);
	cr_expect(out && strstr(out, "pack.yaml:4:15") && strstr(out, "pack.yaml:5:11"),
		  "pack errors carry the pack's positions: %s", out);
	free(out);
	harness_put("bad.env", "# comment\nGOOD=1\nthis is not an assignment\n");
	json_decref(expect_run("--env-file bad.env c.yaml", 2, "CG907"));
}

Test(hostile, usage_errors)
{
	harness_put("c.yaml", "a: 1\n");
	cr_expect_eq(harness_run(harness_dir, "--no-such-option c.yaml", NULL), 2);
	cr_expect_eq(harness_run(harness_dir, "--mcore 0.99 c.yaml", NULL), 2);
	char *out = NULL;
	cr_expect_eq(harness_run(harness_dir, "--bridge 0.9 c.yaml 2>&1", &out), 2);
	cr_expect(out && strstr(out, "Megatron-Bridge 0.9 is not supported"), "names the Bridge release: %s", out);
	free(out);
	cr_expect_eq(harness_run(harness_dir, "--format xml c.yaml", NULL), 2);
	cr_expect_eq(harness_run(harness_dir, "--gpu potato c.yaml", NULL), 2);
	cr_expect_eq(harness_run(harness_dir, "", NULL), 2);
	cr_expect_eq(harness_run(harness_dir, "explain CG999", NULL), 2);
	cr_expect_eq(harness_run(harness_dir, "explain CG101", NULL), 0);
}

Test(hostile, stdin)
{
	harness_put("in.yaml", "model:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_scope: [moe, moe_router]\n"
			       "  num_moe_experts: 4\n");
	char *out = NULL;
	int rc = harness_run(harness_dir, "--stdin-filename recipe.yaml --mcore 0.17 - < in.yaml", &out);
	cr_expect_eq(rc, 1);
	cr_expect(out && strstr(out, "recipe.yaml:3:3: error:") && strstr(out, "[CG104 "), "got: %s", out);
	free(out);
}

/* ---- the command-line contract: selection, --fail-on, text shape, colour ---- */

static const char *two_findings = "model:\n  cuda_graph_impl: transformer_engine\n  cuda_graph_scope: [moe, moe_router]\n"
				  "  num_moe_experts: 4\n  cuda_graph_scop: x\n";

Test(hostile, select_ignore_and_fail_on)
{
	harness_put("r.yaml", two_findings);
	char *out = NULL;
	cr_expect_eq(harness_run(harness_dir, "--mcore 0.17 --color never r.yaml", &out), 1);
	cr_expect(strstr(out, "r.yaml:3:3: error: cuda_graph_scope must not contain both moe and moe_router. "
			      "[CG104 moe-and-moe-router-scopes]\n"),
		  "text shape: %s", out);
	cr_expect(strstr(out, "r.yaml:5:3: warning: unknown key 'cuda_graph_scop'; did you mean 'cuda_graph_scope'? [CG905 unknown-key]"));
	cr_expect(!strstr(out, "\033["), "no colour when told never");
	free(out);
	cr_expect_eq(harness_run(harness_dir, "--mcore 0.17 --ignore CG104 r.yaml", NULL), 0, "only a warning is left");
	cr_expect_eq(harness_run(harness_dir, "--mcore 0.17 --ignore CG104 --fail-on warning r.yaml", NULL), 1);
	cr_expect_eq(harness_run(harness_dir, "--mcore 0.17 --ignore moe-and-moe-router-scopes,CG9 r.yaml", NULL), 0, "names and prefixes");
	cr_expect_eq(harness_run(harness_dir, "--mcore 0.17 --select CG9 r.yaml", NULL), 0);
	cr_expect_eq(harness_run(harness_dir, "--mcore 0.17 --select CG1 --ignore CG104 r.yaml", NULL), 0);
	cr_expect_eq(harness_run(harness_dir, "--mcore 0.17 --select CG1 --ignore CG10 --select CG104 r.yaml", NULL), 1,
		     "the more specific pattern wins");
	cr_expect_eq(harness_run(harness_dir, "--mcore 0.17 --exit-zero r.yaml", NULL), 0);
	cr_expect_eq(harness_run(harness_dir, "--mcore 0.17 --color always r.yaml", &out), 1);
	cr_expect(strstr(out, "\033[1;31merror"), "colour when told always: %s", out);
	free(out);
	cr_expect_eq(harness_run(harness_dir, "--mcore 0.17 NO_COLOR=1 r.yaml", &out), 1, "a dotlist, not an env setting");
	free(out);
}

Test(hostile, json_v1_contract)
{
	harness_put("r.yaml", two_findings);
	json_t *doc = expect_run("--mcore 0.16 r.yaml", 1, "CG104");
	cr_expect_eq(json_integer_value(json_object_get(doc, "version")), 1);
	cr_expect_str_eq(json_string_value(json_object_get(doc, "tool")), "cglint");
	json_t *t = json_object_get(doc, "target");
	cr_expect_str_eq(json_string_value(json_object_get(t, "mcore")), "0.16");
	cr_expect_str_eq(json_string_value(json_object_get(t, "bridge")), "0.3", "Bridge 0.3 ships MCore 0.16");
	cr_expect(json_is_null(json_object_get(t, "gpu")));
	json_t *d = json_array_get(json_object_get(doc, "diagnostics"), 0);
	const char *keys[] = {"rule", "name", "severity", "path", "line", "column", "message", "fix", "mirrors"};
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		cr_expect_not_null(json_object_get(d, keys[k]), "diagnostic lacks '%s'", keys[k]);
	cr_expect_str_eq(json_string_value(json_object_get(d, "mirrors")),
			 "megatron/core/transformer/transformer_config.py:1743-1746", "the 0.16 line, not 0.17's");
	json_decref(doc);
}

Test(hostile, layers_and_environment_on_the_command_line)
{
	harness_put("base.yaml", "model:\n  cuda_graph_impl: none\nrng:\n  te_rng_tracker: true\n");
	harness_put("over.yaml", "model:\n  cuda_graph_impl: transformer_engine\n");
	json_t *doc = expect_run("--mcore 0.17 -c over.yaml -E PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True base.yaml", 1, "CG201");
	json_t *d = json_array_get(json_object_get(doc, "diagnostics"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(d, "path")), "over.yaml", "the layer that set the impl");
	json_decref(doc);
	json_decref(expect_run("--mcore 0.17 -c over.yaml -E PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True -E NCCL_GRAPH_REGISTER=0 base.yaml",
			       0, NULL));
	json_decref(expect_run("--mcore 0.17 base.yaml model.cuda_graph_impl=local 'model.cuda_graph_scope=[moe_routr]'", 1, "CG122"));
}

/* Recipes whose calls never end: a parameter's default that calls its own function, and two
 * functions whose defaults call each other (found by fuzz_py as a stack overflow). */
Test(hostile, python_calls_in_defaults_end)
{
	harness_put("loop.py", "def f(x=f()):\n    cfg = ConfigContainer()\n    cfg.model.cuda_graph_impl = \"local\"\n"
			       "    return cfg\n\n\ndef g(y=h()):\n    return f()\n\n\ndef h(z=g()):\n    return g()\n\n\n"
			       "def r():\n    cfg = h()\n    cfg.model.cuda_graph_impl = \"local\"\n    return cfg\n");
	json_decref(expect_run("loop.py", 0, NULL));
}

/* An Enum whose body holds a statement that is not a member (pass, if, try, a class): its members
 * are unread, and the key set from one is undecided with that reason (fuzz_py found a SEGV: the
 * member reader took fields of the null node such a statement gave). */
Test(hostile, python_enum_body_of_other_statements)
{
	static const char *const bodies[] = {"    A = 1\n    pass\n", "    if True:\n        A = 1\n",
					     "    A = 1\n    try:\n        B = 2\n    except: pass\n",
					     "    A = 1\n    class Inner:\n        pass\n"};
	for (size_t k = 0; k < sizeof(bodies) / sizeof(*bodies); k++) {
		char text[512];
		snprintf(text, sizeof(text), "from enum import Enum\n\n\nclass Mode(Enum):\n%s\n\n"
			 "def llama3_8b_pretrain_config():\n    cfg = ConfigContainer()\n"
			 "    cfg.model.cuda_graph_impl = \"local\"\n    cfg.model.cuda_graph_scope = Mode.A\n"
			 "    return cfg\n", bodies[k]);
		harness_put("enum_body.py", text);
		json_t *doc = expect_run("enum_body.py", 0, NULL);
		bool said = false;
		size_t i;
		json_t *u;
		json_array_foreach(json_object_get(doc, "undecided"), i, u)
		{
			const char *m = json_string_value(json_object_get(u, "message"));
			said |= m && strstr(m, "model.cuda_graph_scope (Mode's body holds '") &&
				strstr(m, "which cglint does not read as a member");
		}
		cr_expect(said, "body %zu: no undecided check names Mode's unread body", k);
		json_decref(doc);
	}
}

/* A Megatron-LM test case whose MODEL_ARGS is empty, or merges a scalar: no flags, argparse's
 * defaults, checked and clean (fuzz_lint found qsort handed the empty list's NULL array, which
 * UndefinedBehaviorSanitizer reports: this test fails in the sanitizer build without the fix). */
Test(hostile, mlm_test_case_without_model_args)
{
	static const char *const args[] = {"MODEL_ARGS: {}\n", "MODEL_ARGS:\n  <<: not a map\n"};
	for (size_t k = 0; k < sizeof(args) / sizeof(*args); k++) {
		char text[256];
		snprintf(text, sizeof(text), "ENV_VARS:\n  CUDA_DEVICE_MAX_CONNECTIONS: 1\n%s", args[k]);
		harness_put("model_config.yaml", text);
		json_t *doc = expect_run("--mcore 0.19 model_config.yaml", 0, NULL);
		cr_expect_eq(json_array_size(json_object_get(doc, "diagnostics")), 0, "case %zu", k);
		json_decref(doc);
	}
}

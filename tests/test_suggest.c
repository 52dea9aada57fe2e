/* SPDX-License-Identifier: MIT */
/*
 * cglint suggest over fixtures/suggest/: each file names the answer it must get
 * ("# suggest-expect: STATUS [IMPL SCOPE,...]" or "branches N") and the options it runs under
 * ("# cglint-args:", "# suggest-args:"). A suggestion that can be applied is applied to a copy
 * with --fix, which must then lint with no error and be the strongest already.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/value.h"
#include "harness.h"
#include "report/fix.h"
#include "suggest/sg_int.h"

#define SUGGEST_DIR CGLINT_FIXTURES "/suggest"

/* The text after 'tag' on its line, or "" (a new string). */
static char *line_after(const char *text, const char *tag)
{
	const char *p = strstr(text, tag);
	if (!p)
		return strdup("");
	p += strlen(tag);
	return strndup(p, strcspn(p, "\n"));
}

/* Calls fn on each fixture file of 'dir' (not README.md, dot files or folders: patched/ and
 * refused/ hold fixtures of their own); the number it counted. */
static size_t each_file(const char *dir, bool (*fn)(const char *name))
{
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "%s", dir);
	struct dirent *e;
	size_t n = 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, "README.md") && e->d_type != DT_DIR)
			n += fn(e->d_name);
	closedir(d);
	return n;
}

/* "attn,mlp" against a JSON list, in any order. */
static bool same_scope(const char *want, json_t *got)
{
	size_t n = 0, k;
	json_t *v;
	json_array_foreach(got, k, v) {
		const char *s = json_string_value(v);
		size_t m = strlen(s);
		const char *p = want;
		bool found = false;
		for (; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
			if (strcspn(p, ",") == m && !strncmp(p, s, m))
				found = true;
		}
		cr_expect(found, "scope item %s is not in %s", s, want);
		n++;
	}
	size_t items = *want ? 1 : 0;
	for (const char *p = want; *p; p++)
		items += *p == ',';
	return n == items;
}

static json_t *suggest_json(const char *dir, const char *args, const char *file, int *rc)
{
	char *cmd, *out = NULL;
	cr_assert_neq(asprintf(&cmd, "suggest --format json %s '%s'", args, file), -1);
	*rc = harness_run(dir, cmd, &out);
	json_error_t err;
	json_t *doc = out ? json_loads(out, 0, &err) : NULL;
	cr_assert_not_null(doc, "cglint %s: no JSON", cmd);
	free(out);
	free(cmd);
	return doc;
}

static void one(const char *name)
{
	char *path;
	cr_assert_neq(asprintf(&path, "%s/%s", SUGGEST_DIR, name), -1);
	char *text = harness_read(NULL, path, NULL);
	char *lint_args = line_after(text, "cglint-args: "), *sg_args = line_after(text, "suggest-args: ");
	char *expect = line_after(text, "suggest-expect: ");
	cr_assert(*expect, "%s: no suggest-expect line", name);
	char *args;
	cr_assert_neq(asprintf(&args, "%s %s", lint_args, sg_args), -1);
	int rc;
	json_t *doc = suggest_json(SUGGEST_DIR, args, name, &rc);
	cr_expect_eq(rc, 0, "%s: exit %d", name, rc);
	json_t *units = json_object_get(doc, "units");
	cr_assert_eq(json_array_size(units), 1, "%s: %zu units", name, json_array_size(units));
	json_t *choices = json_object_get(json_array_get(units, 0), "choices");
	unsigned branches;
	if (sscanf(expect, "branches %u", &branches) == 1) {
		cr_expect_eq(json_array_size(choices), branches, "%s: %zu branches", name, json_array_size(choices));
		for (size_t k = 0; k < json_array_size(choices); k++)     /* each says what it assumed */
			cr_expect(json_string_value(json_object_get(json_array_get(choices, k), "when")), "%s", name);
		/* and the unit names the first key it split on, with why it is unknown */
		const char *when = json_string_value(json_object_get(json_array_get(choices, 0), "when"));
		const char *unknown = json_string_value(json_object_get(json_array_get(units, 0), "unknown"));
		cr_assert(when && unknown, "%s: no unknown key named", name);
		cr_expect(!strncmp(unknown, when, strcspn(when, " ")) && strchr(unknown, '('), "%s: %s vs %s", name,
			  unknown, when);
		goto done;
	}
	cr_assert_eq(json_array_size(choices), 1, "%s: %zu choices", name, json_array_size(choices));
	json_t *c = json_array_get(choices, 0);
	char status[32] = "", impl[32] = "", scope[128] = "";
	sscanf(expect, "%31s %31s %127s", status, impl, scope);
	cr_expect_str_eq(json_string_value(json_object_get(c, "status")), status, "%s", name);
	cr_expect(json_string_value(json_object_get(c, "why"))[0], "%s: no explanation", name);
	if (*impl) {
		cr_expect_str_eq(json_string_value(json_object_get(c, "impl")), impl, "%s", name);
		cr_expect(same_scope(scope, json_object_get(c, "scope")), "%s: scope is not %s", name, scope);
	}
	if (!strcmp(status, "none-fits"))
		cr_expect_gt(json_array_size(json_object_get(c, "blocked")), 0, "%s: says no rule that forbids it", name);
	if (strcmp(status, "suggest"))
		goto done;
	/* applied to a copy: no error on the target, and nothing left to suggest */
	char dir[64];
	cr_assert(harness_tmpdir(dir, sizeof(dir), "suggest", HARNESS_BARE));
	free(harness_write(dir, name, text, strlen(text)));
	char *cmd, *out;
	cr_assert_neq(asprintf(&cmd, "suggest --fix %s '%s'", args, name), -1);
	cr_expect_eq(harness_run(dir, cmd, NULL), 0, "%s: suggest --fix failed", name);
	free(cmd);
	cr_assert_neq(asprintf(&cmd, "--fail-on error %s '%s'", lint_args, name), -1);
	int lrc = harness_run(dir, cmd, &out);
	cr_expect_eq(lrc, 0, "%s: the patched file fails lint:\n%s", name, out);
	free(out);
	free(cmd);
	json_t *again = suggest_json(dir, args, name, &rc);
	json_t *c2 = json_array_get(json_object_get(json_array_get(json_object_get(again, "units"), 0), "choices"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(c2, "status")), "already", "%s: patched, still suggests", name);
	json_decref(again);
	cr_expect_eq(harness_rmdir(dir), 0);
done:
	json_decref(doc);
	free(args);
	free(expect);
	free(sg_args);
	free(lint_args);
	free(text);
	free(path);
}

static bool one_counted(const char *name)
{
	one(name);
	return true;
}

Test(suggest, every_fixture_gets_its_answer)
{
	size_t n = each_file(SUGGEST_DIR, one_counted);
	cr_expect_geq(n, 12, "only %zu fixtures", n);
}

/* --diff shows, --fix writes, and the patch is in the input's language: each row, the diff of
 * one fixture must hold 'has' (and 'also'), and must not hold 'not'. */
static const struct {
	const char *args, *has, *also, *not;
} diffs[] = {
	{"--bridge 0.6 recipe.py", "+    cfg.model.cuda_graph_impl = \"transformer_engine\"\n",
	 "+    cfg.rng.te_rng_tracker = True\n", NULL},
	/* MCore 0.19: the modules field, not the deprecated scope the unit does not write; and the
	 * companion CG201 asks for */
	{"--bridge 0.6 --assume-defaults expandable-segments.yaml", "+  cuda_graph_modules: [attn, mlp]\n",
	 "+  NCCL_GRAPH_REGISTER: 0\n", NULL},
	/* issue 42: the unit's own write of the scope, overridden by the helper it calls next, goes;
	 * the new spelling is written once, after the helper */
	{"--bridge 0.6 scope-overridden.py", "-    cfg.model.cuda_graph_scope = [\"mlp\"]\n     _finalize(cfg)\n",
	 "+    cfg.model.cuda_graph_scope = None\n+    cfg.model.cuda_graph_modules = [\"attn\", \"mlp\"]\n", NULL},
	/* issue 42: a helper that returns nothing is patched at its end, through its parameter */
	{"--bridge 0.6 helper-returns-none.py", "+    cfg.rerun_state_machine.check_for_nan_in_loss = False\n",
	 "+    cfg.model.cuda_graph_modules = []\n", "+    return"},
	/* issue 42, item 4: a unit with branches keeps its full-iteration graphs, respelled, with the
	 * companion its own setting needs whatever the branch (CG176) */
	{"--bridge 0.6 spelling-companion.py", "+    cfg.model.cuda_graph_impl = \"full_iteration\"\n",
	 "-    cfg.optimizer.overlap_param_gather_with_optimizer_step = True\n"
	 "+    cfg.optimizer.overlap_param_gather_with_optimizer_step = False\n", "pad_cu_seqlens"},
	/* issue 42: a unit with branches keeps its setting, in the target's spelling */
	{"--bridge 0.6 spelling-branched.py", "-    cfg.model.cuda_graph_scope = [\"attn\"]\n+    cfg.model.cuda_graph_scope = None\n"
	 "+    cfg.model.cuda_graph_modules = [\"attn\"]\n", NULL, "+    cfg.model.cuda_graph_impl"},
	/* issue 42: a unit that writes the deprecated scope on its own line gets it there as None,
	 * and the modules the target spells below it (a helper it called may have set the scope) */
	{"--bridge 0.6 scope-written.py",
	 "-    cfg.model.cuda_graph_scope = \"full\"\n+    cfg.model.cuda_graph_scope = None\n"
	 "+    cfg.model.cuda_graph_modules = [\"attn\", \"mlp\"]\n",
	 "+    cfg.model.cuda_graph_impl = \"transformer_engine\"\n", "cuda_graph_modules = []"},
	/* ... written by a shared helper: the same two lines before the return, the helper left alone */
	{"--bridge 0.6 scope-in-helper.py",
	 "+    cfg.model.cuda_graph_scope = None\n+    cfg.model.cuda_graph_modules = [\"attn\", \"mlp\"]\n",
	 "     _common(cfg)\n", "-    cfg.model.cuda_graph_scope"},
	/* ... in a Bridge YAML: null where it is written, the modules below it */
	{"--bridge 0.6 --assume-defaults scope-written.yaml", "+  cuda_graph_scope: null\n+  cuda_graph_modules: [attn, mlp]",
	 "-  cuda_graph_scope: [attn, mlp]", "+  cuda_graph_scope: ["},
	/* issue 42: a unit that chose full-iteration graphs keeps them; a value it writes changes on
	 * its own line (the key once), and the RNG tracker it turns on is not written again */
	{"--bridge 0.6 recipe-full-iteration.py",
	 "-    cfg.rerun_state_machine.check_for_nan_in_loss = True\n+    cfg.rerun_state_machine.check_for_nan_in_loss = False\n",
	 NULL, "+    cfg.model.use_te_rng_tracker"},
	/* packed sequences: Bridge's padding settings, under an if where the dataset is unseen */
	{"--bridge 0.6 packed-unseen.py",
	 "+    if getattr(cfg.dataset, \"offline_packing_specs\", None) is not None:\n"
	 "+        cfg.dataset.dataset_kwargs = {**(cfg.dataset.dataset_kwargs or {}), \"pad_to_max_length\": True}\n"
	 "+        cfg.dataset.offline_packing_specs.pad_cu_seqlens = True\n", NULL, NULL},
	{"--bridge 0.6 --assume-defaults packed.yaml", "+    pad_cu_seqlens: true\n", "+    pad_to_max_length: true\n",
	 "getattr"},
	/* Megatron-LM launch scripts: the flag's words where the script writes it, new flags after
	 * the impl's, or at the end of the training command when there is no graph flag */
	{"--bridge none mlm-train.sh",
	 "-    --cuda-graph-impl none\n+    --cuda-graph-impl transformer_engine --cuda-graph-modules attn mlp\n", NULL, NULL},
	{"--bridge none mlm-moe.sh",
	 "+    --micro-batch-size 1 --cuda-graph-impl transformer_engine --cuda-graph-modules attn moe_router "
	 "moe_preprocess  # one sample a rank\n", NULL, NULL},
	/* Bridge's recipe runner: Hydra overrides, in place where the command gives the key (its
	 * quotes and continuation kept), else one a line after its last word; env as an export; of
	 * the RNG pair only rng.te_rng_tracker, since Bridge ORs the two (config.py L1270-1272) */
	{"--bridge 0.6 runner.sh",
	 "-    \"model.cuda_graph_impl=none\" \\\n+    model.cuda_graph_impl=transformer_engine \\\n",
	 "+    train.train_iters=100 \\\n+    'model.cuda_graph_modules=[attn,mlp]' \\\n+    rng.te_rng_tracker=true  # short run\n",
	 "model.use_te_rng_tracker"},
	{"--bridge 0.6 runner.sh", "+export NCCL_GRAPH_REGISTER=0\n torchrun", NULL, NULL},
	/* a script's hidden --cuda-graph-scope becomes --cuda-graph-modules where it is written (no
	 * second flag beside it), and the companion its CG201 asks for is exported */
	{"--bridge none mlm-test-scope.yaml", "-  --cuda-graph-scope: \"[attn mlp]\"\n+  --cuda-graph-modules: \"[attn mlp]\"\n",
	 "+  NCCL_GRAPH_REGISTER: 0\n", NULL},
	{"--bridge none mlm-scope-written.sh", "+export NCCL_GRAPH_REGISTER=0\n torchrun",
	 "-    --cuda-graph-impl transformer_engine --cuda-graph-scope attn mlp \\\n"
	 "+    --cuda-graph-impl transformer_engine --cuda-graph-modules attn mlp \\\n", NULL},
	{"--bridge none mlm-full-iteration-scope.sh",
	 "-    --cuda-graph-impl local --cuda-graph-scope full_iteration \\\n+    --cuda-graph-impl full_iteration \\\n",
	 NULL, NULL},
	{"--bridge none mlm-quoted.sh",
	 "-    --cuda-graph-impl \"none\" --bf16\n+    --cuda-graph-impl transformer_engine --cuda-graph-modules attn mlp --bf16\n",
	 NULL, NULL},
	{"--mcore 0.17 --bridge none mlm-string.sh",
	 "+CG_ARGS=\"--cuda-graph-impl transformer_engine --cuda-graph-scope attn moe_router moe_preprocess "
	 "--te-rng-tracker\"\n", NULL, NULL},
};

/* Issue 42: what blocks a script's graphs is the rule that forbids them (CG111 with full
 * recompute), not one that a candidate's own spelling breaks (CG131, a modules flag beside the
 * script's scope). */
Test(suggest, blocked_by_the_rule_that_forbids)
{
	int rc;
	json_t *doc = suggest_json(SUGGEST_DIR, "--mcore 0.19 --bridge none", "mlm-scope-recompute.sh", &rc);
	cr_assert_not_null(doc);
	json_t *c = json_array_get(json_object_get(json_array_get(json_object_get(doc, "units"), 0), "choices"), 0);
	json_t *blocked = json_object_get(c, "blocked");
	cr_assert_gt(json_array_size(blocked), 0);
	for (size_t k = 0; k < json_array_size(blocked); k++) {
		const char *b = json_string_value(json_array_get(blocked, k));
		cr_expect(strstr(b, "CG111") && !strstr(b, "CG131"), "%s", b);
	}
	json_decref(doc);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

/* Issue 42: after --fix, every fixture on an 0.18+ target lints with no deprecation note (the
 * deprecated scope and local full_iteration spelled as the target spells them: in a unit whose
 * setting is patched, and in one left as it is, a branched one included) and no error it did not
 * have before. */
static bool respelled(const char *name)
{
	char *path, *text, *cmd, *out;
	cr_assert_neq(asprintf(&path, "%s/%s", SUGGEST_DIR, name), -1);
	text = harness_read(NULL, path, NULL);
	char *lint_args = line_after(text, "cglint-args: "), *sg_args = line_after(text, "suggest-args: ");
	bool target = strstr(lint_args, "--mcore 0.18") || strstr(lint_args, "--mcore 0.19");
	if (target) {
		char dir[64];
		cr_assert(harness_tmpdir(dir, sizeof(dir), "respell", HARNESS_CONFIG));
		free(harness_write(dir, name, text, strlen(text)));
		cr_assert_neq(asprintf(&cmd, "%s '%s' 2>&1", lint_args, name), -1);
		harness_run(dir, cmd, &out);
		size_t errors = count(out, ": error: ");
		free(out);
		free(cmd);
		cr_assert_neq(asprintf(&cmd, "suggest --fix %s %s '%s'", lint_args, sg_args, name), -1);
		harness_run(dir, cmd, NULL);
		free(cmd);
		cr_assert_neq(asprintf(&cmd, "%s '%s' 2>&1", lint_args, name), -1);
		harness_run(dir, cmd, &out);
		cr_expect(!strstr(out, "CG132") && !strstr(out, "CG133") && count(out, ": error: ") <= errors,
			  "%s after --fix:\n%s", name, out);
		free(out);
		free(cmd);
		cr_expect_eq(harness_rmdir(dir), 0);
	}
	free(lint_args);
	free(sg_args);
	free(text);
	free(path);
	return target;
}

Test(suggest, fix_leaves_the_target_spelling)
{
	size_t n = each_file(SUGGEST_DIR, respelled);
	cr_expect_geq(n, 30, "only %zu fixtures on an 0.18+ target", n);
}

/* fixtures/suggest/refused/: a suggestion --fix must not write says why (its '# refused:' line),
 * and --diff shows nothing. */
static bool refused(const char *name)
{
	char *path, *cmd, *out;
	cr_assert_neq(asprintf(&path, "%s/refused/%s", SUGGEST_DIR, name), -1);
	char *text = harness_read(NULL, path, NULL);
	char *args = line_after(text, "cglint-args: "), *why = line_after(text, "refused: ");
	cr_assert(*why, "%s: no '# refused:' line", name);
	cr_assert_neq(asprintf(&cmd, "suggest --diff %s '%s' 2>&1", args, name), -1);
	cr_expect_eq(harness_run(SUGGEST_DIR "/refused", cmd, &out), 0, "%s", cmd);
	cr_expect(strstr(out, why) && strstr(out, "not patched") && !strstr(out, "+++"), "%s:\n%s", name, out);
	free(out);
	free(cmd);
	free(args);
	free(why);
	free(text);
	free(path);
	return true;
}

Test(suggest, refused_patches_say_why)
{
	cr_expect_geq(each_file(SUGGEST_DIR "/refused", refused), 1);
}

Test(suggest, diff_in_each_language)
{
	char *out, *cmd;
	for (size_t k = 0; k < sizeof(diffs) / sizeof(*diffs); k++) {
		cr_assert_neq(asprintf(&cmd, "suggest --diff --mcore 0.19 %s", diffs[k].args), -1);
		cr_expect_eq(harness_run(SUGGEST_DIR, cmd, &out), 1, "%s", cmd);
		cr_expect(strstr(out, diffs[k].has), "%s:\n%s", cmd, out);
		cr_expect(!diffs[k].also || strstr(out, diffs[k].also), "%s:\n%s", cmd, out);
		cr_expect(!diffs[k].not || !strstr(out, diffs[k].not), "%s:\n%s", cmd, out);
		free(out);
		free(cmd);
	}
	/* a unit with branches gets no patch: nothing is guessed */
	cr_expect_eq(harness_run(SUGGEST_DIR, "suggest --diff --mcore 0.19 --bridge 0.6 moe-unknown.yaml", &out), 0);
	cr_expect_str_eq(out, "");
	free(out);
	/* ... says which key and how to decide it; and deciding it on the command line gives the patch */
	cr_expect_eq(harness_run(SUGGEST_DIR, "suggest --diff --mcore 0.19 --bridge 0.6 moe-unknown.yaml 2>&1", &out), 0);
	cr_expect(strstr(out, "not patched: the answer depends on model.num_moe_experts (no input sets it); cglint "
			      "suggest shows each branch, and model.num_moe_experts=VALUE on the command line picks one"),
		  "%s", out);
	free(out);
	cr_expect_eq(harness_run(SUGGEST_DIR, "suggest --diff --mcore 0.19 --bridge 0.6 moe-unknown.yaml "
					      "model.num_moe_experts=64 model.moe_expert_capacity_factor=null", &out), 1);
	cr_expect(strstr(out, "+  cuda_graph_modules: [attn, moe_router, moe_preprocess]"), "%s", out);
	free(out);
}

/* Megatron-LM functional-test YAML: --fix leaves exactly the text in fixtures/suggest/patched/
 * (one() above checks that it lints clean and is then 'already'). */
static bool patched_as_written(const char *name)
{
	char *in, *want_path, *cmd, *got_path;
	cr_assert_neq(asprintf(&in, "%s/%s", SUGGEST_DIR, name), -1);
	cr_assert_neq(asprintf(&want_path, "%s/patched/%s", SUGGEST_DIR, name), -1);
	char *text = harness_read(NULL, in, NULL), *want = harness_read(NULL, want_path, NULL);
	char *args = line_after(text, "cglint-args: ");
	char dir[64];
	cr_assert(harness_tmpdir(dir, sizeof(dir), "suggest", HARNESS_BARE));
	got_path = harness_write(dir, name, text, strlen(text));
	cr_assert_neq(asprintf(&cmd, "suggest --fix %s '%s'", args, name), -1);
	cr_expect_eq(harness_run(dir, cmd, NULL), 0, "%s", cmd);
	char *got = harness_read(NULL, got_path, NULL);
	cr_expect_str_eq(got, want, "%s: --fix wrote\n%s", name, got);
	cr_expect_eq(harness_rmdir(dir), 0);
	free(got);
	free(got_path);
	free(cmd);
	free(args);
	free(want);
	free(text);
	free(want_path);
	free(in);
	return true;
}

Test(suggest, mlm_yaml_patched_text)
{
	size_t n = each_file(SUGGEST_DIR "/patched", patched_as_written);
	cr_expect_geq(n, 4, "only %zu patched texts", n);
}

/* The strongest already, and graphs forbidden: no patch; the second says which rule. */
Test(suggest, mlm_yaml_no_patch)
{
	char *out;
	cr_expect_eq(harness_run(SUGGEST_DIR, "suggest --diff --mcore 0.19 --bridge none mlm-test-already.yaml", &out), 0);
	cr_expect_str_eq(out, "");
	free(out);
	cr_expect_eq(harness_run(SUGGEST_DIR, "suggest --diff --mcore 0.19 --bridge none mlm-test-forbidden.yaml", &out), 0);
	cr_expect_str_eq(out, "");
	free(out);
	harness_run(SUGGEST_DIR, "suggest --mcore 0.19 --bridge none mlm-test-forbidden.yaml", &out);
	cr_expect(strstr(out, "blocked: transformer_engine [attn, mlp]: CG111 (full-recompute-needs-full-iteration)"), "%s",
		  out);
	free(out);
}

/* sg_mlm_yaml_patch on texts the fixtures do not show: the edits applied, or why none. */
static struct value list_of(struct arena *a, const char *const *names, size_t n)
{
	struct value v = {.kind = V_LIST, .n = n, .items = arena_alloc(a, (n ? n : 1) * sizeof(struct value))};
	for (size_t k = 0; k < n; k++)
		v.items[k] = value_str(names[k]);
	return v;
}

static const char *patched(struct arena *a, const char *text, struct sg_set *sets, size_t n_sets, const char **why)
{
	struct sg_choice c = {.sets = sets, .n_sets = n_sets, .status = SG_SUGGEST};
	struct fix_edits ed = {0};
	size_t out_len;
	*why = sg_mlm_yaml_patch(a, text, strlen(text), &c, &ed);
	cr_expect(*why ? ed.n == 0 : true, "a refused patch left %zu edits", ed.n);
	const char *out = *why ? NULL : fix_apply(a, text, strlen(text), ed.e, ed.n, &out_len);
	free(ed.e);
	return out;
}

Test(suggest, mlm_yaml_edits)
{
	struct arena *a = arena_new();
	const char *why, *got;
	static const char *const attn_mlp[] = {"attn", "mlp"};
	/* a switch on is `true`, after the impl's entry; a 4-space map keeps its indent */
	struct sg_set rng[] = {{.key = "model.cuda_graph_impl", .val = value_str("transformer_engine")},
			       {.key = "rng.te_rng_tracker", .val = value_bool(true)}};
	got = patched(a, "MODEL_ARGS:\n    --num-layers: 2\n    --cuda-graph-impl: local\n    --bf16: true\n", rng, 2, &why);
	cr_expect_str_eq(got, "MODEL_ARGS:\n    --num-layers: 2\n    --cuda-graph-impl: transformer_engine\n"
			      "    --te-rng-tracker: true\n    --bf16: true\n");
	/* the last line without its line end; CRLF kept */
	got = patched(a, "MODEL_ARGS:\n  --num-layers: 2", rng, 2, &why);
	cr_expect_str_eq(got, "MODEL_ARGS:\n  --num-layers: 2\n  --cuda-graph-impl: transformer_engine\n"
			      "  --te-rng-tracker: true\n");
	got = patched(a, "MODEL_ARGS:\r\n  --num-layers: 2\r\n", rng, 2, &why);
	cr_expect_str_eq(got, "MODEL_ARGS:\r\n  --num-layers: 2\r\n  --cuda-graph-impl: transformer_engine\r\n"
			      "  --te-rng-tracker: true\r\n");
	/* full iteration on 0.18+: an empty module list has no spelling, every entry of it goes */
	struct sg_set fi[] = {{.key = "model.cuda_graph_impl", .val = value_str("full_iteration")},
			      {.key = "model.cuda_graph_modules", .val = list_of(a, NULL, 0)}};
	got = patched(a, "MODEL_ARGS:\n  --cuda-graph-modules: attn\n  --cuda-graph-impl: local\n"
			 "  --cuda-graph-modules: \"[attn mlp]\"\n", fi, 2, &why);
	cr_expect_str_eq(got, "MODEL_ARGS:\n  --cuda-graph-impl: full_iteration\n");
	/* a value that needs quotes gets them; an empty value gets one */
	struct sg_set mods[] = {{.key = "model.cuda_graph_modules", .val = list_of(a, attn_mlp, 2)},
				{.key = "env.NCCL_GRAPH_REGISTER", .val = value_str("0")}};
	got = patched(a, "ENV_VARS:\nMODEL_ARGS:\n  --cuda-graph-modules:\n  --x: 1\n", mods, 2, &why);
	cr_expect_str_eq(got, "ENV_VARS:\n  NCCL_GRAPH_REGISTER: 0\nMODEL_ARGS:\n  --cuda-graph-modules: \"[attn mlp]\"\n"
			      "  --x: 1\n");
	/* what is said instead of guessed */
	static const struct {
		const char *text, *why;
	} refused[] = {
		{"BASE: &B\n  --x: 1\nMODEL_ARGS:\n  <<: *B\n  --y: 2\n", "MODEL_ARGS merges another map"},
		{"MODEL_ARGS:\n  --x: 1\nMODEL_ARGS_2:\n  --x: 2\n", "MODEL_ARGS_2 gives a later run"},
		{"MODEL_ARGS: {--x: 1}\n", "MODEL_ARGS is not a map of one 'KEY: VALUE' line an entry"},
		{"MODEL_ARGS:\n  --cuda-graph-modules: \"[attn\n    mlp]\"\n", "--cuda-graph-modules: its value runs over"},
		{"ENV_VARS: {A: 1}\nMODEL_ARGS:\n  --x: 1\n", "ENV_VARS is not a map"},
	};
	for (size_t k = 0; k < sizeof(refused) / sizeof(*refused); k++) {
		got = patched(a, refused[k].text, mods, 2, &why);
		cr_expect(why && strstr(why, refused[k].why), "%s: %s", refused[k].text, why ? why : "patched");
	}
	/* a switch off that the file does not write: only a --no- flag could say it */
	struct sg_set off[] = {{.key = "model.enable_cuda_graph", .val = value_bool(false)}};
	got = patched(a, "MODEL_ARGS:\n  --x: 1\n", off, 1, &why);
	cr_expect(why && strstr(why, "model.enable_cuda_graph = false has no spelling in MODEL_ARGS"), "%s", why);
	arena_free(a);
}

/* A script that runs the recipe runner twice (Bridge's examples loop over a dense and an MoE
 * recipe): each command is a unit of its own, at its program's line, and each gets its own
 * overrides; an 'echo' naming run_recipe.py is not a command. */
Test(suggest, runner_commands_patched_each_in_place)
{
	char dir[64];
	cr_assert(harness_tmpdir(dir, sizeof(dir), "suggest", HARNESS_CONFIG));
	static const char script[] =
		"#!/bin/bash\n"
		"for tp in 1 2; do\n"
		"    echo \"run_recipe.py | TP=$tp\"\n"
		"    torchrun --nproc_per_node=8 scripts/training/run_recipe.py \\\n"
		"        --recipe acme_dense_config \\\n"
		"        model.num_moe_experts=null \\\n"
		"        model.tensor_model_parallel_size=$tp\n"
		"done\n"
		"torchrun --nproc_per_node=8 scripts/training/run_recipe.py --recipe acme_moe_config \\\n"
		"    model.num_moe_experts=64 model.moe_expert_capacity_factor=null\n";
	free(harness_write(dir, "two.sh", script, strlen(script)));
	char *out;
	cr_expect_eq(harness_run(dir, "suggest --diff --mcore 0.19 --bridge 0.6 two.sh", &out), 1);
	cr_expect(!strstr(out, "+    echo"), "%s", out);       /* unchanged */
	cr_expect(strstr(out, "-        model.tensor_model_parallel_size=$tp\n"
			      "+        model.tensor_model_parallel_size=$tp \\\n"
			      "+        model.cuda_graph_impl=transformer_engine \\\n"
			      "+        'model.cuda_graph_modules=[attn,mlp]' \\\n"), "%s", out);
	cr_expect(strstr(out, "+    model.num_moe_experts=64 model.moe_expert_capacity_factor=null \\\n"
			      "+    model.cuda_graph_impl=transformer_engine \\\n"
			      "+    'model.cuda_graph_modules=[attn,moe_router,moe_preprocess]' \\\n"), "%s", out);
	free(out);
	/* applied, each command is the strongest already, and the script still parses */
	cr_expect_eq(harness_run(dir, "suggest --fix --mcore 0.19 --bridge 0.6 two.sh", &out), 0);
	free(out);
	json_t *doc = suggest_json(dir, "--mcore 0.19 --bridge 0.6", "two.sh", &(int){0});
	json_t *units = json_object_get(doc, "units");
	cr_expect_eq(json_array_size(units), 2);
	for (size_t k = 0; k < json_array_size(units); k++) {
		json_t *c = json_array_get(json_object_get(json_array_get(units, k), "choices"), 0);
		cr_expect_str_eq(json_string_value(json_object_get(c, "status")), "already", "unit %zu", k);
	}
	json_decref(doc);
	char *cmd;
	cr_assert_neq(asprintf(&cmd, "bash -n %s/two.sh", dir), -1);
	cr_expect_eq(system(cmd), 0, "%s", cmd);
	free(cmd);
	cr_expect_eq(harness_rmdir(dir), 0);
}

/* A recipe that calls another inherits what that one's patch sets: --fix judges again and patches
 * the caller too (Bridge's perf recipes call its library recipes), until nothing changes. */
Test(suggest, fix_passes_until_callers_agree)
{
	char dir[64];
	cr_assert(harness_tmpdir(dir, sizeof(dir), "suggest", HARNESS_CONFIG));
	static const char recipes[] =
		"def base_config():\n"
		"    cfg = make_config()\n"
		"    cfg.model.num_moe_experts = None\n"
		"    cfg.model.attention_dropout = 0.0\n"
		"    cfg.model.hidden_dropout = 0.0\n"
		"    cfg.model.recompute_granularity = None\n"
		"    cfg.model.cpu_offloading = False\n"
		"    cfg.model.cuda_graph_impl = \"none\"\n"
		"    return cfg\n\n\n"
		"def offloading_config():\n"
		"    cfg = base_config()\n"
		"    cfg.model.cpu_offloading = True\n"
		"    cfg.model.cpu_offloading_num_layers = 2\n"
		"    return cfg\n";
	free(harness_write(dir, "recipes.py", recipes, strlen(recipes)));
	char *out;
	cr_expect_eq(harness_run(dir, "suggest --fix --mcore 0.19 --bridge 0.6 recipes.py 2>&1", &out), 0);
	cr_expect(strstr(out, "--fix: wrote 1 file(s)\n"), "%s", out);
	cr_expect(strstr(out, "--fix: pass 2: wrote 1 file(s) again"), "%s", out);
	free(out);
	char *path, *text;
	cr_assert_neq(asprintf(&path, "%s/recipes.py", dir), -1);
	text = harness_read(NULL, path, NULL);
	/* the base gets graphs; the caller, which offloads to the CPU (CG110), turns them off again */
	cr_expect(strstr(text, "    cfg.model.cuda_graph_impl = \"transformer_engine\"\n    cfg.model.cuda_graph_modules"),
		  "%s", text);
	cr_expect(strstr(text, "    cfg.model.cpu_offloading_num_layers = 2\n    cfg.model.cuda_graph_impl = \"none\"\n"
			       "    return cfg\n"), "%s", text);
	free(text);
	free(path);
	cr_expect_eq(harness_run(dir, "--mcore 0.19 --bridge 0.6 recipes.py", &out), 0, "%s", out);
	free(out);
	cr_expect_eq(harness_rmdir(dir), 0);
}

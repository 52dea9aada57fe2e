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

#include "harness.h"

#define SUGGEST_DIR CGLINT_FIXTURES "/suggest"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "%s", path);
	char *buf = calloc(1, 1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The text after 'tag' on its line, or "" (a new string). */
static char *line_after(const char *text, const char *tag)
{
	const char *p = strstr(text, tag);
	if (!p)
		return strdup("");
	p += strlen(tag);
	return strndup(p, strcspn(p, "\n"));
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
	char *text = slurp(path);
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
	char tmpl[] = "/tmp/cglint-suggest-XXXXXX";
	char *dir = mkdtemp(tmpl);
	cr_assert_not_null(dir);
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
	char *rm;
	cr_assert_neq(asprintf(&rm, "rm -rf '%s'", dir), -1);
	cr_expect_eq(system(rm), 0);
	free(rm);
done:
	json_decref(doc);
	free(args);
	free(expect);
	free(sg_args);
	free(lint_args);
	free(text);
	free(path);
}

Test(suggest, every_fixture_gets_its_answer)
{
	DIR *d = opendir(SUGGEST_DIR);
	cr_assert_not_null(d);
	struct dirent *e;
	size_t n = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md"))
			continue;
		one(e->d_name);
		n++;
	}
	closedir(d);
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
	/* a unit that writes the deprecated scope keeps it: modules beside it would fail (CG131) */
	{"--bridge 0.6 scope-written.py", "+    cfg.model.cuda_graph_scope = [\"attn\", \"mlp\"]\n", NULL,
	 "cuda_graph_modules"},
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
	{"--mcore 0.17 --bridge none mlm-string.sh",
	 "+CG_ARGS=\"--cuda-graph-impl transformer_engine --cuda-graph-scope attn moe_router moe_preprocess "
	 "--te-rng-tracker\"\n", NULL, NULL},
};

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

/* SPDX-License-Identifier: MIT */
/* unit: the expression language, values, facts and layers, normalization, targets, YAML. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "base/strmap.h"
#include "base/suggest.h"
#include "config/engine.h"
#include "config/expr.h"
#include "config/fact.h"
#include "config/pack.h"
#include "config/proj.h"
#include "config/target.h"
#include "front/cfg.h"
#include "harness.h"
#include "input/fe_yaml.h"
#include "input/node.h"
#include "input/text.h"

static struct arena *a;
static struct facts t;
static struct target tgt = {.mcore = 170, .bridge = 40};
static struct pack *p;
static struct diag_list d;

static void setup(void)
{
	a = arena_new();
	facts_init(&t, a);
	p = pack_new();
	pack_load_builtin(p);
	diag_init(&d, a, &p->lookup, NULL);
}

static void teardown(void)
{
	diag_release(&d);
	pack_free(p);
	facts_release(&t);
	arena_free(a);
}

/* Load YAML text as the "config" layer. */
static bool load_yaml(const char *text)
{
	struct node *root;
	cr_assert_eq(fe_yaml_parse(a, &d, "t.yaml", text, strlen(text), &root), 0, "YAML did not parse");
	return cfg_from_yaml(&t, root, "config");
}

static enum tri eval(const char *src)
{
	const char *err;
	unsigned col;
	struct expr *e = expr_parse(a, src, &err, &col);
	cr_assert_not_null(e, "'%s' did not parse: %s at %u", src, err, col);
	struct expr_env env = {.facts = &t, .target = &tgt, .arena = a};
	return expr_truth(e, &env);
}

TestSuite(expr, .init = setup, .fini = teardown);

Test(expr, without_drops_items_and_keeps_order)
{
	load_yaml("m: [attn, full_iteration, mlp]\ns: attn\n");
	cr_expect_eq(eval("without(m, \"full_iteration\") == [\"attn\", \"mlp\"]"), TRI_TRUE);
	cr_expect_eq(eval("without(m, \"attn\", \"mlp\", \"full_iteration\") == []"), TRI_TRUE);
	cr_expect_eq(eval("without(s, \"attn\") == \"attn\""), TRI_TRUE, "a non-list passes through");
	cr_expect_eq(eval("without(nope, \"attn\") == []"), TRI_UNKNOWN);
}

Test(expr, comparisons_and_membership)
{
	load_yaml("model: {cuda_graph_impl: local, cuda_graph_scope: [attn, moe_router], n: 8}\n"
		  "env_vars: {PYTORCH_CUDA_ALLOC_CONF: 'expandable_segments:True,foo:1'}\n");
	cfg_env_vars(&t);
	cr_expect_eq(eval("model.cuda_graph_impl == \"local\""), TRI_TRUE);
	cr_expect_eq(eval("model.cuda_graph_impl != 'local'"), TRI_FALSE);
	cr_expect_eq(eval("\"attn\" in model.cuda_graph_scope"), TRI_TRUE);
	cr_expect_eq(eval("\"mlp\" not in model.cuda_graph_scope"), TRI_TRUE);
	cr_expect_eq(eval("model.n > 1 and model.n <= 8"), TRI_TRUE);
	cr_expect_eq(eval("model.cuda_graph_scope == [\"attn\", \"moe_router\"]"), TRI_TRUE);
	cr_expect_eq(eval("\"expandable_segments:True\" in env.PYTORCH_CUDA_ALLOC_CONF"), TRI_TRUE);
	cr_expect_eq(eval("\"expandable_segments:true\" in env.PYTORCH_CUDA_ALLOC_CONF"), TRI_FALSE, "case-sensitive");
	cr_expect_eq(eval("model.cuda_graph_impl in [\"local\", \"transformer_engine\"]"), TRI_TRUE);
	cr_expect_eq(eval("len(model.cuda_graph_scope) == 2"), TRI_TRUE);
	cr_expect_eq(eval("type(model.n) == \"int\""), TRI_TRUE);
}

Test(expr, unknown_keys_are_three_valued)
{
	load_yaml("model: {cuda_graph_impl: transformer_engine}\n");
	cr_expect_eq(eval("model.use_te_rng_tracker == false"), TRI_UNKNOWN);
	cr_expect_eq(eval("not model.use_te_rng_tracker"), TRI_UNKNOWN);
	cr_expect_eq(eval("model.cuda_graph_impl == \"local\" and not model.use_te_rng_tracker"), TRI_FALSE,
		     "false and unknown is false");
	cr_expect_eq(eval("model.cuda_graph_impl != \"none\" or model.x"), TRI_TRUE, "true or unknown is true");
	cr_expect_eq(eval("model.cuda_graph_impl != \"none\" and model.x"), TRI_UNKNOWN);
	cr_expect_eq(eval("known(model.x)"), TRI_FALSE);
	cr_expect_eq(eval("default(model.x, 3) == 3"), TRI_TRUE);
	cr_expect_eq(eval("\"moe\" in model.cuda_graph_scope"), TRI_UNKNOWN);
	t.closed = true;
	cr_expect_eq(eval("model.use_te_rng_tracker == null"), TRI_TRUE, "closed: absent keys are null");
	cr_expect_eq(eval("\"moe\" in model.cuda_graph_scope"), TRI_FALSE, "'x in None' is false");
	cr_expect_eq(eval("env.NCCL_GRAPH_REGISTER != \"0\""), TRI_UNKNOWN, "the environment closes separately");
}

Test(expr, functions)
{
	load_yaml("model: {cuda_graph_scope: 'attn, mlp', l: [moe_router]}\n");
	cr_expect_eq(eval("split(model.cuda_graph_scope, \",\") == [\"attn\", \" mlp\"]"), TRI_TRUE,
		     "split does not trim, as str.split");
	cr_expect_eq(eval("with(model.l, \"moe_router\", \"moe_preprocess\") == [\"moe_router\", \"moe_preprocess\"]"),
		     TRI_TRUE);
	cr_expect_eq(eval("is_list(model.l) and not is_list(model.cuda_graph_scope)"), TRI_TRUE);
	cr_expect_eq(eval("given(model.l)"), TRI_TRUE);
	cr_expect_eq(eval("given(model.absent)"), TRI_FALSE);
}

Test(expr, syntax_errors_have_columns)
{
	const char *bad[] = {"model.x ==", "(a and b", "\"unterminated", "foo(1)", "a and and b", "x in", "[1, 2"};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		const char *err = NULL;
		unsigned col = 0;
		cr_expect_null(expr_parse(a, bad[k], &err, &col), "'%s' parsed", bad[k]);
		cr_expect(err && col >= 1 && col <= strlen(bad[k]) + 1, "'%s': no position", bad[k]);
	}
	char deep[400];
	memset(deep, '(', 200);
	strcpy(deep + 200, "1");
	const char *err;
	unsigned col;
	cr_expect_null(expr_parse(a, deep, &err, &col), "nesting is bounded");
}

TestSuite(values, .init = setup, .fini = teardown);

Test(values, yaml_1_1_scalars_as_pyyaml)
{
	struct { const char *text; enum val_kind kind; } cases[] = {
		{"true", V_BOOL}, {"yes", V_BOOL}, {"Off", V_BOOL}, {"~", V_NULL}, {"null", V_NULL}, {"", V_NULL},
		{"42", V_INT}, {"0x1f", V_INT}, {"-3", V_INT}, {"0.1", V_FLOAT}, {"1e3", V_STR}, {"1.0e3", V_FLOAT},
		{".inf", V_FLOAT}, {"local", V_STR}, {"0.16.1", V_STR},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct value v = value_from_plain(a, cases[k].text);
		cr_expect_eq(v.kind, cases[k].kind, "'%s' resolved as %s", cases[k].text, value_kind_name(v.kind));
	}
}

TestSuite(facts, .init = setup, .fini = teardown);

Test(facts, layers_later_wins_and_keep_positions)
{
	cr_expect(!load_yaml("model:\n  cuda_graph_impl: local\n  cuda_graph_warmup_steps: 3\n"));
	struct node *root;
	const char *over = "model:\n  cuda_graph_impl: transformer_engine\n";
	cr_assert_eq(fe_yaml_parse(a, &d, "over.yaml", over, strlen(over), &root), 0);
	cfg_from_yaml(&t, root, "config-file");
	cr_assert_eq(cfg_dotlist(&t, &d, "model.cuda_graph_scope=[attn,moe_router]", (struct loc){"<command line>", 1, 1}, false), 0);
	const struct fact *f = facts_get(&t, "model.cuda_graph_impl");
	cr_assert_not_null(f);
	cr_expect_str_eq(f->val.s, "transformer_engine");
	cr_expect_str_eq(f->layer, "config-file");
	cr_expect_str_eq(f->loc.path, "over.yaml");
	cr_expect_eq(f->loc.line, 2);
	cr_expect_eq(f->loc.col, 3);
	f = facts_get(&t, "model.cuda_graph_scope");
	cr_assert_not_null(f);
	cr_expect_eq(f->val.kind, V_LIST);
	cr_expect_eq(f->val.n, 2);
	cr_expect_str_eq(f->layer, "dotlist");
	f = facts_get(&t, "model.cuda_graph_warmup_steps");
	cr_expect_str_eq(f->layer, "config", "keys no later layer sets keep their first layer");
	/* a launch script's Hydra word that is not YAML stays a string; from cglint's own command
	 * line it is an input error */
	size_t before = d.n;
	cr_expect_eq(cfg_dotlist(&t, &d, "model.hf_path=a: b: c", (struct loc){"run.sh", 3, 5}, true), 0);
	cr_expect_str_eq(facts_get(&t, "model.hf_path")->val.s, "a: b: c");
	cr_expect_eq(d.n, before, "nothing reported for a script's word");
	cr_expect_eq(cfg_dotlist(&t, &d, "model.hf_path=a: b: c", (struct loc){"<command line>", 1, 1}, false), -1);
}

Test(facts, full_dumps_enum_dicts_merge_keys_and_env_vars)
{
	bool full = load_yaml("_target_: megatron.bridge.training.config.ConfigContainer\n"
			      "base: &b {cuda_graph_warmup_steps: 2, cuda_graph_impl: local}\n"
			      "model:\n  <<: *b\n  cuda_graph_impl: transformer_engine\n"
			      "  cuda_graph_scope:\n  - {_target_: megatron.core.transformer.enums.CudaGraphScope, _call_: true, _args_: [2], _name_: attn}\n"
			      "env_vars:\n  NCCL_GRAPH_REGISTER: 0\n");
	cr_expect(full, "a top-level ConfigContainer _target_ is a full dump");
	const struct fact *f = facts_get(&t, "model.cuda_graph_scope");
	cr_assert_not_null(f);
	cr_expect(f->enum_form);
	cr_expect_str_eq(f->val.items[0].s, "attn");
	cr_expect_str_eq(facts_get(&t, "model.cuda_graph_impl")->val.s, "transformer_engine", "own keys beat '<<'");
	cr_expect_eq(facts_get(&t, "model.cuda_graph_warmup_steps")->val.i, 2);
	cr_expect_null(facts_get(&t, "env.NCCL_GRAPH_REGISTER"), "env_vars reach the environment only from Bridge 0.6");
	cfg_env_vars(&t);
	f = facts_get(&t, "env.NCCL_GRAPH_REGISTER");
	cr_assert_not_null(f);
	cr_expect_str_eq(f->val.s, "0", "env_vars values are stringified as str() does");
	cr_expect(t.env_closed);
}

TestSuite(normalize, .init = setup, .fini = teardown);

static void run_engine(void)
{
	struct engine e = {.pack = p, .unit = {.target = &tgt, .facts = &t, .diags = &d, .arena = a, .unit_path = "t.yaml"}};
	engine_run(&e);
}

static bool fired(const char *id)
{
	for (size_t k = 0; k < d.n; k++)
		if (!strcmp(d.items[k].rule->head.id, id))
			return true;
	return false;
}

Test(normalize, mcore_migrations_in_order)
{
	load_yaml("model:\n  enable_cuda_graph: true\n  cuda_graph_impl: none\n  cuda_graph_scope: moe_preprocess\n"
		  "  num_moe_experts: 8\n  external_cuda_graph: false\n");
	run_engine();
	const struct fact *impl = facts_get(&t, "model.cuda_graph_impl");
	cr_expect_str_eq(impl->val.s, "local", "enable_cuda_graph migrates to local");
	cr_expect_str_eq(impl->raw.s, "none", "raw keeps what the input wrote");
	const struct value *scope = &facts_get(&t, "model.cuda_graph_scope")->val;
	cr_assert_eq(scope->kind, V_LIST, "a scope string is split into a list");
	cr_expect_eq(scope->n, 2, "local adds moe_router to moe_preprocess");
	cr_expect(!fired("CG105"), "moe_preprocess without moe_router cannot fire for local");
	cr_expect(fired("CG124"), "the deprecated boolean still warns");
}

Test(normalize, bridge_rng_or_sync)
{
	tgt.bridge = 40;
	load_yaml("model: {cuda_graph_impl: transformer_engine, use_te_rng_tracker: false}\nrng: {te_rng_tracker: true}\n");
	run_engine();
	cr_expect_eq(facts_get(&t, "model.use_te_rng_tracker")->val.b, true);
	cr_expect(!fired("CG101"));
}

Test(normalize, comm_overlap_overwrites_model_flags)
{
	load_yaml("model: {delay_wgrad_compute: false, overlap_moe_expert_parallel_comm: true}\n"
		  "comm_overlap: {delay_wgrad_compute: true}\n");
	run_engine();
	cr_expect_eq(facts_get(&t, "model.delay_wgrad_compute")->val.b, true);
	cr_expect_eq(facts_get(&t, "model.overlap_moe_expert_parallel_comm")->val.kind, V_UNKNOWN,
		     "an unset comm_overlap value is unknown in a partial file, not False");
}

/* Sequence parallelism without tensor parallelism is turned off where the real code turns it off:
 * Bridge 0.4+'s TransformerConfig.finalize(), Megatron-LM's validate_args; not by Bridge 0.3. */
Test(normalize, sequence_parallel_needs_tensor_parallel)
{
	static const char yaml[] = "model: {tensor_model_parallel_size: 1, sequence_parallel: true}\n";
	const int bridges[] = {30, 60};
	const bool want[] = {true, false};
	for (size_t k = 0; k < 2; k++) {
		facts_release(&t);
		facts_init(&t, a);
		tgt.bridge = bridges[k];
		load_yaml(yaml);
		run_engine();
		cr_expect_eq(facts_get(&t, "model.sequence_parallel")->val.b, want[k], "Bridge %d", bridges[k]);
	}
	facts_release(&t);
	facts_init(&t, a);
	tgt.bridge = 60;
	load_yaml("model: {tensor_model_parallel_size: 2, sequence_parallel: true}\n");
	run_engine();
	cr_expect_eq(facts_get(&t, "model.sequence_parallel")->val.b, true, "two TP ranks keep it");
}

/* facts_copy carries a fact whole: every field, the ones added after it was written included,
 * with the copy's own key string (its index points at it), and what the source holds closed. */
Test(facts, copy_is_whole)
{
	struct facts src, dst;
	facts_init(&src, a);
	facts_init(&dst, a);
	struct fact *f = facts_set(&src, "model.cuda_graph_modules", value_str("attn"), (struct loc){"r.py", 3, 5}, "recipe");
	f->raw = value_str("full");
	f->why = "why";
	f->origin = (struct loc){"helper.py", 9, 1};
	f->enum_form = true;
	f->from = (const struct expr *)f;       /* any pointer: it is carried, not read */
	f->written_as = "model.cuda_graph_scope";
	f->moved_by = "MC-04";
	facts_close_under(&src, "env_vars");
	src.closed = true;
	facts_copy(&dst, &src);
	struct fact *g = facts_get(&dst, "model.cuda_graph_modules");
	cr_assert_not_null(g);
	cr_expect_neq(g->key, f->key, "the copy keeps its own key string");
	struct fact want;
	memcpy(&want, f, sizeof(want));
	want.key = g->key;
	cr_expect_eq(memcmp(&want, g, sizeof(want)), 0, "a field of struct fact is not copied");
	cr_expect(dst.closed && dst.n_closed_under == 1);
	facts_release(&src);
	facts_release(&dst);
}

TestSuite(target);

Test(target, versions_ranges_and_gpus)
{
	int v;
	cr_expect_eq(target_parse_version("0.17", &v), 0);
	cr_expect_eq(v, 170);
	cr_expect_eq(target_parse_version("0.16.1", &v), 0);
	cr_expect_eq(v, 160);
	cr_expect(target_parse_version("dev", &v) == 0 && v == TARGET_MCORE_DEV);
	cr_expect_neq(target_parse_version("0.x", &v), 0);
	cr_expect(target_parse_version("0.16.0RC0", &v) == 0 && v == TARGET_MCORE_DEV, "dev names in any case");
	cr_expect(target_parse_version("00.017", &v) == 0 && v == 170, "leading zeros read as numbers");
	cr_expect(target_parse_version("0.17.12", &v) == 0 && v == 170, "a patch level is ignored");
	const char *bad[] = {"0.100", "100.1", "0.17.", "0.", ".17", "0.17rc1", "+0.17", " 0.17", "0.1x", ""};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		cr_expect_neq(target_parse_version(bad[k], &v), 0, "'%s' is no version", bad[k]);
	struct vrange r;
	cr_assert_eq(target_parse_range(">=0.16 <0.18", &r), 0);
	cr_expect(target_in_range(&r, 160, false) && target_in_range(&r, 170, false) && !target_in_range(&r, 180, false));
	cr_expect(!target_in_range(&r, TARGET_MCORE_DEV, false), "the dev branch is older than 0.16");
	cr_assert_eq(target_parse_range(">=0.15 <0.16", &r), 0);
	cr_expect(target_in_range(&r, TARGET_MCORE_DEV, false) && target_in_range(&r, 150, false));
	cr_assert_eq(target_parse_range("0.15", &r), 0);
	cr_expect(!target_in_range(&r, TARGET_MCORE_DEV, false), "0.15 means the tagged release only");
	cr_assert_eq(target_parse_range("dev", &r), 0);
	cr_expect(target_in_range(&r, TARGET_MCORE_DEV, false) && !target_in_range(&r, 150, false));
	cr_assert_eq(target_parse_range("none", &r), 0);
	cr_expect(target_in_range(&r, TARGET_NO_BRIDGE, true) && !target_in_range(&r, 40, true));
	cr_expect_neq(target_parse_range(">=banana", &r), 0);
	int major;
	cr_expect(target_parse_gpu("h100", &major) == 0 && major == 9);
	cr_expect(target_parse_gpu("sm_100a", &major) == 0 && major == 10);
	cr_expect(target_parse_gpu("GB200", &major) == 0 && major == 10);
	cr_expect_neq(target_parse_gpu("potato", &major), 0);
}

/* The whole table, as suggest_distance computed it before it kept to the band that can stay
 * within the cap: the two must agree everywhere. */
static unsigned full_table(const char *x_word, const char *y_word, unsigned cap)
{
	const char *x_ = x_word, *y_ = y_word;
	size_t la = strlen(x_), lb = strlen(y_);
	unsigned tab[24][24];
	for (size_t i = 0; i <= la; i++)
		for (size_t j = 0; j <= lb; j++) {
			if (!i || !j) {
				tab[i][j] = (unsigned)(i + j) * SUGGEST_EDIT;
				continue;
			}
			char x = x_[i - 1], y = y_[j - 1];
			int gx = tolower((unsigned char)x), gy = tolower((unsigned char)y);
			gx = gx == 'o' ? '0' : gx == 'l' || gx == 'i' ? '1' : gx;
			gy = gy == 'o' ? '0' : gy == 'l' || gy == 'i' ? '1' : gy;
			unsigned sub = tab[i - 1][j - 1] + (x == y ? 0 : gx == gy ? SUGGEST_LOOKALIKE : SUGGEST_EDIT);
			unsigned best = tab[i - 1][j] + SUGGEST_EDIT;
			if (tab[i][j - 1] + SUGGEST_EDIT < best)
				best = tab[i][j - 1] + SUGGEST_EDIT;
			if (sub < best)
				best = sub;
			if (i > 1 && j > 1 && x == y_[j - 2] && x_[i - 2] == y && tab[i - 2][j - 2] + SUGGEST_EDIT < best)
				best = tab[i - 2][j - 2] + SUGGEST_EDIT;
			tab[i][j] = best;
		}
	return tab[la][lb] > cap ? cap + 1 : tab[la][lb];
}

Test(target, suggest_band_agrees_with_the_whole_table)
{
	static const char letters[] = "abclIo01O-_";
	unsigned seed = 7;
	for (int it = 0; it < 200000; it++) {
		char w1[24], w2[24];
		seed = seed * 1103515245u + 12345u;
		size_t la = seed >> 16 & 15, lb = (seed >> 8 & 3) ? la : (seed >> 4 & 15);
		for (size_t i = 0; i < la; i++) {
			seed = seed * 1103515245u + 12345u;
			w1[i] = letters[(seed >> 16) % 11];
		}
		w1[la] = '\0';
		memcpy(w2, w1, la + 1);
		for (size_t j = 0; j < lb; j++) {       /* a few changes of a, or another word */
			seed = seed * 1103515245u + 12345u;
			if (j >= la || (seed >> 16) % 4 == 0)
				w2[j] = letters[(seed >> 20) % 11];
		}
		w2[lb] = '\0';
		unsigned cap = (seed >> 24) % 9;
		cr_assert_eq(suggest_distance(w1, w2, cap), full_table(w1, w2, cap), "'%s' '%s' cap %u", w1, w2, cap);
	}
}

Test(target, suggest)
{
	const char *c[] = {"moe_router", "moe_preprocess", "attn"};
	cr_expect_str_eq(suggest_closest("moe_routr", c, 3), "moe_router");
	cr_expect_str_eq(suggest_closest("atn", c, 3), "attn");
	cr_expect_null(suggest_closest("banana", c, 3));
	cr_expect_eq(suggest_distance("ab", "ba", 3 * SUGGEST_EDIT), SUGGEST_EDIT, "a transposition is one edit");
	/* look-alikes cost less than another edit: CG1O4 is CG104, not CG124 */
	const char *ids[] = {"CG124", "CG104", "CG121", "CG101"};
	cr_expect_str_eq(suggest_closest("CG1O4", ids, 4), "CG104");
	cr_expect_str_eq(suggest_closest("CG1O1", ids, 4), "CG101");
	cr_expect_str_eq(suggest_closest("CGl2I", ids, 4), "CG121");
	cr_expect_str_eq(suggest_closest("cg1o4", ids, 4), "CG104");
	cr_expect_lt(suggest_distance("CG1O4", "CG104", 9), suggest_distance("CG1O4", "CG124", 9));
}

Test(expr, pylist_evaluates_layer_freq_expressions)
{
	load_yaml("a: '([0]*3+[1]*9)'\nb: '[1,0]*2'\nc: 'range(3)'\nd: '[1]*100000'\n");
	cr_expect_eq(eval("len(pylist(a)) == 12 and 0 in pylist(a)"), TRI_TRUE);
	cr_expect_eq(eval("pylist(b) == [1, 0, 1, 0]"), TRI_TRUE);
	cr_expect_eq(eval("pylist(c) == 'range(3)'"), TRI_TRUE, "unknown forms stay as they are");
	cr_expect_eq(eval("type(pylist(d)) == 'string'"), TRI_TRUE, "huge expansions are refused");
}

/* The schema that ships for editors must accept exactly the keys cglint accepts. */
static void expect_same_keys(json_t *props, const char *const *keys, const char *where)
{
	size_t n = 0;
	for (; keys[n]; n++)
		cr_expect_not_null(json_object_get(props, keys[n]), "%s: '%s' is not in the schema", where, keys[n]);
	cr_expect_eq(json_object_size(props), n, "%s: the schema has %zu keys, cglint %zu", where,
		     json_object_size(props), n);
}

Test(proj, schema_matches_the_keys_cglint_reads)
{
	json_error_t err;
	json_t *s = json_load_file(CGLINT_FIXTURES "/../docs/cglint-config.schema.json", 0, &err);
	cr_assert_not_null(s, "schema: %s at %d", err.text, err.line);
	expect_same_keys(json_object_get(s, "properties"), proj_keys, "top level");
	json_t *defs = json_object_get(s, "$defs");
	expect_same_keys(json_object_get(json_object_get(defs, "target"), "properties"), proj_target_keys, "target");
	json_t *per = json_object_get(json_object_get(json_object_get(s, "properties"), "per-path"), "items");
	expect_same_keys(json_object_get(per, "properties"), proj_part_keys, "per-path");
	json_decref(s);
}

Test(text, lines)
{
	const char buf[] = "a\r\nbb\n\nccc";
	size_t n;
	const char *l = text_line(buf, sizeof(buf) - 1, 1, &n);
	cr_expect(l == buf && n == 1, "CR LF is not part of the line");
	l = text_line(buf, sizeof(buf) - 1, 2, &n);
	cr_expect(l && n == 2 && !strncmp(l, "bb", 2));
	l = text_line(buf, sizeof(buf) - 1, 3, &n);
	cr_expect(l && n == 0);
	l = text_line(buf, sizeof(buf) - 1, 4, &n);
	cr_expect(l && n == 3 && !strncmp(l, "ccc", 3), "the last line needs no line end");
	cr_expect_null(text_line(buf, sizeof(buf) - 1, 5, &n));
	cr_expect_null(text_line(buf, sizeof(buf) - 1, 0, &n), "line 0 is the whole file, not a line");
	cr_expect_null(text_line("x\n", 2, 2, &n), "a final newline starts no line");
}

/* ---- the built-in packs, compiled at build time (cmake/pack_compile.c) ---- */

static void same_tree(const struct node *x, const struct node *b)
{
	cr_assert_eq(x->kind, b->kind, "%s:%u:%u: kind", b->loc.path, b->loc.line, b->loc.col);
	cr_assert_eq(x->loc.line, b->loc.line, "%s:%u: line", b->loc.path, b->loc.line);
	cr_assert_eq(x->loc.col, b->loc.col, "%s:%u: column", b->loc.path, b->loc.line);
	cr_assert_str_eq(x->loc.path, b->loc.path);
	cr_assert_eq(!x->scalar, !b->scalar, "%s:%u: scalar", b->loc.path, b->loc.line);
	if (b->scalar)
		cr_assert_str_eq(x->scalar, b->scalar, "%s:%u", b->loc.path, b->loc.line);
	cr_assert_eq(x->plain, b->plain, "%s:%u: plain", b->loc.path, b->loc.line);
	cr_assert_eq(x->n, b->n, "%s:%u: items", b->loc.path, b->loc.line);
	cr_assert_eq(x->weight, b->weight);
	cr_assert_eq(x->depth, b->depth);
	size_t slots = b->kind == NODE_MAP ? 2 * b->n : b->n;
	for (size_t k = 0; k < slots; k++)
		same_tree(x->items[k], b->items[k]);
}

/* Every compiled pack is the tree the YAML reader makes of its file in rules/, node for node. */
/* One id may have per-version variants; the pack's index finds the first by id or by name. */
Test(unit, rule_variants_by_id_and_name)
{
	static const char rule[] = "  - {id: %s, name: %s, severity: error, mcore: \"%s\", when: \"true\", message: m, doc: d}\n";
	char text[2048];
	int n = snprintf(text, sizeof(text), "rules:\n");
	n += snprintf(text + n, sizeof(text) - n, rule, "TEAM001", "team-one", ">=0.15 <0.16");
	n += snprintf(text + n, sizeof(text) - n, rule, "TEAM001", "team-one", ">=0.16");         /* a variant */
	n += snprintf(text + n, sizeof(text) - n, rule, "TEAM001", "team-one", ">=0.17 <0.18");   /* overlaps */
	n += snprintf(text + n, sizeof(text) - n, rule, "TEAM002", "team-one", ">=0.19");         /* name taken */
	n += snprintf(text + n, sizeof(text) - n, rule, "TEAM001", "team-two", ">=0.19");         /* id taken */
	snprintf(text + n, sizeof(text) - n, rule, "TEAM003", "CG101", ">=0.19");                 /* a name like an id */
	struct arena *ar = arena_new();
	struct pack *pk = pack_new();
	pack_load_builtin(pk);
	size_t builtin = pk->n_rules;
	struct diag_list dl;
	diag_init(&dl, ar, &pk->lookup, NULL);
	pack_load(pk, &dl, "team.yaml", text, strlen(text));
	cr_assert_eq(dl.n, 3);
	cr_expect(strstr(dl.items[0].message, "rule id 'TEAM001' is defined twice for the same targets"));
	cr_expect_eq(dl.items[0].loc.line, 4);
	cr_expect(strstr(dl.items[1].message, "rule TEAM002 (team-one) clashes with rule TEAM001 (team-one)"));
	cr_expect(strstr(dl.items[2].message, "rule TEAM001 (team-two) clashes with rule TEAM001 (team-one)"));
	cr_assert_eq(pk->n_rules, builtin + 3);
	const struct rule *first = pk->rules[builtin];
	cr_expect_eq(pack_find(pk, "TEAM001"), first);
	cr_expect_eq(pack_find(pk, "team-one"), first);
	cr_expect_eq(pack_find(pk, "CG101"), pack_find(pk, "te-rng-tracker-required"), "an id before a later name");
	cr_expect_eq(pack_find(pk, "TEAM003"), pk->rules[builtin + 2]);
	cr_expect_null(pack_find(pk, "TEAM002"));
	for (size_t k = 0; k < pk->n_rules; k++)
		cr_expect_eq(pk->lookup.index(pk, pk->rules[k]), k);
	diag_release(&dl);
	pack_free(pk);
	arena_free(ar);
}

Test(unit, compiled_packs_are_the_yaml)
{
	cr_assert_gt(pack_n_trees, 10);
	struct arena *ar = arena_new();
	for (size_t k = 0; k < pack_n_trees; k++) {
		size_t len;
		char *buf = harness_read(CGLINT_FIXTURES "/..", pack_trees[k].path, &len);
		struct diag_list dl;
		diag_init(&dl, ar, NULL, NULL);
		struct node *root = NULL;
		cr_assert_eq(fe_yaml_parse(ar, &dl, pack_trees[k].path, buf, len, &root), 0, "%s", pack_trees[k].path);
		same_tree(pack_trees[k].root, root);
		diag_release(&dl);
		free(buf);
	}
	arena_free(ar);
}

/* The string map's one-probe get-or-add: added once, the first value kept after, every entry
 * found again after the map grew, and the hashed lookups agree with the plain ones. */
Test(strmap, ref_adds_once_and_keeps_through_growth)
{
	struct strmap m = {0};
	char keys[1000][16];
	bool added;
	for (size_t k = 0; k < 1000; k++) {
		snprintf(keys[k], sizeof(keys[k]), "model.k%zu", k);
		size_t len = strlen(keys[k]);
		size_t *v = strmap_ref(&m, keys[k], len, strmap_hash(keys[k], len), k, &added);
		cr_assert(added && *v == k, "key %zu", k);
		v = strmap_ref(&m, keys[k], len, strmap_hash(keys[k], len), 7, &added);
		cr_assert(!added && *v == k, "key %zu again", k);
	}
	for (size_t k = 0; k < 1000; k++) {
		size_t v = 0, w = 0, len = strlen(keys[k]);
		cr_assert(strmap_get(&m, keys[k], len, &v) && v == k);
		cr_assert(strmap_get_hashed(&m, keys[k], len, strmap_hash(keys[k], len), &w) && w == k);
	}
	size_t v;
	cr_assert_not(strmap_get(&m, "model.k1000", 11, &v));
	cr_assert_not(strmap_get(&m, "model.k1", 7, &v), "a prefix is not the key");
	strmap_put(&m, keys[3], strlen(keys[3]), 42);
	cr_assert(strmap_get(&m, keys[3], strlen(keys[3]), &v) && v == 42, "put replaces");
	strmap_release(&m);
}

/* Texts formatted into an arena or a growing buffer, around the stack buffer's 256 bytes and a
 * buffer's room, come out whole. */
Test(mem, printf_texts_of_every_length)
{
	struct arena *ar = arena_new();
	struct sbuf sb;
	sbuf_init(&sb);
	char want[1200] = "";
	for (int n = 0; n < 600; n += 37) {
		char *s = arena_printf(ar, "%*s|", n, "x");
		cr_assert_eq(strlen(s), (size_t)n + (n ? 1 : 2), "arena_printf of %d", n);
		cr_assert_eq(s[strlen(s) - 1], '|');
		const char *piece = n < 100 ? "short" : "a longer piece of text";
		sbuf_printf(&sb, "%d:%s,", n, piece);
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%d:%s,", n, piece);
		cr_assert_str_eq(sb.buf, want);
		cr_assert_eq(sb.len, strlen(want));
	}
	sbuf_printf(&sb, "%s", "");
	cr_assert_eq(sb.len, strlen(want), "an empty text adds nothing");
	sbuf_release(&sb);
	arena_free(ar);
}

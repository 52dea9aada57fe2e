/* SPDX-License-Identifier: MIT */
/*
 * sg_table: the decision table of Bridge's CUDA-graph guide (the perf-cuda-graphs skill, "Quick
 * Decision"), as data: which row a model falls in, and the candidates of each row, strongest
 * first. The rules, not this table, decide which candidate a unit can take.
 */
#include "suggest/sg_int.h"

#include <string.h>

#include "base/mem.h"
#include "base/value.h"
#include "config/fact.h"
#include "config/target.h"

/* The rows. The guide: dense models attn, then attn+mlp; dropless MoE attn, moe_router,
 * moe_preprocess; `moe` only where the token counts are static (a capacity factor, padded);
 * hybrid models add mamba (as Bridge's Nemotron-H perf recipes do); local full_iteration only
 * when asked for. Narrower candidates follow, for the rules to fall back on. */
static const struct sgt_cand dense[] = {
	{"transformer_engine", {"attn", "mlp"}, 2, false},
	{"transformer_engine", {"attn"}, 1, false},
	{"transformer_engine", {"mlp"}, 1, false},
};
static const struct sgt_cand hybrid_dense[] = {
	{"transformer_engine", {"attn", "mamba", "mlp"}, 3, false},
	{"transformer_engine", {"attn", "mamba"}, 2, false},
	{"transformer_engine", {"mamba"}, 1, false},
	{"transformer_engine", {"attn"}, 1, false},
};
static const struct sgt_cand moe_static[] = {
	{"transformer_engine", {"attn", "moe"}, 2, false},
	{"transformer_engine", {"moe"}, 1, false},
};
static const struct sgt_cand moe[] = {
	{"transformer_engine", {"attn", "moe_router", "moe_preprocess"}, 3, false},
	{"transformer_engine", {"moe_router", "moe_preprocess"}, 2, false},
	{"transformer_engine", {"attn"}, 1, false},
};
static const struct sgt_cand hybrid_moe[] = {
	{"transformer_engine", {"attn", "mamba", "moe_router", "moe_preprocess"}, 4, false},
	{"transformer_engine", {"mamba", "moe_router", "moe_preprocess"}, 3, false},
	{"transformer_engine", {"attn", "mamba"}, 2, false},
	{"transformer_engine", {"mamba"}, 1, false},
};
static const struct sgt_cand full_iteration = {"local", {"full_iteration"}, 1, true};

static size_t add(struct sgt_cand *out, size_t n, const struct sgt_cand *c, size_t m)
{
	for (size_t k = 0; k < m && n < SGT_MAX_CANDS; k++)
		out[n++] = c[k];
	return n;
}

size_t sgt_candidates(const struct sgt_class *c, bool allow_fi, struct sgt_cand *out)
{
	size_t n = 0;
	if (allow_fi)
		out[n++] = full_iteration;
	if (c->moe && c->static_tokens && !c->hybrid)
		n = add(out, n, moe_static, sizeof(moe_static) / sizeof(*moe_static));
	if (c->moe)
		return c->hybrid ? add(out, n, hybrid_moe, sizeof(hybrid_moe) / sizeof(*hybrid_moe))
				 : add(out, n, moe, sizeof(moe) / sizeof(*moe));
	return c->hybrid ? add(out, n, hybrid_dense, sizeof(hybrid_dense) / sizeof(*hybrid_dense))
			 : add(out, n, dense, sizeof(dense) / sizeof(*dense));
}

static bool truthy(const struct facts *t, const char *key)
{
	struct value v = facts_value(t, key);
	return value_truth(&v) == TRI_TRUE;
}

static bool set_string(const struct facts *t, const char *key)
{
	struct value v = facts_value(t, key);
	return v.kind == V_STR && v.s[0];
}

static bool branch(struct sgt_branch *b, const char *key, struct value v0, const char *l0, struct value v1,
		   const char *l1)
{
	*b = (struct sgt_branch){.key = key, .n = 2, .vals = {v0, v1}, .labels = {l0, l1}};
	return false;
}

static struct value number(long long i)
{
	return (struct value){.kind = V_INT, .i = i};
}

bool sgt_classify(const struct facts *post, struct arena *a, struct sgt_class *c, struct sgt_branch *b)
{
	*c = (struct sgt_class){0};
	/* hybrid only where the facts say so: a model not known to be hybrid gets no mamba scope,
	 * which is narrower, never wrong */
	c->hybrid = truthy(post, "model.is_hybrid_model") || set_string(post, "model.hybrid_layer_pattern") ||
		    set_string(post, "model.hybrid_override_pattern");
	struct value experts = facts_value(post, "model.num_moe_experts");
	if (experts.kind == V_UNKNOWN)
		return branch(b, "model.num_moe_experts", value_null, "dense", number(8), "MoE");
	double ne = 0;
	c->moe = value_is_number(&experts, &ne) && ne > 0;
	const char *kind = c->hybrid ? "hybrid " : "";
	if (!c->moe) {
		c->row = arena_printf(a, "%sdense", kind);
		c->because = arena_printf(a, "num_moe_experts %s", value_string(a, &experts, false));
		return true;
	}
	struct value cap = facts_value(post, "model.moe_expert_capacity_factor");
	if (cap.kind == V_UNKNOWN)
		return branch(b, "model.moe_expert_capacity_factor", value_null, "dropless",
			      (struct value){.kind = V_FLOAT, .f = 1.0}, "capacity factor");
	if (cap.kind == V_NULL) {
		c->row = arena_printf(a, "dropless %sMoE", kind);
		c->because = arena_printf(a, "num_moe_experts %s, moe_expert_capacity_factor unset",
					  value_string(a, &experts, false));
		return true;
	}
	struct value pad = facts_value(post, "model.moe_pad_expert_input_to_capacity");
	if (pad.kind == V_UNKNOWN)
		return branch(b, "model.moe_pad_expert_input_to_capacity", value_bool(false), "no padding",
			      value_bool(true), "padded");
	c->static_tokens = value_truth(&pad) == TRI_TRUE;
	c->row = arena_printf(a, c->static_tokens ? "%sMoE with static token counts" : "token-dropping %sMoE", kind);
	c->because = arena_printf(a, "num_moe_experts %s, moe_expert_capacity_factor %s, %s",
				  value_string(a, &experts, false), value_string(a, &cap, false),
				  c->static_tokens ? "padded to capacity" : "not padded");
	return true;
}

int sgt_rank(const char *impl, const struct value *scope)
{
	if (!impl || !strcmp(impl, "none"))
		return 0;
	if (!strcmp(impl, "full_iteration"))
		return 100;
	if (scope->kind == V_STR) {     /* one name, or MCore's comma string: "full_iteration", "attn,mlp" */
		int r = 0;
		for (const char *p = scope->s; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
			r += !strncmp(p, "full_iteration", strcspn(p, ",")) && strcspn(p, ",") == 14 ? 100
			   : !strncmp(p, "full", strcspn(p, ",")) && strcspn(p, ",") == 4 ? 50 : 1;
		return r ? r : 50;
	}
	if (scope->kind != V_LIST)
		return 1;
	int r = 0;
	for (size_t k = 0; k < scope->n; k++) {
		const char *s = scope->items[k].kind == V_STR ? scope->items[k].s : "";
		/* full_iteration_inference: an inference server's whole-step graph, which Megatron-LM
		 * 0.18+ moves to inference_cuda_graph_scope (arguments.py core_v0.19.0 L274-290); no
		 * training candidate outranks the unit's own choice of it */
		r += !strcmp(s, "full_iteration") || !strcmp(s, "full_iteration_inference") ? 100
		   : !strcmp(s, "moe") ? 3 : !strcmp(s, "full") ? 50 : 1;
	}
	return r ? r : 50;      /* an empty list: whole layers */
}

const char *sgt_impl_key(enum sg_lang lang)
{
	return lang == SG_HARNESS ? "perf.cuda_graph_impl" : "model.cuda_graph_impl";
}

const char *sgt_scope_key(enum sg_lang lang, const struct target *tg, const struct facts *pre)
{
	if (lang == SG_HARNESS)
		return "perf.cuda_graph_scope";
	if (tg->mcore < 180)
		return "model.cuda_graph_scope";
	/* From 0.18 cuda_graph_modules, unless the unit writes the deprecated scope itself: MCore
	 * asserts the two are not both set, and a helper such as Bridge's set_cuda_graph_modules
	 * may have set modules where cglint cannot see (CG131). A Megatron-LM script that writes the
	 * hidden --cuda-graph-scope keeps it: arguments.py (core_v0.19.0 L615-621) moves it into
	 * cuda_graph_modules, so a second flag beside it would fail that assert. */
	return sgt_scope_written(pre) ? "model.cuda_graph_scope" : "model.cuda_graph_modules";
}

const struct fact *sgt_scope_written(const struct facts *pre)
{
	const struct fact *f = facts_get(pre, "model.cuda_graph_scope");
	return f && strcmp(f->layer, "default") && (f->raw.kind == V_STR || f->raw.kind == V_LIST) ? f : NULL;
}

/* Settings a rule's finding names that its pack gives no autofix for, and the packed-sequence
 * settings Bridge's own harness writes with graphs (BR-13c: pad_cu_seqlens, pad_to_max_length),
 * which are also taken where the rule stays undecided, but only on an offline-packed dataset
 * ('guard' known to be set): on any other dataset they would pad for nothing. */
static const struct sgt_companion companions[] = {
	{"CG201", "env.NCCL_GRAPH_REGISTER", "0", NULL},        /* expandable segments with TE graphs */
	{"CG156", "model.cuda_graph_warmup_steps", "3", NULL},  /* warmup before capture, with offloading */
	{"CG173", "dataset.offline_packing_specs.pad_cu_seqlens", "true", "dataset.offline_packing_specs"},
	{"CG172", "dataset.dataset_kwargs.pad_to_max_length", "true", "dataset.offline_packing_specs"},
	{"CG171", "dataset.dataset_kwargs.pad_to_max_length", "true", "dataset.offline_packing_specs"},
	/* the deprecated booleans beside an impl: MCore's migration already made them that impl */
	{"CG126", "model.enable_cuda_graph", "false", NULL},
	{"CG126", "model.external_cuda_graph", "false", NULL},
};

const struct sgt_companion *sgt_companion_next(const struct sgt_companion *after)
{
	size_t k = after ? (size_t)(after - companions) + 1 : 0;
	return k < sizeof(companions) / sizeof(*companions) ? &companions[k] : NULL;
}

const struct sgt_companion *sgt_companion(const char *rule_id)
{
	for (size_t k = 0; k < sizeof(companions) / sizeof(*companions); k++)
		if (!strcmp(companions[k].rule, rule_id))
			return &companions[k];
	return NULL;
}

/* The guide's enablement blocks: both RNG-tracker flags with every impl (Bridge's provider asserts
 * the model's, its RNG setup reads the other); full iteration turns both NaN checks off. The
 * harness sets all of these itself (BR-13). */
static const char *const bridge_always[] = {"model.use_te_rng_tracker", "true", "rng.te_rng_tracker", "true", NULL};
static const char *const bridge_fi[] = {"model.use_te_rng_tracker", "true", "rng.te_rng_tracker", "true",
					"rerun_state_machine.check_for_nan_in_loss", "false",
					"ddp.check_for_nan_in_grad", "false", NULL};
static const char *const nothing[] = {NULL};

const char *const *sgt_always(enum sg_lang lang, const struct target *tg, bool fi)
{
	if (lang == SG_HARNESS || tg->bridge == TARGET_NO_BRIDGE)
		return nothing;
	return fi ? bridge_fi : bridge_always;
}

const char *sgt_mlm_flag(struct arena *a, const char *key)
{
	if (!strcmp(key, "rng.te_rng_tracker"))
		return "--te-rng-tracker";
	if (strncmp(key, "model.", 6))
		return NULL;
	char *f = arena_printf(a, "--%s", key + 6);
	for (char *p = f + 2; *p; p++)
		*p = *p == '_' ? '-' : *p;
	return f;
}

bool sgt_writable(enum sg_lang lang, const char *key)
{
	switch (lang) {
	case SG_HARNESS: return !strncmp(key, "perf.", 5) || !strncmp(key, "env.", 4);
	case SG_MLM: return !strncmp(key, "model.", 6) || !strncmp(key, "env.", 4) || !strcmp(key, "rng.te_rng_tracker");
	default: return !strncmp(key, "runtime.", 8) ? false : true;
	}
}

/* A scope string as MCore splits it ("attn,mlp"; "full_iteration"), as a list. */
static struct value split_names(struct value v, struct value *items, size_t cap)
{
	if (v.kind != V_STR)
		return v;
	size_t n = 0;
	for (const char *p = v.s; *p && n < cap; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
		items[n++] = (struct value){.kind = V_STR, .s = p};
	return (struct value){.kind = V_LIST, .items = items, .n = n};
}

static bool same_name(const struct value *v, const char *s)
{
	size_t m = strcspn(v->s, ","), k = strcspn(s, ",");
	return m == k && !strncmp(v->s, s, m);
}

static bool has(const struct value *l, const char *s)
{
	for (size_t k = 0; k < l->n; k++)
		if (l->items[k].kind == V_STR && same_name(&l->items[k], s))
			return true;
	return false;
}

bool sgt_same_scope(const struct value *a0, const struct value *b0)
{
	struct value ia[8], ib[8];
	struct value av = split_names(*a0, ia, 8), bv = split_names(*b0, ib, 8);
	const struct value *a = &av, *b = &bv;
	if (a->kind != V_LIST || b->kind != V_LIST)
		return value_equal(a, b) && a->kind == b->kind;
	for (size_t k = 0; k < a->n; k++)
		if (a->items[k].kind != V_STR || !has(b, a->items[k].s))
			return false;
	for (size_t k = 0; k < b->n; k++)
		if (b->items[k].kind != V_STR || !has(a, b->items[k].s))
			return false;
	return true;
}

/* Config fields that are plain dicts: a patch writes their items, not attributes. */
static const char *const dict_fields[] = {"dataset.dataset_kwargs."};

size_t sgt_dict_key(const char *key)
{
	for (size_t k = 0; k < sizeof(dict_fields) / sizeof(*dict_fields); k++)
		if (!strncmp(key, dict_fields[k], strlen(dict_fields[k])))
			return strlen(dict_fields[k]) - 1;
	return 0;
}

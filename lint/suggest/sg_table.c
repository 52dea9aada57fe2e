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
	if (scope->kind != V_LIST)
		return 1;
	int r = 0;
	for (size_t k = 0; k < scope->n; k++) {
		const char *s = scope->items[k].kind == V_STR ? scope->items[k].s : "";
		r += !strcmp(s, "full_iteration") ? 100 : !strcmp(s, "moe") ? 3 : 1;
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
	/* a unit that moved to cuda_graph_modules keeps it; Megatron-LM from 0.18 has only that flag */
	if (facts_get(pre, "model.cuda_graph_modules") && !facts_get(pre, "model.cuda_graph_scope"))
		return "model.cuda_graph_modules";
	return lang == SG_MLM && tg->mcore >= 180 ? "model.cuda_graph_modules" : "model.cuda_graph_scope";
}

/* Rules whose pack has no autofix, and the setting the rule's fix names. */
static const struct {
	const char *rule, *key, *value;
} companions[] = {
	{"CG201", "env.NCCL_GRAPH_REGISTER", "0"},      /* expandable segments with TE graphs */
	{"CG156", "model.cuda_graph_warmup_steps", "3"}, /* warmup before capture, with offloading */
};

const char *sgt_companion(const char *rule_id, const char **value)
{
	for (size_t k = 0; k < sizeof(companions) / sizeof(*companions); k++)
		if (!strcmp(companions[k].rule, rule_id)) {
			*value = companions[k].value;
			return companions[k].key;
		}
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

bool sgt_writable(enum sg_lang lang, const char *key)
{
	switch (lang) {
	case SG_HARNESS: return !strncmp(key, "perf.", 5) || !strncmp(key, "env.", 4);
	case SG_MLM: return !strncmp(key, "model.", 6) || !strncmp(key, "env.", 4) || !strcmp(key, "rng.te_rng_tracker");
	default: return !strncmp(key, "runtime.", 8) ? false : true;
	}
}

static bool has(const struct value *l, const char *s)
{
	for (size_t k = 0; k < l->n; k++)
		if (l->items[k].kind == V_STR && !strcmp(l->items[k].s, s))
			return true;
	return false;
}

bool sgt_same_scope(const struct value *a, const struct value *b)
{
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

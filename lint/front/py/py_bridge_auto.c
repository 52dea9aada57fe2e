/* SPDX-License-Identifier: MIT */
/*
 * py_bridge_auto: AutoBridge.from_hf_pretrained(ID).to_megatron_provider(...) as Megatron-Bridge
 * builds it (see py_fn.h), read from the Bridge on the search path: the model bridge registered for the
 * config's architecture (@MegatronModelBridge.register_bridge(source=..., provider=...)), its
 * provider class with its defaults, the HF fields its CONFIG_MAPPING carries over, and the
 * provider fields its provider_bridge() sets (MegatronModelBridge.provider_bridge, then the
 * subclass's statements). What cannot be read that way is unknown, naming why.
 */
#include <stdio.h>
#include <stdlib.h>

#include "front/py/fe_py_lit.h"
#include "front/py/py_bridge.h"
#include "front/py/py_fn.h"
#include "front/py/py_hf.h"

#define MAX_CHAIN 6             /* bridge classes followed up through their bases */

/* What one AutoBridge call resolves to. */
struct resolved {
	struct py_hf_config hf;
	struct py_bridge_found br;
};

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

/* ---- the call ---- */

/* The from_hf_pretrained(...) call under '<it>.to_megatron_provider(...)', or a null node. */
static TSNode pretrained_call(struct fn *f, TSNode call)
{
	TSNode none = {0}, fn = py_field(call, "function");
	const char *callee = py_text(f, fn);
	if (!strcmp(callee, "cast") || !strcmp(callee, "typing.cast")) {      /* cast(T, x) is x */
		TSNode args = py_field(call, "arguments");
		TSNode x = ts_node_named_child_count(args) == 2 ? ts_node_named_child(args, 1) : none;
		return py_is(x, "call") ? pretrained_call(f, x) : none;
	}
	if (!py_is(fn, "attribute") || strcmp(py_text(f, py_field(fn, "attribute")), "to_megatron_provider"))
		return none;
	TSNode obj = py_field(fn, "object");
	TSNode of = py_is(obj, "call") ? py_field(obj, "function") : none;
	if (!py_is(of, "attribute") ||
	    strcmp(py_text(f, py_field(of, "attribute")), "from_hf_pretrained"))
		return none;
	return obj;
}

/* ---- building the provider's fields ---- */

struct build {
	struct fn *f;
	struct resolved *r;
	const char *key;        /* the section: "#0.model" */
	struct loc at;          /* the call in the file linted */
	const char *id;         /* the model id, for messages */
	const char *changed[8]; /* HF config fields provider_bridge writes, in order */
	size_t n_changed;       /* (hf_config.tie_word_embeddings = ..., vision_config.torch_dtype = ...) */
};

/* A field the provider is built with: Bridge keeps only the class's own (valid_fields); one of a
 * class cglint cannot read whole is kept (the fields rules read are TransformerConfig's). */
static void set_kwarg(struct build *b, const char *name, struct value v, const char *why);

static void set(struct build *b, const char *name, struct value v, const char *why)
{
	v.loc = b->at;
	py_unit_put(&b->f->log, arena_join(b->f->a, b->key, ".", name), v, b->at,
		    v.kind == V_UNKNOWN ? why : NULL);
}

static void set_kwarg(struct build *b, const char *name, struct value v, const char *why)
{
	if (py_class_has_field(b->f->session, b->r->br.pm, b->r->br.pk, name) != TRI_FALSE)
		set(b, name, v, why);
}

static void set_unknown(struct build *b, const char *name, const char *why)
{
	set_kwarg(b, name, value_unknown, arena_printf(b->f->a, "%s (from the Hugging Face config of '%s')", why, b->id));
}

static bool hf_str(const struct py_hf_config *c, const char *name, const char **out)
{
	struct value v;
	if (!py_hf_get(c, name, &v) || v.kind != V_STR)
		return false;
	*out = v.s;
	return true;
}

/* The rope_scaling type Bridge reads (rope_scaling["type"] or ["rope_type"]), or NULL. */
static const char *rope_type(const struct py_hf_config *c)
{
	struct value rs;
	if (!py_hf_get(c, "rope_scaling", &rs) || rs.kind != V_MAP)
		return NULL;
	for (const char *want = "type";; want = "rope_type") {
		for (size_t k = 0; k + 1 < rs.n; k += 2)
			if (!strcmp(rs.items[k].s, want) && rs.items[k + 1].kind == V_STR && *rs.items[k + 1].s)
				return rs.items[k + 1].s;
		if (!strcmp(want, "rope_type"))
			return NULL;
	}
}

/* transformers' config classes, by model_type, and the CONFIG_MAPPING names they do not define:
 * one config.json leaves out is not an attribute then, so Bridge passes nothing and the
 * provider's default stands. Only the groups no release of the class has defined (MoE, MLA and
 * MTP fields for dense families); any other name left out is unknown. */
static const char *const hf_moe = " num_experts num_local_experts num_experts_per_tok moe_intermediate_size "
				  "router_aux_loss_coef ";
static const char *const hf_moe_other = " aux_loss_alpha scoring_func n_routed_experts n_group topk_group "
					"routed_scaling_factor ";
static const char *const hf_mla_mtp = " q_lora_rank kv_lora_rank qk_nope_head_dim qk_rope_head_dim v_head_dim "
				      "num_nextn_predict_layers mtp_num_hidden_layers ";
static const struct {
	const char *model_type;
	bool moe;       /* defines the MoE fields of hf_moe */
} hf_classes[] = {
	{"llama", false}, {"mistral", false}, {"qwen2", false}, {"qwen3", false}, {"qwen3_moe", true},
	{"qwen2_moe", true},
	/* dense families whose configuration_*.py defines none of these names (read 2026-11-29): a
	 * vision-language config's own type and its text config's */
	{"gemma2", false}, {"gemma3", false}, {"gemma3_text", false}, {"exaone4", false},
	{"qwen2_5_vl", false}, {"qwen2_5_vl_text", false}, {"qwen3_vl", false}, {"qwen3_vl_text", false},
	{"qwen3_5", false}, {"qwen3_5_text", false},
};

static bool in_words(const char *words, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = words; (p = strstr(p, name)); p += n)
		if (p[-1] == ' ' && p[n] == ' ')
			return true;
	return false;
}

static bool hf_undefined(const char *model_type, const char *name)
{
	for (size_t k = 0; model_type && k < sizeof(hf_classes) / sizeof(*hf_classes); k++)
		if (!strcmp(hf_classes[k].model_type, model_type))
			return in_words(hf_mla_mtp, name) || in_words(hf_moe_other, name) ||
			       (!hf_classes[k].moe && in_words(hf_moe, name));
	return false;
}

/* MegatronModelBridge.provider_bridge (conversion/model_bridge.py): the provider class built
 * from the fields CONFIG_MAPPING carries over, then the dtype, rope and activation fields
 * hf_config_to_provider_kwargs computes. An HF field the config.json leaves out may still be a
 * default of transformers' config class: cglint does not know those, so that field is unknown. */
/* The provider class a bridge builds: its defaults first (py_class), as its constructor leaves them. */
static void construct(struct build *b, struct mod *m, struct klass *k)
{
	b->r->br.pm = m;
	b->r->br.pk = k;
	py_class_defaults_of(b->f, m, k, b->key, b->at, py_bridge_defaults_known(k->name));
}

/* Whether one of the first n HF config writes of provider_bridge is to a field 'name'. */
static bool changed_first(const struct build *b, size_t n, const char *name)
{
	for (size_t k = 0; k < n && k < b->n_changed; k++)
		if (!strcmp(b->changed[k], name))
			return true;
	return false;
}

/* hf_config_to_provider_kwargs(c): the fields CONFIG_MAPPING carries over, the dtype, rope and
 * activation fields, as keywords of the provider class; the first n_changed writes to the HF
 * config came before it, and what they wrote is unknown. */
static const char *kwargs_from(struct build *b, const struct py_hf_config *c, size_t n_changed)
{
	struct fn *f = b->f;
	struct value map, v;
	if (!py_bridge_reg_mapping(f, b->r->br.bm, b->r->br.bk, &map))
		return arena_printf(f->a, "cglint cannot read %s's CONFIG_MAPPING", b->r->br.bk->name);
	if (changed_first(b, n_changed, "rope_scaling"))        /* the rope and yarn fields follow from it */
		return arena_printf(f->a, "%s changes the Hugging Face config's rope_scaling", b->r->br.bk->name);
	const char **done = arena_alloc(f->a, (map.n + 1) * sizeof(*done));
	size_t n_done = 0;
	for (size_t k = 0; k < map.n; k++) {
		const struct value *pair = &map.items[k];
		if (pair->kind != V_LIST || pair->n != 2 || pair->items[0].kind != V_STR || pair->items[1].kind != V_STR ||
		    strchr(pair->items[0].s, '.'))
			continue;       /* dotted names reach into dicts: only where a bridge adds them */
		const char *hf = pair->items[0].s, *meg = pair->items[1].s;
		bool seen = false;
		for (size_t j = 0; j < n_done && !seen; j++)
			seen = !strcmp(done[j], meg);
		if (seen)
			continue;
		if (py_hf_get(c, hf, &v)) {
			done[n_done++] = meg;   /* the first HF name present wins */
			if (changed_first(b, n_changed, hf))
				set_unknown(b, meg, arena_printf(f->a, "from the Hugging Face config's '%s', which %s "
								 "changes first", hf, b->r->br.bk->name));
			else
				set_kwarg(b, meg, v, NULL);
		}
	}
	/* mapped fields no name of which config.json holds: the config class may define one */
	for (size_t k = 0; k < map.n; k++) {
		const struct value *pair = &map.items[k];
		if (pair->kind != V_LIST || pair->n != 2 || pair->items[1].kind != V_STR)
			continue;
		bool seen = false;
		for (size_t j = 0; j < n_done && !seen; j++)
			seen = !strcmp(done[j], pair->items[1].s);
		if (!seen && !strchr(pair->items[0].s, '.') && !hf_undefined(b->r->hf.model_type, pair->items[0].s)) {
			done[n_done++] = pair->items[1].s;
			set_unknown(b, pair->items[1].s,
				    arena_printf(f->a, "config.json leaves out '%s', which transformers' %s config "
					     "class may default", pair->items[0].s,
					     b->r->hf.model_type ? b->r->hf.model_type : "(no model_type)"));
		}
	}
	if (changed_first(b, n_changed, "rope_theta"))
		set_unknown(b, "rotary_base", "a rope_theta the bridge changes first");
	else if (!py_hf_get(c, "rope_theta", &v))
		set_unknown(b, "rotary_base", "rope_theta read through transformers' rope_parameters");
	const char *dt = NULL;
	bool has_dt = hf_str(c, "torch_dtype", &dt) || hf_str(c, "dtype", &dt);
	if (changed_first(b, n_changed, "torch_dtype") || changed_first(b, n_changed, "dtype")) {
		set_unknown(b, "bf16", "a torch_dtype the bridge changes first");
		set_unknown(b, "fp16", "a torch_dtype the bridge changes first");
	} else if (!has_dt && (py_hf_get(c, "torch_dtype", &v) || py_hf_get(c, "dtype", &v))) {
		set_unknown(b, "bf16", "a torch_dtype that is not a string");
		set_unknown(b, "fp16", "a torch_dtype that is not a string");
	} else {
		/* dtype_from_hf: no torch_dtype is float32 */
		set_kwarg(b, "bf16", value_bool(has_dt && !strcmp(dt, "bfloat16")), NULL);
		set_kwarg(b, "fp16", value_bool(has_dt && !strcmp(dt, "float16")), NULL);
	}
	set_unknown(b, "params_dtype", "a torch dtype");
	set_unknown(b, "activation_func", "a function named by hidden_act");
	set_unknown(b, "make_vocab_size_divisible_by", "computed from vocab_size");
	const char *rt = rope_type(c);
	static const char *const yarn[] = {"yarn_rotary_scaling_factor", "yarn_original_max_position_embeddings",
					   "yarn_beta_fast", "yarn_beta_slow", "yarn_mscale", "yarn_mscale_all_dim",
					   "yarn_correction_range_round_to_int"};
	enum tri is_mla = py_class_has_field(f->session, b->r->br.pm, b->r->br.pk, "kv_lora_rank");
	for (size_t k = 0; rt && !strcmp(rt, "yarn") && is_mla != TRI_TRUE && k < sizeof(yarn) / sizeof(*yarn); k++)
		set_unknown(b, yarn[k], "rope_scaling (yarn)");
	if (rt && !strcmp(rt, "yarn") && is_mla != TRI_TRUE)
		set_kwarg(b, "position_embedding_type", is_mla == TRI_FALSE ? value_str("yarn") : value_unknown,
			  "from rope_scaling (yarn), for a provider that is not an MLA one");
	return NULL;
}

/* MegatronModelBridge.provider_bridge: PROVIDER_CLASS(**kwargs) filtered to its fields, then
 * the MLA rope parameters and position_embedding_type set on it. */
static const char *base_provider(struct build *b)
{
	struct fn *f = b->f;
	const struct py_hf_config *c = &b->r->hf;
	construct(b, b->r->br.pm, b->r->br.pk);
	const char *why = kwargs_from(b, c, b->n_changed);  /* super().provider_bridge(): the writes so far */
	if (why)
		return why;
	const char *rt = rope_type(c);
	enum tri is_mla = py_class_has_field(f->session, b->r->br.pm, b->r->br.pk, "kv_lora_rank");
	bool mla = is_mla == TRI_TRUE, yarn_type = rt && !strcmp(rt, "yarn");
	static const char *const mla_rope[] = {"rotary_scaling_factor", "original_max_position_embeddings", "beta_fast",
					       "beta_slow", "mscale", "mscale_all_dim"};
	for (size_t k = 0; mla && k < sizeof(mla_rope) / sizeof(*mla_rope); k++)
		set_unknown(b, mla_rope[k], "rope_scaling (Bridge's MLA rope parameters)");
	if (yarn_type && is_mla == TRI_UNKNOWN)
		set(b, "position_embedding_type", value_unknown, "yarn for a GPT provider, rope for an MLA one");
	else
		set(b, "position_embedding_type", value_str(yarn_type && !mla ? "yarn" : "rope"), NULL);
	return NULL;
}

/* ---- a bridge's own provider_bridge() ---- */

#define MAX_NAMES 8     /* names a provider_bridge binds to HF configs */

struct scan {
	struct build *b;
	struct mod *m;
	const char *cls;        /* "LlamaBridge.provider_bridge", for messages */
	const char *provider;   /* the name bound to the provider ("provider") */
	bool built;             /* the provider exists: the base's, or a class built here */
	bool helper;            /* a function the method hands the provider to */
	const char *hf_param;   /* the method's HF parameter ("hf_pretrained"), NULL in a helper */
	const char *names[MAX_NAMES];   /* names bound to an HF config ("hf_config", "text_config") */
	const struct py_hf_config *cfgs[MAX_NAMES];
	size_t n_names;
	const char *kw_name;    /* provider_kwargs = self.hf_config_to_provider_kwargs(CFG) */
	const struct py_hf_config *kw_cfg;
	size_t kw_changed;      /* the HF config writes made before it */
	unsigned depth;
};

static const char *stext(struct scan *s, TSNode n)
{
	return py_node_text(s->b->f->a, s->m->src, n);
}

/* Whether 'n' holds the identifier 'name' anywhere. */
static bool mentions(struct scan *s, TSNode n, const char *name, unsigned depth)
{
	if (!name)
		return false;
	if (py_is(n, "identifier"))
		return !strcmp(stext(s, n), name);
	for (uint32_t k = 0; depth < 64 && k < ts_node_named_child_count(n); k++)
		if (mentions(s, ts_node_named_child(n, k), name, depth + 1))
			return true;
	return false;
}

/* Whether every use of 'name' in 'n' reads it: name.get(...). */
static bool only_gets(struct scan *s, TSNode n, const char *name, unsigned depth)
{
	if (py_is(n, "call")) {
		TSNode fn = py_field(n, "function");
		if (py_is(fn, "attribute") && !strcmp(stext(s, py_field(fn, "attribute")), "get") &&
		    py_is(py_field(fn, "object"), "identifier") && !strcmp(stext(s, py_field(fn, "object")), name))
			return only_gets(s, py_field(n, "arguments"), name, depth + 1);
	}
	if (py_is(n, "identifier"))
		return strcmp(stext(s, n), name);
	for (uint32_t k = 0; depth < 64 && k < ts_node_named_child_count(n); k++)
		if (!only_gets(s, ts_node_named_child(n, k), name, depth + 1))
			return false;
	return true;
}

/* The HF config an expression is: hf_pretrained.config, a name bound to one, X.text_config. */
static const struct py_hf_config *config_of(struct scan *s, TSNode e)
{
	struct fn *f = s->b->f;
	if (py_is(e, "identifier"))
		for (size_t k = 0; k < s->n_names; k++)
			if (!strcmp(stext(s, e), s->names[k]))
				return s->cfgs[k];
	TSNode args = py_is(e, "call") ? py_field(e, "arguments") : e;
	struct value name;
	if (py_is(e, "call") && !strcmp(stext(s, py_field(e, "function")), "getattr") &&
	    ts_node_named_child_count(args) == 3 &&
	    fe_py_lit_value(f->a, s->m->path, s->m->src, ts_node_named_child(args, 1), &name, 0) && name.kind == V_STR) {
		/* getattr(hf_config, "text_config", hf_config) */
		const struct py_hf_config *parent = config_of(s, ts_node_named_child(args, 0));
		struct py_hf_config *sub = parent ? arena_alloc(f->a, sizeof(*sub)) : NULL;
		struct value v;
		if (sub && py_hf_sub(f->a, parent, name.s, sub))
			return sub;
		return parent && !py_hf_get(parent, name.s, &v) ? config_of(s, ts_node_named_child(args, 2)) : NULL;
	}
	if (!py_is(e, "attribute"))
		return NULL;
	const char *attr = stext(s, py_field(e, "attribute"));
	if (s->hf_param && !strcmp(attr, "config") && !strcmp(stext(s, py_field(e, "object")), s->hf_param))
		return &s->b->r->hf;
	const struct py_hf_config *parent = config_of(s, py_field(e, "object"));
	struct py_hf_config *sub = parent ? arena_alloc(f->a, sizeof(*sub)) : NULL;
	return sub && py_hf_sub(f->a, parent, attr, sub) ? sub : NULL;
}

/* The value a provider field is set to: a literal; CFG.name or getattr(CFG, "name", d), where
 * config.json holds it; 'not' of one. Else unknown, saying what it was set to. */
static struct value written(struct scan *s, TSNode e, const char **why)
{
	struct fn *f = s->b->f;
	struct value v, name;
	const struct py_hf_config *c;
	*why = NULL;
	if (fe_py_lit_value(f->a, s->m->path, s->m->src, e, &v, 0))
		return v;
	bool neg = py_is(e, "not_operator");
	TSNode x = neg ? py_field(e, "argument") : e, args = py_is(x, "call") ? py_field(x, "arguments") : x;
	bool got = false;
	if (py_is(x, "attribute") && (c = config_of(s, py_field(x, "object"))))
		got = py_hf_get(c, stext(s, py_field(x, "attribute")), &v);
	else if (py_is(x, "call") && !strcmp(stext(s, py_field(x, "function")), "getattr") &&
		 ts_node_named_child_count(args) >= 2 && (c = config_of(s, ts_node_named_child(args, 0))) &&
		 fe_py_lit_value(f->a, s->m->path, s->m->src, ts_node_named_child(args, 1), &name, 0) && name.kind == V_STR)
		got = py_hf_get(c, name.s, &v);         /* present: the default is not used */
	const char *field = got && py_is(x, "attribute") ? stext(s, py_field(x, "attribute")) : got ? name.s : NULL;
	if (field && changed_first(s->b, s->b->n_changed, field)) {
		*why = arena_printf(f->a, "set by Megatron-Bridge's %s from the Hugging Face config's '%s', "
				    "which it changes first", s->cls, field);
		return value_unknown;
	}
	if (got && (!neg || value_truth(&v) != TRI_UNKNOWN))
		return neg ? value_bool(value_truth(&v) == TRI_FALSE) : v;
	*why = arena_printf(f->a, "set by Megatron-Bridge's %s to '%s', which cglint does not compute", s->cls,
			    py_node_snippet(f->a, s->m->src, e));
	return value_unknown;
}

/* In 'provider.X.Y... = v', the node 'provider.X' (a field of the provider whose own fields are
 * written); a null node for anything else. */
static TSNode provider_field(struct scan *s, TSNode t)
{
	TSNode none = {0};
	for (unsigned depth = 0; py_is(t, "attribute") && depth < 16; depth++) {
		TSNode o = py_field(t, "object");
		if (py_is(o, "attribute") && py_is(py_field(o, "object"), "identifier") && s->provider &&
		    !strcmp(stext(s, py_field(o, "object")), s->provider))
			return o;
		t = o;
	}
	return none;
}

/* Every 'provider.X = ...' under a statement cglint does not run line by line: X unknown. */
static void unknown_writes(struct scan *s, TSNode n, const char *why, unsigned depth)
{
	if (py_is(n, "assignment") || py_is(n, "augmented_assignment")) {
		TSNode l = py_field(n, "left");
		while (py_is(l, "attribute") || py_is(l, "subscript")) {
			TSNode o = py_field(l, py_is(l, "attribute") ? "object" : "value");
			if (py_is(o, "identifier") && !strcmp(stext(s, o), s->provider) && py_is(l, "attribute"))
				set(s->b, stext(s, py_field(l, "attribute")), value_unknown, why);
			l = o;
		}
	}
	for (uint32_t k = 0; depth < 64 && k < ts_node_named_child_count(n); k++)
		unknown_writes(s, ts_node_named_child(n, k), why, depth + 1);
}

static const char *run_bridge(struct build *b, struct mod *m, struct klass *k, unsigned depth);
static const char *body(struct scan *s, TSNode stmts, struct klass *k);

/* P = Cls(**provider_kwargs, x=...): the class built here, its defaults, then its arguments. */
static const char *build_here(struct scan *s, TSNode call)
{
	struct fn *f = s->b->f;
	struct mod *cm = NULL;
	TSNode fn = py_field(call, "function"), args = py_field(call, "arguments");
	struct klass *k = py_is(fn, "identifier") ? py_bridge_reg_class(f->session, s->m, stext(s, fn), &cm) : NULL;
	if (!k)
		return arena_printf(f->a, "%s builds its provider with '%s'", s->cls, py_node_snippet(f->a, s->m->src, call));
	construct(s->b, cm, k);
	for (uint32_t i = 0; i < ts_node_named_child_count(args); i++) {
		TSNode a = ts_node_named_child(args, i);
		if (py_is(a, "dictionary_splat") && s->kw_name && !strcmp(stext(s, ts_node_named_child(a, 0)), s->kw_name)) {
			const char *why = kwargs_from(s->b, s->kw_cfg, s->kw_changed);
			if (why)
				return why;
		} else if (py_is(a, "keyword_argument")) {
			const char *why;
			struct value v = written(s, py_field(a, "value"), &why);
			set(s->b, stext(s, py_field(a, "name")), v, why);
		} else if (!py_is(a, "comment")) {
			return arena_printf(f->a, "%s builds its provider with '%s'", s->cls, py_node_snippet(f->a, s->m->src, a));
		}
	}
	s->built = true;
	return NULL;
}

/* helper(provider, text_config): a module-level function of the bridge's module, its body run
 * with the provider and configs it is handed. */
static const char *helper(struct scan *s, TSNode call)
{
	struct fn *f = s->b->f;
	TSNode fn = py_field(call, "function"), args = py_field(call, "arguments");
	struct mod *hm = NULL;
	size_t d;
	if (!py_is(fn, "identifier") || s->depth > MAX_CHAIN || !fe_py_mod_lookup(f->session, s->m, stext(s, fn), 0, &hm, &d))
		return arena_printf(f->a, "%s changes the provider through '%s'", s->cls, py_node_snippet(f->a, s->m->src, call));
	TSNode def = hm->defs[d].node, params = py_field(def, "parameters");
	struct scan h = {.b = s->b, .m = hm, .cls = arena_printf(f->a, "%s (through %s)", s->cls, hm->defs[d].name),
			 .built = true, .helper = true, .depth = s->depth + 1};
	for (uint32_t i = 0; i < ts_node_named_child_count(args) && i < ts_node_named_child_count(params); i++) {
		TSNode a = ts_node_named_child(args, i), p = ts_node_named_child(params, i);
		if (py_is(p, "typed_parameter") || py_is(p, "default_parameter") || py_is(p, "typed_default_parameter"))
			p = py_is(p, "typed_parameter") ? ts_node_named_child(p, 0) : py_field(p, "name");
		if (!py_is(p, "identifier") || py_is(a, "keyword_argument") || py_is(a, "list_splat"))
			return arena_printf(f->a, "%s changes the provider through '%s'", s->cls, py_node_snippet(f->a, s->m->src, call));
		const struct py_hf_config *c = config_of(s, a);
		if (py_is(a, "identifier") && !strcmp(stext(s, a), s->provider))
			h.provider = py_node_text(f->a, hm->src, p);
		else if (c && h.n_names < MAX_NAMES) {
			h.names[h.n_names] = py_node_text(f->a, hm->src, p);
			h.cfgs[h.n_names++] = c;
		}
	}
	if (!h.provider)
		return arena_printf(f->a, "%s changes the provider through '%s'", s->cls, py_node_snippet(f->a, s->m->src, call));
	return body(&h, py_field(def, "body"), NULL);
}

/* One statement of provider_bridge's body (or a helper's): NULL when cglint followed it, else why not. */
static const char *statement(struct scan *s, TSNode st, struct klass *k)
{
	struct fn *f = s->b->f;
	if (py_is(st, "comment") || py_is(st, "pass_statement"))
		return NULL;
	if (py_is(st, "return_statement")) {
		TSNode v = ts_node_named_child(st, 0);
		if (s->helper ? ts_node_is_null(v) || !strcmp(stext(s, v), "None")
			      : py_is(v, "identifier") && s->provider && !strcmp(stext(s, v), s->provider))
			return NULL;
		if (!s->helper && py_is(v, "call") && !s->built)
			return build_here(s, v);        /* return SarvamMoEModelProvider(**config) */
		return arena_printf(f->a, "%s returns '%s'", s->cls, py_node_snippet(f->a, s->m->src, st));
	}
	TSNode e = py_is(st, "expression_statement") ? ts_node_named_child(st, 0) : st;
	if (py_is(e, "string"))
		return NULL;    /* the docstring */
	/* the keywords' dict: used only to build the provider (P = Cls(**kwargs)) */
	TSNode right = py_is(e, "assignment") ? py_field(e, "right") : e;
	if (s->kw_name && mentions(s, st, s->kw_name, 0) &&
	    !(py_is(e, "assignment") && py_is(py_field(e, "left"), "identifier") && py_is(right, "call") &&
	      py_is(py_field(right, "function"), "identifier")) &&
	    !(py_is(e, "assignment") && !mentions(s, py_field(e, "left"), s->kw_name, 0) &&
	      only_gets(s, right, s->kw_name, 0)))
		return arena_printf(f->a, "%s changes the provider's arguments through '%s'", s->cls,
				    py_node_snippet(f->a, s->m->src, st));
	if (py_is(e, "assignment")) {
		TSNode l = py_field(e, "left"), r = py_field(e, "right");
		if (ts_node_is_null(r))
			return NULL;    /* 'x: int', no value */
		const char *ltext = stext(s, l), *rtext = stext(s, r);
		/* provider = super().provider_bridge(hf_pretrained): the base's provider first */
		if (py_is(l, "identifier") && py_is(r, "call") && strstr(rtext, "super(") &&
		    has_suffix(stext(s, py_field(r, "function")), ".provider_bridge")) {
			struct mod *bm = NULL;
			bool generic;
			struct klass *base = k ? py_bridge_reg_base(f, s->m, k, &bm, &generic) : NULL;
			s->provider = ltext;
			s->built = true;
			return !k ? arena_printf(f->a, "%s calls super() outside a bridge", s->cls)
			       : generic ? base_provider(s->b)
			       : base ? run_bridge(s->b, bm, base, s->depth + 1)
				      : arena_printf(f->a, "cglint does not find the base of %s", s->cls);
		}
		const struct py_hf_config *c = py_is(l, "identifier") ? config_of(s, r) : NULL;
		if (c && s->n_names < MAX_NAMES) {
			s->names[s->n_names] = ltext;   /* hf_config = hf_pretrained.config */
			s->cfgs[s->n_names++] = c;
			return NULL;
		}
		TSNode rf = py_is(r, "call") ? py_field(r, "function") : r;
		TSNode rargs = py_is(r, "call") ? py_field(r, "arguments") : r;
		if (py_is(l, "identifier") && !strcmp(stext(s, rf), "self.hf_config_to_provider_kwargs") &&
		    ts_node_named_child_count(rargs) == 1 && (c = config_of(s, ts_node_named_child(rargs, 0)))) {
			s->kw_name = ltext;     /* provider_kwargs = self.hf_config_to_provider_kwargs(text_config) */
			s->kw_cfg = c;
			s->kw_changed = s->b->n_changed;
			return NULL;
		}
		struct mod *cm;
		if (py_is(l, "identifier") && py_is(r, "call") && !s->built && !s->helper && py_is(rf, "identifier") &&
		    py_bridge_reg_class(f->session, s->m, stext(s, rf), &cm)) {
			s->provider = ltext;    /* provider = Qwen25VLModelProvider(**provider_kwargs) */
			return build_here(s, r);
		}
		/* provider.a = provider.b = value */
		TSNode targets[8];
		size_t n = 0;
		for (; py_is(r, "assignment") && n < 7; r = py_field(r, "right")) {
			targets[n++] = l;
			l = py_field(r, "left");
		}
		targets[n++] = l;
		bool ours = false;
		size_t cfg_fields = 0;
		for (size_t i = 0; i < n; i++) {
			TSNode o = py_field(targets[i], "object");
			ours |= py_is(targets[i], "attribute") && py_is(o, "identifier") && s->provider &&
				!strcmp(stext(s, o), s->provider);
			if (py_is(targets[i], "identifier") || ours || !config_of(s, py_is(o, "identifier") ? o : targets[i]))
				continue;
			/* a field of the HF config written: what reads that field afterwards is unknown
			 * (hf_config.tie_word_embeddings = ...; the provider's arguments taken before keep
			 * the file's value, those taken after do not: kwargs_from) */
			if (!py_is(targets[i], "attribute") || s->b->n_changed == 8)
				return arena_printf(f->a, "%s changes the Hugging Face config", s->cls);
			s->b->changed[s->b->n_changed++] = stext(s, py_field(targets[i], "attribute"));
			cfg_fields++;
		}
		if (cfg_fields == n)
			return NULL;
		TSNode part = n == 1 && !ours ? provider_field(s, targets[0]) : (TSNode){0};
		if (!ts_node_is_null(part)) {   /* provider.vision_projector_config.input_size = ... */
			set(s->b, stext(s, py_field(part, "attribute")), value_unknown,
			    arena_printf(f->a, "changed in part by Megatron-Bridge's %s ('%s')", s->cls,
					 py_node_snippet(f->a, s->m->src, st)));
			return NULL;
		}
		if (!ours) {
			if (mentions(s, r, s->provider, 0) && py_is(r, "call"))
				return arena_printf(f->a, "%s hands the provider to '%s'", s->cls, py_node_snippet(f->a, s->m->src, r));
			for (size_t i = 0; i < n; i++) {
				/* locals (a, b = ...) and self.x are its own; anything else may be the provider's */
				TSNode t = targets[i];
				bool tuple = py_is(t, "pattern_list") || py_is(t, "tuple_pattern");
				bool local = py_is(t, "identifier") || !strncmp(stext(s, t), "self.", 5) || tuple;
				for (uint32_t j = 0; tuple && j < ts_node_named_child_count(t); j++)
					local &= py_is(ts_node_named_child(t, j), "identifier");
				if (!local || mentions(s, targets[i], s->provider, 0))
					return arena_printf(f->a, "%s sets '%s'", s->cls, py_node_snippet(f->a, s->m->src, st));
			}
			return NULL;    /* a local of its own: rope_scaling = getattr(...) */
		}
		const char *why;
		struct value v = written(s, r, &why);
		for (size_t i = 0; i < n; i++)
			if (py_is(targets[i], "attribute"))
				set(s->b, stext(s, py_field(targets[i], "attribute")), v, why);
		return NULL;
	}
	if (!mentions(s, st, s->provider, 0))
		return NULL;    /* logging, checks on the HF config */
	if (py_is(st, "if_statement") || py_is(st, "for_statement") || py_is(st, "with_statement") ||
	    py_is(st, "try_statement") || py_is(st, "while_statement")) {
		/* a call in it that takes the provider, cglint cannot follow; assignments are unknown */
		unknown_writes(s, st, arena_printf(f->a, "set under '%s' in Megatron-Bridge's %s (not followed)",
						   py_node_snippet(f->a, s->m->src, st), s->cls), 0);
		return NULL;
	}
	if (py_is(e, "call") && py_is(py_field(e, "function"), "identifier"))
		return helper(s, e);    /* _apply_qwen35_common_config(provider, text_config) */
	return arena_printf(f->a, "%s changes the provider through '%s'", s->cls, py_node_snippet(f->a, s->m->src, st));
}

static const char *body(struct scan *s, TSNode stmts, struct klass *k)
{
	for (uint32_t i = 0; i < ts_node_named_child_count(stmts); i++) {
		TSNode st = ts_node_named_child(stmts, i);
		const char *why = statement(s, st, k);
		if (why)
			return why;
		if (py_is(st, "return_statement"))
			break;
	}
	return s->built ? NULL : arena_printf(s->b->f->a, "%s builds no provider cglint reads", s->cls);
}

/* A bridge class's provider_bridge (its own, else its base's), run on the fields. */
static const char *run_bridge(struct build *b, struct mod *m, struct klass *k, unsigned depth)
{
	if (depth > MAX_CHAIN)
		return "its model bridges derive from each other deeper than cglint follows";
	TSNode cbody = py_field(k->node, "body"), def = {0};
	for (uint32_t i = 0; !ts_node_is_null(cbody) && i < ts_node_named_child_count(cbody); i++) {
		TSNode d = ts_node_named_child(cbody, i);
		if (py_is(d, "decorated_definition"))
			d = py_field(d, "definition");
		if (py_is(d, "function_definition") && !strcmp(py_node_text(b->f->a, m->src, py_field(d, "name")), "provider_bridge"))
			def = d;
	}
	if (ts_node_is_null(def)) {
		struct mod *bm = NULL;
		bool generic;
		struct klass *base = py_bridge_reg_base(b->f, m, k, &bm, &generic);
		return generic ? base_provider(b) : base ? run_bridge(b, bm, base, depth + 1)
						 : arena_printf(b->f->a, "cglint does not find the base of %s", k->name);
	}
	TSNode params = py_field(def, "parameters");
	struct scan s = {.b = b, .m = m, .cls = arena_printf(b->f->a, "%s.provider_bridge", k->name),
			 .hf_param = "hf_pretrained", .depth = depth};
	if (ts_node_named_child_count(params) >= 2) {
		TSNode p = ts_node_named_child(params, 1);
		if (py_is(p, "typed_parameter"))
			p = ts_node_named_child(p, 0);
		s.hf_param = py_node_text(b->f->a, m->src, p);
	}
	return body(&s, py_field(def, "body"), k);
}

/* ---- the call ---- */

/* 0: not an AutoBridge call; 1: resolved into 'r'; -1: not resolved, '*why' says why. */
static int resolve(struct fn *f, TSNode call, struct resolved *r, const char **id, const char **why)
{
	TSNode pc = pretrained_call(f, call), first = {0}, rev = {0};
	if (ts_node_is_null(pc) || !f->session || !f->mod)
		return 0;
	TSNode args = py_field(pc, "arguments");
	for (uint32_t k = 0; !ts_node_is_null(args) && k < ts_node_named_child_count(args); k++) {
		TSNode a = ts_node_named_child(args, k);
		if (py_is(a, "keyword_argument") && !strcmp(py_text(f, py_field(a, "name")), "revision"))
			rev = py_field(a, "value");
		else if (!py_is(a, "keyword_argument") && !py_is(a, "comment") && ts_node_is_null(first))
			first = a;
	}
	const char *w;
	struct value v = py_eval(f, first, &w, 1), rv = ts_node_is_null(rev) ? value_null : py_eval(f, rev, &w, 1);
	*r = (struct resolved){0};
	if (v.kind != V_STR || (rv.kind != V_STR && rv.kind != V_NULL)) {
		*why = arena_printf(f->a, "the model id or revision is not known: %s", w ? w : "not a string");
		return -1;
	}
	*id = v.s;
	if (!py_hf_read(f->a, v.s, rv.kind == V_STR ? rv.s : NULL, &r->hf, why))
		return -1;
	/* auto_map's causal-LM class (remote code) before the first architecture, as AutoBridge */
	const char *arch = r->hf.arch;
	struct value am;
	if (py_hf_get(&r->hf, "auto_map", &am) && am.kind == V_MAP)
		for (size_t k = 0; k + 1 < am.n; k += 2)
			if (!strcmp(am.items[k].s, "AutoModelForCausalLM") && am.items[k + 1].kind == V_STR)
				arch = strrchr(am.items[k + 1].s, '.') ? strrchr(am.items[k + 1].s, '.') + 1 : am.items[k + 1].s;
	if (!arch) {
		*why = arena_printf(f->a, "%s names no architecture", r->hf.path);
		return -1;
	}
	if ((*why = py_bridge_reg_find(f, arch, &r->br)))
		return -1;
	return 1;
}

bool py_bridge_auto_provider(struct fn *f, const char *key, TSNode call, const char **why_not)
{
	struct resolved r;
	const char *id, *why = NULL;
	int got = resolve(f, call, &r, &id, &why);
	*why_not = got < 0 ? arena_printf(f->a, "from 'AutoBridge.from_hf_pretrained' (a Hugging Face config: %s)", why)
			   : NULL;
	if (got != 1)
		return false;
	struct loc at = py_loc(f->path, call);
	size_t start = f->log.n;
	py_unit_forget(&f->log, key, false, arena_printf(f->a, "replaced by AutoBridge.from_hf_pretrained('%s')", id));
	py_unit_put(&f->log, key, (struct value){.kind = V_MAP}, at, NULL);
	struct build b = {f, &r, key, at, id};
	if (!(why = run_bridge(&b, r.br.bm, r.br.bk, 0))) {
		if (py_bridge_defaults_known(r.br.pk->name))
			py_unit_mark(&f->log, PY_CLOSE, key, at);
		/* the class Bridge's to_yaml names, which the packs' provider-family steps read */
		const char *p = strstr(r.br.pm->path, "megatron/bridge/");
		if (p && has_suffix(p, ".py")) {
			char *mod = arena_printf(f->a, "%.*s.%s", (int)(strlen(p) - 3), p, r.br.pk->name);
			for (char *q = mod; *q; q++)
				*q = *q == '/' ? '.' : *q;
			py_unit_put(&f->log, arena_printf(f->a, "%s._target_", key), value_str(mod), at, NULL);
		}
	} else {
		f->log.n = start;       /* nothing of it stands: the section is unknown, as before */
		struct value u = value_unknown;
		u.loc = at;
		py_unit_forget(&f->log, key, false, why);
		py_unit_put(&f->log, key, u, at,
			    arena_printf(f->a, "from 'AutoBridge.from_hf_pretrained' (a Hugging Face config: %s)", why));
	}
	return true;
}

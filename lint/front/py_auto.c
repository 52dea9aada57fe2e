/* SPDX-License-Identifier: MIT */
/*
 * py_auto: AutoBridge.from_hf_pretrained(ID).to_megatron_provider(...) as Megatron-Bridge builds
 * it (see py_fn.h), read from the Bridge on the search path: the model bridge registered for the
 * config's architecture (@MegatronModelBridge.register_bridge(source=..., provider=...)), its
 * provider class with its defaults, the HF fields its CONFIG_MAPPING carries over, and the
 * provider fields its provider_bridge() sets (MegatronModelBridge.provider_bridge, then the
 * subclass's statements). What cannot be read that way is unknown, naming why.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "front/fe_py_lit.h"
#include "front/py_bridge.h"
#include "front/py_fn.h"
#include "front/py_hf.h"
#include "front/py_mod.h"

#define MAX_BRIDGE_FILES 512    /* model bridge files scanned a run */
#define MAX_CHAIN 6             /* bridge classes followed up through their bases */

/* A file under megatron/bridge/models that registers a bridge, read once a run. */
struct bfile {
	const char *module;     /* "megatron.bridge.models.llama.llama_bridge" */
	const char *text;
};

struct py_auto {
	const char *models;     /* the models package's folder, NULL: no Bridge found */
	struct bfile *files;
	size_t n, cap;
};

/* What one AutoBridge call resolves to. */
struct resolved {
	struct py_hf_config hf;
	struct mod *bm;         /* the bridge class's module and class */
	struct klass *bk;
	struct mod *pm;         /* the provider class's */
	struct klass *pk;
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
	if (!py_is(fn, "attribute") || strcmp(py_text(f, py_field(fn, "attribute")), "to_megatron_provider"))
		return none;
	TSNode obj = py_field(fn, "object");
	TSNode of = py_is(obj, "call") ? py_field(obj, "function") : none;
	if (!py_is(of, "attribute") ||
	    strcmp(py_text(f, py_field(of, "attribute")), "from_hf_pretrained"))
		return none;
	return obj;
}

/* ---- Bridge's model bridges ---- */

static void scan_dir(struct fn *f, struct py_auto *pa, const char *dir, const char *module, unsigned depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)) && pa->n < MAX_BRIDGE_FILES) {
		if (e->d_name[0] == '.' || e->d_name[0] == '_')
			continue;
		const char *path = arena_printf(f->cache->a, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode) && depth < 2) {
			scan_dir(f, pa, path, arena_printf(f->cache->a, "%s.%s", module, e->d_name), depth + 1);
			continue;
		}
		if (!S_ISREG(st.st_mode) || !has_suffix(e->d_name, ".py") || st.st_size > (1 << 20))
			continue;
		FILE *fp = fopen(path, "rb");
		char *buf = fp ? arena_alloc(f->cache->a, (size_t)st.st_size + 1) : NULL;
		size_t got = fp ? fread(buf, 1, (size_t)st.st_size, fp) : 0;
		if (fp)
			fclose(fp);
		if (!buf || !strstr((buf[got] = '\0', buf), "register_bridge("))
			continue;
		pa->files = arena_grow(f->cache->a, pa->files, pa->n, &pa->cap, sizeof(*pa->files));
		pa->files[pa->n++] = (struct bfile){
			arena_printf(f->cache->a, "%s.%.*s", module, (int)(strlen(e->d_name) - 3), e->d_name), buf};
	}
	if (d)
		closedir(d);
}

/* The run's list of bridge files, made on first use. */
static struct py_auto *bridges(struct fn *f)
{
	if (f->cache->autob)
		return f->cache->autob;
	struct py_auto *pa = arena_alloc(f->cache->a, sizeof(*pa));
	f->cache->autob = pa;
	const char *init = py_mod_find(f->cache->a, f->path, "megatron.bridge.models", 0);
	if (init && has_suffix(init, "/__init__.py")) {
		pa->models = arena_strndup(f->cache->a, init, strlen(init) - strlen("/__init__.py"));
		scan_dir(f, pa, pa->models, "megatron.bridge.models", 0);
	}
	return pa;
}

static struct klass *class_named(struct py_cache *c, struct mod *m, const char *name, struct mod **out)
{
	size_t at;
	return fe_py_mod_class(c, m, name, 0, out, &at) ? &(*out)->classes[at] : NULL;
}

/* The register_bridge(...) decorator of a class, or a null node. */
static TSNode registration(struct fn *f, const struct mod *m, const struct klass *k)
{
	TSNode none = {0}, parent = ts_node_parent(k->node);
	for (uint32_t i = 0; py_is(parent, "decorated_definition") && i < ts_node_named_child_count(parent); i++) {
		TSNode d = ts_node_named_child(parent, i);
		TSNode e = py_is(d, "decorator") && ts_node_named_child_count(d) ? ts_node_named_child(d, 0) : none;
		if (py_is(e, "call")) {
			uint32_t s = ts_node_start_byte(e), end = ts_node_start_byte(py_field(e, "arguments"));
			if (end - s >= 15 && !strncmp(m->src + end - 15, "register_bridge", 15))
				return py_field(e, "arguments");
		}
	}
	(void)f;
	return none;
}

static TSNode keyword(struct fn *f, const struct mod *m, TSNode args, const char *name)
{
	TSNode none = {0};
	for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
		TSNode a = ts_node_named_child(args, i);
		if (!py_is(a, "keyword_argument"))
			continue;
		TSNode n = py_field(a, "name");
		uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
		if (e - s == strlen(name) && !strncmp(m->src + s, name, e - s))
			return py_field(a, "value");
	}
	(void)f;
	return none;
}

static const char *mod_text(struct fn *f, const struct mod *m, TSNode n)
{
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	return arena_strndup(f->a, m->src + s, e - s);
}

/* A node of module 'm' for a message: cut at 60 bytes and at a line end, as py_snippet. */
static const char *mod_snippet(struct fn *f, const struct mod *m, TSNode n)
{
	uint32_t s = ts_node_start_byte(n), len = ts_node_end_byte(n) - s;
	const char *nl = memchr(m->src + s, '\n', len);
	if (nl)
		len = (uint32_t)(nl - (m->src + s));
	return len > 60 ? arena_printf(f->a, "%.57s...", m->src + s) : arena_strndup(f->a, m->src + s, len);
}

/* Whether a register_bridge source= names 'arch': the class itself, its name, or a constant. */
static bool names_arch(struct fn *f, struct mod *m, TSNode src, const char *arch)
{
	struct value v;
	const char *why;
	if (py_is(src, "identifier") && !strcmp(mod_text(f, m, src), arch))
		return true;
	if (fe_py_lit_value(f->a, m->path, m->src, src, &v, 0))
		return v.kind == V_STR && !strcmp(v.s, arch);
	return py_is(src, "identifier") && py_eval_global(f->cache, m, mod_text(f, m, src), &v, &why, 0) &&
	       v.kind == V_STR && !strcmp(v.s, arch);
}

/* The bridge class registered for 'arch', and the provider class it builds. */
static const char *find_bridge(struct fn *f, const char *arch, struct resolved *r)
{
	struct py_auto *pa = bridges(f);
	if (!pa->models)
		return "cglint finds no Megatron-Bridge (megatron.bridge.models) on the search path to map it";
	for (size_t i = 0; i < pa->n && !r->bk; i++) {
		const char *hit = strstr(pa->files[i].text, arch);
		if (!hit)
			continue;
		struct mod *m = fe_py_mod_load(f->cache, f->mod, pa->files[i].module, 0);
		for (size_t k = 0; m && k < m->n_classes && !r->bk; k++) {
			TSNode args = registration(f, m, &m->classes[k]);
			if (!ts_node_is_null(args) && names_arch(f, m, keyword(f, m, args, "source"), arch)) {
				r->bm = m;
				r->bk = &m->classes[k];
			}
		}
	}
	if (!r->bk)
		return arena_printf(f->a, "no model bridge of the Megatron-Bridge at %s registers %s", pa->models, arch);
	/* the provider: register_bridge(provider=...), else a PROVIDER_CLASS up the bases, else GPT's */
	TSNode p = keyword(f, r->bm, registration(f, r->bm, r->bk), "provider");
	if (py_is(p, "identifier"))
		r->pk = class_named(f->cache, r->bm, mod_text(f, r->bm, p), &r->pm);
	else if (!ts_node_is_null(p))
		return arena_printf(f->a, "%s's provider '%s' is not a class name cglint reads", r->bk->name,
				    mod_text(f, r->bm, p));
	else {
		struct mod *gm = fe_py_mod_load(f->cache, f->mod, "megatron.bridge.models.gpt_provider", 0);
		r->pk = gm ? class_named(f->cache, gm, "GPTModelProvider", &r->pm) : NULL;
	}
	if (!r->pk)
		return arena_printf(f->a, "cglint does not find the provider class of %s", r->bk->name);
	return NULL;
}

/* The class a bridge class derives from (its first base), or NULL at MegatronModelBridge. */
static struct klass *base_bridge(struct fn *f, struct mod *m, struct klass *k, struct mod **bm, bool *generic)
{
	TSNode sup = py_field(k->node, "superclasses");
	TSNode b = !ts_node_is_null(sup) && ts_node_named_child_count(sup) ? ts_node_named_child(sup, 0) : sup;
	const char *name = ts_node_is_null(b) ? "" : mod_text(f, m, b);
	*generic = has_suffix(name, "MegatronModelBridge");
	return *generic || ts_node_is_null(b) ? NULL : class_named(f->cache, m, name, bm);
}

/* The value of 'NAME = ...' in a class's own body, or a null node. */
static TSNode class_attr(struct fn *f, const struct mod *m, const struct klass *k, const char *name)
{
	TSNode none = {0}, body = py_field(k->node, "body");
	for (uint32_t i = 0; !ts_node_is_null(body) && i < ts_node_named_child_count(body); i++) {
		TSNode st = ts_node_named_child(body, i);
		TSNode as = py_is(st, "expression_statement") ? ts_node_named_child(st, 0) : none;
		TSNode left = py_is(as, "assignment") ? py_field(as, "left") : none;
		if (py_is(left, "identifier") && !strcmp(mod_text(f, m, left), name))
			return py_field(as, "right");
	}
	return none;
}

static bool mapping_of(struct fn *f, struct mod *m, struct klass *k, struct value *out, unsigned depth);

/* A CONFIG_MAPPING expression: a literal list, Other.CONFIG_MAPPING, or a sum of them. */
static bool mapping_expr(struct fn *f, struct mod *m, TSNode e, struct value *out, unsigned depth)
{
	if (depth > MAX_CHAIN)
		return false;
	if (fe_py_lit_value(f->a, m->path, m->src, e, out, 0))
		return out->kind == V_LIST;
	if (py_is(e, "attribute") && !strcmp(mod_text(f, m, py_field(e, "attribute")), "CONFIG_MAPPING")) {
		struct mod *om = NULL;
		struct klass *ok = class_named(f->cache, m, mod_text(f, m, py_field(e, "object")), &om);
		return ok && mapping_of(f, om, ok, out, depth + 1);
	}
	struct value x, y;
	TSNode op = py_field(e, "operator");
	if (!py_is(e, "binary_operator") || ts_node_is_null(op) || strcmp(ts_node_type(op), "+") ||
	    !mapping_expr(f, m, py_field(e, "left"), &x, depth + 1) || !mapping_expr(f, m, py_field(e, "right"), &y, depth + 1))
		return false;
	*out = (struct value){.kind = V_LIST, .n = x.n + y.n};
	out->items = arena_alloc(f->a, (out->n ? out->n : 1) * sizeof(*out->items));
	memcpy(out->items, x.items, x.n * sizeof(*x.items));
	memcpy(out->items + x.n, y.items, y.n * sizeof(*y.items));
	return true;
}

/* A bridge class's CONFIG_MAPPING, its own or its bases', up to MegatronModelBridge's. */
static bool mapping_of(struct fn *f, struct mod *m, struct klass *k, struct value *out, unsigned depth)
{
	TSNode e = class_attr(f, m, k, "CONFIG_MAPPING");
	if (!ts_node_is_null(e))
		return mapping_expr(f, m, e, out, depth + 1);
	struct mod *bm = NULL;
	bool generic;
	struct klass *b = depth < MAX_CHAIN ? base_bridge(f, m, k, &bm, &generic) : NULL;
	if (!b && generic)
		b = class_named(f->cache, m, "MegatronModelBridge", &bm);
	return b && b != k && mapping_of(f, bm, b, out, depth + 1);
}

/* ---- building the provider's fields ---- */

struct build {
	struct fn *f;
	struct resolved *r;
	const char *key;        /* the section: "#0.model" */
	struct loc at;          /* the call in the file linted */
	const char *id;         /* the model id, for messages */
};

/* A field the provider is built with: Bridge keeps only the class's own (valid_fields); one of a
 * class cglint cannot read whole is kept (the fields rules read are TransformerConfig's). */
static void set_kwarg(struct build *b, const char *name, struct value v, const char *why);

static void set(struct build *b, const char *name, struct value v, const char *why)
{
	v.loc = b->at;
	py_unit_put(&b->f->log, arena_printf(b->f->a, "%s.%s", b->key, name), v, b->at,
		    v.kind == V_UNKNOWN ? why : NULL);
}

static void set_kwarg(struct build *b, const char *name, struct value v, const char *why)
{
	if (py_class_has_field(b->f->cache, b->r->pm, b->r->pk, name) != TRI_FALSE)
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
static const char *base_provider(struct build *b)
{
	struct fn *f = b->f;
	const struct py_hf_config *c = &b->r->hf;
	struct value map, v;
	if (!mapping_of(f, b->r->bm, b->r->bk, &map, 0))
		return arena_printf(f->a, "cglint cannot read %s's CONFIG_MAPPING", b->r->bk->name);
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
	if (!py_hf_get(c, "rope_theta", &v))
		set_unknown(b, "rotary_base", "rope_theta read through transformers' rope_parameters");
	const char *dt = NULL;
	bool has_dt = hf_str(c, "torch_dtype", &dt) || hf_str(c, "dtype", &dt);
	if (!has_dt && (py_hf_get(c, "torch_dtype", &v) || py_hf_get(c, "dtype", &v))) {
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
	enum tri is_mla = py_class_has_field(f->cache, b->r->pm, b->r->pk, "kv_lora_rank");
	bool mla = is_mla == TRI_TRUE, yarn_type = rt && !strcmp(rt, "yarn");
	static const char *const yarn[] = {"yarn_rotary_scaling_factor", "yarn_original_max_position_embeddings",
					   "yarn_beta_fast", "yarn_beta_slow", "yarn_mscale", "yarn_mscale_all_dim",
					   "yarn_correction_range_round_to_int"};
	static const char *const mla_rope[] = {"rotary_scaling_factor", "original_max_position_embeddings", "beta_fast",
					       "beta_slow", "mscale", "mscale_all_dim"};
	for (size_t k = 0; yarn_type && !mla && k < sizeof(yarn) / sizeof(*yarn); k++)
		set_unknown(b, yarn[k], "rope_scaling (yarn)");
	for (size_t k = 0; mla && k < sizeof(mla_rope) / sizeof(*mla_rope); k++)
		set_unknown(b, mla_rope[k], "rope_scaling (Bridge's MLA rope parameters)");
	if (yarn_type && is_mla == TRI_UNKNOWN)
		set(b, "position_embedding_type", value_unknown, "yarn for a GPT provider, rope for an MLA one");
	else
		set(b, "position_embedding_type", value_str(yarn_type && !mla ? "yarn" : "rope"), NULL);
	return NULL;
}

/* ---- a bridge's own provider_bridge() ---- */

struct scan {
	struct build *b;
	struct mod *m;
	const char *cls;        /* "LlamaBridge", for messages */
	const char *provider;   /* the name bound to the provider ("provider") */
	const char *hf_alias;   /* a name bound to hf_pretrained.config ("hf_config"), or NULL */
	const char *hf_param;   /* the method's HF parameter ("hf_pretrained") */
};

static const char *stext(struct scan *s, TSNode n)
{
	return mod_text(s->b->f, s->m, n);
}

/* Whether 'n' holds the identifier 'name' anywhere. */
static bool mentions(struct scan *s, TSNode n, const char *name, unsigned depth)
{
	if (py_is(n, "identifier"))
		return !strcmp(stext(s, n), name);
	for (uint32_t k = 0; depth < 64 && k < ts_node_named_child_count(n); k++)
		if (mentions(s, ts_node_named_child(n, k), name, depth + 1))
			return true;
	return false;
}

/* hf_pretrained.config.NAME or ALIAS.NAME: the HF field's name, else NULL. */
static const char *hf_field(struct scan *s, TSNode e)
{
	if (!py_is(e, "attribute"))
		return NULL;
	TSNode obj = py_field(e, "object");
	const char *o = stext(s, obj);
	bool cfg = (s->hf_alias && !strcmp(o, s->hf_alias)) || !strcmp(o, arena_printf(s->b->f->a, "%s.config", s->hf_param));
	return cfg ? stext(s, py_field(e, "attribute")) : NULL;
}

/* The value a statement of provider_bridge writes: a literal, an HF field, 'not' of one. */
static struct value written(struct scan *s, TSNode e, const char **why)
{
	struct value v;
	const char *name;
	*why = NULL;
	if (fe_py_lit_value(s->b->f->a, s->m->path, s->m->src, e, &v, 0))
		return v;
	bool neg = py_is(e, "not_operator");
	if ((name = hf_field(s, neg ? py_field(e, "argument") : e)) && py_hf_get(&s->b->r->hf, name, &v) &&
	    (!neg || value_truth(&v) != TRI_UNKNOWN))
		return neg ? value_bool(value_truth(&v) == TRI_FALSE) : v;
	*why = arena_printf(s->b->f->a, "set by Megatron-Bridge's %s.provider_bridge to '%s', which cglint does not "
			    "compute", s->cls, mod_snippet(s->b->f, s->m, e));
	return value_unknown;
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

/* One statement of provider_bridge's body: NULL when cglint followed it, else why not. */
static const char *statement(struct scan *s, TSNode st, struct klass *k, unsigned depth)
{
	struct fn *f = s->b->f;
	if (py_is(st, "comment") || py_is(st, "pass_statement"))
		return NULL;
	if (py_is(st, "return_statement")) {
		TSNode v = ts_node_named_child(st, 0);
		return py_is(v, "identifier") && !strcmp(stext(s, v), s->provider) ? NULL
		       : arena_printf(f->a, "%s.provider_bridge returns '%s'", s->cls, mod_snippet(f, s->m, st));
	}
	TSNode e = py_is(st, "expression_statement") ? ts_node_named_child(st, 0) : st;
	if (py_is(e, "string"))
		return NULL;    /* the docstring */
	if (py_is(e, "assignment")) {
		TSNode l = py_field(e, "left"), r = py_field(e, "right");
		if (ts_node_is_null(r))
			return NULL;    /* 'x: int', no value */
		const char *ltext = stext(s, l);
		/* provider = super().provider_bridge(hf_pretrained): the base's provider first */
		if (py_is(l, "identifier") && py_is(r, "call") && strstr(stext(s, py_field(r, "function")), "super(") &&
		    has_suffix(stext(s, py_field(r, "function")), ".provider_bridge")) {
			struct mod *bm = NULL;
			bool generic;
			struct klass *base = base_bridge(f, s->m, k, &bm, &generic);
			s->provider = ltext;
			return generic ? base_provider(s->b)
			       : base ? run_bridge(s->b, bm, base, depth + 1)
				      : arena_printf(f->a, "cglint does not find the base of %s", s->cls);
		}
		if (py_is(l, "identifier") && !strcmp(stext(s, r), arena_printf(f->a, "%s.config", s->hf_param))) {
			s->hf_alias = ltext;    /* hf_config = hf_pretrained.config */
			return NULL;
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
		for (size_t i = 0; i < n; i++) {
			TSNode o = py_field(targets[i], "object");
			ours |= py_is(targets[i], "attribute") && py_is(o, "identifier") && !strcmp(stext(s, o), s->provider);
		}
		if (!ours) {
			if (mentions(s, r, s->provider, 0) && py_is(r, "call"))
				return arena_printf(f->a, "%s.provider_bridge hands the provider to '%s'", s->cls,
						    mod_snippet(f, s->m, r));
			for (size_t i = 0; i < n; i++)
				if (py_is(targets[i], "identifier") && !strcmp(stext(s, targets[i]), s->provider))
					return arena_printf(f->a, "%s.provider_bridge rebinds '%s'", s->cls, s->provider);
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
		unknown_writes(s, st, arena_printf(f->a, "set under '%s' in Megatron-Bridge's %s.provider_bridge "
						   "(not followed)", mod_snippet(f, s->m, st), s->cls), 0);
		return NULL;
	}
	return arena_printf(f->a, "%s.provider_bridge changes the provider through '%s'", s->cls, mod_snippet(f, s->m, st));
}

/* A bridge class's provider_bridge (its own, else its base's), run on the fields. */
static const char *run_bridge(struct build *b, struct mod *m, struct klass *k, unsigned depth)
{
	if (depth > MAX_CHAIN)
		return "its model bridges derive from each other deeper than cglint follows";
	TSNode body = py_field(k->node, "body"), def = {0};
	for (uint32_t i = 0; !ts_node_is_null(body) && i < ts_node_named_child_count(body); i++) {
		TSNode d = ts_node_named_child(body, i);
		if (py_is(d, "decorated_definition"))
			d = py_field(d, "definition");
		if (py_is(d, "function_definition") && !strcmp(mod_text(b->f, m, py_field(d, "name")), "provider_bridge"))
			def = d;
	}
	if (ts_node_is_null(def)) {
		struct mod *bm = NULL;
		bool generic;
		struct klass *base = base_bridge(b->f, m, k, &bm, &generic);
		return generic ? base_provider(b) : base ? run_bridge(b, bm, base, depth + 1)
						 : arena_printf(b->f->a, "cglint does not find the base of %s", k->name);
	}
	TSNode params = py_field(def, "parameters");
	struct scan s = {.b = b, .m = m, .cls = k->name, .provider = "provider", .hf_param = "hf_pretrained"};
	if (ts_node_named_child_count(params) >= 2) {
		TSNode p = ts_node_named_child(params, 1);
		if (py_is(p, "typed_parameter"))
			p = ts_node_named_child(p, 0);
		s.hf_param = mod_text(b->f, m, p);
	}
	TSNode stmts = py_field(def, "body");
	bool based = false;
	for (uint32_t i = 0; i < ts_node_named_child_count(stmts); i++) {
		TSNode st = ts_node_named_child(stmts, i);
		const char *why = statement(&s, st, k, depth);
		if (why)
			return why;
		based |= strstr(stext(&s, st), "super(") != NULL;
		if (py_is(st, "return_statement"))
			break;
	}
	return based ? NULL : arena_printf(b->f->a, "%s.provider_bridge builds its provider without the base's",
					   k->name);
}

/* ---- the call ---- */

/* 0: not an AutoBridge call; 1: resolved into 'r'; -1: not resolved, '*why' says why. */
static int resolve(struct fn *f, TSNode call, struct resolved *r, const char **id, const char **why)
{
	TSNode pc = pretrained_call(f, call), first = {0}, rev = {0};
	if (ts_node_is_null(pc) || !f->cache || !f->mod)
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
	if ((*why = find_bridge(f, arch, r)))
		return -1;
	return 1;
}

bool py_auto_provider(struct fn *f, const char *key, TSNode call, const char **why_not)
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
	bool closed = py_bridge_defaults_known(r.pk->name);
	if (closed)
		py_unit_mark(&f->log, PY_CLOSE, key, at);
	/* the class Bridge's to_yaml names, which the packs' provider-family steps read */
	const char *p = strstr(r.pm->path, "megatron/bridge/");
	if (p && has_suffix(p, ".py")) {
		char *mod = arena_printf(f->a, "%.*s.%s", (int)(strlen(p) - 3), p, r.pk->name);
		for (char *q = mod; *q; q++)
			*q = *q == '/' ? '.' : *q;
		py_unit_put(&f->log, arena_printf(f->a, "%s._target_", key), value_str(mod), at, NULL);
	}
	py_class_defaults_of(f, r.pm, r.pk, key, at, closed);
	struct build b = {f, &r, key, at, id};
	if ((why = run_bridge(&b, r.bm, r.bk, 0))) {
		f->log.n = start;       /* nothing of it stands: the section is unknown, as before */
		struct value u = value_unknown;
		u.loc = at;
		py_unit_forget(&f->log, key, false, why);
		py_unit_put(&f->log, key, u, at,
			    arena_printf(f->a, "from 'AutoBridge.from_hf_pretrained' (a Hugging Face config: %s)", why));
	}
	return true;
}

/* SPDX-License-Identifier: MIT */
/* pack: loading and validating rule packs. */
#include "config/pack.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "base/suggest.h"
#include "config/expr.h"
#include "input/fe_yaml.h"
#include "input/node.h"

static const char *const check_names[] = {
#define CHECK(tag, name, fn) name,
#include "config/checks.def"
#undef CHECK
};

const char *pack_check_name(enum check_kind k)
{
	return k < CHECK_NONE ? check_names[k] : "";
}

static const struct rule *find_for_funnel(const void *owner, const char *id)
{
	return pack_find(owner, id);
}

static unsigned index_for_funnel(const void *owner, const struct rule *r)
{
	(void)owner;
	return r->index;
}

static const struct rule *at_for_funnel(const void *owner, unsigned k)
{
	const struct pack *p = owner;
	return k < p->n_rules ? p->rules[k] : NULL;
}

struct pack *pack_new(void)
{
	struct pack *p = mem_alloc(sizeof(*p));
	p->arena = arena_new();
	p->lookup = (struct diag_rules){p, find_for_funnel, index_for_funnel, at_for_funnel};
	return p;
}

void pack_free(struct pack *p)
{
	if (!p)
		return;
	free(p->rules);
	strmap_release(&p->by_id);
	strmap_release(&p->by_name);
	free(p->steps);
	free(p->defaults);
	free(p->flags);
	free(p->suggest);
	free(p->suggest_prev);
	strmap_release(&p->suggest_keys);
	strmap_release(&p->suggest_last);
	free(p->apis);
	free(p->claims);
	arena_free(p->arena);
	free(p);
}

#define GROW(arr, n, cap) \
	do { \
		if ((n) == (cap)) { \
			(cap) = (cap) ? (cap) * 2 : 16; \
			(arr) = mem_realloc((arr), (cap) * sizeof(*(arr))); \
		} \
	} while (0)

/* ---- validation helpers: every problem names the pack's own file:line ---- */

struct loader {
	struct pack *p;
	struct diag_list *d;
	int errors;
};

CG_PRINTF(3, 4)
static void bad(struct loader *ld, const struct node *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *msg = arena_vprintf(ld->d->arena, fmt, ap);
	va_end(ap);
	diag_input(ld->d, "CG910", at->loc, "%s", msg);
	ld->errors++;
}

/* Reject keys outside 'allowed' (NULL-terminated) with a did-you-mean. */
static void only_keys(struct loader *ld, const struct node *map, const char *what, const char *const *allowed)
{
	size_t n = 0;
	while (allowed[n])
		n++;
	for (size_t k = 0; map->kind == NODE_MAP && k < map->n; k++) {     /* callers say what else it is */
		const struct node *key = map->items[2 * k];
		if (key->kind != NODE_SCALAR) {
			bad(ld, key, "%s keys must be plain names", what);
			continue;
		}
		size_t i;
		for (i = 0; i < n && (key->scalar[0] != allowed[i][0] || strcmp(key->scalar, allowed[i])); i++)
			;
		if (i < n)
			continue;
		const char *s = suggest_closest(key->scalar, allowed, n);
		if (s)
			bad(ld, key, "unknown %s key '%s'; did you mean '%s'?", what, key->scalar, s);
		else
			bad(ld, key, "unknown %s key '%s'", what, key->scalar);
	}
}

static const char *scalar(struct loader *ld, const struct node *map, const char *key, bool required)
{
	const struct node *n = node_get(map, key);
	if (!n) {
		if (required)
			bad(ld, map, "missing '%s'", key);
		return NULL;
	}
	if (n->kind != NODE_SCALAR) {
		bad(ld, n, "'%s' must be a single value", key);
		return NULL;
	}
	return n->scalar;
}

static void range(struct loader *ld, const struct node *map, const char *key, struct vrange *out)
{
	const char *s = scalar(ld, map, key, false);
	*out = (struct vrange){.any = true};
	if (s && target_parse_range(s, out))
		bad(ld, node_get(map, key), "'%s' is not a version range (like \">=0.16 <0.18\", \"0.17\" or \"none\")", s);
}

static struct expr *condition(struct loader *ld, const struct node *n)
{
	if (n->kind != NODE_SCALAR) {
		bad(ld, n, "a condition must be a string");
		return NULL;
	}
	const char *err;
	unsigned col;
	struct expr *e = expr_parse(ld->p->arena, n->scalar, &err, &col);
	if (!e)
		bad(ld, n, "condition: %s at column %u of '%s'", err, col, n->scalar);
	return e;
}

static void mirrors(struct loader *ld, const struct node *map, struct mirror **out, size_t *n_out)
{
	const struct node *m = node_get(map, "mirrors");
	*out = NULL;
	*n_out = 0;
	if (!m)
		return;
	if (m->kind != NODE_MAP) {
		bad(ld, m, "'mirrors' maps \"mcore 0.16\" or \"bridge 0.3\" to a file:line");
		return;
	}
	*out = arena_alloc(ld->p->arena, (m->n ? m->n : 1) * sizeof(**out));
	for (size_t k = 0; k < m->n; k++) {
		const struct node *key = m->items[2 * k], *val = m->items[2 * k + 1];
		struct mirror *mi = &(*out)[*n_out];
		if (key->kind != NODE_SCALAR || val->kind != NODE_SCALAR) {
			bad(ld, key, "'mirrors' entries are \"mcore RANGE: file:line\"");
			continue;
		}
		const char *label = key->scalar;
		if (!strncmp(label, "cuda ", 5) || !strncmp(label, "pytorch", 7) || !strncmp(label, "nccl ", 5)) {
			/* source rules mirror headers and libraries, whatever the Megatron target */
			mi->range.any = true;
			mi->label = label;
			mi->where = val->scalar;
			(*n_out)++;
			continue;
		}
		if (!strncmp(label, "mcore ", 6) || !strncmp(label, "mlm ", 4))
			mi->of_bridge = false;
		else if (!strncmp(label, "bridge ", 7))
			mi->of_bridge = true;
		else {
			bad(ld, key, "mirror label '%s' must start with 'mcore', 'mlm', 'bridge', 'cuda', 'pytorch' or 'nccl'", label);
			continue;
		}
		if (target_parse_range(strchr(label, ' ') + 1, &mi->range)) {
			bad(ld, key, "mirror label '%s' has no version range", label);
			continue;
		}
		mi->label = label;
		mi->where = val->scalar;
		(*n_out)++;
	}
}

static bool ranges_overlap(const struct vrange *a, const struct vrange *b)
{
	if (a->any || b->any)
		return true;
	if (a->none_only || b->none_only)
		return a->none_only && b->none_only;
	return a->lo < b->hi && b->lo < a->hi;
}

static bool valid_id(const char *id)
{
	size_t k = 0;
	while (isupper((unsigned char)id[k]))
		k++;
	if (!k || !isdigit((unsigned char)id[k]))
		return false;
	while (isdigit((unsigned char)id[k]))
		k++;
	return !id[k];
}

static struct rule *rule_by(const struct strmap *m, const struct pack *p, const char *key)
{
	size_t k;
	return key && strmap_get(m, key, strlen(key), &k) ? p->rules[k] : NULL;
}

static void load_rule(struct loader *ld, const struct node *n)
{
	static const char *const keys[] = {"id", "name", "severity", "mcore", "bridge", "when", "check", "key",
					   "values", "at", "message", "fix", "fix_python", "fix_harness", "fix_mlm",
					   "autofix", "mirrors", "doc", NULL};
	if (n->kind != NODE_MAP) {
		bad(ld, n, "a rule is a mapping");
		return;
	}
	int before = ld->errors;
	only_keys(ld, n, "rule", keys);
	struct rule *r = arena_alloc(ld->p->arena, sizeof(*r));
	r->defined = n->loc;
	r->head.id = scalar(ld, n, "id", true);
	r->head.name = scalar(ld, n, "name", true);
	r->message = scalar(ld, n, "message", true);
	r->doc = scalar(ld, n, "doc", true);
	r->head.fix = scalar(ld, n, "fix", false);
	r->fix_python = scalar(ld, n, "fix_python", false);
	r->fix_harness = scalar(ld, n, "fix_harness", false);
	r->fix_mlm = scalar(ld, n, "fix_mlm", false);
	r->key = scalar(ld, n, "key", false);
	const char *sev = scalar(ld, n, "severity", true);
	if (sev && diag_sev_parse(sev, &r->head.sev))
		bad(ld, node_get(n, "severity"), "severity must be error, warning or note, not '%s'", sev);
	if (r->head.id && !valid_id(r->head.id))
		bad(ld, node_get(n, "id"), "rule id '%s' must be capital letters then digits, like CG104", r->head.id);
	range(ld, n, "mcore", &r->mcore);
	range(ld, n, "bridge", &r->bridge);
	/* one id may have per-version variants, as long as no target sees two of them; rules in the
	 * pack already obey this, so the first of an id is also the first of its name */
	bool named = r->head.id && r->head.name;
	struct rule *first_id = named ? rule_by(&ld->p->by_id, ld->p, r->head.id) : NULL;
	struct rule *first_name = named ? rule_by(&ld->p->by_name, ld->p, r->head.name) : NULL;
	if (first_id != first_name) {
		const struct rule *o = first_id ? first_id : first_name;
		bad(ld, n, "rule %s (%s) clashes with rule %s (%s): variants share both id and name", r->head.id,
		    r->head.name, o->head.id, o->head.name);
	}
	for (const struct rule *o = first_id; o && first_id == first_name; o = o->variant)
		if (ranges_overlap(&o->mcore, &r->mcore) && ranges_overlap(&o->bridge, &r->bridge)) {
			bad(ld, node_get(n, "id"), "rule id '%s' is defined twice for the same targets", r->head.id);
			break;
		}
	mirrors(ld, n, &r->mirrors, &r->n_mirrors);
	/* autofix: {KEY: VALUE}: the text a key at the diagnostic takes (fix.h) */
	const struct node *af = node_get(n, "autofix");
	if (af && af->kind != NODE_MAP) {
		bad(ld, af, "autofix maps keys to the value they take, e.g. {rng.te_rng_tracker: \"true\"}");
	} else if (af) {
		r->autofix_keys = arena_alloc(ld->p->arena, (af->n + 1) * sizeof(*r->autofix_keys));
		r->autofix_values = arena_alloc(ld->p->arena, (af->n + 1) * sizeof(*r->autofix_values));
		for (size_t k = 0; k < af->n; k++) {
			const struct node *key = af->items[2 * k], *val = af->items[2 * k + 1];
			if (val->kind != NODE_SCALAR || !val->scalar || !*val->scalar) {
				bad(ld, val, "autofix value for %s must be the text to write", key->scalar ? key->scalar : "?");
				continue;
			}
			r->autofix_keys[r->n_autofix] = key->scalar;
			r->autofix_values[r->n_autofix++] = val->scalar;
		}
	}

	const struct node *when = node_get(n, "when");
	const char *check = scalar(ld, n, "check", false);
	r->check = CHECK_NONE;
	if (check) {
		size_t k;
		for (k = 0; k < CHECK_NONE && strcmp(check, check_names[k]); k++)
			;
		if (k == CHECK_NONE)
			bad(ld, node_get(n, "check"), "unknown check '%s'", check);
		r->check = (enum check_kind)k;
	}
	if (when) {
		r->when = condition(ld, when);
		r->when_src = when->kind == NODE_SCALAR ? when->scalar : NULL;
	} else if (!check) {
		bad(ld, n, "a rule needs 'when' (a condition) or 'check' (a built-in check)");
	}
	if (r->check == CHECK_UNKNOWN_VALUES) {
		const struct node *vals = node_get(n, "values");
		if (!r->key)
			bad(ld, n, "check unknown-values needs 'key'");
		if (!vals || vals->kind != NODE_SEQ)
			bad(ld, vals ? vals : n, "check unknown-values needs 'values', a list");
		else
			r->values = node_value(ld->p->arena, vals, NULL);
	}
	/* 'at': key paths, or {key: K, when: CONDITION} for a key that is the culprit only sometimes */
	const struct node *at = node_get(n, "at");
	if (at) {
		const struct node *const *items = at->kind == NODE_SEQ ? (const struct node *const *)at->items : &at;
		size_t n_items = at->kind == NODE_SEQ ? at->n : 1;
		r->at = arena_alloc(ld->p->arena, (n_items ? n_items : 1) * sizeof(*r->at));
		r->at_when = arena_alloc(ld->p->arena, (n_items ? n_items : 1) * sizeof(*r->at_when));
		for (size_t k = 0; k < n_items; k++) {
			const struct node *it = items[k];
			if (it->kind == NODE_SCALAR) {
				r->at[r->n_at++] = it->scalar;
				continue;
			}
			static const char *const at_keys[] = {"key", "when", NULL};
			const char *key = it->kind == NODE_MAP ? scalar(ld, it, "key", true) : NULL;
			const struct node *cond = it->kind == NODE_MAP ? node_get(it, "when") : NULL;
			if (!key) {
				bad(ld, it, "'at' lists key paths or {key: K, when: CONDITION}");
				continue;
			}
			only_keys(ld, it, "'at' entry", at_keys);
			r->at_when[r->n_at] = cond ? condition(ld, cond) : NULL;
			r->at[r->n_at++] = key;
		}
	}
	if (ld->errors != before)
		return;
	GROW(ld->p->rules, ld->p->n_rules, ld->p->cap_rules);
	r->index = (unsigned)ld->p->n_rules;
	ld->p->rules[ld->p->n_rules++] = r;
	if (first_id) {
		while (first_id->variant)
			first_id = first_id->variant;
		first_id->variant = r;
	} else {
		strmap_put(&ld->p->by_id, r->head.id, strlen(r->head.id), r->index);
		strmap_put(&ld->p->by_name, r->head.name, strlen(r->head.name), r->index);
	}
}

static void load_step(struct loader *ld, const struct node *n)
{
	static const char *const keys[] = {"id", "mcore", "bridge", "when", "set", "note", "mirrors", NULL};
	if (n->kind != NODE_MAP) {
		bad(ld, n, "a normalization step is a mapping");
		return;
	}
	int before = ld->errors;
	only_keys(ld, n, "normalization step", keys);
	struct step *s = arena_alloc(ld->p->arena, sizeof(*s));
	s->id = scalar(ld, n, "id", true);
	s->note = scalar(ld, n, "note", true);
	range(ld, n, "mcore", &s->mcore);
	range(ld, n, "bridge", &s->bridge);
	mirrors(ld, n, &s->mirrors, &s->n_mirrors);
	const struct node *when = node_get(n, "when");
	if (when)
		s->when = condition(ld, when);
	const struct node *set = node_get(n, "set");
	if (!set || set->kind != NODE_MAP || !set->n) {
		bad(ld, set ? set : n, "a step needs 'set', a mapping of key paths to expressions");
	} else {
		s->keys = arena_alloc(ld->p->arena, set->n * sizeof(*s->keys));
		s->exprs = arena_alloc(ld->p->arena, set->n * sizeof(*s->exprs));
		for (size_t k = 0; k < set->n; k++) {
			const struct node *key = set->items[2 * k];
			if (key->kind != NODE_SCALAR) {
				bad(ld, key, "'set' keys are key paths");
				continue;
			}
			s->keys[s->n] = key->scalar;
			s->exprs[s->n] = condition(ld, set->items[2 * k + 1]);
			s->n++;
		}
	}
	if (ld->errors != before)
		return;
	GROW(ld->p->steps, ld->p->n_steps, ld->p->cap_steps);
	ld->p->steps[ld->p->n_steps++] = s;
}

static void load_default(struct loader *ld, const struct node *n)
{
	static const char *const keys[] = {"key", "value", "mcore", "bridge", NULL};
	if (n->kind != NODE_MAP) {
		bad(ld, n, "a default is a mapping");
		return;
	}
	int before = ld->errors;
	only_keys(ld, n, "default", keys);
	struct pack_default def = {.key = scalar(ld, n, "key", true)};
	const struct node *v = node_get(n, "value");
	if (!v)
		bad(ld, n, "missing 'value'");
	else
		def.val = node_value(ld->p->arena, v, NULL);
	def.val.loc = (struct loc){0};
	range(ld, n, "mcore", &def.mcore);
	range(ld, n, "bridge", &def.bridge);
	if (ld->errors != before)
		return;
	GROW(ld->p->defaults, ld->p->n_defaults, ld->p->cap_defaults);
	ld->p->defaults[ld->p->n_defaults++] = def;
}

static void each(struct loader *ld, const struct node *root, const char *key,
		 void (*fn)(struct loader *, const struct node *))
{
	const struct node *seq = node_get(root, key);
	if (!seq)
		return;
	if (seq->kind != NODE_SEQ) {
		bad(ld, seq, "'%s' must be a list", key);
		return;
	}
	for (size_t k = 0; k < seq->n; k++)
		fn(ld, seq->items[k]);
}

static void load_flag(struct loader *ld, const struct node *n)
{
	static const char *const keys[] = {"program", "flag", "key", "value", "nargs", "split", "env",
					   "mcore", "bridge", NULL};
	if (n->kind != NODE_MAP) {
		bad(ld, n, "a flag is a mapping");
		return;
	}
	int before = ld->errors;
	only_keys(ld, n, "flag", keys);
	struct pack_flag f = {
		.program = scalar(ld, n, "program", true), .flag = scalar(ld, n, "flag", true),
		.split = scalar(ld, n, "split", false), .value = value_unknown, .nargs = PACK_NARGS_GUESS,
	};
	const struct node *key = node_get(n, "key");
	if (key && key->kind == NODE_SCALAR) {
		f.keys = arena_alloc(ld->p->arena, sizeof(*f.keys));
		f.keys[f.n_keys++] = key->scalar;
	} else if (key && key->kind == NODE_SEQ) {
		f.keys = arena_alloc(ld->p->arena, (key->n ? key->n : 1) * sizeof(*f.keys));
		for (size_t k = 0; k < key->n; k++)
			if (key->items[k]->kind == NODE_SCALAR)
				f.keys[f.n_keys++] = key->items[k]->scalar;
			else
				bad(ld, key->items[k], "'key' lists key paths");
	}
	const char *env = scalar(ld, n, "env", false);
	f.env = env && !strcmp(env, "true");
	if (!f.n_keys && !f.env)
		bad(ld, n, "a flag needs 'key' (a path or a list of paths) or 'env: true'");
	const struct node *v = node_get(n, "value");
	if (v)
		f.value = node_value(ld->p->arena, v, NULL);
	const char *nargs = scalar(ld, n, "nargs", false);
	if (nargs) {
		if (!strcmp(nargs, "0"))
			f.nargs = 0;
		else if (!strcmp(nargs, "1"))
			f.nargs = 1;
		else if (!strcmp(nargs, "+"))
			f.nargs = PACK_NARGS_LIST;
		else
			bad(ld, node_get(n, "nargs"), "nargs is 0, 1 or '+'");
	}
	if (!f.nargs && v == NULL)
		f.value = value_bool(true);
	if (f.program && strcmp(f.program, "megatron-lm") && strcmp(f.program, "bridge-perf") &&
	    strcmp(f.program, "bridge-recipe"))
		bad(ld, node_get(n, "program"), "program is megatron-lm, bridge-perf or bridge-recipe");
	range(ld, n, "mcore", &f.mcore);
	range(ld, n, "bridge", &f.bridge);
	if (ld->errors != before)
		return;
	GROW(ld->p->flags, ld->p->n_flags, ld->p->cap_flags);
	ld->p->flags[ld->p->n_flags++] = f;
}

static void load_suggest(struct loader *ld, const struct node *n)
{
	if (n->kind != NODE_SCALAR) {
		bad(ld, n, "'suggest' lists key paths");
		return;
	}
	struct pack *p = ld->p;
	size_t k = p->n_suggest, cap = p->cap_suggest, before;
	GROW(p->suggest, p->n_suggest, p->cap_suggest);
	if (p->cap_suggest != cap)
		p->suggest_prev = mem_realloc(p->suggest_prev, p->cap_suggest * sizeof(*p->suggest_prev));
	p->suggest[p->n_suggest++] = n->scalar;
	const char *dot = strrchr(n->scalar, '.');
	size_t parent = dot ? (size_t)(dot - n->scalar) : 0;
	p->suggest_prev[k] = strmap_get(&p->suggest_last, n->scalar, parent, &before) ? before : SIZE_MAX;
	strmap_put(&p->suggest_last, n->scalar, parent, k);
	strmap_put(&p->suggest_keys, n->scalar, strlen(n->scalar), k);
}

static const char *const api_roles[] = {
	"hazard", "begin", "end", "instantiate", "update", "create", "destroy", "stream-create", "record", "wait",
	"relax", "relax-guard", "enqueue", "graph-launch", "use", "status", "exit", NULL,
};

static const char **scalar_list(struct loader *ld, const struct node *n, const char *what, size_t *count)
{
	*count = 0;
	if (!n)
		return NULL;
	if (n->kind != NODE_SEQ) {
		bad(ld, n, "'%s' must be a list of names", what);
		return NULL;
	}
	const char **v = arena_alloc(ld->p->arena, (n->n ? n->n : 1) * sizeof(*v));
	for (size_t k = 0; k < n->n; k++)
		if (n->items[k]->kind == NODE_SCALAR)
			v[(*count)++] = n->items[k]->scalar;
		else
			bad(ld, n->items[k], "'%s' lists names", what);
	return v;
}

static void load_api(struct loader *ld, const struct node *n)
{
	static const char *const keys[] = {"role", "rule", "names", "args", "unsafe", "must_use", "effect",
					   "effect_nonblocking", "when_arg", NULL};
	static const char *const arg_keys[] = {"stream", "mode", "graph", "exec", "event", "flags", "status", NULL};
	if (n->kind != NODE_MAP) {
		bad(ld, n, "an api entry is a mapping ({role: ..., names: [...]})");
		return;
	}
	int before = ld->errors;
	only_keys(ld, n, "api", keys);
	struct pack_api a = {.stream = -1, .mode = -1, .graph = -1, .exec = -1, .event = -1, .flags = -1, .status = -1};
	const char *role = scalar(ld, n, "role", false);
	size_t k = 0;
	if (role) {
		while (api_roles[k] && strcmp(api_roles[k], role))
			k++;
		if (!api_roles[k])
			bad(ld, node_get(n, "role"), "unknown role '%s'", role);
	}
	a.role = (enum api_role)k;
	const char *rule = scalar(ld, n, "rule", false);
	if (rule && !(a.rule = pack_find(ld->p, rule)))
		bad(ld, node_get(n, "rule"), "no rule %s (rules come before the 'apis' that name them)", rule);
	if ((a.role == API_HAZARD || a.role == API_ENQUEUE || a.role == API_GRAPH_LAUNCH) && !rule)
		bad(ld, n, "a hazard names its 'rule'");
	a.effect = scalar(ld, n, "effect", false);
	a.effect_nonblocking = scalar(ld, n, "effect_nonblocking", false);
	const char *s = scalar(ld, n, "unsafe", false);
	a.unsafe = s && !strcmp(s, "true");
	s = scalar(ld, n, "must_use", false);
	a.must_use = s && !strcmp(s, "true");
	a.when_arg = scalar_list(ld, node_get(n, "when_arg"), "when_arg", &a.n_when_arg);
	const struct node *args = node_get(n, "args");
	if (args) {
		only_keys(ld, args, "args", arg_keys);
		int *slot[] = {&a.stream, &a.mode, &a.graph, &a.exec, &a.event, &a.flags, &a.status};
		for (size_t i = 0; arg_keys[i]; i++) {
			const char *v = scalar(ld, args, arg_keys[i], false);
			char *end;
			if (v && !strcmp(v, "last"))
				*slot[i] = PACK_ARG_LAST;
			else if (v && ((*slot[i] = (int)strtol(v, &end, 10)), *end || *slot[i] < 0 || *slot[i] > 16))
				bad(ld, node_get(args, arg_keys[i]), "an argument position is 0..16, or 'last'");
		}
	}
	size_t n_names;
	const char **names = scalar_list(ld, node_get(n, "names"), "names", &n_names);
	if (!n_names)
		bad(ld, n, "an api entry needs 'names'");
	if (ld->errors != before)
		return;
	for (size_t i = 0; i < n_names; i++) {
		GROW(ld->p->apis, ld->p->n_apis, ld->p->cap_apis);
		a.name = names[i];
		ld->p->apis[ld->p->n_apis++] = a;
	}
}

const char *const pack_probe_modes[] = {"global", "thread_local", "relaxed", NULL};
const char *const pack_probe_streams[] = {"blocking", "nonblocking", NULL};
const char *const pack_probe_status[] = {"none", "active", "invalidated", "error", NULL};
const char *const pack_probe_replay[] = {"none", "ok", "missing", "failed", "wrong", NULL};
const char *const pack_probe_bools[] = {"false", "true", NULL};
const char *const pack_probe_mems[] = {"malloc", "vmm", "vmm_remap", NULL};
const char *const pack_probe_graph_register[] = {"unset", "0", "1", NULL};

int pack_word(const char *const *words, const char *s)
{
	for (int k = 0; words[k]; k++)
		if (!strcmp(words[k], s))
			return k;
	return -1;
}

/* 'mode: relaxed' or 'mode: [global, thread_local]' as a bit set; all when absent. */
static unsigned word_set(struct loader *ld, const struct node *n, const char *const *words, const char *what)
{
	if (!n)
		return ~0u;
	size_t count = n->kind == NODE_SEQ ? n->n : 1;
	unsigned set = 0;
	for (size_t k = 0; k < count; k++) {
		const struct node *w = n->kind == NODE_SEQ ? n->items[k] : n;
		int i = w->kind == NODE_SCALAR ? pack_word(words, w->scalar) : -1;
		if (i < 0) {
			struct sbuf one_of;     /* "global, thread_local or relaxed" */
			sbuf_init(&one_of);
			for (size_t j = 0; words[j]; j++)
				sbuf_printf(&one_of, "%s%s", !j ? "" : words[j + 1] ? ", " : " or ", words[j]);
			bad(ld, w, "'%s' is %s", what, one_of.buf);
			sbuf_release(&one_of);
		} else {
			set |= 1u << i;
		}
	}
	return set;
}

/* A result code: a number, or 'error' for any failure. */
static int expect_code(struct loader *ld, const struct node *map, const char *key)
{
	const char *v = scalar(ld, map, key, false);
	if (!v)
		return PACK_EXPECT_ANY;
	if (!strcmp(v, "error"))
		return PACK_EXPECT_ERROR;
	char *end;
	long code = strtol(v, &end, 10);
	if (*end || end == v || code < 0 || code > 100000) {
		bad(ld, node_get(map, key), "'%s' is a result code (0, 900, ...) or 'error'", key);
		return PACK_EXPECT_ANY;
	}
	return (int)code;
}

static int expect_word(struct loader *ld, const struct node *map, const char *key, const char *const *words)
{
	const char *v = scalar(ld, map, key, false);
	int i = v ? pack_word(words, v) : PACK_EXPECT_ANY;
	if (v && i < 0) {
		bad(ld, node_get(map, key), "'%s' is not a %s value", v, key);
		return PACK_EXPECT_ANY;
	}
	return i;
}

static void load_claim(struct loader *ld, const struct node *n)
{
	static const char *const keys[] = {"row", "rule", "expect", NULL};
	static const char *const expect_keys[] = {"mode", "stream", "call", "status", "end", "replay", "at_capture",
						   "mem", "graph_register", "register", "hang", NULL};
	if (n->kind != NODE_MAP) {
		bad(ld, n, "a probe claim is a mapping ({row: ..., rule: ..., expect: [...]})");
		return;
	}
	int before = ld->errors;
	only_keys(ld, n, "probe", keys);
	struct pack_claim c = {.row = scalar(ld, n, "row", true), .loc = n->loc};
	const char *rule = scalar(ld, n, "rule", true);
	if (rule && !(c.rule = pack_find(ld->p, rule)))
		bad(ld, node_get(n, "rule"), "no rule %s", rule);
	const struct node *ex = node_get(n, "expect");
	if (ex && ex->kind != NODE_SEQ)
		bad(ld, ex, "'expect' is a list of expectations");
	else if (ex) {
		c.expect = arena_alloc(ld->p->arena, (ex->n ? ex->n : 1) * sizeof(*c.expect));
		for (size_t k = 0; k < ex->n; k++) {
			const struct node *e = ex->items[k];
			if (e->kind != NODE_MAP) {
				bad(ld, e, "an expectation is a mapping ({call: 900, end: 901})");
				continue;
			}
			only_keys(ld, e, "expect", expect_keys);
			c.expect[c.n_expect++] = (struct pack_expect){
				.modes = word_set(ld, node_get(e, "mode"), pack_probe_modes, "mode"),
				.streams = word_set(ld, node_get(e, "stream"), pack_probe_streams, "stream"),
				.call = expect_code(ld, e, "call"),
				.end = expect_code(ld, e, "end"),
				.status = expect_word(ld, e, "status", pack_probe_status),
				.replay = expect_word(ld, e, "replay", pack_probe_replay),
				.at_capture = expect_word(ld, e, "at_capture", pack_probe_bools),
				.mems = word_set(ld, node_get(e, "mem"), pack_probe_mems, "mem"),
				.graph_regs = word_set(ld, node_get(e, "graph_register"), pack_probe_graph_register,
						       "graph_register"),
				.regs = word_set(ld, node_get(e, "register"), pack_probe_bools, "register"),
				.hang = expect_word(ld, e, "hang", pack_probe_bools),
				.loc = e->loc,
			};
		}
	}
	if (c.row && pack_claim_find(ld->p, c.row))
		bad(ld, node_get(n, "row"), "row %s is claimed twice", c.row);
	if (ld->errors != before)
		return;
	GROW(ld->p->claims, ld->p->n_claims, ld->p->cap_claims);
	ld->p->claims[ld->p->n_claims++] = c;
}

const struct pack_claim *pack_claim_find(const struct pack *p, const char *row)
{
	for (size_t k = 0; k < p->n_claims; k++)
		if (!strcmp(p->claims[k].row, row))
			return &p->claims[k];
	return NULL;
}

const struct pack_expect *pack_expect_for(const struct pack_claim *c, int mode, int stream)
{
	for (size_t k = 0; k < c->n_expect; k++)
		if ((c->expect[k].modes >> mode & 1) && (c->expect[k].streams >> stream & 1))
			return &c->expect[k];
	return NULL;
}

const struct pack_expect *pack_expect_for_ranks(const struct pack_claim *c, int mem, int graph_register, int reg)
{
	for (size_t k = 0; k < c->n_expect; k++)
		if ((c->expect[k].mems >> mem & 1) && (c->expect[k].graph_regs >> graph_register & 1) &&
		    (c->expect[k].regs >> reg & 1))
			return &c->expect[k];
	return NULL;
}

static int cmp_api(const void *a, const void *b)
{
	return strcmp(((const struct pack_api *)a)->name, ((const struct pack_api *)b)->name);
}

const struct pack_api *pack_api_find(const struct pack *p, const char *name, size_t *n)
{
	*n = 0;
	size_t lo = 0, hi = p->n_apis;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(p->apis[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + *n < p->n_apis && !strcmp(p->apis[lo + *n].name, name))
		(*n)++;
	return *n ? &p->apis[lo] : NULL;
}

/* Load a pack's parsed tree; its strings must outlive the pack. */
static int load_tree(struct pack *p, struct diag_list *d, const char *name, struct node *root)
{
	static const char *const keys[] = {"pack", "rules", "normalize", "defaults", "flags", "suggest", "apis", "probe", NULL};
	struct loader ld = {.p = p, .d = d};
	if (!root || root->kind != NODE_MAP) {
		diag_input(d, "CG910", (struct loc){name, 1, 1}, "a rule pack is a mapping with 'rules:'");
		return -1;
	}
	only_keys(&ld, root, "pack", keys);
	each(&ld, root, "rules", load_rule);
	each(&ld, root, "normalize", load_step);
	each(&ld, root, "defaults", load_default);
	each(&ld, root, "flags", load_flag);
	each(&ld, root, "suggest", load_suggest);
	each(&ld, root, "apis", load_api);
	each(&ld, root, "probe", load_claim);
	if (p->n_apis)
		qsort(p->apis, p->n_apis, sizeof(*p->apis), cmp_api);
	return ld.errors ? -1 : 0;
}

int pack_load(struct pack *p, struct diag_list *d, const char *path, const char *text, size_t len)
{
	struct node *root;
	const char *name = arena_strdup(p->arena, path);
	/* pack strings must outlive the run: parse into the pack's arena */
	if (fe_yaml_parse(p->arena, d, name, text, len, &root))
		return -1;
	return load_tree(p, d, name, root);
}

void pack_load_builtin(struct pack *p)
{
	struct arena *a = arena_new();
	struct diag_list d;
	diag_init(&d, a, &p->lookup, NULL);
	for (size_t k = 0; k < pack_n_trees; k++)
		if (load_tree(p, &d, pack_trees[k].path, pack_trees[k].root) || d.n) {
			for (size_t i = 0; i < d.n; i++)
				fprintf(stderr, "%s:%u:%u: %s\n", d.items[i].loc.path, d.items[i].loc.line,
					d.items[i].loc.col, d.items[i].message);
			fprintf(stderr, "cglint: internal error: built-in rule pack %s is invalid\n", pack_trees[k].path);
			exit(3);
		}
	for (size_t k = 0; k < p->n_rules; k++)
		p->rules[k]->builtin = true;
	diag_release(&d);
	arena_free(a);
}

/* Ids are typed in any case (cg104); packs spell them in capitals (valid_id). */
static struct rule *rule_by_id(const struct pack *p, const char *id)
{
	char up[32];
	size_t n = id ? strlen(id) : sizeof(up);
	if (n >= sizeof(up))
		return NULL;
	for (size_t k = 0; k <= n; k++)
		up[k] = (char)toupper((unsigned char)id[k]);
	return rule_by(&p->by_id, p, up);
}

const struct rule *pack_find(const struct pack *p, const char *id_or_name)
{
	const struct rule *by_id = rule_by_id(p, id_or_name), *by_name = rule_by(&p->by_name, p, id_or_name);
	if (by_id && by_name)
		return by_id->index < by_name->index ? by_id : by_name;
	return by_id ? by_id : by_name;
}

const char *pack_closest_rule(const struct pack *p, const char *word)
{
	const char **cands = mem_alloc((2 * p->n_rules + 1) * sizeof(*cands));
	for (size_t k = 0; k < p->n_rules; k++) {
		cands[2 * k] = p->rules[k]->head.id;
		cands[2 * k + 1] = p->rules[k]->head.name;
	}
	const char *best = suggest_closest(word, cands, 2 * p->n_rules);
	free(cands);
	return best;
}

bool pack_has_rules_from(const struct pack *p, const char *path)
{
	for (size_t k = 0; k < p->n_rules; k++)
		if (p->rules[k]->defined.path && !strcmp(p->rules[k]->defined.path, path))
			return true;
	return false;
}

bool pack_applies(const struct vrange *mcore, const struct vrange *bridge, const struct target *t)
{
	return target_in_range(mcore, t->mcore, false) && target_in_range(bridge, t->bridge, true);
}

const char *pack_mirror_for(const struct mirror *m, size_t n, const struct target *t)
{
	for (size_t k = 0; k < n; k++)
		if (target_in_range(&m[k].range, m[k].of_bridge ? t->bridge : t->mcore, m[k].of_bridge))
			return m[k].where;
	return NULL;
}

/* SPDX-License-Identifier: MIT */
/* pack_src: the packs' tables for sources: the scanner's API roles and the probe's claims (see pack.h). */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "config/pack_load.h"
#include "input/node.h"

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
		pack_bad(ld, n, "'%s' must be a list of names", what);
		return NULL;
	}
	const char **v = arena_alloc(ld->p->arena, (n->n ? n->n : 1) * sizeof(*v));
	for (size_t k = 0; k < n->n; k++)
		if (n->items[k]->kind == NODE_SCALAR)
			v[(*count)++] = n->items[k]->scalar;
		else
			pack_bad(ld, n->items[k], "'%s' lists names", what);
	return v;
}

void pack_load_api(struct loader *ld, const struct node *n)
{
	static const char *const keys[] = {"role", "rule", "names", "args", "unsafe", "must_use", "effect",
					   "effect_nonblocking", "when_arg", NULL};
	static const char *const arg_keys[] = {"stream", "mode", "graph", "exec", "event", "flags", "status", NULL};
	if (n->kind != NODE_MAP) {
		pack_bad(ld, n, "an api entry is a mapping ({role: ..., names: [...]})");
		return;
	}
	int before = ld->errors;
	pack_only_keys(ld, n, "api", keys);
	struct pack_api a = {.stream = -1, .mode = -1, .graph = -1, .exec = -1, .event = -1, .flags = -1, .status = -1};
	const char *role = pack_scalar(ld, n, "role", false);
	size_t k = 0;
	if (role) {
		while (api_roles[k] && strcmp(api_roles[k], role))
			k++;
		if (!api_roles[k])
			pack_bad(ld, node_get(n, "role"), "unknown role '%s'", role);
	}
	a.role = (enum api_role)k;
	const char *rule = pack_scalar(ld, n, "rule", false);
	if (rule && !(a.rule = pack_find(ld->p, rule)))
		pack_bad(ld, node_get(n, "rule"), "no rule %s (rules come before the 'apis' that name them)", rule);
	if ((a.role == API_HAZARD || a.role == API_ENQUEUE || a.role == API_GRAPH_LAUNCH) && !rule)
		pack_bad(ld, n, "a hazard names its 'rule'");
	a.effect = pack_scalar(ld, n, "effect", false);
	a.effect_nonblocking = pack_scalar(ld, n, "effect_nonblocking", false);
	const char *s = pack_scalar(ld, n, "unsafe", false);
	a.unsafe = s && !strcmp(s, "true");
	s = pack_scalar(ld, n, "must_use", false);
	a.must_use = s && !strcmp(s, "true");
	a.when_arg = scalar_list(ld, node_get(n, "when_arg"), "when_arg", &a.n_when_arg);
	const struct node *args = node_get(n, "args");
	if (args) {
		pack_only_keys(ld, args, "args", arg_keys);
		int *slot[] = {&a.stream, &a.mode, &a.graph, &a.exec, &a.event, &a.flags, &a.status};
		for (size_t i = 0; arg_keys[i]; i++) {
			const char *v = pack_scalar(ld, args, arg_keys[i], false);
			char *end;
			if (v && !strcmp(v, "last"))
				*slot[i] = PACK_ARG_LAST;
			else if (v && ((*slot[i] = (int)strtol(v, &end, 10)), *end || *slot[i] < 0 || *slot[i] > 16))
				pack_bad(ld, node_get(args, arg_keys[i]), "an argument position is 0..16, or 'last'");
		}
	}
	size_t n_names;
	const char **names = scalar_list(ld, node_get(n, "names"), "names", &n_names);
	if (!n_names)
		pack_bad(ld, n, "an api entry needs 'names'");
	if (ld->errors != before)
		return;
	for (size_t i = 0; i < n_names; i++) {
		GROW(ld->p->src->apis, ld->p->src->n_apis, ld->p->src->cap_apis);
		a.name = names[i];
		ld->p->src->apis[ld->p->src->n_apis++] = a;
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
			pack_bad(ld, w, "'%s' is %s", what, one_of.buf);
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
	const char *v = pack_scalar(ld, map, key, false);
	if (!v)
		return PACK_EXPECT_ANY;
	if (!strcmp(v, "error"))
		return PACK_EXPECT_ERROR;
	char *end;
	long code = strtol(v, &end, 10);
	if (*end || end == v || code < 0 || code > 100000) {
		pack_bad(ld, node_get(map, key), "'%s' is a result code (0, 900, ...) or 'error'", key);
		return PACK_EXPECT_ANY;
	}
	return (int)code;
}

static int expect_word(struct loader *ld, const struct node *map, const char *key, const char *const *words)
{
	const char *v = pack_scalar(ld, map, key, false);
	int i = v ? pack_word(words, v) : PACK_EXPECT_ANY;
	if (v && i < 0) {
		pack_bad(ld, node_get(map, key), "'%s' is not a %s value", v, key);
		return PACK_EXPECT_ANY;
	}
	return i;
}

void pack_load_claim(struct loader *ld, const struct node *n)
{
	static const char *const keys[] = {"row", "rule", "expect", NULL};
	static const char *const expect_keys[] = {"mode", "stream", "call", "status", "end", "replay", "at_capture",
						   "mem", "graph_register", "register", "hang", NULL};
	if (n->kind != NODE_MAP) {
		pack_bad(ld, n, "a probe claim is a mapping ({row: ..., rule: ..., expect: [...]})");
		return;
	}
	int before = ld->errors;
	pack_only_keys(ld, n, "probe", keys);
	struct pack_claim c = {.row = pack_scalar(ld, n, "row", true), .loc = n->loc};
	const char *rule = pack_scalar(ld, n, "rule", true);
	if (rule && !(c.rule = pack_find(ld->p, rule)))
		pack_bad(ld, node_get(n, "rule"), "no rule %s", rule);
	const struct node *ex = node_get(n, "expect");
	if (ex && ex->kind != NODE_SEQ)
		pack_bad(ld, ex, "'expect' is a list of expectations");
	else if (ex) {
		c.expect = arena_alloc(ld->p->arena, (ex->n ? ex->n : 1) * sizeof(*c.expect));
		for (size_t k = 0; k < ex->n; k++) {
			const struct node *e = ex->items[k];
			if (e->kind != NODE_MAP) {
				pack_bad(ld, e, "an expectation is a mapping ({call: 900, end: 901})");
				continue;
			}
			pack_only_keys(ld, e, "expect", expect_keys);
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
		pack_bad(ld, node_get(n, "row"), "row %s is claimed twice", c.row);
	if (ld->errors != before)
		return;
	GROW(ld->p->src->claims, ld->p->src->n_claims, ld->p->src->cap_claims);
	ld->p->src->claims[ld->p->src->n_claims++] = c;
}

void pack_src_read(struct pack *p)
{
	if (!p->src->unread)
		return;
	/* before a --rules pack's entries (pack_load reads these first), as when they were read with
	 * the rules: a name's built-in entries stay first through the sort */
	p->src->unread = false;
	struct arena *a = arena_new();
	struct diag_list d;
	diag_init(&d, a, &p->lookup, NULL);
	struct loader ld = {.p = p, .d = &d, .lazy = true, .trusted = true};
	for (size_t k = 0; k < pack_n_trees; k++) {
		pack_each(&ld, pack_trees[k].root, "apis", pack_load_api);
		pack_each(&ld, pack_trees[k].root, "probe", pack_load_claim);
		if (ld.errors || d.n)   /* the build read them (pack_parse_all): a broken build */
			pack_builtin_broken(&d, pack_trees[k].path);
	}
	pack_sort_apis(p);
	diag_release(&d);
	arena_free(a);
}

/* The tables, read on first use (pack.h). */
static const struct pack_tables *tables(const struct pack *p)
{
	if (p->src->unread)
		pack_src_read(p->src->pack);
	return p->src;
}

const struct pack_api *pack_apis(const struct pack *p, size_t *n)
{
	*n = tables(p)->n_apis;
	return p->src->apis;
}

const struct pack_claim *pack_claims(const struct pack *p, size_t *n)
{
	*n = tables(p)->n_claims;
	return p->src->claims;
}

const struct pack_claim *pack_claim_find(const struct pack *p, const char *row)
{
	size_t n;
	const struct pack_claim *c = pack_claims(p, &n);
	for (size_t k = 0; k < n; k++)
		if (!strcmp(c[k].row, row))
			return &c[k];
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
	size_t lo = 0, hi = tables(p)->n_apis;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(p->src->apis[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + *n < p->src->n_apis && !strcmp(p->src->apis[lo + *n].name, name))
		(*n)++;
	return *n ? &p->src->apis[lo] : NULL;
}

void pack_sort_apis(struct pack *p)
{
	if (p->src->n_apis)
		qsort(p->src->apis, p->src->n_apis, sizeof(*p->src->apis), cmp_api);
}

/* SPDX-License-Identifier: MIT */
/* mlm: functional-test model_config.yaml and --yaml-cfg files -> facts. */
#include "front/mlm.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/value.h"
#include "config/fact.h"
#include "front/args.h"
#include "front/cfg.h"
#include "input/node.h"

enum mlm_kind mlm_kind(const struct node *root)
{
	if (!root || root->kind != NODE_MAP)
		return MLM_NOT;
	if (node_get(root, "MODEL_ARGS") || node_get(root, "ENV_VARS"))
		return MLM_TEST_CASE;
	if ((node_get(root, "language_model") || node_get(root, "model_parallel")) && !node_get(root, "model"))
		return MLM_YAML_CFG;
	return MLM_NOT;
}

static bool line_starts_with(const char *text, size_t len, const char *word)
{
	size_t n = strlen(word);
	for (size_t k = 0; k + n <= len; k++)
		if ((k == 0 || text[k - 1] == '\n') && !memcmp(text + k, word, n))
			return true;
	return false;
}

bool mlm_text_is_test_case(const char *text, size_t len)
{
	return line_starts_with(text, len, "MODEL_ARGS:") || line_starts_with(text, len, "ENV_VARS:");
}

struct words {
	struct args_word *w;
	size_t n, cap;
};

static void push(struct words *ws, const char *text, struct loc loc, bool unresolved)
{
	if (ws->n == ws->cap)
		ws->w = mem_realloc(ws->w, (ws->cap = ws->cap ? ws->cap * 2 : 64) * sizeof(*ws->w));
	ws->w[ws->n++] = (struct args_word){text, loc, unresolved};
}

/* One MODEL_ARGS entry as _run_training.sh turns it into words (core_v0.19.0 L113-140). */
static void entry_words(struct arena *a, struct words *ws, const struct node *key, const struct node *val)
{
	if (key->kind != NODE_SCALAR)
		return;
	if (val->kind != NODE_SCALAR) {         /* yq would print the structure: nothing argparse reads */
		push(ws, key->scalar, key->loc, false);
		push(ws, "", val->loc, true);
		return;
	}
	const char *v = val->scalar;
	size_t n = strlen(v);
	if (!n && !val->plain)
		return;                         /* select(.value != "") drops the entry */
	/* "${EXTRA}: true" may expand to any flags */
	push(ws, key->scalar, key->loc, strchr(key->scalar, '$') || strchr(key->scalar, '`'));
	if (!strcmp(v, "true"))
		return;                         /* a bare switch ("true" quoted too: the script compares text) */
	/* the words go through eval: an expansion is unknown to a static reader */
	bool unresolved = strchr(v, '$') || strchr(v, '`');
	if (n >= 2 && v[0] == '[' && v[n - 1] == ']') {
		char *inner = arena_strndup(a, v + 1, n - 2), *save;
		for (char *tok = strtok_r(inner, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
			push(ws, tok, val->loc, unresolved);
		return;
	}
	push(ws, v, val->loc, unresolved);
}

struct pair {
	const struct node *key, *val;
	size_t seq;             /* the order written, merged maps expanded in place */
};

struct pairs {
	struct pair *p;
	size_t n, cap;
};

/* MODEL_ARGS's entries in the order _run_training.sh's yq 'explode(.)' applies them (core_v0.19.0
 * L113; yq's default merge, each merge key's maps where it stands). */
static void push_pair(const struct node *key, const struct node *val, void *ctx)
{
	struct pairs *ps = ctx;
	if (ps->n == ps->cap)
		ps->p = mem_realloc(ps->p, (ps->cap = ps->cap ? ps->cap * 2 : 64) * sizeof(*ps->p));
	ps->p[ps->n] = (struct pair){key, val, ps->n};
	ps->n++;
}

static int by_key(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;
	int c = strcmp(a->key->scalar, b->key->scalar);
	return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

static int by_seq(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* yq's default (legacy) merge: the entry applied last wins. A run's own key written after the
 * merge wins over the merged one; one written before it loses (yq warns that this is not the YAML
 * spec; the files merge first). Sorted, not searched: maps may be large. */
static void pairs_merge(struct pairs *ps)
{
	if (ps->n < 2)
		return;         /* nothing to merge; an empty map has no array, which qsort must not get */
	qsort(ps->p, ps->n, sizeof(*ps->p), by_key);
	size_t out = 0;
	for (size_t k = 0; k < ps->n; k++)
		if (out && !strcmp(ps->p[out - 1].key->scalar, ps->p[k].key->scalar))
			ps->p[out - 1].key = ps->p[k].key, ps->p[out - 1].val = ps->p[k].val;
		else
			ps->p[out++] = ps->p[k];
	ps->n = out;
	qsort(ps->p, ps->n, sizeof(*ps->p), by_seq);
}

bool mlm_test_case_facts(struct facts *t, struct diag_list *d, const struct pack *p, const struct target *tg,
			 const struct node *root)
{
	const struct node *env = node_get(root, "ENV_VARS");
	if (env && env->kind == NODE_MAP)
		for (size_t k = 0; k < env->n; k++) {
			const struct node *key = env->items[2 * k], *val = env->items[2 * k + 1];
			if (key->kind != NODE_SCALAR || val->kind != NODE_SCALAR)
				continue;
			struct value v = node_value(t->arena, val, NULL);
			cfg_env(t, key->scalar, value_string(t->arena, &v, true), key->loc, "config");
		}
	/* run_ci_test.sh runs MODE (default pretraining) with its program: training, inference, rl */
	const struct node *mode = node_get(root, "MODE");
	const char *m = mode && mode->kind == NODE_SCALAR ? mode->scalar : "pretraining";
	facts_set(t, "args._run", value_str(!strcmp(m, "pretraining") ? "training" : m),
		  mode ? mode->loc : root->loc, "config");
	const struct node *args = node_get(root, "MODEL_ARGS");
	if (!args || args->kind != NODE_MAP)
		return true;
	struct pairs ps = {0};
	node_each_entry(args, false, push_pair, &ps);
	pairs_merge(&ps);
	struct words ws = {0};
	for (size_t k = 0; k < ps.n; k++)
		entry_words(t->arena, &ws, ps.p[k].key, ps.p[k].val);
	/* The script is the test recipe's (tests/test_utils/recipes), not named here: a training
	 * test of the families that run pretrain_*.py has every flag judged; inference and RL
	 * tests, and the multimodal families' own scripts, add flags of their own. */
	const char *at = root->loc.path ? root->loc.path : "";
	bool own_flags = strcmp(m, "pretraining") || strstr(at, "multimodal") || strstr(at, "mimo/") ||
			 strstr(at, "flextron");        /* megatron/elastification/pretrain_hybrid_flex.py */
	bool complete = args_to_facts(t, d, p, tg, ARGS_MEGATRON_LM, !own_flags, args->loc, ws.w, ws.n, "config");
	free(ws.w);
	free(ps.p);
	return complete;
}

/* language_model: and model_parallel: are TransformerConfig / ModelParallelConfig (yaml_arguments.py
 * flattens both onto args); the top level holds training arguments. */
void mlm_yaml_cfg_facts(struct facts *t, const struct node *root)
{
	cfg_from_yaml_under(t, node_get(root, "language_model"), "model", "config");
	cfg_from_yaml_under(t, node_get(root, "model_parallel"), "model", "config");
	for (size_t k = 0; k < root->n; k++) {
		const struct node *key = root->items[2 * k], *val = root->items[2 * k + 1];
		if (key->kind != NODE_SCALAR || val->kind == NODE_MAP)
			continue;
		const char *path = !strcmp(key->scalar, "te_rng_tracker") ? "rng.te_rng_tracker"
									   : arena_printf(t->arena, "args.%s", key->scalar);
		struct value v = node_value(t->arena, val, NULL);
		v.loc = key->loc;
		facts_set(t, path, v, key->loc, "config");
	}
}

/* SPDX-License-Identifier: MIT */
/* cfg: YAML trees, dotlists and environment settings -> facts. */
#include "front/cfg.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "base/value.h"
#include "config/fact.h"
#include "input/fe_yaml.h"
#include "input/node.h"

struct walk {
	struct facts *t;
	const char *layer;
	struct sbuf path;
};

static void add_map(struct walk *w, const struct node *map);

/* Python's str() of a scalar, as os.environ.setdefault(name, str(value)) stores it (BR-14). */
static const char *env_string(struct arena *a, const struct value *v)
{
	return value_string(a, v, true);
}

static void add_entry(struct walk *w, const struct node *key, const struct node *val)
{
	size_t mark = w->path.len;
	if (mark)
		sbuf_addc(&w->path, '.');
	sbuf_adds(&w->path, key->scalar);
	bool enum_form = false;
	struct value v = node_value(w->t->arena, val, &enum_form);
	v.loc = key->loc;
	struct fact *f = facts_set(w->t, w->path.buf, v, key->loc, w->layer);
	f->enum_form = enum_form;
	if (v.kind == V_MAP)
		add_map(w, val);
	w->path.len = mark;
	w->path.buf[mark] = '\0';
}

static void add_key(const struct node *key, const struct node *val, void *ctx)
{
	add_entry(ctx, key, val);
}

/* the mapping's own keys override merged ones, as PyYAML does */
static void add_map(struct walk *w, const struct node *map)
{
	node_each_entry(map, true, add_key, w);
}

void cfg_from_yaml_under(struct facts *t, const struct node *map, const char *prefix, const char *layer)
{
	if (!map || map->kind != NODE_MAP)
		return;
	struct walk w = {.t = t, .layer = layer};
	sbuf_init(&w.path);
	sbuf_adds(&w.path, prefix);
	add_map(&w, map);
	sbuf_release(&w.path);
}

bool cfg_from_yaml(struct facts *t, const struct node *root, const char *layer)
{
	if (!root || root->kind != NODE_MAP)
		return false;
	cfg_from_yaml_under(t, root, "", layer);
	const struct node *target = node_get(root, "_target_");
	if (!target || target->kind != NODE_SCALAR)
		return false;
	size_t n = strlen(target->scalar);
	return n >= 15 && !strcmp(target->scalar + n - 15, "ConfigContainer");
}

void cfg_env_vars(struct facts *t)
{
	size_t n = t->n;         /* cfg_env appends facts: visit only the ones there now */
	for (size_t k = 0; k < n; k++) {
		const struct fact *f = t->order[k];
		if (strncmp(f->key, "env_vars.", 9) || strchr(f->key + 9, '.'))
			continue;
		if (f->val.kind == V_LIST || f->val.kind == V_MAP)
			continue;       /* Bridge raises TypeError on non-scalars; nothing to compare */
		/* a value cglint cannot know (a Python recipe's) leaves the variable unknown */
		cfg_env(t, f->key + 9, f->val.kind == V_UNKNOWN ? NULL : env_string(t->arena, &f->val), f->loc, f->layer);
	}
}

void cfg_env(struct facts *t, const char *name, const char *value, struct loc loc, const char *layer)
{
	char *key = arena_printf(t->arena, "env.%s", name);
	struct value v = value ? value_str(arena_strdup(t->arena, value)) : value_unknown;
	v.loc = loc;
	facts_set(t, key, v, loc, layer);
	/* a value cglint cannot know tells nothing of the rest of the environment */
	t->env_closed |= value != NULL;
}

bool cfg_is_dotlist(const char *arg)
{
	const char *p = arg;
	if (*p == '+' || *p == '~')
		p++;
	if (*p == '+')
		p++;
	if (!isalpha((unsigned char)*p) && *p != '_')
		return false;
	while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
		p++;
	return *p == '=' || (!*p && arg[0] == '~');
}

int cfg_dotlist(struct facts *t, struct diag_list *d, const char *arg, struct loc where, bool lenient)
{
	const char *p = arg;
	bool del = *p == '~', appended = *p == '+';
	while (*p == '+' || *p == '~')
		p++;
	const char *eq = strchr(p, '=');
	char *key = arena_strndup(t->arena, p, eq ? (size_t)(eq - p) : strlen(p));
	if (del) {
		struct fact *f = facts_get(t, key);
		if (f)
			f->val = f->raw = value_unknown;
		return 0;
	}
	const char *text = eq + 1;
	struct node *root;
	bool enum_form = false;
	struct value v;
	/* the value is YAML, as Hydra reads it: 'model.cuda_graph_scope=[attn,moe_router]' */
	if (lenient) {
		/* a launch script's word: what Hydra's own grammar makes of it is a string to cglint */
		struct diag_list quiet;
		diag_init(&quiet, t->arena, d->rules, NULL);
		int rc = fe_yaml_parse(t->arena, &quiet, where.path, text, strlen(text), &root);
		diag_release(&quiet);
		v = rc ? value_str(arena_strdup(t->arena, text)) : root ? node_value(t->arena, root, &enum_form) : value_null;
	} else {
		if (fe_yaml_parse(t->arena, d, where.path, text, strlen(text), &root))
			return -1;
		v = root ? node_value(t->arena, root, &enum_form) : value_null;
	}
	v.loc = where;
	if (v.kind == V_LIST)
		for (size_t k = 0; k < v.n; k++)
			v.items[k].loc = where;
	struct fact *f = facts_set(t, key, v, where, "dotlist");
	f->enum_form = enum_form;
	f->form = appended ? FACT_APPENDED : FACT_SET;
	return 0;
}

/* SPDX-License-Identifier: MIT */
/* lint: one unit per input, its facts in layer order, judged. */
#define _DEFAULT_SOURCE /* realpath */
#include "run/lint.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/strmap.h"
#include "base/suggest.h"
#include "config/expr.h"
#include "config/fact.h"
#include "config/pack.h"
#include "config/proj.h"
#include "config/target.h"
#include "front/args.h"
#include "front/cfg.h"
#include "front/fe_py.h"
#include "front/fe_sh.h"
#include "front/mlm.h"
#include "front/py_mod.h"
#include "front/py_text.h"
#include "front/py_unit.h"
#include "input/fe_yaml.h"
#include "input/node.h"
#include "input/read.h"
#include "input/pyenv.h"
#include "input/text.h"
#include "input/walk.h"
#include "run/batch.h"
#include "source/fe_clang.h"

static struct node *parse_yaml_path(struct lint_run *r, struct arena *a, const char *path)
{
	char *buf;
	size_t len;
	struct node *root = NULL;
	if (read_path(&r->diags, a, path, &buf, &len) == 0) {
		text_put(r->texts, path, buf, len);
		fe_yaml_parse(a, &r->diags, path, buf, len, &root);
	}
	return root;
}

/* ---- the run ---- */

void lint_run_init(struct lint_run *r, const struct pack *p, const struct lint_opts *o, const struct diag_filter *f,
		   struct proj *proj)
{
	*r = (struct lint_run){.pack = p, .opts = o, .arena = arena_new(), .sources = src_queue_new(), .proj = proj,
			       .texts = text_store_new(), .batch = batch_new()};
	diag_init(&r->diags, r->arena, &p->lookup, f);
	diag_init(&r->suppressed, r->arena, &p->lookup, NULL);
	diag_init(&r->undecided, r->arena, &p->lookup, NULL);
	r->overlays = mem_alloc((o->n_overlays + 1) * sizeof(*r->overlays));
	for (size_t k = 0; k < o->n_overlays; k++)
		r->overlays[k] = parse_yaml_path(r, r->arena, arena_strdup(r->arena, o->overlays[k]));
	for (size_t k = 0; k < o->n_env_files; k++) {
		const char *path = arena_strdup(r->arena, o->env_files[k]);
		char *buf;
		size_t len;
		if (read_path(&r->diags, r->arena, path, &buf, &len) == 0) {
			text_put(r->texts, path, buf, len);
			fe_env_parse(r->arena, &r->diags, path, buf, len, &r->env);
		}
	}
	/* -E settings have no position of their own: diagnostics about them go to the config's key */
	for (size_t k = 0; k < o->n_env_assigns; k++)
		if (fe_env_assign(r->arena, o->env_assigns[k], (struct loc){0}, &r->env))
			diag_input(&r->diags, "CG907", (struct loc){"<command line>", 1, 1},
				   "-E %s is not a NAME=VALUE assignment", o->env_assigns[k]);
}

void lint_run_release(struct lint_run *r)
{
	diag_release(&r->diags);
	diag_release(&r->suppressed);
	diag_release(&r->undecided);
	engine_notes_release(&r->notes);
	fe_env_release(&r->env);
	free(r->overlays);
	free(r->silent);
	free(r->empty);
	src_queue_free(r->sources);
	batch_free(r->batch);
	proj_free(r->proj);
	text_store_free(r->texts);
	fe_py_cache_free(r->py);
	arena_free(r->arena);
}

static void check_item(struct lint_run *r, const struct batch_item *it);

void lint_finish(struct lint_run *r)
{
	batch_run(r->batch, r, r->opts->sources.jobs, r->opts->sources.in_process, check_item);
	r->units += src_run(r->sources, r->pack, r->diags.filter, &r->opts->sources, &r->diags);
	src_texts(r->sources, r->texts);
}

/* A key that is not a CUDA-graph key the packs know but is one or two typos from one. */
static void check_key_spelling(struct lint_run *r, const struct facts *t)
{
	const struct pack *p = r->pack;
	for (size_t k = 0; k < t->n; k++) {
		const struct fact *f = t->order[k];
		if (!f->loc.path || !strcmp(f->layer, "default") || !strcmp(f->layer, "normalized"))
			continue;
		const char *leaf = strrchr(f->key, '.');
		size_t parent = leaf ? (size_t)(leaf - f->key) : 0;
		leaf = leaf ? leaf + 1 : f->key;
		const char *best = NULL;
		unsigned best_d = 99;
		size_t i;
		bool known = strmap_get(&p->suggest_keys, f->key, strlen(f->key), &i);
		/* the keys under the same parent, last first: on a tie the first listed wins */
		if (!known && strmap_get(&p->suggest_last, f->key, parent, &i)) {
			for (; i != SIZE_MAX; i = p->suggest_prev[i]) {
				const char *sleaf = p->suggest[i] + parent + (parent > 0);
				/* every key of a dump is compared: a typo seldom hits both ends of a word, so
				 * skip the edit distance where neither end matches */
				size_t len = strlen(sleaf), llen = strlen(leaf);
				if (!llen || (leaf[0] != sleaf[0] && leaf[llen - 1] != sleaf[len - 1]))
					continue;
				unsigned cap = (len < 9 ? 1 : len < 16 ? 2 : 3) * SUGGEST_EDIT;
				unsigned d = suggest_distance(leaf, sleaf, cap);
				if (d <= cap && d <= best_d) {
					best = sleaf;
					best_d = d;
				}
			}
		}
		if (!known && best)
			diag_input(&r->diags, "CG905", f->loc, "unknown key '%s'; did you mean '%s'?", leaf, best);
	}
}

static void add_outer_env(struct lint_run *r, struct facts *t)
{
	for (size_t k = 0; k < r->env.n; k++)
		cfg_env(t, r->env.items[k].name, r->env.items[k].value, r->env.items[k].loc, "env");
}

/* Judge one unit's facts, built by its front-end, against its target. */
static void judge(struct lint_run *r, const char *path, struct facts *t, const struct target *tg)
{
	struct engine e = {
		.pack = r->pack,
		.unit = {.target = tg, .facts = t, .diags = &r->diags, .arena = t->arena, .unit_path = path,
			 .unit_line = r->unit_line},
		.notes = r->opts->verbose ? &r->notes : NULL,
	};
	size_t first_note = r->notes.n;
	engine_run(&e);
	if (r->opts->on_facts)
		r->opts->on_facts(r->opts->on_facts_ctx, path, r->unit_name, r->unit_line ? r->unit_line : 1, tg, t);
	/* notes point into the unit arena; keep copies that outlive it */
	for (size_t k = first_note; k < r->notes.n; k++)
		r->notes.items[k].text = arena_strdup(r->arena, r->notes.items[k].text);
	r->units++;
}

/* The layers over a Bridge config's own keys: --config-file overlays, dotlists, env_vars:, the
 * environment; then the unit is judged. 'env_spread': env_vars took entries cglint did not read. */
static void bridge_layers(struct lint_run *r, const char *path, struct facts *t, const struct target *tg,
			  bool full_dump, bool env_spread)
{
	const struct lint_opts *o = r->opts;
	for (size_t k = 0; k < o->n_overlays; k++)
		if (r->overlays[k])
			cfg_from_yaml(t, r->overlays[k], "config-file");
	for (size_t k = 0; k < o->n_dotlists; k++)
		cfg_dotlist(t, &r->diags, o->dotlists[k], (struct loc){"<command line>", 1, (unsigned)k + 1}, false);
	/* the shell wins over env_vars: (Bridge applies them with os.environ.setdefault) */
	if (tg->bridge >= TARGET_BRIDGE_ENV_VARS) {
		bool env_closed = t->env_closed;
		cfg_env_vars(t);
		if (env_spread)
			t->env_closed = env_closed;     /* {**BASE, ...}: other names may be set */
	}
	add_outer_env(r, t);
	t->closed = full_dump || o->assume_defaults;
	check_key_spelling(r, t);
	judge(r, path, t, tg);
}

/* A Bridge config: the file, then the layers over it. */
static void bridge_unit(struct lint_run *r, const char *path, const struct node *root, struct facts *t,
			const struct target *tg)
{
	bool full_dump = cfg_from_yaml(t, root, "config");
	bridge_layers(r, path, t, tg, full_dump, false);
}

/* Megatron-LM runs Megatron Core without Bridge, whatever --bridge says. */
static struct target mlm_target(const struct target *unit)
{
	struct target tg = *unit;
	tg.bridge = TARGET_NO_BRIDGE;
	return tg;
}

static void yaml_unit(struct lint_run *r, const char *path, const struct node *root, const struct target *unit)
{
	struct arena *a = arena_new();
	struct facts t;
	facts_init(&t, a);
	struct target tg = mlm_target(unit);
	switch (mlm_kind(root)) {
	case MLM_TEST_CASE:
		/* the file is the whole command line: flags it does not give take argparse's defaults */
		t.closed = mlm_test_case_facts(&t, &r->diags, r->pack, &tg, root) || r->opts->assume_defaults;
		add_outer_env(r, &t);
		judge(r, path, &t, &tg);
		break;
	case MLM_YAML_CFG:
		/* core_config_from_args refuses a file that lacks a field: every key is there */
		mlm_yaml_cfg_facts(&t, root);
		add_outer_env(r, &t);
		t.closed = true;
		judge(r, path, &t, &tg);
		break;
	case MLM_NOT:
		bridge_unit(r, path, root, &t, unit);
		break;
	}
	facts_release(&t);
	arena_free(a);
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), m = strlen(suffix);
	return n > m && !strcmp(name + n - m, suffix);
}

/* The GPU a recipe names, where no --gpu or .cglint.yaml gpu is given: Bridge names recipes and
 * their folders after it (perf_recipes/llama/b200/llama3.py, ..._8gpu_gb200_bf16_config). The
 * function's name first, then the file name and the three folders above it (the real path, so
 * that 'cglint llama3.py' inside b200/ sees it), nearest last wins. Names only, never "sm_90". */
static const char *recipe_gpu(const char *path, const char *fn, int *major, const char **from)
{
	static const char *const names[] = {"gb300", "gb200", "b300", "b200", "h200", "h100", "a100"};
	char *real = realpath(path, NULL);
	const char *tail = real ? real : path;
	int slashes = 0;        /* keep the file name and the three folders above it */
	for (const char *p = tail + strlen(tail); p > tail; p--)
		if (p[-1] == '/' && ++slashes == 4) {
			tail = p;
			break;
		}
	const char *where[2] = {fn, tail}, *found = NULL;
	for (int w = 0; w < 2 && !found; w++) {
		for (const char *p = where[w]; *p;) {
			while (*p && !isalnum((unsigned char)*p))
				p++;
			const char *start = p;
			while (isalnum((unsigned char)*p))
				p++;
			for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
				if ((size_t)(p - start) == strlen(names[k]) && !strncasecmp(start, names[k], strlen(names[k])))
					found = names[k];
		}
		if (found && !target_parse_gpu(found, major))
			*from = w == 0 ? "the function name" : "the recipe path";
		else
			found = NULL;
	}
	free(real);
	return found;
}

/* A YAML mapping is a fact of its own ("given(env_vars)", "comm_overlap != null" ask of it): a
 * recipe that sets keys under a section sets the section too, at its first key, with as many
 * entries as it names: the distinct "section.child" heads among its keys, counted in one pass.
 * A key set again adds nothing: each key is read at its first write ('first' holds its index). */
static void python_sections(struct facts *t, const struct py_key *keys, size_t n)
{
	struct strmap first = {0}, heads = {0}, sections = {0};  /* borrowed ranges of the keys */
	size_t *entries = NULL, n_sections = 0, at;
	for (size_t k = 0; k < n; k++) {
		const char *key = keys[k].key;
		if (strmap_get(&first, key, strlen(key), &at))
			continue;
		strmap_put(&first, key, strlen(key), k);
		for (const char *dot = strchr(key, '.'); dot; dot = strchr(dot + 1, '.')) {
			size_t m = (size_t)(dot - key), head = m + 1 + strcspn(dot + 1, ".");
			if (strmap_get(&heads, key, head, &at))
				continue;
			strmap_put(&heads, key, head, 0);
			if (!strmap_get(&sections, key, m, &at)) {
				entries = mem_realloc(entries, (n_sections + 1) * sizeof(*entries));
				entries[at = n_sections++] = 0;
				strmap_put(&sections, key, m, at);
			}
			entries[at]++;
		}
	}
	for (size_t k = 0; k < n; k++) {
		const char *key = keys[k].key;
		if (strmap_get(&first, key, strlen(key), &at) && at != k)
			continue;
		for (const char *dot = strchr(key, '.'); dot; dot = strchr(dot + 1, '.')) {
			const char *prefix = arena_strndup(t->arena, key, (size_t)(dot - key));
			if (facts_get(t, prefix) || !strmap_get(&sections, key, (size_t)(dot - key), &at))
				continue;
			facts_set(t, prefix, (struct value){.kind = V_MAP, .n = entries[at], .loc = keys[k].loc}, keys[k].loc,
				  "config");
		}
	}
	strmap_release(&first);
	strmap_release(&heads);
	strmap_release(&sections);
	free(entries);
}

/* -v lines: to stderr, or to the run's log in a worker (batch.h), which sends them back. */
static void say(struct lint_run *r, const char *fmt, ...) CG_PRINTF(2, 3);
static void say(struct lint_run *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (r->log) {
		char *line = arena_vprintf(r->arena, fmt, ap);
		sbuf_adds(r->log, line);
	} else {
		vfprintf(stderr, fmt, ap);
	}
	va_end(ap);
}

static void reads_gpu(const char *path, void *ctx)
{
	*(bool *)ctx |= !strncmp(path, "target.gpu", 10);
}

/* A finding placed at a call in this file about a key the callee wrote: the callee's line as a
 * related location (the call carries the finding, so a suppression there covers it). */
static void where_written(struct lint_run *r, struct diag *d, const struct py_unit *pu)
{
	const struct py_key *src = NULL;
	for (size_t k = 0; d->key && k < pu->n_keys; k++)
		if (pu->keys[k].via.path && !strcmp(pu->keys[k].key, d->key))
			src = &pu->keys[k];     /* the last write wins, as in the facts */
	if (!src || src->via.line != d->loc.line || strcmp(src->via.path, d->loc.path ? d->loc.path : ""))
		return;
	struct diag_note *notes = arena_alloc(r->arena, (d->n_notes + 1) * sizeof(*notes));
	memcpy(notes, d->notes, d->n_notes * sizeof(*notes));
	notes[d->n_notes] = (struct diag_note){src->loc, arena_printf(r->arena, "%s is written here", src->key)};
	d->notes = notes;
	d->n_notes++;
}

/* The Megatron-Bridge a recipe's imports reached, once a run: said with -v, and a warning when
 * the target is another release (the packs judge what that release does, not this one). */
static void bridge_release(struct lint_run *r, struct loc at, const struct target *tg)
{
	for (size_t k = 0; !r->bridge_root && k < fe_py_cache_count(r->py); k++) {
		const char *mpath, *mbuf, *root;
		size_t mlen;
		fe_py_cache_file(r->py, k, &mpath, &mbuf, &mlen);
		int rel = py_mod_bridge_release(r->arena, mpath, &root);
		if (!rel)
			continue;
		r->bridge_root = root;
		char v[16], t[16];
		target_version_str(rel, v);
		if (r->opts->verbose)
			say(r, "cglint: Megatron-Bridge %s at %s\n", v, root);
		if (tg->bridge != rel && tg->bridge != TARGET_NO_BRIDGE)
			diag_input(&r->diags, "CG922", at, "this recipe imports Megatron-Bridge %s (%s), but the target is "
				   "Bridge %s: findings follow %s's checks; pass --bridge %s", v, root,
				   target_version_str(tg->bridge, t), t, v);
	}
}

/* "sys.path of /venv/bin/python (cached): /a, /b" for -v. */
static const char *python_path(struct arena *a)
{
	size_t n;
	const char *const *dirs = pyenv_path(&n);
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_printf(&sb, "%s: %zu %s", pyenv_describe(), n, n == 1 ? "folder" : "folders");
	for (size_t k = 0; k < n; k++)
		sbuf_printf(&sb, "%s%s", k ? ", " : " (", dirs[k]);
	sbuf_adds(&sb, n ? ")" : "");
	const char *s = arena_strdup(a, sb.buf);
	sbuf_release(&sb);
	return s;
}

/* A Python recipe: each function that sets a CUDA-graph key (itself, or through a helper or a
 * base recipe fe_py follows) is a Bridge config of its own, judged like a partial override
 * (keys it does not set are unknown unless --assume-defaults), except the sections a config
 * class of known defaults built. A file without one gives no unit and no diagnostic, its syntax
 * errors included. */
static void python_units(struct lint_run *r, const char *path, const char *buf, size_t len, const struct target *tg)
{
	struct arena *a = arena_new();
	struct py_file py;
	if (!r->py)
		r->py = fe_py_cache_new(r->arena);
	size_t read_before = fe_py_cache_count(r->py);
	if (fe_py_parse(a, r->py, path, buf, len, &py)) {
		diag_input(&r->diags, "CG917", (struct loc){path, 1, 1}, "the Python parser could not run on this file");
		arena_free(a);
		return;
	}
	/* modules read to follow calls: findings, suppressions and fixes may point into them */
	for (size_t k = read_before; k < fe_py_cache_count(r->py); k++) {
		const char *mpath, *mbuf;
		size_t mlen;
		fe_py_cache_file(r->py, k, &mpath, &mbuf, &mlen);
		text_put(r->texts, mpath, mbuf, mlen);
	}
	bool reported = false;
	for (size_t u = 0; u < py.n_units; u++) {
		const struct py_unit *pu = &py.units[u];
		if (pu->over) {         /* whatever it sets, it is not read: never a silent pass */
			diag_input(&r->diags, "CG903", pu->loc,
				   "'%s' writes more than %u config records (an object copied into itself, or "
				   "helpers that repeat one another); refusing to read it", pu->name, PY_UNIT_MAX_RECS);
			continue;
		}
		bool graph = false;
		size_t unknown = 0;
		for (size_t k = 0; k < pu->n_keys; k++) {
			graph |= py_text_is_graph_key(pu->keys[k].key);
			unknown += pu->keys[k].val.kind == V_UNKNOWN;
		}
		if (!graph && !r->opts->on_facts)   /* cglint facts shows every function */
			continue;
		if (!reported) {
			for (size_t k = 0; k < py.n_errors; k++)
				diag_input(&r->diags, "CG917", py.errors[k], "Python syntax error: %s", py.error_what[k]);
			for (size_t k = 0; k < py.n_notes; k++)
				diag_input(&r->diags, "CG921", py.notes[k].loc, "%s", py.notes[k].text);
			bridge_release(r, pu->loc, tg);
			if (r->opts->verbose && !r->said_python_path && strcmp(pyenv_describe(), "not needed")) {
				say(r, "cglint: Python search path: %s\n", python_path(r->arena));
				r->said_python_path = true;
			}
			reported = true;
		}
		struct target utg = *tg;
		const char *gpu = NULL, *gpu_from = NULL;
		if (!tg->gpu && (gpu = recipe_gpu(path, pu->name, &utg.gpu_major, &gpu_from)))
			utg.gpu = gpu;
		if (r->opts->verbose)
			say(r, "%s:%u:%u: note: %s: %zu keys read, %zu unknown%s%s%s%s\n", path, pu->loc.line,
				pu->loc.col, pu->name, pu->n_keys, unknown, gpu ? "; GPU " : "", gpu ? gpu : "",
				gpu ? " from " : "", gpu ? gpu_from : "");
		struct arena *ua = arena_new();
		struct facts t;
		facts_init(&t, ua);
		/* a key a followed base recipe or helper wrote is placed at the call in this file */
		for (size_t k = 0; k < pu->n_keys; k++)
			facts_set(&t, pu->keys[k].key, pu->keys[k].val, pu->keys[k].via.path ? pu->keys[k].via : pu->keys[k].loc,
				  "config")->why = pu->keys[k].why;
		python_sections(&t, pu->keys, pu->n_keys);
		/* RNGConfig(te_rng_tracker=True): its other fields keep the class's defaults */
		for (size_t c = 0; c < pu->n_closed; c++)
			for (size_t k = 0; k < r->pack->n_defaults; k++) {
				const struct pack_default *d = &r->pack->defaults[k];
				size_t m = strlen(pu->closed[c]);
				if (!strncmp(d->key, pu->closed[c], m) && d->key[m] == '.' &&
				    pack_applies(&d->mcore, &d->bridge, &utg) && !facts_get(&t, d->key))
					facts_set(&t, d->key, d->val, (struct loc){0}, "default");
			}
		size_t first = r->diags.n;
		r->unit_line = pu->loc.line;    /* a finding no key places goes on the def line */
		r->unit_name = pu->name;
		bridge_layers(r, path, &t, &utg, false, pu->env_spread);
		r->unit_line = 0;
		r->unit_name = NULL;
		/* findings name the function they are about, and the GPU where the recipe named it */
		for (size_t k = first; k < r->diags.n; k++) {
			struct diag *d = &r->diags.items[k];
			const struct rule *rule = (const struct rule *)d->rule;
			bool arch = false;
			if (gpu && rule && rule->when)
				expr_each_path(rule->when, reads_gpu, &arch);
			d->message = arch ? arena_printf(r->arena, "%s (GPU %s, from %s) (in %s)", d->message, gpu,
							 gpu_from, pu->name)
					  : arena_printf(r->arena, "%s (in %s)", d->message, pu->name);
			d->unit = pu->name;
			where_written(r, d, pu);
		}
		facts_release(&t);
		arena_free(ua);
	}
	arena_free(a);
}

/* Each training command of a launch script is a unit: the script's environment, then its flags. */
static void script_units(struct lint_run *r, const char *path, const char *buf, size_t len, const struct target *unit)
{
	struct arena *a = arena_new();
	struct sh_script sh;
	fe_sh_parse(a, &r->diags, path, buf, len, &sh);
	for (size_t c = 0; c < sh.n_cmds; c++) {
		const struct sh_cmd *cmd = &sh.cmds[c];
		struct args_word *w = mem_alloc(cmd->argc * sizeof(*w));
		for (size_t k = 0; k < cmd->argc; k++)
			w[k] = (struct args_word){cmd->argv[k].text, cmd->argv[k].loc, cmd->argv[k].unresolved};
		size_t at;
		enum args_program prog = args_command(w, cmd->argc, &at);
		if (prog == ARGS_NONE) {
			free(w);
			continue;
		}
		struct arena *ua = arena_new();
		struct facts t;
		facts_init(&t, ua);
		struct target tg = prog == ARGS_MEGATRON_LM ? mlm_target(unit) : *unit;
		add_outer_env(r, &t);   /* the script's exports override what it inherits */
		for (size_t k = 0; k < cmd->n_env; k++)
			cfg_env(&t, cmd->env[k].name, cmd->env[k].value, cmd->env[k].loc, "script");
		bool complete = args_to_facts(&t, &r->diags, r->pack, &tg, prog, cmd->loc, w + at + 1,
					      cmd->argc - at - 1, "script");
		/* a complete Megatron-LM command line leaves every other flag at its default; the
		 * harness's recipe sets keys its command line does not show */
		t.closed = (prog == ARGS_MEGATRON_LM && complete) || r->opts->assume_defaults;
		free(w);
		judge(r, path, &t, &tg);
		facts_release(&t);
		arena_free(ua);
	}
	arena_free(a);
}

static bool is_script_name(const char *name)
{
	return has_suffix(name, ".sh") || has_suffix(name, ".bash") || has_suffix(name, ".sbatch") ||
	       has_suffix(name, ".slurm");
}

bool lint_is_script(const char *path, const char *buf, size_t len)
{
	if (is_script_name(path))
		return true;
	if (len < 3 || buf[0] != '#' || buf[1] != '!')
		return false;
	const char *eol = memchr(buf, '\n', len);
	size_t n = eol ? (size_t)(eol - buf) : len;
	static const char *const shells[] = {"sh", "bash", "dash", "zsh"};
	for (size_t k = 0; k < sizeof(shells) / sizeof(shells[0]); k++) {
		size_t m = strlen(shells[k]);
		for (size_t i = 2; i + m <= n; i++)
			if ((buf[i - 1] == '/' || buf[i - 1] == ' ') && !memcmp(buf + i, shells[k], m) &&
			    (i + m == n || buf[i + m] == ' ' || buf[i + m] == '\r'))
				return true;
	}
	return false;
}

struct target lint_target_for(struct lint_run *r, const char *path)
{
	const struct lint_opts *o = r->opts;
	struct proj_settings s;
	if (!r->proj || !proj_settings(r->proj, path, &s) || (!s.mcore && !s.bridge && !s.gpu))
		return o->target;
	struct target t = {
		.mcore = o->mcore_given ? o->target.mcore : s.mcore,
		.bridge = o->bridge_given ? o->target.bridge : s.bridge,
		.gpu = o->target.gpu ? o->target.gpu : s.gpu,
		.gpu_major = o->target.gpu ? o->target.gpu_major : s.gpu_major,
	};
	char why[256];
	/* a config's versions were checked when it was read */
	return target_resolve(&t, why, sizeof(why)) ? o->target : t;
}

/* Queued for lint_finish, which checks it here or in a worker (batch.h). */
static void queue(struct lint_run *r, const char *path, const char *buf, size_t len, bool on_disk)
{
	r->files++;
	if (fe_clang_is_source(path)) {
		src_add(r->sources, path, buf, len);
		return;
	}
	enum batch_kind kind = BATCH_YAML;
	if (has_suffix(path, ".py"))
		kind = BATCH_PYTHON;
	else if (lint_is_script(path, buf, len))
		kind = BATCH_SCRIPT;
	batch_add(r->batch, &(struct batch_item){.path = path, .buf = buf, .len = len, .target = lint_target_for(r, path),
						 .kind = kind, .named = r->named && !strcmp(path, r->named),
						 .on_disk = on_disk, .at = r->diags.n});
}

void lint_buffer(struct lint_run *r, const char *path, const char *buf, size_t len)
{
	queue(r, path, buf, len, false);
}

static void check_item(struct lint_run *r, const struct batch_item *it)
{
	const char *path = it->path, *buf = it->buf;
	size_t len = it->len;
	const struct target tg = it->target;
	bool py = it->kind == BATCH_PYTHON, script = it->kind == BATCH_SCRIPT;
	if (py || script) {
		/* YAML's reader checks its own encoding (CG906); scripts and recipes are checked here. A
		 * Python file that is not text is reported when it was named or mentions a CUDA-graph
		 * setting: a tree of unrelated Python stays quiet, as for syntax errors (CG917). */
		unsigned line, col;
		const char *bad = text_bad_encoding(buf, len, &line, &col);
		if (bad && (script || (!py_text_declares_coding(buf, len) && (it->named || py_text_mentions_graph_key(buf, len))))) {
			diag_input(&r->diags, "CG906", (struct loc){path, line, col}, "%s", bad);
			return;
		}
	}
	if (py) {
		python_units(r, path, buf, len, &tg);
		return;
	}
	if (script) {
		script_units(r, path, buf, len, &tg);
		return;
	}
	/* each document of a YAML stream ('---') is a unit of its own: a file of several override sets */
	struct arena *a = arena_new();
	struct node **roots;
	size_t n;
	if (fe_yaml_parse_docs(a, &r->diags, path, buf, len, mlm_text_is_test_case(buf, len) ? "CG909" : "CG902",
			       &roots, &n) == 0) {
		if (!n)
			yaml_unit(r, path, NULL, &tg);
		for (size_t k = 0; k < n; k++) {
			r->unit_line = n > 1 ? roots[k]->loc.line : 0;
			yaml_unit(r, path, roots[k], &tg);
		}
		r->unit_line = 0;
	}
	arena_free(a);
}

/* The text stays in the run's arena: suppressions, fingerprints and fixes read it again. */
static void lint_file(struct lint_run *r, const char *path, int fd)
{
	char *buf;
	size_t len;
	int rc = fd >= 0 ? read_fd(&r->diags, r->arena, path, fd, &buf, &len)
			 : read_path(&r->diags, r->arena, path, &buf, &len);
	if (rc == 0)
		queue(r, path, buf, len, fd < 0);
}

static bool excluded(void *ctx, const char *path)
{
	struct lint_run *r = ctx;
	if (!r->proj || !proj_excluded(r->proj, path))
		return false;
	r->excluded++;
	return true;
}

static bool is_input_name(const char *name)
{
	return fe_clang_is_source(name) || has_suffix(name, ".yaml") || has_suffix(name, ".yml") ||
	       has_suffix(name, ".py") || is_script_name(name);
}

static void take_file(void *ctx, const char *path, bool regular)
{
	struct lint_run *r = ctx;
	if (fe_clang_is_source(path) && regular) {
		r->files++;
		src_add(r->sources, path, NULL, 0);     /* read by its worker */
	} else {
		lint_file(r, path, -1);
	}
}

void lint_path(struct lint_run *r, const char *path)
{
	if (!strcmp(path, "-")) {
		const char *name = r->opts->stdin_name ? r->opts->stdin_name : "<stdin>";
		r->named = name;
		if (!(r->opts->stdin_name && excluded(r, name)))
			lint_file(r, arena_strdup(r->arena, name), 0);
		r->named = NULL;
		return;
	}
	struct walk_visit v = {r, excluded, is_input_name, take_file, r->opts->no_ignore};
	r->named = path;
	size_t files = r->files, skipped = r->excluded, diags = r->diags.n;
	walk_path(&r->diags, r->arena, path, &v);
	r->named = NULL;
	/* a folder with nothing to check is said so (ruff: "No Python files found"), not a silent pass */
	if (r->files == files && r->excluded == skipped && r->diags.n == diags) {
		r->empty = mem_realloc(r->empty, (r->n_empty + 1) * sizeof(*r->empty));
		r->empty[r->n_empty++] = arena_strdup(r->arena, path);
	}
}

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
#include "front/py/fe_py.h"
#include "front/fe_sh.h"
#include "front/mlm.h"
#include "front/py/py_mod.h"
#include "front/py/py_text.h"
#include "input/fe_yaml.h"
#include "input/node.h"
#include "input/read.h"
#include "input/pyenv.h"
#include "input/text.h"
#include "input/walk.h"
#include "run/batch.h"
#include "run/recipe.h"
#include "run/unit.h"
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
	if (!r->py_kept)
		fe_py_session_free(r->py);
	arena_free(r->arena);
}

static void check_item(struct lint_run *r, const struct batch_item *it);

void lint_finish(struct lint_run *r)
{
	batch_run(r->batch, r, r->opts->sources.jobs, r->opts->sources.in_process, check_item);
	r->units += src_run(r->sources, r->pack, r->diags.filter, &r->opts->sources, &r->diags);
	src_texts(r->sources, r->texts);
}

/* A Bridge config: the file, then the layers over it. */
static void bridge_unit(struct lint_run *r, const struct unit_at *at, const struct node *root, struct facts *t,
			const struct target *tg)
{
	bool full_dump = cfg_from_yaml(t, root, "config");
	for (size_t k = 0; k < t->n; k++)       /* a config that sets a CUDA-graph key is Bridge's */
		if (t->order[k]->loc.path && py_text_is_graph_key(t->order[k]->key)) {
			unit_bridge_input(r, at->path, t->order[k]->loc, tg, "config");
			break;
		}
	unit_bridge_layers(r, at, t, tg, full_dump, false);
}

/* Megatron-LM runs Megatron Core without Bridge, whatever --bridge says. */
static struct target mlm_target(const struct target *unit)
{
	struct target tg = *unit;
	tg.bridge = TARGET_NO_BRIDGE;
	return tg;
}

static void yaml_unit(struct lint_run *r, const struct unit_at *at, const struct node *root, const struct target *unit)
{
	struct arena *a = arena_new();
	struct facts t;
	facts_init(&t, a);
	struct target tg = mlm_target(unit);
	switch (mlm_kind(root)) {
	case MLM_TEST_CASE:
		/* the file is the whole command line: flags it does not give take argparse's defaults */
		t.closed = mlm_test_case_facts(&t, &r->diags, r->pack, &tg, root) || r->opts->assume_defaults;
		unit_outer_env(r, &t);
		unit_judge(r, at, &t, &tg);
		break;
	case MLM_YAML_CFG:
		/* core_config_from_args refuses a file that lacks a field: every key is there */
		mlm_yaml_cfg_facts(&t, root);
		unit_outer_env(r, &t);
		t.closed = true;
		unit_judge(r, at, &t, &tg);
		break;
	case MLM_NOT:
		bridge_unit(r, at, root, &t, unit);
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

/* The recipe a Bridge launcher runs, as run_recipe.py selects it: --recipe NAME, or --model M with
 * --mode (M_pretrain_config, M_sft_config; lora and dora load M_peft_config). NULL if neither. */
static const char *launched_recipe(struct arena *a, const struct args_word *w, size_t n, struct loc *at)
{
	const char *model = NULL, *mode = NULL;
	for (size_t k = 0; k < n; k++) {
		static const char *const names[] = {"--recipe", "--model", "--mode"};
		for (size_t i = 0; i < 3; i++) {
			size_t m = strlen(names[i]);
			if (strncmp(w[k].text, names[i], m) || (w[k].text[m] && w[k].text[m] != '='))
				continue;
			const struct args_word *v = w[k].text[m] ? &w[k] : k + 1 < n ? &w[k + 1] : NULL;
			if (!v || v->unresolved)
				break;
			const char *val = w[k].text[m] ? v->text + m + 1 : v->text;
			if (i == 0) {
				*at = v->loc;
				return val;
			}
			if (i == 1)
				*at = v->loc;
			*(i == 1 ? &model : &mode) = val;
		}
	}
	if (!model || !mode)
		return NULL;
	bool peft = !strcmp(mode, "lora") || !strcmp(mode, "dora");
	return arena_printf(a, "%s_%s_config", model, peft ? "peft" : mode);
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
		size_t at_prog;
		enum args_program prog = args_command(w, cmd->argc, &at_prog);
		if (prog == ARGS_NONE) {
			free(w);
			continue;
		}
		unsigned w_prog_line = w[at_prog].loc.line;    /* the program's word: where the command is */
		struct arena *ua = arena_new();
		struct facts t;
		facts_init(&t, ua);
		struct target tg = prog == ARGS_MEGATRON_LM ? mlm_target(unit) : *unit;
		if (prog != ARGS_MEGATRON_LM)
			unit_bridge_input(r, path, w[at_prog].loc, &tg, "launcher command");
		struct loc at = {0};
		const char *recipe = prog == ARGS_BRIDGE_RECIPE ? launched_recipe(ua, w + at_prog + 1, cmd->argc - at_prog - 1, &at)
								: NULL;
		/* the recipe it runs, then what the command line changes (its env_vars under the shell's) */
		if (recipe && recipe_launch(r, path, recipe, at, &t, &tg) && tg.bridge >= TARGET_BRIDGE_ENV_VARS)
			cfg_env_vars(&t);
		unit_outer_env(r, &t);   /* the script's exports override what it inherits */
		for (size_t k = 0; k < cmd->n_env; k++)
			cfg_env(&t, cmd->env[k].name, cmd->env[k].value, cmd->env[k].loc, "script");
		bool complete = args_to_facts(&t, &r->diags, r->pack, &tg, prog, args_all_flags_known(w[at_prog].text), cmd->loc, w + at_prog + 1,
					      cmd->argc - at_prog - 1, "script");
		const char *run = prog == ARGS_MEGATRON_LM ? args_run_kind(w[at_prog].text) : NULL;
		if (run)
			facts_set(&t, "args._run", value_str(run), w[at_prog].loc, "script");
		unit_dotlists(r, &t);   /* cglint's own KEY=VALUE words, last */
		/* a complete Megatron-LM command line leaves every other flag at its default; the
		 * harness's recipe sets keys its command line does not show */
		t.closed = (prog == ARGS_MEGATRON_LM && complete) || r->opts->assume_defaults;
		free(w);
		if (prog != ARGS_MEGATRON_LM)
			unit_check_keys(r, &t, &tg);    /* the Hydra overrides Bridge's programs take */
		/* a script's commands are units of their own */
		unit_judge(r, &(struct unit_at){path, w_prog_line}, &t, &tg);
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
	if (!r->proj || !proj_settings(r->proj, path, &s) || (!s.mcore && !s.bridge && !s.gpu && !s.te))
		return o->target;
	struct target t = {
		.mcore = o->mcore_given ? o->target.mcore : s.mcore,
		.bridge = o->bridge_given ? o->target.bridge : s.bridge,
		.gpu = o->target.gpu ? o->target.gpu : s.gpu,
		.gpu_major = o->target.gpu ? o->target.gpu_major : s.gpu_major,
		.te = o->target.te ? o->target.te : s.te,
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
		recipe_units(r, path, buf, len, &tg);
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
			yaml_unit(r, &(struct unit_at){path, 0}, NULL, &tg);
		for (size_t k = 0; k < n; k++)
			yaml_unit(r, &(struct unit_at){path, n > 1 ? roots[k]->loc.line : 0}, roots[k], &tg);
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

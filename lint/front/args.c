/* SPDX-License-Identifier: MIT */
/* args: command-line flags -> facts, through the packs' flag tables. */
#include "front/args.h"

#include <ctype.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "base/diag.h"
#include "base/mem.h"
#include "base/suggest.h"
#include "base/value.h"
#include "config/fact.h"
#include "config/fields.h"
#include "config/pack.h"
#include "config/target.h"
#include "front/cfg.h"

#define ARGS_MAX_LIST 4096      /* words one flag may take; the rest are read as positionals */

static const char *base_name(const char *word)
{
	const char *base = strrchr(word, '/');
	return base ? base + 1 : word;
}

const char *args_run_kind(const char *program)
{
	const char *base = base_name(program);
	if (!strncmp(base, "pretrain_", 9))
		return "training";
	if (!strcmp(base, "train_rl.py") || strstr(program, "examples/rl/") || !strncmp(program, "examples.rl.", 12))
		return "rl";
	if (strstr(program, "examples/inference/") || !strncmp(program, "examples.inference.", 19))
		return "inference";
	return NULL;
}

static enum args_program program_of(const char *word)
{
	const char *base = base_name(word);
	size_t n = strlen(base);
	/* Megatron-LM's argument parser serves its training entry points and its inference and RL
	 * examples, run as scripts or as modules (python -m examples.inference.launch_inference_server) */
	bool script = n > 3 && !strcmp(base + n - 3, ".py"), module = !strncmp(word, "examples.", 9);
	if ((script || module) && args_run_kind(word))
		return ARGS_MEGATRON_LM;
	/* Bridge's recipe launcher: scripts/training/train.sh runs training/setup_experiment.py, which
	 * hands every option it does not own to run_recipe.py; the performance harness has a
	 * setup_experiment.py of its own */
	if (!strcmp(base, "run_recipe.py") || !strcmp(base, "train.sh") || strstr(word, "training/setup_experiment.py"))
		return ARGS_BRIDGE_RECIPE;
	if (!strcmp(base, "run_script.py") || !strcmp(base, "setup_experiment.py"))
		return ARGS_BRIDGE_PERF;
	return ARGS_NONE;
}

/* Words that run a later word as the program: interpreters and launchers. */
static bool is_launcher(const char *word)
{
	static const char *const launchers[] = {"python", "python3", "torchrun", "srun", "mpirun", "env", "exec",
						"nohup", "numactl", "nsys", "uv", "deepspeed", "time", "eval"};
	const char *base = base_name(word);
	if (!strncmp(base, "python3.", 8))
		return true;
	for (size_t k = 0; k < sizeof(launchers) / sizeof(launchers[0]); k++)
		if (!strcmp(base, launchers[k]))
			return true;
	return false;
}

/* "echo run_script.py" names no program; "torchrun --nproc-per-node 8 pretrain_gpt.py" does. */
enum args_program args_command(const struct args_word *argv, size_t argc, size_t *at)
{
	*at = 0;
	if (!argc)
		return ARGS_NONE;
	enum args_program prog = program_of(argv[0].text);
	if (prog == ARGS_NONE && is_launcher(argv[0].text))
		while (++*at < argc && (prog = program_of(argv[*at].text)) == ARGS_NONE)
			;
	return prog;
}

/* As the packs' flag tables spell the program. */
static const char *program_name(enum args_program p)
{
	static const char *const names[] = {"none", "megatron-lm", "bridge-perf", "bridge-recipe"};
	return names[p];
}

/* argparse reads "-1" and "-.5" as values, not as options. */
static bool is_flag(const char *s)
{
	return s[0] == '-' && s[1] && !isdigit((unsigned char)s[1]) && s[1] != '.';
}

struct parse {
	struct facts *t;
	struct diag_list *d;
	const struct pack *p;
	const struct target *tg;
	enum args_program prog;
	const char *layer;
	bool complete;
	/* what the last flag leaves for the words after it, for CG931: */
	const struct pack_flag *last;   /* the flag, when the tables know it for this target */
	bool last_eq;                   /* written --flag=value */
	bool strict;                    /* a positional word here is one no flag takes */
	bool all_flags;                 /* rules/fields.yaml holds every flag the program takes */
	const struct pack_flag **hints; /* the CUDA-graph flags of this program and target, made on */
	size_t n_hints;                 /* first use (closest_graph_flag): a script asks for each */
	bool hints_made;                /* flag the tables do not know */
};

/* The table entry for 'name' on this target; '*elsewhere' is one for another release. */
static const struct pack_flag *find_flag(const struct parse *ps, const char *name, const struct pack_flag **elsewhere)
{
	const char *prog = program_name(ps->prog);
	*elsewhere = NULL;
	for (const struct pack_flag *f = pack_flag_first(ps->p, name); f;
	     f = f->next_same == SIZE_MAX ? NULL : &ps->p->flags[f->next_same]) {
		if (strcmp(f->program, prog))
			continue;
		if (pack_applies(&f->mcore, &f->bridge, ps->tg))
			return f;
		*elsewhere = f;
	}
	return NULL;
}

/* The closest CUDA-graph flag this target's parser has within 'edits', or NULL. */
static const char *closest_graph_flag(struct parse *ps, const char *name, unsigned edits)
{
	if (!ps->hints_made) {
		const char *prog = program_name(ps->prog);
		ps->hints = arena_alloc(ps->t->arena, (ps->p->n_flags + 1) * sizeof(*ps->hints));
		for (size_t k = 0; k < ps->p->n_flags; k++) {
			const struct pack_flag *f = &ps->p->flags[k];
			if (f->hint && !strcmp(f->program, prog) && pack_applies(&f->mcore, &f->bridge, ps->tg))
				ps->hints[ps->n_hints++] = f;
		}
		ps->hints_made = true;
	}
	const char *best = NULL;
	unsigned cap = edits * SUGGEST_EDIT, best_d = cap + 1;
	for (size_t k = 0; k < ps->n_hints; k++) {
		unsigned dist = suggest_distance(name, ps->hints[k]->flag, cap);
		if (dist < best_d) {
			best = ps->hints[k]->flag;
			best_d = dist;
		}
	}
	return best;
}

/* --foo-bar -> model.foo_bar (Megatron-LM), --foo_bar -> perf.foo_bar (the harness). */
static const char *generic_key(const struct parse *ps, const char *name, bool *negated)
{
	const char *s = name;
	while (*s == '-')
		s++;
	*negated = false;
	if (ps->prog == ARGS_MEGATRON_LM && (!strncmp(s, "no-", 3) || !strncmp(s, "disable-", 8))) {
		*negated = true;
		s = strchr(s, '-') + 1;
	}
	static const char *const prefix[] = {"args", "model", "perf", "recipe"};
	char *key = arena_join(ps->t->arena, prefix[ps->prog], ".", s);
	for (char *c = key; *c; c++)
		if (*c == '-')
			*c = '_';
	return key;
}

static struct value word_value(struct arena *a, const char *text, struct loc loc)
{
	struct value v = value_from_plain(a, text);
	v.loc = loc;
	return v;
}

static void set_keys(struct parse *ps, const struct pack_flag *f, const char *generic, struct value v, struct loc loc)
{
	if (!f) {
		facts_set(ps->t, generic, v, loc, ps->layer);
		return;
	}
	for (size_t k = 0; k < f->n_keys; k++)
		facts_set(ps->t, f->keys[k], v, loc, ps->layer);
}

/* --custom_env_vars A=1,B=2 (split) and -E A=1,2 (one pair): the job's environment. */
static void set_env(struct parse *ps, const char *text, const char *split, struct loc loc)
{
	char *copy = arena_strdup(ps->t->arena, text);
	for (char *tok = copy, *next; tok; tok = next) {
		next = split ? strchr(tok, split[0]) : NULL;
		if (next)
			*next++ = '\0';
		char *eq = strchr(tok, '=');
		if (eq && eq != tok) {
			*eq = '\0';
			cfg_env(ps->t, tok, eq + 1, loc, ps->layer);
		}
	}
}

/* A flag the target's parser lacks (rules/fields.yaml): argparse exits with "unrecognized
 * arguments" (CG931), or a CUDA-graph flag's CG180. False where the sets do not judge it or
 * hold it. */
static bool unknown_flag(struct parse *ps, const struct args_word *w, const char *name)
{
	struct field_info fi;
	if (fields_mlm_flag(ps->p, ps->tg, name, true, &fi) != FIELD_ABSENT)
		return false;
	char v[16], where[200] = "";
	if (fi.elsewhere[0])
		snprintf(where, sizeof(where), " (it is one in Megatron-LM %s)", fi.elsewhere);
	diag_input(ps->d, strstr(name, "cuda-graph") ? "CG180" : "CG931", w->loc,
		   "%s is not a flag of Megatron-LM %s%s: argparse stops with 'unrecognized arguments'%s%s%s", name,
		   target_version_str(ps->tg->mcore, v), where, fi.near[0] ? "; did you mean " : "", fi.near,
		   fi.near[0] ? "?" : "");
	return true;
}

/* One flag at argv[i]; returns the index of the next word to read. */
static size_t one_flag(struct parse *ps, const struct args_word *argv, size_t argc, size_t i)
{
	const struct args_word *w = &argv[i];
	const char *eq = strchr(w->text, '=');
	const char *name = eq ? arena_strndup(ps->t->arena, w->text, (size_t)(eq - w->text)) : w->text;
	const struct pack_flag *elsewhere, *f = find_flag(ps, name, &elsewhere);
	bool negated = false;
	const char *generic = f ? NULL : generic_key(ps, name, &negated);
	const char *prog = ps->prog == ARGS_MEGATRON_LM ? "Megatron-LM" : "the Bridge performance harness";

	if (!f && elsewhere && ps->prog == ARGS_BRIDGE_RECIPE) {
		f = elsewhere;          /* the runner refuses it (CG931, args_to_facts) */
	} else if (!f && elsewhere) {
		char v[16], list[160];
		int ver = ps->prog == ARGS_MEGATRON_LM ? ps->tg->mcore : ps->tg->bridge;
		bool by_bridge = !elsewhere->bridge.any;
		diag_input(ps->d, "CG180", w->loc, "%s is not a flag of %s %s (it is one in %s); argparse stops with "
			   "'unrecognized arguments'", name, prog, target_version_str(ver, v),
			   target_range_list(by_bridge ? &elsewhere->bridge : &elsewhere->mcore, by_bridge, list,
					     sizeof(list)));
		f = elsewhere;
	} else if (!f && ps->all_flags && unknown_flag(ps, w, name)) {
		/* reported: argparse stops at it */
	} else if (!f && ps->prog == ARGS_MEGATRON_LM) {
		size_t len = strlen(name);
		const char *near = closest_graph_flag(ps, name, len < 12 ? 1 : len < 20 ? 2 : 3);
		if (strstr(name, "cuda-graph"))
			diag_input(ps->d, "CG180", w->loc, "%s is not a CUDA-graph flag of %s%s%s%s", name, prog,
				   near ? "; did you mean " : "", near ? near : "", near ? "?" : "");
		else if (near)
			diag_input(ps->d, "CG905", w->loc, "unknown flag '%s'; did you mean '%s'?", name, near);
	}

	/* the words it takes */
	int nargs = f ? f->nargs : PACK_NARGS_GUESS;
	size_t first = i + 1, end = first;
	/* argparse takes no word past a one-value flag, a switch or --flag=value: a word after it is
	 * unrecognized. Judged only where the tables know the flag on this release. */
	bool known = f && f != elsewhere;
	ps->last = known ? f : NULL;
	ps->last_eq = eq != NULL;
	ps->strict = known && (eq || nargs == 0 || nargs == 1);
	if (eq) {
		nargs = 1;
	} else if (nargs == 1) {
		end = first < argc ? first + 1 : first;
	} else if (nargs != 0) {
		while (end < argc && end - first < ARGS_MAX_LIST && !is_flag(argv[end].text) &&
		       !(ps->prog != ARGS_MEGATRON_LM && cfg_is_dotlist(argv[end].text)))
			end++;
	}
	/* an unknown value ("--data-path $DATA") leaves this flag unknown, not the command line; it
	 * may expand to several words, so the words after it are not judged */
	for (size_t k = first; k < end; k++)
		if (argv[k].unresolved) {
			ps->strict = false;
			set_keys(ps, f, generic, value_unknown, w->loc);
			return end;
		}

	if (f && f->env) {
		if (eq)
			set_env(ps, eq + 1, f->split, w->loc);
		for (size_t k = first; k < end; k++)
			set_env(ps, argv[k].text, f->split, argv[k].loc);
		return end;
	}
	struct arena *a = ps->t->arena;
	struct value v;
	if (eq) {
		v = word_value(a, eq + 1, w->loc);
	} else if (end == first) {
		v = f ? f->value : value_bool(!negated);
	} else if (end - first == 1 && nargs != PACK_NARGS_LIST) {
		v = word_value(a, argv[first].text, argv[first].loc);
	} else {
		v = (struct value){.kind = V_LIST, .loc = argv[first].loc};
		v.items = arena_alloc(a, (end - first) * sizeof(*v.items));
		for (size_t k = first; k < end; k++)
			v.items[v.n++] = word_value(a, argv[k].text, argv[k].loc);
	}
	if (f && f->split)      /* the harness's list_of_strings: "attn,mlp" */
		v = value_split(a, &v, &(struct value){.kind = V_STR, .s = f->split});
	set_keys(ps, f, generic, v, w->loc);
	return end;
}

/* The recipe runner's options are in the tables for this Bridge release (0.3 to 0.6). */
static bool runner_known(const struct parse *ps)
{
	for (size_t k = 0; k < ps->p->n_flags; k++) {
		const struct pack_flag *f = &ps->p->flags[k];
		if (!strcmp(f->program, "bridge-recipe") && pack_applies(&f->mcore, &f->bridge, ps->tg))
			return true;
	}
	return false;
}

/* An option run_recipe.py's parser does not define. Before 0.6 the parser allows abbreviations:
 * a prefix of one of its options is that option (argparse says which when it is ambiguous). */
static bool runner_lacks(const struct parse *ps, const char *word)
{
	const char *eq = strchr(word, '=');
	size_t n = eq ? (size_t)(eq - word) : strlen(word);
	if (!strcmp(word, "--"))
		return false;   /* argparse's end of options, no option */
	for (size_t k = 0; k < ps->p->n_flags; k++) {
		const struct pack_flag *f = &ps->p->flags[k];
		if (strcmp(f->program, "bridge-recipe") || !pack_applies(&f->mcore, &f->bridge, ps->tg))
			continue;
		if (!strncmp(f->flag, word, n) && (!f->flag[n] || (ps->tg->bridge < 60 && word[1] == '-')))
			return false;
	}
	return true;
}

/* The first word the recipe runner refuses: 0.6 stops with parser.error, 0.3 to 0.5 hand it to
 * Hydra's override parser, which fails before training. */
static void runner_refuses(struct parse *ps, const struct args_word *w, bool option)
{
	char v[16];
	const char *ver = target_version_str(ps->tg->bridge, v);
	if (ps->tg->bridge >= 60) {
		const char *why = option ? arena_printf(ps->t->arena, "Unknown option: %s", w->text)
					 : arena_printf(ps->t->arena, "Expected override in KEY=VALUE form, got '%s'", w->text);
		diag_input(ps->d, "CG931", w->loc, "Megatron-Bridge %s's run_recipe.py refuses '%s': argparse stops with "
			   "'run_recipe.py: error: %s'%s", ver, w->text, why,
			   strncmp(w->text, "--config-file", 13) && strncmp(w->text, "--config_file", 13)
				   ? "" : " (the runner has no --config-file: give its overrides as KEY=VALUE words)");
		return;
	}
	diag_input(ps->d, "CG931", w->loc, "Megatron-Bridge %s's run_recipe.py has no option '%s': it goes to the "
		   "config overrides, and Hydra's override parser refuses it before training ('OverridesError: Failed "
		   "to parse Hydra overrides')%s", ver, w->text,
		   strncmp(w->text, "--config-file", 13) && strncmp(w->text, "--config_file", 13)
			   ? "" : " (the runner has no --config-file: give its overrides as KEY=VALUE words)");
}

/* Words at argv[i..] no flag of Megatron-LM's parser takes: one report for the run, at its first
 * word, as argparse's "unrecognized arguments" lists them. Returns the index after the run. */
static size_t mlm_stray(struct parse *ps, const struct args_word *argv, size_t argc, size_t i)
{
	size_t end = i;
	while (end < argc && !argv[end].unresolved && !is_flag(argv[end].text))
		end++;
	size_t len = 0;
	for (size_t k = i; k < end; k++)
		len += strlen(argv[k].text) + 1;
	char *words = arena_alloc(ps->t->arena, len + 1), *o = words;
	for (size_t k = i; k < end; k++)
		o += sprintf(o, "%s%s", k > i ? " " : "", argv[k].text);
	char v[16], why[256];
	const char *ver = target_version_str(ps->tg->mcore, v);
	const struct pack_flag *f = ps->last;
	if (ps->last_eq)
		snprintf(why, sizeof(why), "%s=VALUE took its value", f->flag);
	else if (f->nargs == 0)
		snprintf(why, sizeof(why), "%s takes no value in Megatron-LM %s", f->flag, ver);
	else
		snprintf(why, sizeof(why), "%s takes one value in Megatron-LM %s%s", f->flag, ver,
			 strcmp(f->flag, "--cuda-graph-scope") ? "" : " (a list from 0.16)");
	diag_input(ps->d, "CG931", argv[i].loc, "no flag takes '%s': %s, and Megatron-LM's parser has no "
		   "positional arguments; argparse stops with 'error: unrecognized arguments: %s'", argv[i].text, why, words);
	return end;
}

bool args_all_flags_known(const char *program)
{
	const char *base = base_name(program);
	return !strncmp(base, "pretrain_", 9) && strcmp(base, "pretrain_vlm.py");
}

bool args_to_facts(struct facts *t, struct diag_list *d, const struct pack *p, const struct target *tg,
		   enum args_program prog, bool all_flags, struct loc where, const struct args_word *argv, size_t argc,
		   const char *layer)
{
	struct parse ps = {.t = t, .d = d, .p = p, .tg = tg, .prog = prog, .layer = layer, .complete = true,
			   .all_flags = all_flags && prog == ARGS_MEGATRON_LM};
	/* what the rules need to know of the program: validate_args runs, the harness edited the recipe */
	if (prog == ARGS_MEGATRON_LM)
		facts_set(t, "args._validate_args", value_bool(true), where, layer);
	else if (prog == ARGS_BRIDGE_PERF)
		facts_set(t, "perf._harness", value_bool(true), where, layer);
	/* The recipe runner is judged where the tables hold its release's options, from its first
	 * word. A Megatron-LM line from its first flag: words before it may be another program's
	 * (a functional test's MODEL_ARGS for a NeMo script: trainer.num_nodes: 1). */
	bool runner = prog == ARGS_BRIDGE_RECIPE && runner_known(&ps), refused = false;
	ps.strict = runner;
	for (size_t i = 0; i < argc;) {
		const struct args_word *w = &argv[i];
		if (w->unresolved) {
			ps.complete = false;    /* "$EXTRA_ARGS" may hold any flag */
			ps.strict = false;      /* and its words what follows */
			i++;
		} else if (prog != ARGS_MEGATRON_LM && cfg_is_dotlist(w->text)) {
			if (runner && !refused && !strchr(w->text, '=') && tg->bridge >= 60) {
				runner_refuses(&ps, w, false);
				refused = true;
			}
			cfg_dotlist(t, d, w->text, w->loc, true);     /* perf.yaml's steps let these win, as Bridge does */
			i++;
		} else if (is_flag(w->text)) {
			if (runner && !refused && runner_lacks(&ps, w->text)) {
				runner_refuses(&ps, w, true);
				refused = true;
			}
			i = one_flag(&ps, argv, argc, i);
		} else if (ps.strict && prog == ARGS_MEGATRON_LM) {
			i = mlm_stray(&ps, argv, argc, i);      /* argparse: unrecognized arguments */
		} else if (ps.strict && runner && !refused) {
			runner_refuses(&ps, w, false);
			refused = true;
			i++;
		} else {
			i++;                                    /* a value of a flag cglint does not know */
		}
	}
	return ps.complete;
}

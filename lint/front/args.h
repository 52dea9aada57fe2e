/* SPDX-License-Identifier: MIT */
/*
 * args: the flags of a training command line turned into facts, through the 'flags:' tables of
 * the rule packs: Megatron-LM's pretrain_*.py (catalogue §A.2) and Megatron-Bridge's performance
 * harness scripts/performance/run_script.py (§A.3) and recipe runner run_recipe.py (Hydra overrides,
 * §B.3). Front-ends (launch scripts, functional-test
 * YAML) find the command and its words; this module only knows what the words mean.
 */
#ifndef CGLINT_ARGS_H
#define CGLINT_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/loc.h"

struct diag_list;
struct facts;
struct pack;
struct target;

enum args_program { ARGS_NONE, ARGS_MEGATRON_LM, ARGS_BRIDGE_PERF, ARGS_BRIDGE_RECIPE };

struct args_word {
	const char *text;
	struct loc loc;
	bool unresolved;        /* a shell expansion cglint could not resolve produced it */
};

/*
 * The program a command runs: its first word, or the first word naming one after a launcher
 * (python, torchrun, srun, env, eval, ...). ".../pretrain_gpt.py", train_rl.py and Megatron-LM's
 * inference/RL examples (files or -m modules) are Megatron-LM, ".../run_script.py" the harness,
 * ".../run_recipe.py", scripts/training/train.sh and its training/setup_experiment.py Bridge's
 * recipe runner. Sets '*at' to its index; ARGS_NONE if none.
 */
enum args_program args_command(const struct args_word *argv, size_t argc, size_t *at);

/*
 * What a Megatron-LM program word runs, for args._run: "training" (pretrain_*.py), "inference"
 * (the inference examples), "rl" (train_rl.py, the RL examples); NULL for anything else.
 */
const char *args_run_kind(const char *program);

/*
 * Set the facts of 'argv' (the words after the program) in 't' under 'layer', with the facts
 * that say which program it is (args._validate_args, perf._harness) placed at 'where'. A flag the tables
 * do not name maps by its spelling: Megatron-LM's --foo-bar to model.foo_bar (argparse fields are
 * TransformerConfig fields), --no-foo-bar to model.foo_bar = false; the harness's --foo_bar to
 * perf.foo_bar, the recipe runner's to recipe.foo_bar; Hydra overrides (model.x=y) given to a
 * Bridge program are dotlists. Reports a CUDA-graph flag the target's parser does not have
 * (CG180), and where 'all_flags' (the program takes only the flags rules/fields.yaml holds:
 * args_all_flags_known) any other flag Megatron-LM's parser lacks (CG931); a misspelled
 * CUDA-graph flag elsewhere is CG905.
 * Returns false when a word in a flag's place could not be resolved ("$EXTRA_ARGS"): the command
 * line is incomplete and any flag may be set. An unresolved value only makes its flag unknown.
 */
bool args_to_facts(struct facts *t, struct diag_list *d, const struct pack *p, const struct target *tg,
		   enum args_program prog, bool all_flags, struct loc where, const struct args_word *argv, size_t argc,
		   const char *layer);
/* Whether the Megatron-LM script 'program' takes only the flags rules/fields.yaml holds: the
 * parser's and Model Optimizer's (pretrain_gpt.py, pretrain_mamba.py, pretrain_hybrid.py add those
 * where it is installed; the other pretrain_*.py none). pretrain_vlm.py, RL and the examples
 * add flags of their own. */
bool args_all_flags_known(const char *program);

#endif

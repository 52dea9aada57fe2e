/* SPDX-License-Identifier: MIT */
/*
 * fe_py: the CUDA-graph settings of a Python recipe (Megatron-Bridge builder functions), read
 * with tree-sitter and its Python grammar. Only fe_py.c includes tree-sitter; nothing here
 * names its types.
 *
 * Each function (a method as Class.method) is one unit. Its body's statements at function-body
 * level are read in order, each giving keys with their values and positions:
 *   cfg.model.cuda_graph_impl = "local"            (cfg: any variable bound by a call, or a parameter)
 *   cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = True     (chained)
 *   model = cfg.model; model.cuda_graph_scope = ["attn"]            (section aliases)
 *   cfg = ConfigContainer(model=GPTModelProvider(cuda_graph_impl="local"), rng=RNGConfig(...))
 *   cfg.env_vars = {**COMMON, "NCCL_GRAPH_REGISTER": 0}              (keys under env_vars)
 *   cfg.env_vars["NCCL_GRAPH_REGISTER"] = "0"
 * Literals are str, int, float, True/False/None, and lists/tuples of them. Anything else is
 * unknown, never guessed: a value that is not a literal, an assignment under if/for/while/try/
 * with (or in a nested function), a call that takes the config or one of its sections (its keys
 * set so far become unknown), a ** entry in a dict (the keys written before it become unknown).
 *
 * A unit's keys come from one config object: the one the function returns, else the one it
 * sets most keys of. Keys are those of a Bridge ConfigContainer ("model.cuda_graph_impl",
 * "env_vars.NCCL_GRAPH_REGISTER").
 */
#ifndef CGLINT_FE_PY_H
#define CGLINT_FE_PY_H

#include <stdbool.h>
#include <stddef.h>

#include "base/loc.h"
#include "base/value.h"

struct arena;

struct py_key {
	const char *key;        /* "model.cuda_graph_impl" */
	struct value val;       /* V_UNKNOWN where cglint cannot know it */
	struct loc loc;         /* of the key's name where it was written */
};

struct py_unit {
	const char *name;       /* "llama3_8b_pretrain_config", "Recipes.build" */
	struct loc loc;         /* of the function's name */
	struct py_key *keys;    /* in statement order; a later one for the same key wins */
	size_t n_keys;
	bool env_spread;        /* env_vars built with a ** entry: other names may be set */
};

struct py_file {
	struct py_unit *units;  /* every function that sets at least one key, in file order */
	size_t n_units;
	struct loc *errors;     /* syntax errors (ERROR or MISSING nodes), first position each */
	size_t n_errors;
	const char **error_what; /* what each error is: "unexpected 'x'", "missing ')'" */
};

/* Parse 'buf' (kept by the caller) into 'out', in 'a'. Returns 0, or -1 when tree-sitter
 * could not parse at all (out of memory, a grammar the runtime refuses). */
int fe_py_parse(struct arena *a, const char *path, const char *buf, size_t len, struct py_file *out);

/* Whether a key is a CUDA-graph key, by its last name (cuda_graph_*, *rng_tracker,
 * NCCL_GRAPH_REGISTER, PYTORCH_CUDA_ALLOC_CONF): a unit without one is not judged. */
bool fe_py_is_graph_key(const char *key);

#endif

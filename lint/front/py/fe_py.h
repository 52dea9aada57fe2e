/* SPDX-License-Identifier: MIT */
/*
 * fe_py: the CUDA-graph settings of a Python recipe (Megatron-Bridge builder functions), read
 * with tree-sitter and its Python grammar: the face of the front/py sub-stage (with py_mod.h,
 * py_text.h and py_bridge.h, the plain-data headers the rest of cglint may include too:
 * tests/layers.py). Nothing here names tree-sitter's types; the evaluator's files, behind this
 * face, are listed in py_fn.h.
 *
 * Each function (a method as Class.method) is one unit. Its body is walked as Python runs it,
 * each statement giving keys with their values and positions:
 *   cfg.model.cuda_graph_impl = "local"            (cfg: any variable bound by a call, or a parameter)
 *   cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = True     (chained)
 *   model = cfg.model; model.cuda_graph_scope = ["attn"]            (section aliases)
 *   cfg = ConfigContainer(model=GPTModelProvider(cuda_graph_impl="local"), rng=RNGConfig(...))
 *   cfg.env_vars = {**COMMON, "NCCL_GRAPH_REGISTER": 0}              (keys under env_vars)
 *   cfg.env_vars["NCCL_GRAPH_REGISTER"] = "0"
 * Values are computed where Python's are known: literals, names bound to values, module
 * constants here or imported, arithmetic, comparisons, f-strings, comprehensions, Enum members,
 * str methods (py_eval). An if statement runs the branch its known condition picks; on an
 * unknown condition every branch that may run, merged (a key they set differently is unknown,
 * and run/ judges the first such ifs' paths apart: struct py_fork, struct py_choice). A with
 * body runs. A constructor call puts its class's field defaults (py_class), AutoBridge's
 * provider is built from the Hugging Face cache (py_bridge_auto). Anything else is unknown,
 * never guessed, with the reason: a key written in a loop or a try statement, a call that takes
 * the config or one of its sections and that cglint cannot follow (its keys set so far become
 * unknown), a ** entry in a dict (the keys written before it become unknown).
 *
 * A call that takes the config is followed where cglint can read the callee (below).
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

/* How a function set a key, where Bridge's loaders tell the forms apart (docs/fields.md). */
enum py_form {
	PY_ASSIGNED,            /* an attribute or a call's result: cfg.model.x = 1 */
	PY_KEYWORD,             /* a keyword argument of a constructor (RNGConfig(seed=1)) */
	PY_DECLARED,            /* a default the environment's class declares: its field by construction */
};

struct py_key {
	const char *key;        /* "model.cuda_graph_impl" */
	struct value val;       /* V_UNKNOWN where cglint cannot know it */
	struct loc loc;         /* of the key's name where it was written */
	const char *why;        /* V_UNKNOWN: why cglint cannot know it ("set from parameter 'tp'
				 * that has no default"); NULL otherwise or when no reason is kept */
	struct loc via;         /* written in a followed helper or base recipe (loc is there): the
				 * call in this file it came through; path NULL otherwise */
	enum py_form form;
};

/* Something a front-end could not follow and says so (an import it cannot resolve). */
struct py_note {
	struct loc loc;
	const char *text;       /* "cannot resolve import 'megatron.bridge.recipes' (not found above this
				 * file or on the Python path): 'llama3_8b_pretrain_config' is not followed" */
	bool megatron;          /* the import is of Megatron-Bridge or Megatron Core (megatron.bridge,
				 * megatron.core): the environment the job runs in lacks what defines it
				 * (CG924, a warning; CG921 otherwise) */
	bool recipe;            /* of one of Megatron-Bridge's recipes (megatron.bridge.recipes...,
				 * a function named *_config): what it returns is a whole training config */
};

/* An if statement of a unit's own function whose condition cglint cannot decide: each branch that
 * may run (the "no branch ran" of an if without else included) is a path of the unit. */
struct py_fork {
	struct loc loc;         /* the condition */
	const char *cond;       /* its text, cut for a message */
	unsigned byte;          /* where the statement starts in the file: struct py_choice's key */
	unsigned n_paths;
};

struct py_unit {
	const char *name;       /* "llama3_8b_pretrain_config", "Recipes.build" */
	struct loc loc;         /* of the function's name */
	struct py_key *keys;    /* in statement order; a later one for the same key wins */
	size_t n_keys;
	bool env_spread;        /* env_vars built with a ** entry: other names may be set */
	const char **closed;    /* sections built by a config class the packs know ("rng"): */
	size_t n_closed;        /* their fields that nothing sets keep the class's defaults */
	bool over;              /* it writes more than cglint reads: not read (CG903) */
	bool helper;            /* a private function ('_name') its file's functions call: a building
				 * block, judged through its callers (where what it sets lands), not alone */
	const struct py_fork *forks;    /* its undecided if statements, in the order they ran */
	size_t n_forks;
};

struct py_file {
	struct py_unit *units;  /* every function that sets at least one key, in file order */
	size_t n_units;
	struct loc *errors;     /* syntax errors (ERROR or MISSING nodes), first position each */
	size_t n_errors;
	const char **error_what; /* what each error is: "unexpected 'x'", "missing ')'" */
	struct py_note *notes;  /* what could not be followed, in file order (CG921, CG924) */
	size_t n_notes;
};

/*
 * The session (below) keeps the modules a run has parsed, for calls into them: a helper in the
 * same file or in any module its imports reach (resolved as Python resolves them, py_mod.h: the
 * package, then the Python path, installed Bridge recipes included) that changes the config it is given contributes its records in call order, with its own lines as positions;
 * a base recipe (cfg = llama3_8b_pretrain_config()) starts the object with what it sets.
 * Bounded: calls FE_PY_MAX_DEPTH deep, FE_PY_MAX_FILES modules and FE_PY_MAX_BYTES of text a
 * run; a call cut off, or into code cglint cannot read, leaves what it may touch unknown.
 */
#define FE_PY_MAX_DEPTH 8
#define FE_PY_MAX_FILES 2048
#define FE_PY_MAX_BYTES (32u << 20)
/* Records a function's log holds, its helpers' replayed ones included; past them it is 'over'
 * and its unit is not read (CG903). Megatron-Bridge's recipes write at most 756; a config copied
 * into its own section doubles them at each copy. Each statement may scan the log, so the bound
 * also caps a function's work at its square. A fuzzing build shrinks it, as sh.h does. */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define FE_PY_MAX_RECS (1u << 10)
#else
#define FE_PY_MAX_RECS (1u << 14)
#endif

/* The front-end's state for a run (py_session.h): the modules parsed, and what was read once
 * for all of them. Texts and paths live in 'a' (the run's arena), the trees until the session
 * is freed. */
struct py_session;
struct py_session *fe_py_session_new(struct arena *a);
void fe_py_session_free(struct py_session *s);
/* Fields of the model ("cuda_graph_impl") that the packs' normalization steps recompute as
 * MCore's post-init does, for some release: where a method of Megatron Core's or Bridge's
 * TransformerConfig family may assign one, the steps replay it, so the default stands as the
 * class writes it (a provider's or a user's own methods are not replayed; copied into 's'). */
void fe_py_session_replayed(struct py_session *s, const char *const *fields, size_t n);
/* Whether a session kept from earlier runs (the language server's) can serve the next one as a
 * fresh one would: every module it read from disk is unchanged there (size, modification time),
 * no module went unread for the budgets, and it holds at most 'max_texts' texts given to it to
 * lint (each edit of a document adds one). A module new on disk is not seen: its absence was
 * cached. */
bool fe_py_session_current(const struct py_session *c, size_t max_texts);
/* Whether a module went unread because the run reached FE_PY_MAX_FILES or FE_PY_MAX_BYTES. */
bool fe_py_session_full(const struct py_session *c);
/* The k-th module read from disk to follow a call (k < count), for the run's text store. */
size_t fe_py_session_count(const struct py_session *c);
void fe_py_session_file(const struct py_session *c, size_t k, const char **path, const char **buf, size_t *len);

/* The default of field 'name' of class 'cls' where its constructor is not passed it, the class
 * found as Python finds it from the file 'from' importing 'module' (its bases, dataclass fields
 * and methods read as for a recipe's constructor calls). -1: no such class (or module); 0: no
 * such field, or it has no default; 1: '*out' (V_UNKNOWN with '*why' where cglint cannot know it, as when a method may
 * change it) and '*at', the field's name in the class, or the class. */
int fe_py_class_field(struct py_session *c, const char *from, const char *module, const char *cls, const char *name,
		      struct value *out, struct loc *at, const char **why);

/* One path through a unit's undecided if statements: the if statement starting at bytes[k] runs
 * only its picks[k]-th branch that may run (py_fork.n_paths of them). */
struct py_choice {
	const unsigned *bytes, *picks;
	size_t n;
	const char *unit;       /* the one function walked on them ("Class.method"), or NULL: every one */
};

/* Parse 'buf' (kept by the caller) into 'out', in 'a'; 's' may be NULL (no calls followed).
 * 'pick' walks one path (run/paths.h), NULL every one. Returns 0, or -1 when tree-sitter could
 * not parse at all (out of memory, a grammar the runtime refuses). */
int fe_py_parse(struct arena *a, struct py_session *s, const struct py_choice *pick, const char *path,
		const char *buf, size_t len, struct py_file *out);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * py_fn: the Python front-end's evaluator, one module in several files, and the function it is
 * walking (struct fn): py_walk.c (statements), fe_py.c (a file's functions as units), py_eval.c
 * (expressions to values), py_flow.c (if statements), py_call.c (calls into functions cglint
 * reads), py_obj.c (classes and Enum members as values, builtins), py_comp.c (comprehensions),
 * py_class.c (a constructor's defaults), and Megatron-Bridge's own Python: py_bridge_reg.c (its
 * registry of model bridges) and py_bridge_auto.c (AutoBridge's provider). They call each other
 * freely, as one recursive algorithm; tests/layers.py holds them one group, which the rest of the
 * tree reaches only through fe_py.h. Below them: py_unit (a function's record log), fe_py_mod
 * (the module table), py_session (what a run keeps), fe_py_lit, py_node, py_mod, py_hf, py_bridge.
 *
 * A function is walked with what its caller passes: each parameter is bound to the caller's
 * object (a namespace, py_unit.h), to the caller's value, to its default, or, with neither, to
 * an object of its own whose value is unknown ("from parameter 'tp', which has no default").
 */
#ifndef CGLINT_PY_FN_H
#define CGLINT_PY_FN_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <tree_sitter/api.h>

#include "base/mem.h"
#include "front/py/fe_py_mod.h"
#include "front/py/py_session.h"
#include "front/py/py_node.h"
#include "front/py/py_unit.h"

/* What a caller passes for one parameter: an object (ns) or a value. */
struct py_arg {
	const char *ns;         /* the caller's namespace for it, or NULL for a value */
	struct value val;
	const char *why;
	bool absent;            /* neither passed nor defaulted: an object of the callee's own */
};

/* One parse of the file being linted (fe_py_parse), handed down every walk it starts; the
 * session keeps what outlives a parse. */
struct py_pass {
	const struct mod *top;          /* the file being linted */
	const struct py_choice *pick;   /* the one path walked (fe_py.h), or NULL: every path */
	const char *sig;                /* 'pick' rendered, in the signature of a unit's own walk */
};

struct fn {
	struct arena *a;
	const char *path, *src;
	struct py_log log;
	struct py_ret ret;      /* what the function returns */
	struct py_session *session; /* NULL: calls are not followed */
	const struct py_pass *pass; /* the parse this walk is part of; NULL for one outside a parse's
				     * own walks (a constant, a class read for its defaults) */
	struct mod *mod;
	unsigned depth;
	bool cut;               /* a call was cut off by the depth limit: record not kept */
	bool done;              /* a return ran on every path: the rest is not reached */
	const char *ret_open;   /* a return ran on some paths only (under an if of unknown condition:
				 * why): a later one merges with 'ret' (py_flow_return) */
	const char **params, **param_ns;
	size_t n_params, n_positional;
	const struct py_arg *args;      /* per parameter (n_params of them), or NULL */
	size_t n_args;
	struct fn *caller;      /* reads of a parameter's object go through to it; NULL at the top */
	struct py_read *reads;  /* what was read so, for the summary */
	size_t n_reads, cap_reads;
	struct py_fork *forks;  /* its undecided if statements (py_flow_if), in the file linted */
	size_t n_forks, cap_forks;
};

/* A node of the function's own file: its text, and its text for a message (py_node.h). */
static inline const char *py_text(struct fn *f, TSNode n)
{
	return py_node_text(f->a, f->src, n);
}

static inline const char *py_snippet(struct fn *f, TSNode n)
{
	return py_node_snippet(f->a, f->src, n);
}

/* ---- py_walk.c ---- */
/* A function's body walked, its parameters bound from 'f->args'; a block's statements walked. */
void py_walk_def(struct fn *f, TSNode def);
void py_walk_block(struct fn *f, TSNode body);

/* ---- py_flow.c ---- */
/* An if statement: the branch a known condition picks; on an unknown condition every branch
 * that may run, merged: a key they leave equal keeps its value, one they set differently is
 * unknown ("set under 'if use_fp8:' (unknown condition)"). */
void py_flow_if(struct fn *f, TSNode st);
/* 'return' with 'r': the function's result, merged with what a return on other paths gave
 * where one did (an item they give differently is unknown). */
void py_flow_return(struct fn *f, const struct py_ret *r);

/* ---- py_eval.c ---- */
/* The latest value at 'key', as py_unit_get, and where this function's log has none and the key
 * is under a parameter the caller passed an object for, the caller's (recorded in f->reads). */
bool py_fn_get(struct fn *f, const char *key, struct value *out, const char **why);
/* 'key' under one of a callee's parameter namespaces, as its caller names it; NULL if none. */
const char *py_eval_in_caller(struct arena *a, const char *const *param_ns, size_t n_params,
			      const struct py_arg *args, size_t n_args, const char *key);
/* The key an expression names: 'cfg.model.x' -> "#0.model.x", 'cfg.env_vars["A"]' ->
 * "#0.env_vars.A", a variable bound to an object -> its prefix. NULL for anything else. */
const char *py_eval_path(struct fn *f, TSNode n, unsigned depth);
/* The value of an expression: a literal, a name bound to a value (a local, a parameter, a
 * module constant here or imported), a key set before in this function, and arithmetic,
 * comparisons, boolean operators, conditional expressions, f-strings, lists, tuples, dicts
 * (V_MAP: items hold key, value, key, value, ...), subscripts on them. V_UNKNOWN with '*why'
 * for anything else. Never fails. */
struct value py_eval(struct fn *f, TSNode n, const char **why, unsigned depth);
/* A module-level name of 'm' (a constant or one it imports) evaluated; false when 'm' has none. */
bool py_eval_global(struct py_session *c, struct mod *m, const char *name, struct value *out, const char **why,
		    unsigned depth);
/* Why a call's result is not known ("from 'AutoBridge.from_hf_pretrained' (a Hugging Face config)"). */
const char *py_eval_call_why(struct fn *f, TSNode call);

/* ---- py_class.c ---- */
/* The fields a constructor call (Cls(...)) does not pass, at their defaults, put under 'key' at
 * the call, before what it passes: read from the class's source (found through the imports)
 * and its bases', merged in Python's method resolution order as dataclasses merge them, up to
 * MCore's classes where the search path reaches them. A default cglint cannot evaluate, or one
 * a method of the class may assign (__post_init__, finalize(), a helper handed 'self'), is
 * unknown with a reason naming the class and field ('known_only': left out instead), except a
 * model field the packs' steps replay where the TransformerConfig family assigns it
 * (fe_py_session_replayed). False,
 * with nothing put, for a class it cannot read whole: not found, not a dataclass, its own
 * __init__, a base not found, a class among its own bases. Each class is read once a run. */
bool py_class_defaults(struct fn *f, TSNode call, const char *key, bool known_only);
/* The same for module 'm''s class 'k' (AutoBridge's provider class), its values placed at 'at'. */
bool py_class_defaults_of(struct fn *f, struct mod *m, struct klass *k, const char *key, struct loc at,
			  bool known_only);
/* Whether 'k' has the dataclass field 'name'; unknown where cglint cannot read it whole (a base
 * not on the search path). */
enum tri py_class_has_field(struct py_session *c, struct mod *m, struct klass *k, const char *name);

/* ---- py_bridge_reg.c ---- */
/* A model bridge registered for an HF architecture, and the provider class it builds. */
struct py_bridge_found {
	struct mod *bm;         /* the bridge class's module and class */
	struct klass *bk;
	struct mod *pm;         /* the provider class's */
	struct klass *pk;
};
/* The bridge the Bridge on the search path registers for 'arch' (@MegatronModelBridge.
 * register_bridge(source=ARCH, provider=...) in the files under megatron/bridge/models, read once a run) and
 * its provider class (provider=, else GPTModelProvider): NULL, or why not. */
const char *py_bridge_reg_find(struct fn *f, const char *arch, struct py_bridge_found *out);
/* The class a bridge class derives from, or NULL ('*generic' at MegatronModelBridge). */
struct klass *py_bridge_reg_base(struct fn *f, struct mod *m, struct klass *k, struct mod **bm, bool *generic);
/* A bridge class's CONFIG_MAPPING (its own, a base's, Other.CONFIG_MAPPING + [...]): a list of
 * (HF name, provider field) pairs; false when cglint cannot read it. */
bool py_bridge_reg_mapping(struct fn *f, struct mod *m, struct klass *k, struct value *out);
/* The class 'name' as module 'm' sees it (its own or imported), and its module. */
struct klass *py_bridge_reg_class(struct py_session *c, struct mod *m, const char *name, struct mod **out);

/* ---- py_bridge_auto.c ---- */
/* 'AutoBridge.from_hf_pretrained(ID).to_megatron_provider(...)' put under 'key' as Bridge builds
 * it: the config.json of ID in the Hugging Face cache (py_hf.h), the model bridge the Bridge on
 * the search path registers for its architecture, that bridge's provider class with its defaults,
 * the HF fields its CONFIG_MAPPING carries over and what its provider_bridge() sets. False when
 * 'call' is no such call, or cannot be resolved so: then '*why_not' is the reason to give the
 * section (the model id, the cache folder searched, the bridge missing), NULL for another call. */
bool py_bridge_auto_provider(struct fn *f, const char *key, TSNode call, const char **why_not);

/* ---- py_obj.c ---- */
/* Objects the evaluator holds besides plain data: a class (a module-level one, read from its
 * source) and a member of a plain enum.Enum class. Each is a V_STR of its name whose 'i' says
 * which object it is (< 0 a class, > 0 a member): a member's name is the spelling facts and rules
 * use (MCore and Bridge turn names into members and back); py_unit_put keeps no class. A
 * V_LIST's 'i' says what py_eval knows it is: PY_SEQ (not known), PY_SEQ_LIST, _TUPLE or _SET. */
enum { PY_SEQ, PY_SEQ_LIST, PY_SEQ_TUPLE, PY_SEQ_SET };
bool py_obj_is(const struct value *v);
/* Class 'cls' of module 'm' as a value. */
struct value py_obj_class(struct py_session *c, struct mod *m, size_t cls);
/* Cls.member, member.name, member.value: true when 'v' is an object ('*out' unknown with '*why'
 * where Python's answer is not known). */
bool py_obj_attr(struct fn *f, const struct value *v, const char *attr, struct value *out, const char **why);
/* Cls[name]; Cls(value) (a member by value, or the member given): true when 'v' is a class. */
bool py_obj_index(struct fn *f, const struct value *v, const struct value *idx, struct value *out, const char **why);
bool py_obj_call(struct fn *f, const struct value *callee, const struct value *arg, struct value *out, const char **why);
/* Python's == between two values (objects by identity; a list is never a tuple). */
enum tri py_obj_equal(const struct value *a, const struct value *b);
/* isinstance(v, T) for T a builtin type or a tuple of them. */
enum tri py_obj_isinstance(struct fn *f, const struct value *v, TSNode type);
/* str(v) of an object ('Cls.member'): true when 'v' is one. */
bool py_obj_str(struct fn *f, const struct value *v, struct value *out);
/* A method of a str value (split, rsplit, replace, startswith, endswith, lower, upper): true when 'self'
 * is a str ('*out' unknown with '*why' for a method or arguments cglint does not compute). */
bool py_obj_method(struct fn *f, const struct value *self, const char *name, const struct value *args, size_t n,
		   struct value *out, const char **why);

/* Builtins over values: isinstance(), set()/list()/tuple() of an iterable, getattr(member,
 * "name"); a method of a str value; Cls(value) of an Enum. False when the call is none of them. */
bool py_obj_builtin(struct fn *f, TSNode call, struct value *out, const char **why, unsigned depth);
bool py_obj_value_call(struct fn *f, TSNode call, struct value *out, const char **why, unsigned depth);

/* The items 'for x in v' visits, in order ('*out' with '*n'); false with '*why' where they are
 * not known (a set of more than one item: Python does not fix its order). */
bool py_obj_items(struct fn *f, const struct value *v, const struct value **out, size_t *n, const char **why);

/* ---- py_comp.c ---- */
/* A list, set or dict comprehension over iterables py_eval knows, each 'for' name bound as
 * Python binds it in the comprehension's own scope; V_UNKNOWN with '*why' otherwise. */
struct value py_comp(struct fn *f, TSNode n, const char **why, unsigned depth);

/* ---- py_call.c ---- */
/* Follow a call into a function cglint reads: its records replayed here; '*ret' what it
 * returns, in this function's namespaces. False when the callee is not one cglint can read. */
bool py_call_follow(struct fn *f, TSNode call, struct py_ret *ret);
/* What module-level function 'd' of 'm' does when nothing is passed to it, in parse 'p'. */
const struct sum *py_call_top(struct py_session *c, const struct py_pass *p, struct mod *m, size_t d, bool *cut);
/* Record a note about a line of the function's module (once per line and text). */
void py_call_note(struct fn *f, TSNode at, const char *text, bool megatron, bool recipe);

#endif

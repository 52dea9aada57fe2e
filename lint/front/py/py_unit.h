/* SPDX-License-Identifier: MIT */
/*
 * py_unit: what a Python function does to config objects, as plain data: a log of records in
 * statement order, and the variables that name objects or their sections. The evaluator
 * (py_fn.h) walks the syntax and writes here; nothing here knows tree-sitter.
 *
 * Every object a function binds (a parameter, a call's result) gets a namespace of its own
 * ("#3"), so two objects never mix; keys are written under it ("#3.model.cuda_graph_impl").
 * Records:
 *   PY_SET     the key takes a value (V_UNKNOWN where cglint cannot know it);
 *   PY_FORGET  the key is replaced: what was under it is gone (cfg.model = ...);
 *   PY_TOUCH   code cglint cannot read may change anything under the key (helper(cfg.model));
 *   PY_CLOSE   the key was built by a config class whose defaults the packs know: its fields
 *              that nothing sets keep those defaults;
 *   PY_SPREAD  a dict at the key took a ** entry: names it does not show may be set.
 * A called function's log, recorded once, is replayed into its caller with its parameter's
 * namespace renamed to the caller's argument: that is how helpers and base recipes are followed.
 */
#ifndef CGLINT_PY_UNIT_H
#define CGLINT_PY_UNIT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/loc.h"
#include "base/strmap.h"
#include "base/value.h"
#include "front/py/fe_py.h"

struct arena;

enum py_op { PY_SET, PY_FORGET, PY_TOUCH, PY_CLOSE, PY_SPREAD };

struct py_rec {
	enum py_op op;
	const char *key;
	struct value val;       /* PY_SET */
	struct loc loc;
	const char *why;        /* PY_SET of V_UNKNOWN: why (py_key.why); PY_FORGET/PY_TOUCH: why
				 * what was under the key became unknown */
	struct loc via;         /* replayed from a call: the call (the outermost one wins) */
	size_t hash;            /* strmap_hash of 'key', set as the log takes the record */
	unsigned len;           /* of 'key' */
	enum py_form form;      /* PY_SET: how it was written (py_key.form) */
};

/* A name in a function: an object (or one of its sections), or a plain value. */
struct py_var {
	const char *name;
	const char *prefix;     /* "#0", "#0.model"; NULL once rebound to something else */
	bool has_val;           /* a value: 'val' (V_UNKNOWN with 'why' where not known) */
				/* an object: 'why' its values are not known, where it says */
	struct value val;
	const char *why;
};

struct py_log {
	struct arena *a;
	struct py_rec *recs;
	size_t n, cap;
	struct py_var *vars;
	size_t n_vars, cap_vars;
	unsigned next_ns;
	bool over;              /* a record past PY_UNIT_MAX_RECS was refused */
	struct strmap written;  /* each key a PY_SET wrote and its sections ("#0", "#0.model"), ever,
				 * with the lowest index of a record that wrote under it: py_unit_forget
				 * scans the log from there, and not at all where none is under it */
	/* for py_unit_get: each key's latest PY_SET, and each key's latest PY_FORGET or PY_TOUCH; an
	 * index is stale where the log was cut back below it (py_flow takes a branch's records
	 * back), which py_unit_get sees, and then scans the log */
	struct strmap last, marked;
};

/* What a function returns: one item, or a tuple's items; each an object or a value. */
struct py_ret {
	size_t n;               /* 0: nothing cglint reads */
	bool tuple;
	const char **ns;        /* per item: a namespace, or NULL for a value */
	struct value *val;
	const char **why;
};

void py_unit_init(struct py_log *l, struct arena *a);
void py_unit_release(struct py_log *l);

/* A key of more parts names no config field (the packs' deepest have three parts): it is not
 * recorded, and a variable bound to one no longer names an object. Without the bound, aliases
 * re-bound in a chain make keys ever longer, and their prefixes cost the square of that. */
#define PY_UNIT_MAX_PARTS 16
#define PY_UNIT_MAX_RECS FE_PY_MAX_RECS   /* fe_py.h */

/* Variables: the prefix a name stands for, or NULL; bind (prefix NULL, or one too deep: no
 * longer an object). */
const char *py_unit_var(const struct py_log *l, const char *name);
void py_unit_bind(struct py_log *l, const char *name, const char *prefix);
/* A name bound to a plain value (not an object): found or not; '*why' for an unknown one. */
bool py_unit_value(const struct py_log *l, const char *name, struct value *out, const char **why);
void py_unit_bind_value(struct py_log *l, const char *name, struct value v, const char *why);
/* An object whose fields cglint cannot know ('why': the call that made it), and that reason. */
void py_unit_bind_object(struct py_log *l, const char *name, const char *prefix, const char *why);
const char *py_unit_var_why(const struct py_log *l, const char *name);
/* The latest value written at 'key' in the log: false when none is (or a section above it was
 * replaced or touched since: then '*out' is unknown, '*why' says why, and true). */
bool py_unit_get(const struct py_log *l, const char *key, struct value *out, const char **why);
const char *py_unit_new_ns(struct py_log *l);

/* 'key' is 'prefix' or below it. */
bool py_unit_under(const char *key, const char *prefix);

void py_unit_put(struct py_log *l, const char *key, struct value v, struct loc loc, const char *why);
/* The sets among the records from 'from' on, of 'key' itself or of any key when it is NULL, were
 * written in 'form' (a constructor's keyword argument, a class's declared default). */
void py_unit_form(struct py_log *l, size_t from, const char *key, enum py_form form);
/* Every key set so far under 'prefix' becomes unknown ('why'), and a PY_FORGET (replaced) or
 * PY_TOUCH (changed by code cglint does not read) record says so for callers. */
void py_unit_forget(struct py_log *l, const char *prefix, bool touch, const char *why);
void py_unit_mark(struct py_log *l, enum py_op op, const char *key, struct loc loc);
/* The records under 'from' again under 'to' (an object built on its own, then put in a config). */
bool py_unit_copy(struct py_log *l, const char *from, const char *to);     /* false: nothing there */
/* A callee's records, in order, each under one of 'from' (its parameters' or its result's
 * namespaces) replayed here under the matching 'to' (the arguments). */
void py_unit_replay(struct py_log *l, const struct py_rec *recs, size_t n, const char *const *from,
		    const char *const *to, size_t n_map, struct loc via);

/* The namespace with most keys set, or NULL. */
const char *py_unit_busiest(const struct py_log *l, struct arena *a);
/* The unit of the object at 'ns': its keys without the prefix, whether env_vars took a **
 * entry, which sections keep their class's defaults. */
void py_unit_result(const struct py_log *l, const char *ns, struct arena *a, struct py_unit *out);

#endif

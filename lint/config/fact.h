/* SPDX-License-Identifier: MIT */
/*
 * fact: one configuration key with its value and where it came from. Every front-end turns its
 * input into facts; rules and normalization read only facts, never YAML or shell types.
 *
 * Layers are applied in order and a later set wins ("config", then "config-file" overlays,
 * then "dotlist", then "env"); a fact keeps the position its winning layer gave it. 'raw' keeps
 * what the inputs said before normalization rewrote 'val'.
 *
 * A key no layer set is unknown (V_UNKNOWN) unless the table is closed: defaults assumed, where
 * an absent key reads as null. Environment keys ("env.NAME") close separately, once any
 * environment source is given. Keys under "runtime." (runtime.data_parallel_size) are what only
 * the running job knows: no input sets them and they are unknown even with defaults assumed, so a
 * pack step that copies one makes its target unknown. The table owns its facts; strings live in
 * its arena.
 */
#ifndef CGLINT_FACT_H
#define CGLINT_FACT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strmap.h"
#include "base/value.h"

struct arena;
struct expr;

/* How an input wrote a key, where a loader treats the forms apart (Bridge's, for a key its
 * config lacks: docs/fields.md). */
enum fact_form {
	FACT_SET,               /* a YAML key, a Hydra override, an attribute set in Python */
	FACT_APPENDED,          /* a Hydra override with '+' (+model.x=1): a key the config may lack */
	FACT_KEYWORD,           /* a keyword argument of a class's constructor (RNGConfig(seed=1)) */
	FACT_DECLARED,          /* a default the environment's class declares: a field there by construction */
};

struct fact {
	const char *key;
	struct value val;
	struct value raw;
	struct loc loc;
	const char *layer;
	const char *why;        /* V_UNKNOWN: why the input's value cannot be known, or NULL */
	struct loc origin;      /* placed at a call (loc) but written elsewhere (a helper's line); path NULL if not */
	bool enum_form;         /* written as {_target_: ...Enum, _name_: x} dicts (catalogue §B.1) */
	const struct expr *from; /* an unknown a pack step computed: the expression, whose keys say why */
	const char *written_as; /* normalization placed it where an input wrote this other key, or NULL */
	const char *moved_by;   /* ... and the note of the step that did (why it reads as this key) */
	enum fact_form form;
};

struct facts {
	struct arena *arena;
	struct fact **order;    /* insertion order */
	size_t n, cap;
	struct strmap index;    /* key -> position in 'order' */
	bool closed;            /* defaults assumed: absent keys are null */
	const char **closed_under; /* sections whose absent keys are null (an env_vars dict built empty) */
	size_t n_closed_under;
	bool env_closed;        /* the job's environment is known: absent env.* are unset (null) */
};

void facts_init(struct facts *t, struct arena *a);
void facts_release(struct facts *t);

struct fact *facts_get(const struct facts *t, const char *key);
/* A key only the packs' steps use (a leaf starting with '_', model._bridge_full_iteration): no
 * input writes it, and views of the config leave it out. */
bool facts_internal(const char *key);
/* Absent keys under 'section' read as null from now on ('section' is copied). */
void facts_close_under(struct facts *t, const char *section);
/* Every fact of 'src' into 'dst' whole (a field added to struct fact comes along), and what src
 * holds closed. The copies share src's strings and expressions: src's arena must outlive dst. */
void facts_copy(struct facts *dst, const struct facts *src);
/* Set 'key' from an input layer: both 'val' and 'raw' take 'v'. */
struct fact *facts_set(struct facts *t, const char *key, struct value v, struct loc loc, const char *layer);
/* The value an expression sees: the fact's, else null when closed, else unknown. */
struct value facts_value(const struct facts *t, const char *key);
struct value facts_raw(const struct facts *t, const char *key);

#endif

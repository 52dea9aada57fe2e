/* SPDX-License-Identifier: MIT */
/*
 * sg: `cglint suggest`, the strongest CUDA-graph setting each unit can take. For every unit the
 * run builds (lint.h's on_unit: its facts before the engine), the decision table of Bridge's
 * CUDA-graph guide (sg_table.c) gives candidates, strongest first; each is applied to a copy of
 * the unit's facts with the companions the rules ask for, and the engine judges it (sg_eval.c).
 * The first with no error the unit did not already have with graphs off wins. A key the table
 * reads that no input makes known (is the model MoE? dropless?) is never guessed: each value
 * gives a branch of its own. Results print as text or JSON (sg_out.c) or become a patch in the
 * input's own language (sg_patch.c).
 */
#ifndef CGLINT_SG_H
#define CGLINT_SG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/loc.h"
#include "base/value.h"

struct facts;
struct pack;
struct target;
struct text_store;

struct sg_opts {
	bool allow_full_iteration;      /* --allow full-iteration */
	bool json;
	const char *function;           /* --function: only the units of this recipe function, or NULL */
};

/* The language a unit's patch is written in: a recipe function, a Bridge YAML, the performance
 * harness's flags, Megatron-LM's flags, Hydra overrides to Bridge's recipe runner. */
enum sg_lang { SG_PY, SG_YAML, SG_HARNESS, SG_MLM, SG_RUNNER };

/* One key the suggestion writes: its value, and where the unit writes it now (path NULL: nowhere). */
struct sg_set {
	const char *key;
	struct value val;
	struct loc at;
	bool companion;                 /* not the impl or the scope: a setting the rules or the guide require */
	const char *only_if;            /* written only where this key is set (a Python if), or NULL */
	const char *renames;            /* the deprecated key it replaces where the unit writes that
					 * one ('at'), or NULL (Megatron-LM's --cuda-graph-scope) */
};

enum sg_status {
	SG_SUGGEST,                     /* settings to write */
	SG_ALREADY,                     /* the unit has the winner already */
	SG_KEEP,                        /* the unit's own setting passes and is stronger than the winner */
	SG_NONE_FITS,                   /* no candidate passes */
};

/* The answer for one set of values of the unknown keys the table reads. */
struct sg_choice {
	const char *when;               /* "model.num_moe_experts = null", or NULL when nothing was assumed */
	const char *row;                /* the decision table's row: "dense", "dropless MoE", ... */
	const char *impl;               /* the winner's, NULL when none fits */
	struct value scope;
	enum sg_status status;
	struct sg_set *sets;
	size_t n_sets;
	const char *why;                /* its path through the table, one or two lines */
	const char **notes, **undecided, **blocked;     /* new warnings and notes; open checks; what failed */
	size_t n_notes, n_undecided, n_blocked;
};

struct sg_unit {
	const char *path, *function;    /* function: the recipe function, or NULL */
	unsigned line;
	enum sg_lang lang;
	const char *impl;               /* what the unit has now, after normalization */
	struct value scope;
	struct sg_choice *choices;      /* one, or one per branch */
	const char *unknown;            /* branches: the first key they split on, and why it is unknown */
	size_t n_choices;
	const struct sg_choice *spelling; /* its own setting in the target's spelling, where it writes a
					   * deprecated one: --fix's edit where the choices leave it, or NULL */
};

struct sg;
struct sg *sg_new(const struct sg_opts *o);
void sg_free(struct sg *s);
/* The pack the candidates are judged by: set before the run. */
void sg_set_pack(struct sg *s, const struct pack *p);
/* lint.h's on_unit. */
void sg_unit(void *ctx, const char *path, const char *unit, unsigned line, const struct target *tg,
	     const struct facts *t);
size_t sg_count(const struct sg *s);
/* Forget the units judged so far: the run goes again (--fix's next pass). */
void sg_clear(struct sg *s);
const struct sg_unit *sg_at(const struct sg *s, size_t k);

void sg_print(const struct sg *s, FILE *f, const struct target *tg);
/*
 * The suggestions as edits to the inputs' texts: a unified diff on 'f' ('diff'), or each file
 * rewritten atomically. Returns 0, or 2 when a file could not be written; *files is how many
 * files changed (or would). A unit with branches, or whose input cannot take the edit, is said on
 * 'notes' (when not NULL) and left as it is. --fix writes only where may_write says so (it says
 * why not itself).
 */
int sg_patch(const struct sg *s, const struct text_store *texts, bool diff, FILE *f, FILE *notes, size_t *files,
	     bool (*may_write)(void *ctx, const char *path), void *ctx);

#endif

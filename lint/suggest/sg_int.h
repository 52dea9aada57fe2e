/* SPDX-License-Identifier: MIT */
/* sg_int: what the suggest stage's files share (sg.h is the stage's face). */
#ifndef CGLINT_SG_INT_H
#define CGLINT_SG_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "suggest/sg.h"

struct arena;
struct facts;
struct fix_edit;
struct fix_edits;
struct pack;
struct target;

/* The decision table's row for a unit, from its facts once normalized with graphs off. */
struct sgt_class {
	bool moe, hybrid, static_tokens;
	const char *row;                /* "dense", "dropless MoE", ... */
	const char *because;            /* the facts that put it there */
};

/* A key the table reads and could not know: the values a branch is made for. */
struct sgt_branch {
	const char *key;
	size_t n;
	struct value vals[2];
	const char *labels[2];          /* what each value means: "dense", "MoE" */
};

/* Classify; false when a key the row depends on is unknown: then *b names it. */
bool sgt_classify(const struct facts *post, struct arena *a, struct sgt_class *c, struct sgt_branch *b);

/* A candidate setting: an impl and its scope (module names). */
struct sgt_cand {
	const char *impl;
	const char *scope[5];
	size_t n;
	bool full_iteration;
};

#define SGT_MAX_CANDS 8
/* The row's candidates, strongest first. */
size_t sgt_candidates(const struct sgt_class *c, bool allow_fi, struct sgt_cand *out);
/* How much a setting captures: 0 for none, most for full iteration. */
int sgt_rank(const char *impl, const struct value *scope);
/* The keys a unit's language writes the impl and the scope in, and how it spells a candidate. */
const char *sgt_impl_key(enum sg_lang lang);
const char *sgt_scope_key(enum sg_lang lang, const struct target *tg, const struct facts *pre);
/* The unit's own write of the deprecated cuda_graph_scope (an input's, not a default), or NULL. */
const struct fact *sgt_scope_written(const struct facts *pre);
/* The setting that lifts a rule's finding where its pack gives no autofix, or that settles it
 * where it stays undecided (then only where 'guard', when set, is known to be set). */
struct sgt_companion {
	const char *rule, *key, *value, *guard;
};
const struct sgt_companion *sgt_companion(const char *rule_id);
const struct sgt_companion *sgt_companion_next(const struct sgt_companion *after);     /* all, from NULL */
/* A key inside a dict field ("dataset.dataset_kwargs.x"): the length of the dict's path, else 0. */
size_t sgt_dict_key(const char *key);
/* Settings the guide pairs with every graph setting of a language and target (NULL-terminated
 * key/value pairs: "model.use_te_rng_tracker", "true", ...). */
const char *const *sgt_always(enum sg_lang lang, const struct target *tg, bool full_iteration);
/* Megatron-LM's argparse flag for a key (model.cuda_graph_impl -> --cuda-graph-impl), or NULL. */
const char *sgt_mlm_flag(struct arena *a, const char *key);
/* Whether a key can be written in the unit's language. */
bool sgt_writable(enum sg_lang lang, const char *key);
/* Two scopes with the same names, in any order. */
bool sgt_same_scope(const struct value *a, const struct value *b);

size_t sg_skipped(const struct sg *s);   /* units with no model settings */
bool sg_json(const struct sg *s);
/* A value as the patch writes it in 'lang' (sg_patch.c). */
const char *sg_spelled(struct arena *a, const struct value *v, enum sg_lang lang);
/* A suggestion as edits to a functional-test model_config.yaml, appended to 'ed' (all of
 * them or none); NULL, or why it cannot be written there (sg_mlm_yaml.c). */
const char *sg_mlm_yaml_patch(struct arena *a, const char *buf, size_t len, const struct sg_choice *c,
			      struct fix_edits *ed);

/* The end of a shell line's words: before a trailing comment and blanks (sg_runner.c). */
size_t sg_sh_code_end(const char *s, size_t n);
/* A suggestion as Hydra overrides on the recipe-runner command starting at 'line' of the script
 * 'path', appended to 'ed'; NULL, or why it cannot be written there, when the caller drops what
 * was appended (sg_runner.c). */
const char *sg_runner_patch(struct arena *a, const char *path, unsigned line, const char *buf, size_t len,
			    const struct sg_choice *c, struct fix_edits *ed);

/* One unit, judged (sg_eval.c): the choices for every branch, into 'u'. */
struct sgx {
	const struct pack *pack;
	const struct target *tg;
	const struct facts *pre;        /* the unit's facts before the engine */
	struct arena *a;                /* the results' */
	const char *path;
	unsigned line;
	enum sg_lang lang;
	bool allow_fi;
};
void sge_unit(struct sgx *x, struct sg_unit *u);

#endif

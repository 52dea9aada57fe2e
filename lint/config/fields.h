/* SPDX-License-Identifier: MIT */
/*
 * fields: whether the target release has a key a config writes or a flag a command passes, from
 * the name sets of rules/fields.yaml (every field of every ConfigContainer section per Bridge
 * release, every option of Megatron-LM's parser per Megatron Core release; tools/fields.py
 * extracts them from upstream's code). What a missing one costs depends on the loader that
 * reads it (run/unit.c, front/args.c; docs/fields.md).
 */
#ifndef CGLINT_FIELDS_H
#define CGLINT_FIELDS_H

#include <stdbool.h>

struct pack;
struct target;

enum field_verdict {
	FIELD_UNJUDGED,         /* no name set covers it: not a ConfigContainer key, or no Bridge */
	FIELD_KNOWN,
	FIELD_ABSENT,           /* the target's class or parser has no such name */
};

struct field_info {
	const char *name;       /* FIELD_ABSENT: the part that is missing ("modle" of "modle.x") */
	char near[128];         /* the closest name the target has, or "" */
	char elsewhere[160];    /* the releases that have it ("0.5, 0.6, main"), or "" */
};

/* A key of a Bridge config ("model.cuda_graph_scope"): its section, then the section's field;
 * keys deeper than that are the field's own value and not judged. */
enum field_verdict fields_key(const struct pack *p, const struct target *tg, const char *key, struct field_info *out);
/* What the section of 'key' (its part before the first dot) says of whether keys are a Bridge
 * config's: 1 a field of the target's ConfigContainer, -1 not one, 0 not judged. */
int fields_section_vote(const struct pack *p, const struct target *tg, const char *key);
/* A flag of Megatron-LM's parser ("--cuda-graph-impl"); 'extra': the entry point adds Model
 * Optimizer's options (pretrain_gpt.py and the hybrid models' scripts). */
enum field_verdict fields_mlm_flag(const struct pack *p, const struct target *tg, const char *flag, bool extra,
				   struct field_info *out);

#endif

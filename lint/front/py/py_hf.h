/* SPDX-License-Identifier: MIT */
/*
 * py_hf: a Hugging Face model's config.json, as AutoBridge.from_hf_pretrained reads it, taken
 * from the hub cache already on the machine (never downloaded): $HF_HUB_CACHE, else
 * $HUGGINGFACE_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
 * ~/.cache/huggingface/hub; there models--ORG--NAME/refs/REVISION names the snapshot that holds
 * config.json. A model id that is a folder holding config.json is read from there. No
 * third-party types: the JSON becomes plain values.
 */
#ifndef CGLINT_PY_HF_H
#define CGLINT_PY_HF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/value.h"

struct arena;

struct py_hf_config {
	const char *path;       /* the config.json read */
	const char *arch;       /* architectures[0], NULL when it names none */
	const char *model_type; /* NULL when absent */
	const char **names;     /* its top-level fields, in file order */
	struct value *vals;     /* each one's value (an object: V_MAP, items key, value, ...) */
	size_t n;
};

/* The hub cache folder searched, by the order above (in 'a'). */
const char *py_hf_cache_dir(struct arena *a);

/* Read the config.json of 'model_id' at 'revision' (NULL: "main") into '*out', in 'a'. False,
 * with '*why' saying what was looked for and where ("'org/name' is not in the Hugging Face
 * cache /root/.cache/huggingface/hub"), when it is not there or cannot be read as JSON. */
bool py_hf_read(struct arena *a, const char *model_id, const char *revision, struct py_hf_config *out,
		const char **why);

/* The top-level field 'name' of a config read: true with its value, false when it has none. */
bool py_hf_get(const struct py_hf_config *c, const char *name, struct value *out);

/* The object at top-level field 'name' (a VLM's "text_config") as a config of its own, sharing
 * the parent's path and strings (in 'a'); false when there is no such object. */
bool py_hf_sub(struct arena *a, const struct py_hf_config *c, const char *name, struct py_hf_config *out);

#endif

/* SPDX-License-Identifier: MIT */
/* py_hf: a Hugging Face config.json from the hub cache on the machine (see py_hf.h). */
#include "front/py/py_hf.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/mem.h"

#define MAX_JSON_DEPTH 8        /* nesting kept as values; deeper objects are unknown */

static const char *env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* huggingface_hub's constants.py: HF_HUB_CACHE, its old name, HF_HOME/hub, XDG, the default. */
const char *py_hf_cache_dir(struct arena *a)
{
	const char *v;
	if ((v = env("HF_HUB_CACHE")) || (v = env("HUGGINGFACE_HUB_CACHE")))
		return arena_strdup(a, v);
	if ((v = env("HF_HOME")))
		return arena_printf(a, "%s/hub", v);
	if ((v = env("XDG_CACHE_HOME")))
		return arena_printf(a, "%s/huggingface/hub", v);
	return arena_printf(a, "%s/.cache/huggingface/hub", env("HOME") ? env("HOME") : "");
}

static bool is_file(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* The first line of a small file (a refs/ entry holds a commit hash), or NULL. */
static const char *first_line(struct arena *a, const char *path)
{
	FILE *fp = fopen(path, "r");
	char buf[256];
	if (!fp)
		return NULL;
	bool ok = fgets(buf, sizeof(buf), fp) != NULL;
	fclose(fp);
	if (!ok)
		return NULL;
	buf[strcspn(buf, "\r\n")] = '\0';
	return *buf ? arena_strdup(a, buf) : NULL;
}

/* A repo id is 'name' or 'org/name' without path tricks; a revision a ref or hash. */
static bool plain_name(const char *s, bool slash)
{
	if (!*s || *s == '.' || strstr(s, ".."))
		return false;
	size_t slashes = 0;
	for (const char *p = s; *p; p++) {
		if (*p == '/')
			slashes++;
		else if (*p == '\\' || (unsigned char)*p < ' ')
			return false;
	}
	return slash ? slashes <= 1 : !slashes;
}

static struct value json_value(struct arena *a, json_t *j, unsigned depth)
{
	struct value v = value_unknown;
	if (json_is_string(j))
		v = value_str(arena_strdup(a, json_string_value(j)));
	else if (json_is_integer(j))
		v = (struct value){.kind = V_INT, .i = (long long)json_integer_value(j)};
	else if (json_is_real(j))
		v = (struct value){.kind = V_FLOAT, .f = json_real_value(j)};
	else if (json_is_boolean(j))
		v = value_bool(json_is_true(j));
	else if (json_is_null(j))
		v = value_null;
	else if (depth < MAX_JSON_DEPTH && json_is_array(j)) {
		v = (struct value){.kind = V_LIST, .n = json_array_size(j)};
		v.items = arena_alloc(a, (v.n ? v.n : 1) * sizeof(*v.items));
		for (size_t k = 0; k < v.n; k++)
			v.items[k] = json_value(a, json_array_get(j, k), depth + 1);
	} else if (depth < MAX_JSON_DEPTH && json_is_object(j)) {
		v = (struct value){.kind = V_MAP, .n = 2 * json_object_size(j)};
		v.items = arena_alloc(a, (v.n ? v.n : 1) * sizeof(*v.items));
		const char *key;
		json_t *item;
		size_t k = 0;
		json_object_foreach(j, key, item) {
			v.items[k++] = value_str(arena_strdup(a, key));
			v.items[k++] = json_value(a, item, depth + 1);
		}
	}
	return v;
}

static bool read_json(struct arena *a, const char *path, struct py_hf_config *out, const char **why)
{
	json_error_t err;
	json_t *root = json_load_file(path, JSON_DECODE_ANY, &err);
	if (!root || !json_is_object(root)) {
		*why = arena_printf(a, "%s is not a JSON object (%s)", path, root ? "another value" : err.text);
		json_decref(root);
		return false;
	}
	*out = (struct py_hf_config){.path = arena_strdup(a, path), .n = json_object_size(root)};
	out->names = arena_alloc(a, (out->n ? out->n : 1) * sizeof(*out->names));
	out->vals = arena_alloc(a, (out->n ? out->n : 1) * sizeof(*out->vals));
	const char *key;
	json_t *item;
	size_t k = 0;
	json_object_foreach(root, key, item) {
		out->names[k] = arena_strdup(a, key);
		out->vals[k++] = json_value(a, item, 1);
	}
	json_t *arch = json_object_get(root, "architectures"), *type = json_object_get(root, "model_type");
	if (json_is_array(arch) && json_is_string(json_array_get(arch, 0)))
		out->arch = arena_strdup(a, json_string_value(json_array_get(arch, 0)));
	if (json_is_string(type))
		out->model_type = arena_strdup(a, json_string_value(type));
	json_decref(root);
	return true;
}

bool py_hf_read(struct arena *a, const char *model_id, const char *revision, struct py_hf_config *out,
		const char **why)
{
	/* a local folder (from_hf_pretrained("/ckpt/llama")) before the hub */
	const char *local = arena_printf(a, "%s/config.json", model_id);
	if (*model_id && is_file(local))
		return read_json(a, local, out, why);
	const char *dir = py_hf_cache_dir(a), *rev = revision ? revision : "main";
	if (!plain_name(model_id, true) || !plain_name(rev, false)) {
		*why = arena_printf(a, "'%s' is not a Hugging Face model id cglint looks up", model_id);
		return false;
	}
	/* models--ORG--NAME: the id's '/' written as "--" */
	const char *slash = strchr(model_id, '/');
	const char *repo = slash ? arena_printf(a, "%s/models--%.*s--%s", dir, (int)(slash - model_id), model_id, slash + 1)
				 : arena_printf(a, "%s/models--%s", dir, model_id);
	/* refs/REV names the snapshot; a revision that is a commit hash is a snapshot itself */
	const char *commit = first_line(a, arena_printf(a, "%s/refs/%s", repo, rev));
	const char *path = arena_printf(a, "%s/snapshots/%s/config.json", repo, commit ? commit : rev);
	if (!is_file(path)) {
		*why = arena_printf(a, "'%s'%s%s is not in the Hugging Face cache %s", model_id,
				    revision ? " at revision " : "", revision ? revision : "", dir);
		return false;
	}
	return read_json(a, path, out, why);
}

bool py_hf_get(const struct py_hf_config *c, const char *name, struct value *out)
{
	for (size_t k = 0; k < c->n; k++)
		if (!strcmp(c->names[k], name)) {
			*out = c->vals[k];
			return true;
		}
	return false;
}

bool py_hf_sub(struct arena *a, const struct py_hf_config *c, const char *name, struct py_hf_config *out)
{
	struct value v, t;
	if (!py_hf_get(c, name, &v) || v.kind != V_MAP)
		return false;
	*out = (struct py_hf_config){.path = c->path, .arch = c->arch, .n = v.n / 2};
	out->names = arena_alloc(a, (out->n ? out->n : 1) * sizeof(*out->names));
	out->vals = arena_alloc(a, (out->n ? out->n : 1) * sizeof(*out->vals));
	for (size_t k = 0; k < out->n; k++) {
		out->names[k] = v.items[2 * k].s;
		out->vals[k] = v.items[2 * k + 1];
	}
	out->model_type = py_hf_get(out, "model_type", &t) && t.kind == V_STR ? t.s : NULL;
	return true;
}

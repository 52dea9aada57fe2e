/* SPDX-License-Identifier: MIT */
/* out_facts: each unit's facts, kept as JSON and printed as JSON or text. */
#include "report/out_facts.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/mem.h"
#include "base/value.h"
#include "config/fact.h"
#include "config/target.h"
#include "report/out.h"

struct out_facts {
	bool json;
	const char *function;
	json_t *units;
};

struct out_facts *out_facts_new(bool json, const char *function)
{
	struct out_facts *s = mem_alloc(sizeof(*s));
	*s = (struct out_facts){.json = json, .function = function, .units = json_array()};
	return s;
}

void out_facts_free(struct out_facts *s)
{
	if (!s)
		return;
	json_decref(s->units);
	free(s);
}

size_t out_facts_count(const struct out_facts *s)
{
	return json_array_size(s->units);
}

static json_t *text(const char *s)
{
	if (!s)
		return json_null();
	char *fixed = out_utf8(s);
	json_t *j = json_string(fixed);
	free(fixed);
	return j;
}

static json_t *jvalue(const struct value *v)
{
	switch (v->kind) {
	case V_NULL: return json_null();
	case V_BOOL: return json_boolean(v->b);
	case V_INT: return json_integer(v->i);
	case V_FLOAT: return json_real(v->f);
	case V_STR: return text(v->s);
	case V_LIST: {
		json_t *a = json_array();
		for (size_t k = 0; k < v->n; k++)
			json_array_append_new(a, jvalue(&v->items[k]));
		return a;
	}
	default: {              /* a mapping: its Python rendering */
		struct arena *ar = arena_new();
		json_t *j = text(value_string(ar, v, false));
		arena_free(ar);
		return j;
	}
	}
}

void out_facts_unit(void *sink, const char *path, const char *unit, unsigned line, const struct target *tg,
		    const struct facts *t)
{
	(void)tg;
	struct out_facts *s = sink;
	if (s->function && (!unit || strcmp(unit, s->function)))
		return;
	json_t *keys = json_array();
	struct arena *a = arena_new();
	for (size_t k = 0; k < t->n; k++) {
		const struct fact *f = t->order[k];
		if (facts_internal(f->key))
			continue;       /* a value only the packs' steps use */
		json_t *j = json_pack("{s:o, s:b}", "key", text(f->key), "known", f->val.kind != V_UNKNOWN);
		if (f->val.kind == V_MAP)       /* a section that is there (not null); its keys follow */
			json_object_set_new(j, "section", json_true());
		else if (f->val.kind != V_UNKNOWN)
			json_object_set_new(j, "value", jvalue(&f->val));
		if (f->raw.kind != V_UNKNOWN && (!value_equal(&f->raw, &f->val) || f->raw.kind != f->val.kind))
			json_object_set_new(j, "written", jvalue(&f->raw));     /* before normalization */
		json_object_set_new(j, "layer", text(f->layer));
		json_object_set_new(j, "at", f->loc.path ? text(arena_printf(a, "%s:%u:%u", f->loc.path, f->loc.line,
									      f->loc.col))
							  : json_null());
		json_object_set_new(j, "why", text(f->val.kind == V_UNKNOWN ? f->why : NULL));
		if (f->origin.path)     /* placed at a call, written in the callee */
			json_object_set_new(j, "written_at", text(arena_printf(a, "%s:%u:%u", f->origin.path, f->origin.line,
									       f->origin.col)));
		json_array_append_new(keys, j);
	}
	arena_free(a);
	/* where a key no input sets reads as null rather than unknown */
	json_t *closed = json_array();
	for (size_t k = 0; k < t->n_closed_under; k++)
		json_array_append_new(closed, text(t->closed_under[k]));
	json_array_append_new(s->units, json_pack("{s:o, s:o, s:i, s:o, s:{s:b, s:b, s:o}}", "path", text(path), "function",
						  text(unit), "line", (int)line, "keys", keys, "absent_is_null",
						  "all", t->closed, "env", t->env_closed, "under", closed));
}

static void print_text(const struct out_facts *s, FILE *f)
{
	size_t k;
	json_t *u;
	json_array_foreach(s->units, k, u) {
		const char *fn = json_string_value(json_object_get(u, "function"));
		fprintf(f, "%s%s:%d:%s%s\n", k ? "\n" : "", json_string_value(json_object_get(u, "path")),
			(int)json_integer_value(json_object_get(u, "line")), fn ? " " : "", fn ? fn : "");
		size_t i;
		json_t *key;
		json_array_foreach(json_object_get(u, "keys"), i, key) {
			const char *at = json_string_value(json_object_get(key, "at"));
			const char *why = json_string_value(json_object_get(key, "why"));
			const char *layer = json_string_value(json_object_get(key, "layer"));
			if (json_object_get(key, "section"))
				continue;       /* its keys say it */
			fprintf(f, "  %s = ", json_string_value(json_object_get(key, "key")));
			if (json_is_true(json_object_get(key, "known")))
				json_dumpf(json_object_get(key, "value"), f, JSON_ENCODE_ANY | JSON_COMPACT);
			else
				fputs("(unknown)", f);
			const char *from = json_string_value(json_object_get(key, "written_at"));
			fprintf(f, "  [%s%s%s%s%s", layer ? layer : "", at ? " " : "", at ? at : "", from ? ", written at " : "",
				from ? from : "");
			if (json_object_get(key, "written")) {
				fputs("; written ", f);
				json_dumpf(json_object_get(key, "written"), f, JSON_ENCODE_ANY | JSON_COMPACT);
			}
			fprintf(f, "%s%s]\n", why ? ": " : "", why ? why : "");
		}
	}
}

void out_facts_print(struct out_facts *s, FILE *f, const struct target *t)
{
	if (!s->json) {
		print_text(s, f);
		return;
	}
	char mc[16], br[16];
	json_t *doc = json_pack("{s:i, s:s, s:{s:o, s:o, s:o}, s:O}", "version", 1, "tool", "cglint", "target", "mcore",
				t->mcore > 0 ? json_string(target_version_str(t->mcore, mc)) : json_null(), "bridge",
				t->bridge == TARGET_NO_BRIDGE ? json_string("none")
				: t->bridge > 0 ? json_string(target_version_str(t->bridge, br)) : json_null(),
				"gpu", t->gpu ? json_string(t->gpu) : json_null(), "units", s->units);
	json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(doc);
}

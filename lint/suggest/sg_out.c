/* SPDX-License-Identifier: MIT */
/* sg_out: `cglint suggest` as text or JSON (the JSON carries everything the text says). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/mem.h"
#include "base/value.h"
#include "config/target.h"
#include "report/out.h"
#include "suggest/sg.h"
#include "suggest/sg_int.h"

static const char *const lang_names[] = {"python", "yaml", "harness", "megatron-lm", "bridge-runner"};
static const char *const status_names[] = {"suggest", "already", "keep", "none-fits"};

/* jansson takes UTF-8 only: a value with other bytes is repaired first (out_utf8) */
static json_t *jtext(const char *s)
{
	json_t *j = s ? json_string(s) : json_null();
	if (!j) {
		char *fixed = out_utf8(s);
		j = json_string(fixed);
		free(fixed);
	}
	return j;
}

static json_t *jval(const struct value *v)
{
	if (v->kind == V_LIST) {
		json_t *a = json_array();
		for (size_t k = 0; k < v->n; k++)
			json_array_append_new(a, jval(&v->items[k]));
		return a;
	}
	if (v->kind == V_BOOL)
		return json_boolean(v->b);
	if (v->kind == V_INT)
		return json_integer(v->i);
	if (v->kind == V_FLOAT)
		return json_real(v->f);
	if (v->kind == V_STR)
		return jtext(v->s);
	if (v->kind == V_NULL || v->kind == V_UNKNOWN)
		return json_null();
	struct arena *a = arena_new();
	json_t *j = jtext(value_string(a, v, false));
	arena_free(a);
	return j;
}

static json_t *jlist(const char *const *s, size_t n)
{
	json_t *a = json_array();
	for (size_t k = 0; k < n; k++)
		json_array_append_new(a, jtext(s[k]));
	return a;
}

static json_t *jchoice(const struct sg_choice *c)
{
	json_t *sets = json_array();
	struct arena *a = arena_new();
	for (size_t k = 0; k < c->n_sets; k++) {
		const struct sg_set *s = &c->sets[k];
		json_array_append_new(sets, json_pack("{s:o, s:o, s:b, s:o, s:o}", "key", jtext(s->key), "value", jval(&s->val),
						      "companion", s->companion, "only_if", jtext(s->only_if), "at",
						      s->at.path ? jtext(arena_printf(a, "%s:%u:%u", s->at.path, s->at.line,
										     s->at.col))
								 : json_null()));
	}
	arena_free(a);
	return json_pack("{s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "when", jtext(c->when), "row", jtext(c->row),
			 "status", status_names[c->status], "impl", jtext(c->impl), "scope",
			 c->impl ? jval(&c->scope) : json_null(), "why", jtext(c->why), "set", sets, "notes",
			 jlist(c->notes, c->n_notes), "undecided", jlist(c->undecided, c->n_undecided), "blocked",
			 jlist(c->blocked, c->n_blocked));
}

static void print_json(const struct sg *s, FILE *f, const struct target *t)
{
	json_t *units = json_array();
	for (size_t k = 0; k < sg_count(s); k++) {
		const struct sg_unit *u = sg_at(s, k);
		json_t *choices = json_array();
		for (size_t i = 0; i < u->n_choices; i++)
			json_array_append_new(choices, jchoice(&u->choices[i]));
		json_t *uj = json_pack("{s:o, s:o, s:i, s:s, s:{s:o, s:o}, s:o}", "path", jtext(u->path), "function",
				       jtext(u->function), "line", (int)u->line, "language", lang_names[u->lang], "current",
				       "impl", jtext(u->impl), "scope", jval(&u->scope), "choices", choices);
		if (u->unknown)
			json_object_set_new(uj, "unknown", jtext(u->unknown));
		if (u->spelling)
			json_object_set_new(uj, "spelling", jchoice(u->spelling));
		json_array_append_new(units, uj);
	}
	char mc[16], br[16];
	json_t *doc = json_pack("{s:i, s:s, s:{s:o, s:o, s:o}, s:o, s:i}", "version", 1, "tool", "cglint", "target", "mcore",
				t->mcore > 0 ? json_string(target_version_str(t->mcore, mc)) : json_null(), "bridge",
				t->bridge == TARGET_NO_BRIDGE ? json_string("none")
				: t->bridge > 0 ? json_string(target_version_str(t->bridge, br)) : json_null(),
				"gpu", t->gpu ? json_string(t->gpu) : json_null(), "units", units, "skipped",
				(int)sg_skipped(s));
	json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(doc);
}

static void put_list(FILE *f, const char *indent, const char *label, const char *const *s, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		fprintf(f, "%s%s: ", indent, label);
		out_put_clean(f, s[k], strlen(s[k]));
		fputc('\n', f);
	}
}

static void print_choice(FILE *f, struct arena *a, const struct sg_unit *u, const struct sg_choice *c,
			 const char *indent)
{
	fprintf(f, "%swhy: ", indent);
	out_put_clean(f, c->why, strlen(c->why));
	fputc('\n', f);
	for (size_t k = 0; k < c->n_sets; k++)
		fprintf(f, "%sset %s = %s%s%s%s\n", indent, c->sets[k].key, sg_spelled(a, &c->sets[k].val, u->lang),
			c->sets[k].only_if ? " (where " : "", c->sets[k].only_if ? c->sets[k].only_if : "",
			c->sets[k].only_if ? " is set)" : "");
	put_list(f, indent, "blocked", c->blocked, c->status == SG_NONE_FITS ? c->n_blocked : 0);
	put_list(f, indent, "note", c->notes, c->n_notes);
	if (c->n_undecided) {   /* each with its keys in JSON; here the ids, so the line stays short */
		fprintf(f, "%sundecided: ", indent);
		for (size_t k = 0; k < c->n_undecided; k++)
			fprintf(f, "%s%.*s", k ? ", " : "", (int)strcspn(c->undecided[k], " "), c->undecided[k]);
		fputs(" (keys no input makes known; --format json names them)\n", f);
	}
}

/* What --fix writes where it leaves the unit's setting: the spelling alone. */
static void print_spelling(FILE *f, struct arena *a, const struct sg_unit *u, const struct sg_choice *c)
{
	if (!u->spelling || (c && c->n_sets && (c->status == SG_SUGGEST || c->status == SG_NONE_FITS)))
		return;
	fputs("  spelling: ", f);
	out_put_clean(f, u->spelling->why, strlen(u->spelling->why));
	fputc('\n', f);
	for (size_t k = 0; k < u->spelling->n_sets; k++)
		fprintf(f, "    set %s = %s\n", u->spelling->sets[k].key, sg_spelled(a, &u->spelling->sets[k].val, u->lang));
}

static const char *verdict(struct arena *a, const struct sg_choice *c)
{
	switch (c->status) {
	case SG_SUGGEST: return arena_printf(a, "suggest %s %s", c->impl, sg_spelled(a, &c->scope, SG_YAML));
	case SG_ALREADY: return arena_printf(a, "already %s %s", c->impl, sg_spelled(a, &c->scope, SG_YAML));
	case SG_KEEP: return "keep its own setting";
	default: return c->n_sets ? "no graph setting passes: turn graphs off" : "no graph setting passes";
	}
}

static void print_text(const struct sg *s, FILE *f)
{
	struct arena *a = arena_new();
	for (size_t k = 0; k < sg_count(s); k++) {
		const struct sg_unit *u = sg_at(s, k);
		out_put_clean(f, u->path, strlen(u->path));
		fprintf(f, ":%u: %s%s", u->line, u->function ? u->function : "", u->function ? ": " : "");
		if (u->n_choices == 1) {
			fprintf(f, "%s\n", verdict(a, &u->choices[0]));
			print_choice(f, a, u, &u->choices[0], "  ");
			print_spelling(f, a, u, &u->choices[0]);
			continue;
		}
		fprintf(f, "depends on what cglint cannot know (%zu branches)", u->n_choices);
		if (u->unknown) {
			fputs(": ", f);
			out_put_clean(f, u->unknown, strlen(u->unknown));
		}
		fputc('\n', f);
		for (size_t i = 0; i < u->n_choices; i++) {
			fputs("  when ", f);
			out_put_clean(f, u->choices[i].when, strlen(u->choices[i].when));
			fprintf(f, ": %s\n", verdict(a, &u->choices[i]));
			print_choice(f, a, u, &u->choices[i], "    ");
		}
		print_spelling(f, a, u, NULL);
	}
	arena_free(a);
}

void sg_print(const struct sg *s, FILE *f, const struct target *tg)
{
	if (sg_json(s))
		print_json(s, f, tg);
	else
		print_text(s, f);
}

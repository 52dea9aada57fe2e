/* SPDX-License-Identifier: MIT */
/* sg: the suggest stage's units, as the run hands them over (see sg.h). */
#include "suggest/sg.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "config/fact.h"
#include "config/target.h"
#include "suggest/sg_int.h"

struct sg {
	struct sg_opts opts;
	const struct pack *pack;
	struct arena *a;
	struct sg_unit *units;
	size_t n, cap;
	size_t skipped;                 /* units with no model settings: not a model's config */
};

struct sg *sg_new(const struct sg_opts *o)
{
	struct sg *s = mem_alloc(sizeof(*s));
	*s = (struct sg){.opts = *o, .a = arena_new()};
	return s;
}

void sg_free(struct sg *s)
{
	if (!s)
		return;
	free(s->units);
	arena_free(s->a);
	free(s);
}

void sg_set_pack(struct sg *s, const struct pack *p)
{
	s->pack = p;
}

size_t sg_count(const struct sg *s)
{
	return s->n;
}

size_t sg_skipped(const struct sg *s)
{
	return s->skipped;
}

const struct sg_unit *sg_at(const struct sg *s, size_t k)
{
	return k < s->n ? &s->units[k] : NULL;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n >= m && !strcmp(s + n - m, tail);
}

/* Whether the unit's own input sets a key under 'prefix' (cglint's KEY=VALUE words alone make
 * no function a recipe). */
static bool has_prefix(const struct facts *t, const char *prefix)
{
	size_t m = strlen(prefix);
	for (size_t k = 0; k < t->n; k++) {
		const struct fact *f = t->order[k];
		if (!strncmp(f->key, prefix, m) && !facts_internal(f->key) &&
		    !(f->loc.path && !strcmp(f->loc.path, "<command line>")))
			return true;
	}
	return false;
}

static enum sg_lang lang_of(const char *path, const struct facts *t, const struct target *tg)
{
	if (ends_with(path, ".py"))
		return SG_PY;
	if (has_prefix(t, "perf."))
		return SG_HARNESS;
	if (tg->bridge == TARGET_NO_BRIDGE)
		return SG_MLM;
	/* a command line with a Bridge target that is not the harness's runs the recipe runner */
	return ends_with(path, ".yaml") || ends_with(path, ".yml") ? SG_YAML : SG_RUNNER;
}

void sg_unit(void *ctx, const char *path, const char *unit, unsigned line, const struct target *tg,
	     const struct facts *t)
{
	struct sg *s = ctx;
	if (!s->pack || (s->opts.function && (!unit || strcmp(unit, s->opts.function))))
		return;
	if (!has_prefix(t, "model.") && !has_prefix(t, "perf.")) {
		s->skipped++;
		return;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->units = mem_realloc(s->units, s->cap * sizeof(*s->units));
	}
	struct sg_unit *u = &s->units[s->n++];
	*u = (struct sg_unit){.path = arena_strdup(s->a, path), .function = unit ? arena_strdup(s->a, unit) : NULL,
			      .line = line, .lang = lang_of(path, t, tg)};
	struct target *utg = arena_alloc(s->a, sizeof(*utg));
	*utg = *tg;
	if (tg->gpu)
		utg->gpu = arena_strdup(s->a, tg->gpu);
	struct sgx x = {.pack = s->pack, .tg = utg, .pre = t, .a = s->a, .path = u->path, .line = line,
			.lang = u->lang, .allow_fi = s->opts.allow_full_iteration};
	sge_unit(&x, u);
}

void sg_clear(struct sg *s)
{
	arena_free(s->a);
	s->a = arena_new();
	s->n = 0;
	s->skipped = 0;
}

bool sg_json(const struct sg *s)
{
	return s->opts.json;
}

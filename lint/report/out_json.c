/* SPDX-License-Identifier: MIT */
/* out_json: the JSON v1 document (docs/cglint-output.schema.json), through jansson. */
#include "report/out.h"

#include <stdlib.h>

#include <jansson.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/pack.h"
#include "config/target.h"

static json_t *version_or_null(int v)
{
	char buf[16];
	return v > 0 ? json_string(target_version_str(v, buf)) : json_null();
}

static void json_begin(struct out_ctx *o)
{
	o->state = json_array();
}

/* Config values may hold any bytes; jansson takes only UTF-8 (out_utf8 repairs the rest). */
static json_t *str_or_null(const char *s)
{
	if (!s)
		return json_null();
	char *fixed = out_utf8(s);
	json_t *j = json_string(fixed);
	free(fixed);
	return j;
}

static json_t *json_of(struct out_ctx *o, const struct diag *d)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:o, s:i, s:i, s:o, s:o, s:o}",
						  "rule", d->rule->head.id, "name", d->rule->head.name, "severity",
						  diag_sev_name(d->sev), "path", str_or_null(d->loc.path), "line",
						  (int)(d->loc.line ? d->loc.line : 1), "column",
						  (int)(d->loc.col ? d->loc.col : 1), "message", str_or_null(d->message),
						  "fix", str_or_null(d->fix), "mirrors", str_or_null(d->mirrors));
	char *url = out_rule_url(d->rule);
	json_object_set_new(j, "url", url ? json_string(url) : json_null());
	free(url);
	if (d->fingerprint)
		json_object_set_new(j, "fingerprint", json_string(d->fingerprint));
	struct arena *a = arena_new();
	struct out_edit e;
	if (out_fix(o, a, d, &e))
		json_object_set_new(j, "edits",
				    json_pack("[{s:o, s:{s:i, s:i}, s:{s:i, s:i}, s:I, s:I, s:o}]", "description",
					      str_or_null(e.title), "start", "line", (int)e.start_line, "column",
					      (int)e.start_col, "end", "line", (int)e.end_line, "column", (int)e.end_col,
					      "offset", (json_int_t)e.offset, "length", (json_int_t)e.length, "text",
					      str_or_null(e.text)));
	arena_free(a);
	if (d->n_notes) {
		json_t *notes = json_array();
		for (size_t k = 0; k < d->n_notes; k++)
			json_array_append_new(notes, json_pack("{s:o, s:i, s:i, s:o}", "path",
							       str_or_null(d->notes[k].loc.path), "line",
							       (int)d->notes[k].loc.line, "column",
							       (int)d->notes[k].loc.col, "message", str_or_null(d->notes[k].message)));
		json_object_set_new(j, "notes", notes);
	}
	return j;
}

static void json_diag(struct out_ctx *o, const struct diag *d)
{
	json_array_append_new(o->state, json_of(o, d));
}

static void json_end(struct out_ctx *o, const struct diag_list *l)
{
	(void)l;
	const struct target *t = o->target;
	json_t *doc = json_pack("{s:i, s:s, s:{s:o, s:o, s:o, s:o}, s:o}", "version", 1, "tool", "cglint", "target",
				"mcore", version_or_null(t->mcore), "bridge",
				t->bridge == TARGET_NO_BRIDGE ? json_string("none") : version_or_null(t->bridge), "gpu",
				t->gpu ? json_string(t->gpu) : json_null(), "te", version_or_null(t->te), "diagnostics",
				(json_t *)o->state);
	/* a development target names the commits it stands for */
	const char *mc = target_commit(t->mcore, false), *bc = target_commit(t->bridge, true);
	if (mc || bc) {
		json_t *tj = json_object_get(doc, "target");
		json_object_set_new(tj, "mcore_commit", mc ? json_string(mc) : json_null());
		json_object_set_new(tj, "bridge_commit", bc ? json_string(bc) : json_null());
	}
	json_t *open = json_array();   /* checks no input decided: no findings, never left out */
	for (size_t k = 0; o->undecided && k < o->undecided->n; k++)
		json_array_append_new(open, json_of(o, &o->undecided->items[k]));
	json_object_set_new(doc, "undecided", open);
	/* into memory, then one write: jansson writes a file a token at a time */
	char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (text) {
		fputs(text, o->f);
		free(text);
	} else {
		json_dumpf(doc, o->f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	}
	fputc('\n', o->f);
	json_decref(doc);
	o->state = NULL;
}

const struct out_format out_json = {
	.name = "json",
	.begin = json_begin,
	.diag = json_diag,
	.end = json_end,
};

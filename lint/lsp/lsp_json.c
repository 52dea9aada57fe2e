/* SPDX-License-Identifier: MIT */
/* lsp_json: JSON values the server's modules share (see lsp_json.h). */
#include "lsp/lsp_json.h"

#include <stdlib.h>

#include <jansson.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/pack.h"

json_t *lsp_json_str(const char *s)
{
	json_t *j = json_string(s);
	if (j)
		return j;
	char *t = mem_strdup(s);
	for (char *p = t; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(t);
	free(t);
	return j;
}

static json_t *pos_json(struct lsp_pos p)
{
	return json_pack("{s:I, s:I}", "line", (json_int_t)p.line, "character", (json_int_t)p.character);
}

json_t *lsp_json_range(struct lsp_range r)
{
	return json_pack("{s:o, s:o}", "start", pos_json(r.start), "end", pos_json(r.end));
}

json_t *lsp_json_diag(const struct diag *d, struct lsp_range r, lsp_note_location_fn *note_location, const void *ctx)
{
	static const int severity[] = {[SEV_ERROR] = 1, [SEV_WARNING] = 2, [SEV_NOTE] = 3};
	struct sbuf msg;
	sbuf_init(&msg);
	sbuf_adds(&msg, d->message ? d->message : "");
	if (d->fix)
		sbuf_printf(&msg, "\nfix: %s", d->fix);
	json_t *related = json_array();
	for (size_t k = 0; k < d->n_notes; k++) {
		const struct diag_note *n = &d->notes[k];
		if (note_location)
			json_array_append_new(related, json_pack("{s:o, s:o}", "location", note_location(ctx, n->loc),
								 "message", lsp_json_str(n->message ? n->message : "")));
		else
			sbuf_printf(&msg, "\nnote: %s:%u:%u: %s", n->loc.path, n->loc.line, n->loc.col,
				    n->message ? n->message : "");
	}
	json_t *j = json_pack("{s:o, s:i, s:s, s:o}", "range", lsp_json_range(r), "severity", severity[d->sev], "source",
			      "cglint", "message", lsp_json_str(msg.buf));
	sbuf_release(&msg);
	if (d->rule)
		json_object_set_new(j, "code", lsp_json_str(d->rule->head.id));
	if (json_array_size(related))
		json_object_set_new(j, "relatedInformation", related);
	else
		json_decref(related);
	return j;
}

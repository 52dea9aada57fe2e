/* SPDX-License-Identifier: MIT */
/* out_text: path:line:col: severity: message [ID name], the shape $gcc matchers and quickfix read. */
#include "out.h"

#include "diag.h"
#include "pack.h"

static const char *const sev_color[] = {"\033[1;36m", "\033[1;35m", "\033[1;31m"};

static void text_diag(struct out_ctx *o, const struct diag *d)
{
	const char *bold = o->color ? "\033[1m" : "", *reset = o->color ? "\033[0m" : "";
	fprintf(o->f, "%s%s:%u:%u:%s %s%s:%s %s [%s %s]\n", bold, d->loc.path, d->loc.line ? d->loc.line : 1,
		d->loc.col ? d->loc.col : 1, reset, o->color ? sev_color[d->sev] : "", diag_sev_name(d->sev), reset,
		d->message, d->rule->id, d->rule->name);
	for (size_t k = 0; k < d->n_notes; k++)
		fprintf(o->f, "%s%s:%u:%u:%s %snote:%s %s\n", bold, d->notes[k].loc.path, d->notes[k].loc.line,
			d->notes[k].loc.col, reset, o->color ? sev_color[SEV_NOTE] : "", reset, d->notes[k].message);
	if (d->fix)
		fprintf(o->f, "    %sfix:%s %s\n", o->color ? "\033[1;32m" : "", reset, d->fix);
}

const struct out_format out_text = {
	.name = "text",
	.diag = text_diag,
};

/* SPDX-License-Identifier: MIT */
/* out_text: path:line:col: severity: message [ID name], the shape $gcc matchers and quickfix read. */
#include "report/out.h"

#include "base/diag.h"
#include "config/pack.h"

static const char *const sev_color[] = {"\033[1;36m", "\033[1;35m", "\033[1;31m"};

/*
 * One finding is one line: a config value holding a line end must not start a line of its
 * own, which a problem matcher or a CI runner ('::error::...') would read as another finding.
 */
static void put_clean(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\n')
			fputs("\\n", f);
		else if (c == '\r')
			fputs("\\r", f);
		else if (c < 0x20 && c != '\t')
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

static void put_head(struct out_ctx *o, struct loc loc, enum sev sev, const char *what)
{
	const char *bold = o->color ? "\033[1m" : "", *reset = o->color ? "\033[0m" : "";
	fputs(bold, o->f);
	put_clean(o->f, loc.path);
	fprintf(o->f, ":%u:%u:%s %s%s:%s ", loc.line ? loc.line : 1, loc.col ? loc.col : 1, reset,
		o->color ? sev_color[sev] : "", what, reset);
}

static void text_diag(struct out_ctx *o, const struct diag *d)
{
	put_head(o, d->loc, d->sev, diag_sev_name(d->sev));
	put_clean(o->f, d->message);
	fprintf(o->f, " [%s %s]\n", d->rule->head.id, d->rule->head.name);
	for (size_t k = 0; k < d->n_notes; k++) {
		put_head(o, d->notes[k].loc, SEV_NOTE, "note");
		put_clean(o->f, d->notes[k].message);
		fputc('\n', o->f);
	}
	if (d->fix) {
		fprintf(o->f, "    %sfix:%s ", o->color ? "\033[1;32m" : "", o->color ? "\033[0m" : "");
		put_clean(o->f, d->fix);
		fputc('\n', o->f);
	}
}

const struct out_format out_text = {
	.name = "text",
	.diag = text_diag,
};

/* SPDX-License-Identifier: MIT */
/*
 * out_text: path:line:col: severity: message [ID name], the shape $gcc matchers and quickfix read,
 * then (format "text") the source line with the finding's span underlined, each related location
 * ("    related: path:line:col: ...", indented: not a finding of its own) the same way (the other
 * keys a condition read, with their role), the fix hint and the rule's page. Format
 * "concise" is the first line alone: one line per finding.
 */
#include "report/out.h"

#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "config/pack.h"
#include "input/text.h"

static const char *const sev_color[] = {"\033[1;36m", "\033[1;35m", "\033[1;31m"};
#define GUTTER_COLOR "\033[1;34m"

static const char *paint(const struct out_ctx *o, const char *code)
{
	return o->color ? code : "";
}

static void put_str(FILE *f, const char *s)
{
	out_put_clean(f, s, s ? strlen(s) : 0);
}

static void put_head(struct out_ctx *o, struct loc loc, enum sev sev, const char *what)
{
	const char *reset = paint(o, "\033[0m");
	fputs(paint(o, "\033[1m"), o->f);
	put_str(o->f, loc.path);
	fprintf(o->f, ":%u:%u:%s %s%s:%s ", loc.line ? loc.line : 1, loc.col ? loc.col : 1, reset,
		paint(o, sev_color[sev]), what, reset);
}

/* An excerpt shows at most this many columns of its line: a window around the finding's column,
 * "..." where it was cut (a long line, a binary file's one line of escapes). */
#define FRAME_COLS 160
#define FRAME_BEFORE 40

/* The byte the window starts at, on a character boundary, FRAME_BEFORE columns or less before 'start'. */
static size_t frame_from(const char *line, size_t n, size_t start)
{
	char out[8];
	size_t cols, total = 0, k;
	for (k = 0; k < n && total <= FRAME_COLS; total += cols)
		k += out_clean_char(line + k, n - k, out, &cols);
	if (total <= FRAME_COLS)
		return 0;       /* the whole line fits */
	size_t from = 0, cols_to_start = 0;
	for (k = 0; k < start; cols_to_start += cols)
		k += out_clean_char(line + k, n - k, out, &cols);
	if (cols_to_start <= FRAME_COLS - FRAME_BEFORE)
		return 0;
	for (size_t skip = 0; from < start && cols_to_start - skip > FRAME_BEFORE; skip += cols)
		from += out_clean_char(line + from, n - from, out, &cols);
	return from;
}

/* line[from..n) as printed, cut at FRAME_COLS columns; how many bytes were left out comes last. */
static void put_clipped(FILE *f, const char *line, size_t n, size_t from)
{
	char out[8];
	size_t cols, shown = 0, k = from;
	if (from)
		fputs("...", f);
	while (k < n) {
		size_t len = out_clean_char(line + k, n - k, out, &cols);
		if (shown + cols > FRAME_COLS)
			break;
		fputs(out, f);
		shown += cols;
		k += len;
	}
	if (k < n)
		fprintf(f, "... (%zu more bytes)", n - k);
}

/*
 * The line a position points at, and under it carets under the word there:
 *    12 |   cuda_graph_scope: [attn]
 *       |   ^^^^^^^^^^^^^^^^
 * Nothing when the file's text is not at hand or the position is the whole file.
 */
static void put_frame(struct out_ctx *o, struct loc loc, enum sev sev)
{
	const char *buf, *line;
	size_t len, n, start, end;
	if (!o->texts || !loc.path || !loc.line || !text_get(o->texts, loc.path, &buf, &len) ||
	    !(line = text_line(buf, len, loc.line, &n)))
		return;
	bool span = out_span(loc.path, line, n, loc.col, &start, &end);
	const char *g = paint(o, GUTTER_COLOR), *reset = paint(o, "\033[0m");
	size_t from = frame_from(line, n, span ? start : 0);
	fprintf(o->f, "%s%5u |%s ", g, loc.line, reset);
	put_clipped(o->f, line, n, from);
	fputc('\n', o->f);
	if (!span)
		return;
	fprintf(o->f, "%s      |%s %s", g, reset, from ? "   " : "");
	char out[8];
	size_t cols, carets = 0, shown = 0;
	for (size_t k = from; k < start; shown += cols) {     /* tabs stay tabs, so the carets line up under them */
		k += out_clean_char(line + k, n - k, out, &cols);
		fprintf(o->f, "%*s", (int)cols, out[0] == '\t' ? "\t" : "");
	}
	for (size_t k = start; k < end && shown + carets < FRAME_COLS; carets += cols)
		k += out_clean_char(line + k, n - k, out, &cols);
	if (shown + carets > FRAME_COLS)
		carets = FRAME_COLS > shown ? FRAME_COLS - shown : 1;
	fputs(paint(o, sev_color[sev]), o->f);
	for (size_t k = 0; k < (carets ? carets : 1); k++)
		fputc('^', o->f);
	fprintf(o->f, "%s\n", reset);
}

static void concise_diag(struct out_ctx *o, const struct diag *d)
{
	put_head(o, d->loc, d->sev, diag_sev_name(d->sev));
	put_str(o->f, d->message);
	fprintf(o->f, " [%s %s]\n", d->rule->head.id, d->rule->head.name);
}

static void text_diag(struct out_ctx *o, const struct diag *d)
{
	concise_diag(o, d);
	put_frame(o, d->loc, d->sev);
	for (size_t k = 0; k < d->n_notes; k++) {
		/* a related location, indented under its finding: no head of its own, so that neither a
		 * reader nor a problem matcher counts it as another note */
		struct loc l = d->notes[k].loc;
		fprintf(o->f, "    %srelated:%s ", paint(o, sev_color[SEV_NOTE]), paint(o, "\033[0m"));
		if (l.path) {
			put_str(o->f, l.path);
			fprintf(o->f, ":%u:%u: ", l.line ? l.line : 1, l.col ? l.col : 1);
		}
		put_str(o->f, d->notes[k].message);
		fputc('\n', o->f);
		put_frame(o, d->notes[k].loc, SEV_NOTE);
	}
	const char *label = paint(o, "\033[1;32m"), *reset = paint(o, "\033[0m");
	if (d->fix) {
		fprintf(o->f, "    %sfix:%s ", label, reset);
		put_str(o->f, d->fix);
		fputc('\n', o->f);
	}
	char *url = out_rule_see(d->rule);
	if (url)
		fprintf(o->f, "    %ssee:%s %s\n", paint(o, "\033[1m"), reset, url);
	free(url);
}

const struct out_format out_text = {
	.name = "text",
	.diag = text_diag,
};

const struct out_format out_concise = {
	.name = "concise",
	.diag = concise_diag,
};

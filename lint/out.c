/* SPDX-License-Identifier: MIT */
/* out: the table of output formats. */
#include "out.h"

#include <string.h>

#include "diag.h"

static const struct out_format *const formats[] = {&out_text, &out_json, NULL};

const struct out_format *out_find(const char *name)
{
	for (size_t k = 0; formats[k]; k++)
		if (!strcmp(formats[k]->name, name))
			return formats[k];
	return NULL;
}

const char *out_names(void)
{
	return "text|json";
}

void out_print(const struct out_format *fmt, struct out_ctx *o, const struct diag_list *l)
{
	if (fmt->begin)
		fmt->begin(o);
	for (size_t k = 0; k < l->n; k++)
		fmt->diag(o, &l->items[k]);
	if (fmt->end)
		fmt->end(o, l);
}

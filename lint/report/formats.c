/* SPDX-License-Identifier: MIT */
/* formats: the table of output formats, a layer above them. */
#include "report/formats.h"

#include <stddef.h>
#include <string.h>

#include "report/out.h"

static const struct out_format *const formats[] = {&out_text, &out_concise, &out_json, &out_sarif, &out_github, &out_gitlab, &out_junit, NULL};

const struct out_format *formats_find(const char *name)
{
	for (size_t k = 0; formats[k]; k++)
		if (!strcmp(formats[k]->name, name))
			return formats[k];
	return NULL;
}

const char *formats_names(void)
{
	return "text|concise|json|sarif|github|gitlab|junit";
}

/* SPDX-License-Identifier: MIT */
/* formats: the output formats by name, for --format, --output and the language server. */
#ifndef CGLINT_FORMATS_H
#define CGLINT_FORMATS_H

struct out_format;

const struct out_format *formats_find(const char *name);   /* NULL when there is none */
const char *formats_names(void);        /* "text|concise|json|...|junit" for usage messages */

#endif

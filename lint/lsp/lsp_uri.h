/* SPDX-License-Identifier: MIT */
/*
 * lsp_uri: document URIs to the paths cglint lints them as, and paths back to file URIs
 * (RFC 8089 and RFC 3986 percent-encoding). Results are malloc'd; the caller frees them.
 */
#ifndef CGLINT_LSP_URI_H
#define CGLINT_LSP_URI_H

#include <stdbool.h>

/*
 * The path a document is linted as. A file URI (file:///p, file://localhost/p, file:/p) gives its
 * percent-decoded path and sets *is_file. Any other scheme (untitled:, git:, ...) gives the
 * decoded last segment of its path, without query or fragment, so the name still decides how
 * the text is read (x.yaml, run.sh, k.cu). NULL when there is no usable name: a file URI of
 * another host, a bad or NUL escape, an empty last segment, no scheme.
 */
char *lsp_uri_to_path(const char *uri, bool *is_file);
/* A file URI for a path; a relative path is taken from the working directory. */
char *lsp_uri_from_path(const char *path);

#endif

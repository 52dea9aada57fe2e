/* SPDX-License-Identifier: MIT */
/*
 * lsp: `cglint lsp`, a language server over stdio (LSP 3.17, JSON-RPC 2.0). It pushes
 * diagnostics for the documents the editor opens (full text sync), answers hover with the
 * rule's documentation and offers code actions: the mechanical fix and an inline suppression.
 * The lint options given on the command line hold for every document.
 *
 * Documents are linted as the path their URI names: file:// URIs as their decoded path, other
 * schemes (untitled:, git:, ...) as the last segment of the URI's path, so the name still picks
 * YAML, script or source (lsp_uri.h). Diagnostics of other inputs a run reads (--config-file
 * overlays, env files) are not published.
 */
#ifndef CGLINT_LSP_H
#define CGLINT_LSP_H

#include <stdio.h>

struct session;
struct session_opts;

/*
 * Serve one client on 'in' and 'out' until 'exit' or the end of input. 'in' must have a file
 * descriptor and nothing read from it through stdio yet: the server reads it with read(2), so
 * it can tell when the client has gone quiet and lint then. SIGPIPE is ignored from here on.
 * Returns the process exit status: 0 after shutdown then exit (or the end of input), 1 when
 * the input ends or exit comes without shutdown, or writing fails; 2 when the session cannot
 * start (a bad --rules pack or --baseline: printed to stderr).
 */
int lsp_main(const struct session_opts *o, FILE *in, FILE *out);
/* The same with a session already made (lsp_main's own, or one kept across clients, as the
 * fuzz target does): 0 or 1 as lsp_main returns them. The session is left as it was. */
int lsp_serve(struct session *s, FILE *in, FILE *out);

#endif

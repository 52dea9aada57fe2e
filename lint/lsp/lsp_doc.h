/* SPDX-License-Identifier: MIT */
/*
 * lsp_doc: the language server's open documents and what it answers about them: diagnostics
 * (textDocument/publishDiagnostics), hover and code actions. lsp.c speaks the protocol and
 * hands this module the params of the document methods, as jansson values (struct json_t).
 *
 * A document is linted through the session as the path its URI names (lsp_uri.h), once the
 * input has gone quiet: open/change/save mark it, lsp_doc_flush() lints and publishes, and a
 * hover or code action on a marked document lints it first (a source's lint is only started:
 * the request is answered at once, from no result until it ends). A document keeps the session
 * result of its last lint until the next one (code actions need its diagnostics and text).
 *
 * A project config (.cglint.yaml) open as a document is checked as a config, and its text is
 * what the runs read for it; the configs' problems are published as lsp_cfg.h says.
 *
 * The documents borrow the session; published params are handed to 'publish', which owns them.
 */
#ifndef CGLINT_LSP_DOC_H
#define CGLINT_LSP_DOC_H

#include <stdbool.h>

#include "lsp/lsp_json.h"

struct json_t;
struct session;
struct lsp_docs;

struct lsp_docs *lsp_doc_new(struct session *s, const struct lsp_client *c, lsp_publish_fn *publish, void *ctx);
void lsp_doc_free(struct lsp_docs *ds);

/*
 * The notifications, by their params. 0, or -1 with a reason in *why when the params are not
 * what the method takes (the notification is then dropped). didChange with a range edits the
 * text although the server asks for full sync; a change to a document not open is dropped.
 */
int lsp_doc_open(struct lsp_docs *ds, const struct json_t *params, const char **why);
int lsp_doc_change(struct lsp_docs *ds, const struct json_t *params, const char **why);
int lsp_doc_save(struct lsp_docs *ds, const struct json_t *params, const char **why);
int lsp_doc_close(struct lsp_docs *ds, const struct json_t *params, const char **why);
/* workspace/didChangeWatchedFiles: every open document lints again (lsp_cfg.h). */
int lsp_doc_watched(struct lsp_docs *ds, const struct json_t *params, const char **why);

/* Whether a document waits to be linted; lint and publish every such document. */
bool lsp_doc_pending(const struct lsp_docs *ds);
void lsp_doc_flush(struct lsp_docs *ds);

/*
 * C, C++ and CUDA documents are linted in a worker process (base/jobs.h) while the server goes
 * on answering. Each such document keeps its worker between edits, and the worker keeps its
 * parsed unit, which it reparses (fe_clang_tu.h); an edit during a lint cancels it, ending the
 * worker, and a change to the configs replaces every worker. Whether such a lint runs;
 * the descriptors to poll for them (two each), with *ms the time to the first deadline (-1:
 * none); and, after the poll, publish what has finished (a document waiting for a worker can
 * then be linted: lsp_doc_flush).
 */
enum { LSP_DOC_MAX_JOBS = 16 };
bool lsp_doc_busy(const struct lsp_docs *ds);
size_t lsp_doc_fds(const struct lsp_docs *ds, int *fds, size_t max, int *ms);
bool lsp_doc_step(struct lsp_docs *ds);       /* whether a lint ended */

/* The requests: 0 with *result set (JSON null included), or -32602 with a reason in *why. */
int lsp_doc_hover(struct lsp_docs *ds, const struct json_t *params, struct json_t **result, const char **why);
int lsp_doc_code_action(struct lsp_docs *ds, const struct json_t *params, struct json_t **result, const char **why);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * lsp_cfg: the project configs (.cglint.yaml, .cglint.yml, and the rule packs they name) in the
 * language server. A config with problems (a YAML error, an unknown key or rule, a file that
 * cannot be read) is what the command line reports as CG9xx and exits 2 for; in an editor its
 * problems are published on the config file itself, and every open document it applies to gets
 * one diagnostic saying that its config is broken (with the problems as related information),
 * rather than findings that silently are not there.
 *
 * What applies to a document is what its lint run read (proj_file), so each lint says which
 * configs the document uses now. A config's problems are published again when they change, and
 * cleared once it is fixed (the next run that reads it finds none) or no open document reads it
 * any more. A config open in the editor is read from its buffer, not from the file (unsaved
 * edits count, as they do for documents), and is itself linted as a config: its own problems
 * are its diagnostics, published with the document's version by lsp_doc.
 *
 * The state here is touched from the request loop only (as lsp_doc's): the texts handed to the
 * session (session_set_open_configs) change when a config document does.
 */
#ifndef CGLINT_LSP_CFG_H
#define CGLINT_LSP_CFG_H

#include <stdbool.h>
#include <stddef.h>

#include "lsp/lsp_json.h"

struct json_t;
struct session;
struct session_result;
struct lsp_cfgs;

struct lsp_cfgs *lsp_cfg_new(struct session *s, const struct lsp_client *c, lsp_publish_fn *publish, void *ctx);
/* Frees the state; publishes nothing. */
void lsp_cfg_free(struct lsp_cfgs *cs);

/* Whether a document's path names a project config (.cglint.yaml or .cglint.yml). */
bool lsp_cfg_is_config(const char *path);
/* Whether two paths, as given (relative ones from the working directory), name one file. */
bool lsp_cfg_same_file(const char *a, const char *b);

/* The text of an open config document at 'path', read in place of its file by the runs from
 * now on (copied); NULL once it is closed. */
void lsp_cfg_set_text(struct lsp_cfgs *cs, const char *path, const char *text, size_t len);

/*
 * Document 'uri' (linted as 'path') was linted into 'res' (NULL: it was not, nothing was read).
 * Publishes the problems of the other configs the run read where they changed, clears those no
 * open document reads any more, and appends to 'list' (the document's diagnostics) one error
 * for each config of the document's that has problems.
 */
void lsp_cfg_linted(struct lsp_cfgs *cs, const char *uri, const char *path, const struct session_result *res,
		    struct json_t *list);
/* Document 'uri' was closed: configs no open document reads any more are cleared. */
void lsp_cfg_closed(struct lsp_cfgs *cs, const char *uri);

/* The params of a client/registerCapability request that watches the config files
 * (workspace/didChangeWatchedFiles): a change to one makes the open documents lint again. */
struct json_t *lsp_cfg_watch_params(void);

#endif

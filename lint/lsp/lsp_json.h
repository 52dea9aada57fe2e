/* SPDX-License-Identifier: MIT */
/*
 * lsp_json: what the server's modules share: what the client said in initialize, and the
 * protocol's JSON values more than one of them builds, as jansson values (struct json_t, new
 * references): strings of any bytes, ranges, and a Diagnostic for one of cglint's diagnostics.
 */
#ifndef CGLINT_LSP_JSON_H
#define CGLINT_LSP_JSON_H

#include <stdbool.h>

#include "base/loc.h"
#include "lsp/lsp_pos.h"

struct diag;
struct json_t;

/* What the client said in initialize. */
struct lsp_client {
	enum lsp_enc enc;               /* the negotiated position encoding */
	bool related_info;              /* publishDiagnostics.relatedInformation: notes go there */
	bool watch_files;               /* it takes a dynamic registration of didChangeWatchedFiles */
};

/* Send a publishDiagnostics with these params (taking them). */
typedef void lsp_publish_fn(void *ctx, struct json_t *params);

/* A JSON string of s; bytes that are not UTF-8 (an input's own bytes in a message) become '?'. */
struct json_t *lsp_json_str(const char *s);
struct json_t *lsp_json_range(struct lsp_range r);

/* The Location of a note (where it points, in which file), for relatedInformation. */
typedef struct json_t *lsp_note_location_fn(const void *ctx, struct loc l);

/*
 * The Diagnostic for 'd' over 'r': its message with the fix, its rule's id as the code. Its
 * notes are relatedInformation when 'note_location' is given (which makes each one's
 * Location), else lines of the message.
 */
struct json_t *lsp_json_diag(const struct diag *d, struct lsp_range r, lsp_note_location_fn *note_location,
			     const void *ctx);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * lsp_client: `cglint lsp` in a child process, driven through its pipes as an editor drives it,
 * for the language server's test suites (test_lsp.c, test_lsp_cfg.c). Every wait for the server
 * is bounded (WAIT_MS), so a server that hangs fails the test instead of hanging it; that is a
 * guard, nothing here measures time.
 *
 * Replies are kept in a queue and taken by what they answer (an id, or a document and version):
 * the server lints once the input goes quiet, so where a publishDiagnostics falls between
 * replies depends on timing, and no test relies on it. Tests that end with srv_end(s, true)
 * also require that every reply the server sent was taken: no error goes unnoticed.
 */
#ifndef CGLINT_TEST_LSP_CLIENT_H
#define CGLINT_TEST_LSP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "harness.h"
#include "lsp/lsp_pos.h"

#define WAIT_MS 60000
#define ANY_VERSION (-1)
#define NO_VERSION (-2)

/* The test's folder is harness_dir (a suite's .init = harness_init_bare, or harness_init_git for a
 * repository's root that no config above reaches into): the server's stderr goes to server.log
 * there, and uri_of() names the documents in it. */

struct srv {
	pid_t pid;
	int to, from;
	char *in;               /* bytes read from the server, not yet framed */
	size_t in_len, in_cap;
	json_t *queue;          /* messages framed, not yet taken */
	bool eof;
};

/* Start `cglint lsp [extra]`, in the working directory 'cwd' (NULL: this one). */
void srv_start_in(struct srv *s, const char *cwd, const char *extra);
void srv_start(struct srv *s, const char *extra);
/* Write bytes (false when the server has gone); one framed body; a message (taken). */
bool srv_raw(struct srv *s, const void *data, size_t len);
void srv_body(struct srv *s, const char *body, size_t len);
void srv_send(struct srv *s, json_t *m);
/* A request or notification; params are taken (NULL: none). */
void srv_request(struct srv *s, int id, const char *method, json_t *params);
void srv_notify(struct srv *s, const char *method, json_t *params);
/* The first queued message 'match' accepts, reading on until one comes; NULL if none. */
json_t *srv_take(struct srv *s, bool (*match)(json_t *m, const void *arg), const void *arg);
bool is_response(json_t *m, const void *arg);
/* The reply to 'id' (taking it); the result of request 'id' (fails on an error reply). */
json_t *srv_reply(struct srv *s, json_t *id);
json_t *srv_result(struct srv *s, int id);
/* The error reply to 'id' (taken; json_null() for id null) must carry 'code'. */
void expect_error(struct srv *s, json_t *id, int code, const char *what);

/* A publishDiagnostics for 'uri' at 'version' (ANY_VERSION, or NO_VERSION for none): is_diags. */
struct diags_want {
	const char *uri;
	long long version;
};
bool is_diags(json_t *m, const void *arg);
/* The diagnostics array published for 'uri' at 'version' (a new reference). */
json_t *srv_diags(struct srv *s, const char *uri, long long version);
/* Close stdin, read to the end and reap: the exit status, or -1 after a signal. */
int srv_end(struct srv *s, bool all_replies_taken);
/* initialize (with these client capabilities, taken) and initialized: the result. */
json_t *srv_init(struct srv *s, json_t *caps);
/* shutdown, exit: the exit status. */
int srv_stop(struct srv *s);
json_t *utf8_caps(void);

/* A YAML with one CG101 (line 5, te_rng_tracker), and the same fixed. */
extern const char bad_yaml[], good_yaml[];
/* file:// URI of NAME in harness_dir (malloc'd). */
char *uri_of(const char *name);
void open_doc(struct srv *s, const char *uri, const char *lang, int version, const char *text);
void change_doc(struct srv *s, const char *uri, int version, const char *text);
json_t *position(unsigned line, unsigned ch);
json_t *range_of(unsigned l0, unsigned c0, unsigned l1, unsigned c1);
void expect_range(json_t *r, unsigned l0, unsigned c0, unsigned l1, unsigned c1);
/* The one diagnostic of 'list' with this code (fails unless there is exactly one). */
json_t *diag_with(json_t *list, const char *code);
/* Apply a WorkspaceEdit's edits for 'uri' to 'text' (malloc'd result). */
char *apply_edit(const char *text, json_t *edit, const char *uri, enum lsp_enc enc);

#endif

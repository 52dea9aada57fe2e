/* SPDX-License-Identifier: MIT */
/*
 * lsp: the base protocol (Content-Length framing), JSON-RPC 2.0 and the server's lifecycle;
 * what documents get is lsp_doc.c's. One thread: a message is read, answered, and documents
 * that changed are linted once no further input is waiting, so a burst of edits is linted
 * once (at most LSP_MAX_DEFER messages late).
 *
 * Malformed input never ends the server. A header that cannot be read is answered with a
 * ParseError (id null) and the reader skips to the next "Content-Length:"; a message over
 * LSP_MAX_MESSAGE is answered with InvalidRequest and its bytes are skipped unread up to the
 * next "Content-Length:" (whatever length it claimed).
 */
#include "lsp/lsp.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>

#include "base/diag.h"
#include "base/mem.h"
#include "lsp/lsp_cfg.h"
#include "lsp/lsp_doc.h"
#include "report/out.h"
#include "run/session.h"
#include "source/pch_cache.h"
#include "source/src.h"

#ifndef CGLINT_VERSION
#define CGLINT_VERSION "0.0.0"
#endif

#define LSP_MAX_MESSAGE (64u << 20)
#define LSP_MAX_HEADER_LINE 1024
#define LSP_MAX_HEADER_LINES 32
#define LSP_MAX_DEFER 64

enum rpc_error {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL_ERROR = -32603,
	RPC_NOT_INITIALIZED = -32002,
};

/* ---- reading ----------------------------------------------------------------------------- */

#define CL_FIELD "content-length:"
#define CL_FIELD_LEN (sizeof(CL_FIELD) - 1)

struct reader {
	int fd;
	bool eof;
	size_t pos, end;
	char buf[1 << 16];
	/* bytes put back by resync(), read before 'buf' */
	char back[2 * LSP_MAX_HEADER_LINE + CL_FIELD_LEN + 1];
	size_t back_pos, back_n;
	/* the header line read last, for resync() to look into */
	char line[LSP_MAX_HEADER_LINE];
	size_t line_n;
	bool line_done;         /* it ended with "\n" (else it was cut at the limit) */
};

static bool fill(struct reader *r)
{
	if (r->pos < r->end)
		return true;
	while (!r->eof) {
		ssize_t n = read(r->fd, r->buf, sizeof(r->buf));
		if (n > 0) {
			r->pos = 0, r->end = (size_t)n;
			return true;
		}
		if (n == 0 || errno != EINTR)
			r->eof = true;  /* a read error ends the input like its end */
	}
	return false;
}

static int get(struct reader *r)
{
	if (r->back_pos < r->back_n)
		return (unsigned char)r->back[r->back_pos++];
	return fill(r) ? (unsigned char)r->buf[r->pos++] : -1;
}

/* Put s[0..n) back in front of what is still to be read. */
static void unget(struct reader *r, const char *s, size_t n)
{
	size_t left = r->back_n - r->back_pos;
	if (n + left > sizeof(r->back))
		left = sizeof(r->back) - n;     /* cannot happen: each put-back is read before the next */
	memmove(r->back + n, r->back + r->back_pos, left);
	memcpy(r->back, s, n);
	r->back_pos = 0, r->back_n = n + left;
}

/* Whether more input is already there (buffered, or readable without waiting). */
static bool waiting(struct reader *r)
{
	if (r->back_pos < r->back_n || r->pos < r->end)
		return true;
	struct pollfd p = {.fd = r->fd, .events = POLLIN};
	return !r->eof && poll(&p, 1, 0) > 0;
}

/* Take n bytes into 'to' (or drop them when it is NULL); false at the end of input. */
static bool take(struct reader *r, struct sbuf *to, size_t n)
{
	for (; n && r->back_pos < r->back_n; n--) {
		if (to)
			sbuf_addc(to, r->back[r->back_pos]);
		r->back_pos++;
	}
	while (n) {
		if (!fill(r))
			return false;
		size_t k = r->end - r->pos < n ? r->end - r->pos : n;
		if (to)
			sbuf_addn(to, r->buf + r->pos, k);
		r->pos += k, n -= k;
	}
	return true;
}

/* Where "Content-Length:" (any case) starts in s[from..n), or n. */
static size_t find_field(const char *s, size_t from, size_t n)
{
	for (size_t i = from; i + CL_FIELD_LEN <= n; i++)
		if (!strncasecmp(s + i, CL_FIELD, CL_FIELD_LEN))
			return i;
	return n;
}

/* Parse a Content-Length value: digits only; false when there are none or it overflows. */
static bool parse_length(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

enum frame { FRAME_OK, FRAME_EOF, FRAME_BAD, FRAME_BIG };

/* Read one header line into r->line; -1 at the end of input. */
static int read_line(struct reader *r)
{
	int c;
	r->line_n = 0;
	while ((c = get(r)) >= 0 && c != '\n') {
		if (r->line_n == LSP_MAX_HEADER_LINE) {
			char ch = (char)c;
			unget(r, &ch, 1);
			r->line_done = false;
			return 1;
		}
		r->line[r->line_n++] = (char)c;
	}
	r->line_done = true;
	if (r->line_n && r->line[r->line_n - 1] == '\r')
		r->line_n--;
	return c < 0 ? -1 : 0;
}

/*
 * Read one message's header and, unless it is too large, its content into 'body'. FRAME_BAD
 * leaves the reason in *why (and the line at fault in r->line), FRAME_BIG the length in *big.
 */
static enum frame read_frame(struct reader *r, struct sbuf *body, uint64_t *big, const char **why)
{
	uint64_t length = 0;
	bool have = false;
	for (int lines = 0;;) {
		int rc = read_line(r);
		if (rc < 0)
			return FRAME_EOF;
		if (rc > 0) {
			*why = "invalid header: a line longer than 1024 bytes";
			return FRAME_BAD;
		}
		const char *line = r->line;
		size_t n = r->line_n;
		if (!n) {
			if (!lines)
				continue;       /* blank lines between messages */
			break;
		}
		if (++lines > LSP_MAX_HEADER_LINES) {
			*why = "invalid header: more than 32 fields";
			return FRAME_BAD;
		}
		if (find_field(line, 1, n) < n) {
			/* the tail of a message longer than its Content-Length said, run into the next header */
			*why = "invalid header: text before Content-Length";
			return FRAME_BAD;
		}
		const char *colon = memchr(line, ':', n);
		if (!colon || colon == line) {
			*why = "invalid header: a line that is not 'Name: value'";
			return FRAME_BAD;
		}
		if (find_field(line, 0, n) != 0)
			continue;       /* Content-Type and anything else: the content is UTF-8 JSON regardless */
		const char *v = colon + 1, *end = line + n;
		while (v < end && (*v == ' ' || *v == '\t'))
			v++;
		while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		uint64_t len;
		if (!parse_length(v, (size_t)(end - v), &len)) {
			*why = "invalid header: Content-Length is not a number of bytes";
			return FRAME_BAD;
		}
		if (have && len != length) {
			*why = "invalid header: two different Content-Length fields";
			return FRAME_BAD;
		}
		length = len, have = true;
	}
	if (!have) {
		*why = "invalid header: no Content-Length";
		return FRAME_BAD;
	}
	if (length > LSP_MAX_MESSAGE) {
		*big = length;
		return FRAME_BIG;
	}
	body->len = 0;
	body->buf[0] = '\0';
	return take(r, body, (size_t)length) ? FRAME_OK : FRAME_EOF;
}

/*
 * After a bad header: go on from the next "Content-Length:" (any case), first in the rest of
 * the line at fault, then in the input; it is put back for read_frame. False at the end.
 */
static bool resync(struct reader *r)
{
	size_t i = find_field(r->line, 1, r->line_n);
	if (i < r->line_n) {
		if (r->line_done)
			unget(r, "\n", 1);
		unget(r, r->line + i, r->line_n - i);
		return true;
	}
	size_t m = 0;   /* how much of the field matched; its first letter recurs nowhere in it */
	for (int c; (c = get(r)) >= 0;) {
		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if (c == CL_FIELD[m]) {
			if (++m == CL_FIELD_LEN) {
				unget(r, CL_FIELD, CL_FIELD_LEN);
				return true;
			}
		} else {
			m = c == CL_FIELD[0];
		}
	}
	return false;
}

/* ---- the server and its output --------------------------------------------------------- */

enum state { ST_NEW, ST_READY, ST_SHUTDOWN };

struct server {
	struct reader in;
	FILE *out;
	struct session *s;
	struct lsp_docs *docs;
	enum state state;
	bool done, write_failed;
	bool watch;             /* register for workspace/didChangeWatchedFiles once initialized */
	int status;             /* once done */
};

/* Send one message (taking it). */
static void emit(struct server *sv, json_t *msg)
{
	char *s = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
	json_decref(msg);
	if (!s) {
		fputs("cglint lsp: a message could not be encoded; dropped\n", stderr);
		return;
	}
	size_t n = strlen(s);
	if (fprintf(sv->out, "Content-Length: %zu\r\n\r\n", n) < 0 || fwrite(s, 1, n, sv->out) != n || fflush(sv->out))
		sv->write_failed = true;
	free(s);
}

CG_PRINTF(4, 5)
static void reply_error(struct server *sv, json_t *id, int code, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_t *m = json_string(msg);
	if (!m)                 /* a method name or parser text cut inside a UTF-8 sequence */
		m = json_string("invalid message");
	emit(sv, json_pack("{s:s, s:O, s:{s:i, s:o}}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error", "code",
			   code, "message", m));
}

static void reply(struct server *sv, json_t *id, json_t *result)
{
	if (!result)
		reply_error(sv, id, RPC_INTERNAL_ERROR, "the result could not be built");
	else
		emit(sv, json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result));
}

static void publish(void *ctx, json_t *params)
{
	struct server *sv = ctx;
	if (!params)
		return;
	if (sv->state != ST_READY) {
		json_decref(params);
		return;
	}
	emit(sv, json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", "textDocument/publishDiagnostics", "params",
			   params));
}

/* ---- methods ----------------------------------------------------------------------------- */

static void initialize(struct server *sv, json_t *id, const json_t *params)
{
	if (!json_is_object(params)) {
		reply_error(sv, id, RPC_INVALID_PARAMS, "initialize: params must be an InitializeParams object");
		return;
	}
	const json_t *caps = json_object_get(params, "capabilities");
	struct lsp_client c = {.enc = LSP_ENC_UTF16};
	size_t k;
	json_t *e;
	json_array_foreach(json_object_get(json_object_get(caps, "general"), "positionEncodings"), k, e)
	{
		if (json_is_string(e) && !strcmp(json_string_value(e), "utf-8"))
			c.enc = LSP_ENC_UTF8;
	}
	c.related_info = json_is_true(json_object_get(
		json_object_get(json_object_get(caps, "textDocument"), "publishDiagnostics"), "relatedInformation"));
	c.watch_files = json_is_true(json_object_get(
		json_object_get(json_object_get(caps, "workspace"), "didChangeWatchedFiles"), "dynamicRegistration"));
	sv->watch = c.watch_files;
	sv->docs = lsp_doc_new(sv->s, &c, publish, sv);
	json_t *server_caps = json_pack("{s:{s:b, s:i, s:{s:b}}, s:b, s:{s:[s]}}", "textDocumentSync", "openClose", 1,
					"change", 1, "save", "includeText", 0, "hoverProvider", 1, "codeActionProvider",
					"codeActionKinds", "quickfix");
	if (c.enc == LSP_ENC_UTF8)      /* left out: UTF-16, the protocol's default */
		json_object_set_new(server_caps, "positionEncoding", json_string("utf-8"));
	reply(sv, id,
	      json_pack("{s:o, s:{s:s, s:s}}", "capabilities", server_caps, "serverInfo", "name", "cglint", "version",
			CGLINT_VERSION));
	sv->state = ST_READY;
}

typedef int doc_request_fn(struct lsp_docs *ds, const json_t *params, json_t **result, const char **why);
typedef int doc_notify_fn(struct lsp_docs *ds, const json_t *params, const char **why);

static const struct {
	const char *method;
	doc_request_fn *fn;
} doc_requests[] = {
	{"textDocument/hover", lsp_doc_hover},
	{"textDocument/codeAction", lsp_doc_code_action},
};

static const struct {
	const char *method;
	doc_notify_fn *fn;
} doc_notifications[] = {
	{"textDocument/didOpen", lsp_doc_open},
	{"textDocument/didChange", lsp_doc_change},
	{"textDocument/didSave", lsp_doc_save},
	{"textDocument/didClose", lsp_doc_close},
	{"workspace/didChangeWatchedFiles", lsp_doc_watched},
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void request(struct server *sv, json_t *id, const char *method, const json_t *params)
{
	if (sv->state == ST_NEW && strcmp(method, "initialize")) {
		reply_error(sv, id, RPC_NOT_INITIALIZED, "%s before initialize", method);
		return;
	}
	if (sv->state == ST_SHUTDOWN) {
		reply_error(sv, id, RPC_INVALID_REQUEST, "%s after shutdown", method);
		return;
	}
	if (!strcmp(method, "initialize")) {
		if (sv->state == ST_NEW)
			initialize(sv, id, params);
		else
			reply_error(sv, id, RPC_INVALID_REQUEST, "initialize was sent already");
		return;
	}
	if (!strcmp(method, "shutdown")) {
		sv->state = ST_SHUTDOWN;
		reply(sv, id, json_null());
		return;
	}
	for (size_t k = 0; k < N_OF(doc_requests); k++) {
		if (strcmp(method, doc_requests[k].method))
			continue;
		json_t *result = NULL;
		const char *why = "";
		int code = doc_requests[k].fn(sv->docs, params, &result, &why);
		if (code)
			reply_error(sv, id, code, "%s", why);
		else
			reply(sv, id, result);
		return;
	}
	reply_error(sv, id, RPC_METHOD_NOT_FOUND, "unknown method: %s", method);
}

static void notification(struct server *sv, const char *method, const json_t *params)
{
	if (!strcmp(method, "exit")) {
		sv->done = true;
		sv->status = sv->state == ST_SHUTDOWN ? 0 : 1;
		return;
	}
	if (sv->state != ST_READY)
		return;         /* before initialize they are dropped; after shutdown, ignored */
	if (!strcmp(method, "initialized") && sv->watch)        /* the project configs (lsp_cfg.h) */
		emit(sv, json_pack("{s:s, s:s, s:s, s:o}", "jsonrpc", "2.0", "id", "cglint/watch-configs", "method",
				   "client/registerCapability", "params", lsp_cfg_watch_params()));
	for (size_t k = 0; k < N_OF(doc_notifications); k++) {
		const char *why = "";
		if (!strcmp(method, doc_notifications[k].method) && doc_notifications[k].fn(sv->docs, params, &why))
			fprintf(stderr, "cglint lsp: %s (ignored)\n", why);
	}
	/* $/cancelRequest, $/setTrace, anything unknown: nothing to do */
}

/* One message's content: JSON-RPC 2.0 checks, then a request, a notification or a response. */
static void handle(struct server *sv, const char *buf, size_t len)
{
	json_error_t err;
	json_t *m = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
	if (!m) {
		reply_error(sv, NULL, RPC_PARSE_ERROR, "parse error at line %d, column %d: %s", err.line, err.column,
			    err.text);
		return;
	}
	json_t *id = json_object_get(m, "id"), *method = json_object_get(m, "method");
	json_t *params = json_object_get(m, "params");
	if (json_is_null(params))
		params = NULL;  /* "params": null is no params (Emacs eglot's shutdown and exit) */
	const char *version = json_string_value(json_object_get(m, "jsonrpc"));
	if (!json_is_object(m))
		reply_error(sv, NULL, RPC_INVALID_REQUEST, "a message must be a JSON object");
	else if (id && !json_is_string(id) && !json_is_integer(id))
		reply_error(sv, NULL, RPC_INVALID_REQUEST, "id must be an integer or a string");
	else if (!method && id && (json_object_get(m, "result") || json_object_get(m, "error")))
		;       /* a response: this server sends no requests, so there is nothing to match */
	else if (!version || strcmp(version, "2.0"))
		reply_error(sv, id, RPC_INVALID_REQUEST, "jsonrpc must be \"2.0\"");
	else if (!json_is_string(method))
		reply_error(sv, id, RPC_INVALID_REQUEST, "method must be a string");
	else if (params && !json_is_object(params) && !json_is_array(params))
		reply_error(sv, id, RPC_INVALID_REQUEST, "params must be an object or an array");
	else if (id)
		request(sv, id, json_string_value(method), params);
	else
		notification(sv, json_string_value(method), params);
	json_decref(m);
}

/* ---- the loop ---------------------------------------------------------------------------- */

/* The input ended: like exit, 0 after shutdown and 1 before. */
static void end_of_input(struct server *sv)
{
	sv->done = true;
	sv->status = sv->state == ST_SHUTDOWN ? 0 : 1;
}

/* Sources lint in workers: until the client writes, wait on them too and publish what ends.
 * Returns early when a lint ended and a document waits for its worker. */
static void wait_input(struct server *sv)
{
	enum { MAX_FDS = 2 * LSP_DOC_MAX_JOBS };
	while (sv->docs && lsp_doc_busy(sv->docs)) {
		bool ended = lsp_doc_step(sv->docs);
		if (waiting(&sv->in) || !lsp_doc_busy(sv->docs) || (ended && lsp_doc_pending(sv->docs)))
			return;
		struct pollfd pf[MAX_FDS + 1] = {{.fd = sv->in.fd, .events = POLLIN}};
		int fds[MAX_FDS], ms;
		size_t n = lsp_doc_fds(sv->docs, fds, MAX_FDS, &ms);
		for (size_t k = 0; k < n; k++)
			pf[k + 1] = (struct pollfd){.fd = fds[k], .events = POLLIN};
		poll(pf, n + 1, ms);
	}
}

static void serve(struct server *sv)
{
	struct sbuf body;
	sbuf_init(&body);
	unsigned deferred = 0;
	while (!sv->done && !sv->write_failed) {
		if (sv->docs && lsp_doc_pending(sv->docs)) {
			if (!waiting(&sv->in) || ++deferred > LSP_MAX_DEFER) {
				lsp_doc_flush(sv->docs);
				deferred = 0;
			}
		}
		wait_input(sv);
		if (sv->docs && lsp_doc_pending(sv->docs) && !waiting(&sv->in))
			continue;       /* a lint ended: the documents waiting for a worker go first */
		uint64_t big = 0;
		const char *why = "";
		switch (read_frame(&sv->in, &body, &big, &why)) {
		case FRAME_OK:
			handle(sv, body.buf, body.len);
			break;
		case FRAME_BAD:
			reply_error(sv, NULL, RPC_PARSE_ERROR, "%s", why);
			if (!resync(&sv->in))
				end_of_input(sv);
			break;
		case FRAME_BIG:
			reply_error(sv, NULL, RPC_INVALID_REQUEST, "a message of %llu bytes is over the limit of %u bytes",
				    (unsigned long long)big, LSP_MAX_MESSAGE);
			/* not skipped by its count: a count no client will send (10^12) would make the rest
			 * of the stream that message; the next header ends it instead */
			if (!resync(&sv->in))
				end_of_input(sv);
			break;
		case FRAME_EOF:
			end_of_input(sv);
			break;
		}
	}
	sbuf_release(&body);
}

int lsp_serve(struct session *s, FILE *in, FILE *out)
{
	signal(SIGPIPE, SIG_IGN);       /* a client that went away is a write error, not a signal */
	struct server sv = {.in = {.fd = fileno(in)}, .out = out, .s = s, .state = ST_NEW};
	serve(&sv);
	lsp_doc_free(sv.docs);
	return sv.write_failed ? 1 : sv.status;
}

int lsp_main(const struct session_opts *o, FILE *in, FILE *out)
{
	struct arena *a = arena_new();
	struct diag_list problems;
	struct session_opts so = *o;
	/* Preambles in the cache kept between runs (pch_cache.h), named as the command line names
	 * them, so that a file linted there opens warm; with --no-cache or no cache folder, a
	 * folder of the server's own, reused between edits. */
	char *cache = so.lint.sources.pch_dir || so.lint.sources.no_cache ? NULL : pch_cache_dir();
	char *pch_dir = so.lint.sources.pch_dir || cache ? NULL : src_pch_dir_new();
	free(cache);
	if (pch_dir)
		so.lint.sources.pch_dir = pch_dir;
	struct session *s = session_new(&so, a, &problems);
	if (!s) {
		src_pch_dir_remove(pch_dir);
		arena_free(a);
		return 2;
	}
	session_keep_python(s);         /* the modules a recipe imports do not change as it is typed */
	int status = 2;
	if (problems.n) {
		struct out_ctx oc = {.f = stderr, .target = session_target(s)};
		out_print(&out_text, &oc, &problems);
	} else {
		status = lsp_serve(s, in, out);
	}
	diag_release(&problems);
	session_free(s);
	src_pch_dir_remove(pch_dir);
	arena_free(a);
	return status;
}

/* SPDX-License-Identifier: MIT */
/* lsp_client: the language server in a child process, for its test suites (see lsp_client.h). */
#include "lsp_client.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the server in a child process ------------------------------------------------------ */

static long long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Start `cglint lsp [extra]` (in folder cwd, unless NULL); its stderr goes to DIR/server.log. */
void srv_start_in(struct srv *s, const char *cwd, const char *extra)
{
	int a[2], b[2];
	signal(SIGPIPE, SIG_IGN);
	cr_assert_eq(pipe(a), 0);
	cr_assert_eq(pipe(b), 0);
	char log[128];
	snprintf(log, sizeof(log), "%s/server.log", harness_dir);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int err = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		dup2(a[0], 0);
		dup2(b[1], 1);
		if (err >= 0)
			dup2(err, 2);
		close(a[0]), close(a[1]), close(b[0]), close(b[1]);
		if (cwd && chdir(cwd))
			_exit(126);
		execl(CGLINT_BIN, CGLINT_BIN, "lsp", extra, (char *)NULL);
		_exit(127);
	}
	close(a[0]);
	close(b[1]);
	*s = (struct srv){.pid = pid, .to = a[1], .from = b[0], .queue = json_array()};
	/* non-blocking, and not inherited by a second server (it would hold this one's stdin open) */
	for (int k = 0; k < 2; k++) {
		int fd = k ? s->from : s->to;
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
}

void srv_start(struct srv *s, const char *extra)
{
	srv_start_in(s, NULL, extra);
}

/* Frame what the server wrote: exactly "Content-Length: N\r\n\r\n" and N bytes of JSON. */
static void frame_input(struct srv *s)
{
	for (;;) {
		char *hdr_end = NULL;
		for (size_t i = 0; i + 4 <= s->in_len; i++)
			if (!memcmp(s->in + i, "\r\n\r\n", 4)) {
				hdr_end = s->in + i;
				break;
			}
		if (!hdr_end)
			return;
		unsigned long n;
		int used = 0;
		cr_assert_eq(sscanf(s->in, "Content-Length: %lu%n", &n, &used), 1, "server header: %.40s", s->in);
		cr_assert_eq(s->in + used, hdr_end, "server header has more than Content-Length");
		size_t total = (size_t)(hdr_end - s->in) + 4 + n;
		if (s->in_len < total)
			return;
		json_error_t err;
		json_t *m = json_loadb(hdr_end + 4, n, 0, &err);
		cr_assert_not_null(m, "server wrote invalid JSON: %s", err.text);
		cr_assert_str_eq(json_string_value(json_object_get(m, "jsonrpc")), "2.0");
		json_array_append_new(s->queue, m);
		memmove(s->in, s->in + total, s->in_len - total);
		s->in_len -= total;
	}
}

/* Read what the server has written, waiting up to 'ms' for some. */
static void pump(struct srv *s, int ms)
{
	struct pollfd p = {.fd = s->from, .events = POLLIN};
	if (s->eof || poll(&p, 1, ms) <= 0)
		return;
	for (;;) {
		if (s->in_cap - s->in_len < 65536)
			s->in = realloc(s->in, s->in_cap = s->in_cap * 2 + 65536);
		ssize_t n = read(s->from, s->in + s->in_len, s->in_cap - s->in_len);
		if (n > 0) {
			s->in_len += (size_t)n;
			continue;
		}
		if (n == 0)
			s->eof = true;
		else if (errno == EINTR)
			continue;
		break;
	}
	frame_input(s);
}

/* Write bytes, reading the server's replies meanwhile; false when the server has gone. */
bool srv_raw(struct srv *s, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		struct pollfd fds[2] = {{.fd = s->to, .events = POLLOUT}, {.fd = s->from, .events = POLLIN}};
		int r = poll(fds, s->eof ? 1 : 2, WAIT_MS);
		cr_assert_gt(r, 0, "the server takes no input");
		if (fds[1].revents)
			pump(s, 0);
		if (!fds[0].revents)
			continue;
		ssize_t n = write(s->to, p, len);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0)
			return false;
		p += n, len -= (size_t)n;
	}
	return true;
}

void srv_body(struct srv *s, const char *body, size_t len)
{
	char hdr[64];
	int n = snprintf(hdr, sizeof(hdr), "Content-Length: %zu\r\n\r\n", len);
	cr_assert(srv_raw(s, hdr, (size_t)n) && srv_raw(s, body, len), "the server stopped reading");
}

/* Send a message (taking it). */
void srv_send(struct srv *s, json_t *m)
{
	cr_assert_not_null(m);
	char *t = json_dumps(m, JSON_COMPACT);
	srv_body(s, t, strlen(t));
	free(t);
	json_decref(m);
}

void srv_request(struct srv *s, int id, const char *method, json_t *params)
{
	json_t *m = json_pack("{s:s, s:i, s:s}", "jsonrpc", "2.0", "id", id, "method", method);
	if (params)
		json_object_set_new(m, "params", params);
	srv_send(s, m);
}

void srv_notify(struct srv *s, const char *method, json_t *params)
{
	json_t *m = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
	if (params)
		json_object_set_new(m, "params", params);
	srv_send(s, m);
}

/* Take the first queued message 'match' accepts, reading on until one comes; NULL if none. */
json_t *srv_take(struct srv *s, bool (*match)(json_t *m, const void *arg), const void *arg)
{
	long long until = now_ms() + WAIT_MS;
	for (;;) {
		size_t k;
		json_t *m;
		json_array_foreach(s->queue, k, m)
		{
			if (match(m, arg)) {
				json_incref(m);
				json_array_remove(s->queue, k);
				return m;
			}
		}
		if (s->eof || now_ms() > until)
			return NULL;
		pump(s, 1000);
	}
}

bool is_response(json_t *m, const void *arg)
{
	return !json_object_get(m, "method") && json_equal(json_object_get(m, "id"), arg);
}

/* The reply to request 'id' (taking both). */
json_t *srv_reply(struct srv *s, json_t *id)
{
	json_t *m = srv_take(s, is_response, id);
	cr_assert_not_null(m, "no reply to id %lld", json_integer_value(id));
	json_decref(id);
	return m;
}

/* The result of request 'id' (a new reference); fails on an error reply. */
json_t *srv_result(struct srv *s, int id)
{
	json_t *m = srv_reply(s, json_integer(id));
	json_t *r = json_object_get(m, "result");
	cr_assert_not_null(r, "request %d: error %s", id,
			   json_string_value(json_object_get(json_object_get(m, "error"), "message")));
	json_incref(r);
	json_decref(m);
	return r;
}

/* The error reply to 'id' (json_null() for id null) must carry 'code'. */
void expect_error(struct srv *s, json_t *id, int code, const char *what)
{
	json_t *m = srv_take(s, is_response, id);
	cr_assert_not_null(m, "%s: no error reply", what);
	json_t *e = json_object_get(m, "error");
	cr_assert_null(json_object_get(m, "result"), "%s: a result instead of an error", what);
	cr_assert_eq(json_integer_value(json_object_get(e, "code")), code, "%s: error %lld (%s), expected %d", what,
		     json_integer_value(json_object_get(e, "code")), json_string_value(json_object_get(e, "message")),
		     code);
	cr_assert(json_is_string(json_object_get(e, "message")));
	json_decref(m);
	json_decref(id);
}


bool is_diags(json_t *m, const void *arg)
{
	const struct diags_want *w = arg;
	json_t *p = json_object_get(m, "params"), *v = json_object_get(p, "version");
	const char *method = json_string_value(json_object_get(m, "method"));
	if (!method || strcmp(method, "textDocument/publishDiagnostics") ||
	    strcmp(json_string_value(json_object_get(p, "uri")), w->uri))
		return false;
	if (w->version == NO_VERSION)
		return !v;
	return w->version == ANY_VERSION || json_integer_value(v) == w->version;
}

/* The diagnostics array published for 'uri' at 'version' (a new reference). */
json_t *srv_diags(struct srv *s, const char *uri, long long version)
{
	struct diags_want w = {uri, version};
	json_t *m = srv_take(s, is_diags, &w);
	cr_assert_not_null(m, "no diagnostics for %s version %lld", uri, version);
	json_t *d = json_object_get(json_object_get(m, "params"), "diagnostics");
	cr_assert(json_is_array(d));
	json_incref(d);
	json_decref(m);
	return d;
}

/* Close stdin, read to the end and reap: the exit status, or -1 after a signal. */
int srv_end(struct srv *s, bool all_replies_taken)
{
	close(s->to);
	long long until = now_ms() + WAIT_MS;
	while (!s->eof && now_ms() < until)
		pump(s, 1000);
	int st = 0;
	pid_t r;
	while ((r = waitpid(s->pid, &st, WNOHANG)) == 0 && now_ms() < until) {
		struct timespec t = {0, 10000000};
		nanosleep(&t, NULL);
	}
	if (r == 0) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, &st, 0);
		cr_assert_fail("the server did not end once its input did");
	}
	close(s->from);
	size_t k;
	json_t *m;
	json_array_foreach(s->queue, k, m)
	{
		if (all_replies_taken && !json_object_get(m, "method")) {
			char *t = json_dumps(m, JSON_COMPACT);
			cr_assert_fail("a reply no test took: %s", t);
		}
	}
	json_decref(s->queue);
	free(s->in);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* initialize (with these client capabilities) and initialized; the result, a new reference. */
json_t *srv_init(struct srv *s, json_t *caps)
{
	srv_request(s, 0, "initialize",
		    json_pack("{s:n, s:n, s:o}", "processId", "rootUri", "capabilities", caps ? caps : json_object()));
	json_t *r = srv_result(s, 0);
	srv_notify(s, "initialized", json_object());
	return r;
}

/* shutdown, exit: the exit status. */
int srv_stop(struct srv *s)
{
	srv_request(s, 999, "shutdown", NULL);
	json_t *r = srv_result(s, 999);
	cr_expect(json_is_null(r), "shutdown answers null");
	json_decref(r);
	srv_notify(s, "exit", NULL);
	return srv_end(s, true);
}

json_t *utf8_caps(void)
{
	return json_pack("{s:{s:[s, s]}}", "general", "positionEncodings", "utf-8", "utf-16");
}

/* ---- documents --------------------------------------------------------------------------- */

const char bad_yaml[] = "model:\n"
			       "  cuda_graph_impl: local\n"
			       "  use_te_rng_tracker: false\n"
			       "rng:\n"
			       "  te_rng_tracker: false\n";
const char good_yaml[] = "model:\n"
				"  cuda_graph_impl: local\n"
				"  use_te_rng_tracker: false\n"
				"rng:\n"
				"  te_rng_tracker: true\n";

char *uri_of(const char *name)
{
	char *u = malloc(strlen(harness_dir) + strlen(name) + 16);
	sprintf(u, "file://%s/%s", harness_dir, name);
	return u;
}

void open_doc(struct srv *s, const char *uri, const char *lang, int version, const char *text)
{
	srv_notify(s, "textDocument/didOpen",
		   json_pack("{s:{s:s, s:s, s:i, s:s}}", "textDocument", "uri", uri, "languageId", lang, "version",
			     version, "text", text));
}

void change_doc(struct srv *s, const char *uri, int version, const char *text)
{
	srv_notify(s, "textDocument/didChange",
		   json_pack("{s:{s:s, s:i}, s:[{s:s}]}", "textDocument", "uri", uri, "version", version,
			     "contentChanges", "text", text));
}

json_t *position(unsigned line, unsigned ch)
{
	return json_pack("{s:i, s:i}", "line", (int)line, "character", (int)ch);
}

json_t *range_of(unsigned l0, unsigned c0, unsigned l1, unsigned c1)
{
	return json_pack("{s:o, s:o}", "start", position(l0, c0), "end", position(l1, c1));
}

void expect_range(json_t *r, unsigned l0, unsigned c0, unsigned l1, unsigned c1)
{
	json_t *want = range_of(l0, c0, l1, c1);
	char *got = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
	cr_expect(json_equal(r, want), "range %s, expected %u:%u-%u:%u", got, l0, c0, l1, c1);
	free(got);
	json_decref(want);
}

/* The one diagnostic of 'list' with this code (fails unless there is exactly one). */
json_t *diag_with(json_t *list, const char *code)
{
	json_t *found = NULL, *d;
	size_t k;
	json_array_foreach(list, k, d)
	{
		if (!strcmp(json_string_value(json_object_get(d, "code")), code)) {
			cr_assert_null(found, "two %s diagnostics", code);
			found = d;
		}
	}
	cr_assert_not_null(found, "no %s diagnostic among %zu", code, json_array_size(list));
	return found;
}

/* Apply a WorkspaceEdit's edits for 'uri' to 'text' (UTF-8 positions; edits on distinct spots). */
char *apply_edit(const char *text, json_t *edit, const char *uri, enum lsp_enc enc)
{
	json_t *edits = json_object_get(json_object_get(edit, "changes"), uri);
	cr_assert(json_is_array(edits) && json_array_size(edits) > 0, "no edits for %s", uri);
	char *t = strdup(text);
	/* from the last edit back, so earlier offsets stay valid */
	for (size_t k = json_array_size(edits); k-- > 0;) {
		json_t *e = json_array_get(edits, k), *r = json_object_get(e, "range");
		struct lsp_pos a = {(unsigned)json_integer_value(json_object_get(json_object_get(r, "start"), "line")),
				    (unsigned)json_integer_value(json_object_get(json_object_get(r, "start"), "character"))};
		struct lsp_pos b = {(unsigned)json_integer_value(json_object_get(json_object_get(r, "end"), "line")),
				    (unsigned)json_integer_value(json_object_get(json_object_get(r, "end"), "character"))};
		size_t len = strlen(t);
		struct lsp_pos_text lt = {t, len};
		size_t s = lsp_pos_to_offset(&lt, a, enc), e2 = lsp_pos_to_offset(&lt, b, enc);
		const char *nt = json_string_value(json_object_get(e, "newText"));
		cr_assert_not_null(nt);
		char *u = malloc(len - (e2 - s) + strlen(nt) + 1);
		memcpy(u, t, s);
		strcpy(u + s, nt);
		strcat(u, t + e2);
		free(t);
		t = u;
	}
	return t;
}

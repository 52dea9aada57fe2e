/* SPDX-License-Identifier: MIT */
/*
 * lsp: `cglint lsp` driven through its pipes as an editor drives it (lsp_client.h), plus the
 * position and URI conversions underneath. Project configs in the editor: test_lsp_cfg.c.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "harness.h"
#include "lsp_client.h"
#include "lsp/lsp_pos.h"
#include "lsp/lsp_uri.h"

TestSuite(lsp, .init = mkdir_tmp, .fini = rm_tmp);

/* ---- lifecycle --------------------------------------------------------------------------- */

Test(lsp, initialize_shutdown_exit)
{
	struct srv s;
	srv_start(&s, NULL);
	json_t *r = srv_init(&s, NULL);
	json_t *want = json_pack("{s:{s:b, s:i, s:{s:b}}, s:b, s:{s:[s]}}", "textDocumentSync", "openClose", 1,
				 "change", 1, "save", "includeText", 0, "hoverProvider", 1, "codeActionProvider",
				 "codeActionKinds", "quickfix");
	char *got = json_dumps(json_object_get(r, "capabilities"), JSON_COMPACT | JSON_SORT_KEYS);
	cr_expect(json_equal(json_object_get(r, "capabilities"), want), "capabilities: %s", got);
	free(got);
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(r, "serverInfo"), "name")), "cglint");
	cr_expect(json_is_string(json_object_get(json_object_get(r, "serverInfo"), "version")));
	json_decref(want);
	json_decref(r);
	cr_expect_eq(srv_stop(&s), 0);
}

Test(lsp, exit_without_shutdown_is_1)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	srv_notify(&s, "exit", NULL);
	cr_expect_eq(srv_end(&s, true), 1);
}

Test(lsp, end_of_input_without_shutdown_is_1)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	cr_expect_eq(srv_end(&s, true), 1);
}

Test(lsp, end_of_input_after_shutdown_is_0)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	srv_request(&s, 5, "shutdown", NULL);
	json_decref(srv_result(&s, 5));
	cr_expect_eq(srv_end(&s, true), 0);
}

/* Lint options after 'lsp' hold for every document. */
Test(lsp, options_after_lsp)
{
	struct srv s;
	srv_start(&s, "--ignore=CG101");
	json_decref(srv_init(&s, NULL));
	char *uri = uri_of("ignored.yaml");
	open_doc(&s, uri, "yaml", 1, bad_yaml);
	json_t *list = srv_diags(&s, uri, 1);
	cr_expect_eq(json_array_size(list), 0, "--ignore=CG101 is not applied");
	json_decref(list);
	free(uri);
	cr_expect_eq(srv_stop(&s), 0);
}

/* Emacs eglot sends "params": null to shutdown and exit: that is no params, not an error. */
Test(lsp, null_params_are_no_params)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	/* a method that takes params still says what it wants */
	srv_send(&s, json_pack("{s:s, s:i, s:s, s:n}", "jsonrpc", "2.0", "id", 7, "method", "textDocument/hover", "params"));
	json_t *r = srv_reply(&s, json_integer(7));
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(r, "error"), "code")), -32602,
		     "hover without params is invalid params, not an invalid request");
	json_decref(r);
	srv_notify(&s, "textDocument/didOpen", NULL);   /* dropped, with a word on stderr */
	srv_send(&s, json_pack("{s:s, s:i, s:s, s:n}", "jsonrpc", "2.0", "id", 8, "method", "shutdown", "params"));
	r = srv_result(&s, 8);
	cr_expect(json_is_null(r), "shutdown with params null answers null");
	json_decref(r);
	srv_send(&s, json_pack("{s:s, s:s, s:n}", "jsonrpc", "2.0", "method", "exit", "params"));
	cr_expect_eq(srv_end(&s, true), 0, "exit with params null after shutdown is 0");
}

/* --select and --ignore that match no rule stop the server as they stop the command line. */
Test(lsp, unknown_ignore_is_2)
{
	struct srv s;
	srv_start(&s, "--ignore=CG1O1");
	cr_expect_eq(srv_end(&s, true), 2);
}

/* A rule pack that cannot be read stops the server before it answers anything: status 2. */
Test(lsp, bad_rule_pack_is_2)
{
	struct srv s;
	srv_start(&s, "--rules=/nonexistent/cglint-rules.yaml");
	cr_expect_eq(srv_end(&s, true), 2);
}

Test(lsp, utf8_only_when_offered)
{
	struct srv s;
	srv_start(&s, NULL);
	json_t *r = srv_init(&s, utf8_caps());
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(r, "capabilities"), "positionEncoding")),
			 "utf-8");
	json_decref(r);
	cr_expect_eq(srv_stop(&s), 0);

	srv_start(&s, NULL);
	r = srv_init(&s, json_pack("{s:{s:[s]}}", "general", "positionEncodings", "utf-16"));
	cr_expect_null(json_object_get(json_object_get(r, "capabilities"), "positionEncoding"), "UTF-16 is left out");
	json_decref(r);
	cr_expect_eq(srv_stop(&s), 0);
}

Test(lsp, before_initialize)
{
	struct srv s;
	srv_start(&s, NULL);
	char *uri = uri_of("early.yaml");
	srv_request(&s, 1, "textDocument/hover",
		    json_pack("{s:{s:s}, s:o}", "textDocument", "uri", uri, "position", position(0, 0)));
	expect_error(&s, json_integer(1), -32002, "hover before initialize");
	srv_request(&s, 2, "shutdown", NULL);
	expect_error(&s, json_integer(2), -32002, "shutdown before initialize");
	open_doc(&s, uri, "yaml", 1, bad_yaml);      /* dropped: nothing is published for it */
	srv_request(&s, 3, "initialize", json_string("x"));
	expect_error(&s, json_integer(3), -32600, "initialize with a string for params");
	srv_request(&s, 4, "initialize", json_array());
	expect_error(&s, json_integer(4), -32602, "initialize with an array for params");
	json_decref(srv_init(&s, NULL));
	srv_request(&s, 6, "initialize", json_pack("{s:{}}", "capabilities"));
	expect_error(&s, json_integer(6), -32600, "a second initialize");
	/* the document opened too early is not known: hover on it answers null */
	srv_request(&s, 7, "textDocument/hover",
		    json_pack("{s:{s:s}, s:o}", "textDocument", "uri", uri, "position", position(4, 4)));
	json_t *h = srv_result(&s, 7);
	cr_expect(json_is_null(h));
	json_decref(h);
	cr_expect_eq(srv_stop(&s), 0);
	struct diags_want w = {uri, ANY_VERSION};
	cr_expect_null(srv_take(&s, is_diags, &w), "diagnostics for a document opened before initialize");
	free(uri);
}

Test(lsp, after_shutdown)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	srv_request(&s, 1, "shutdown", NULL);
	json_decref(srv_result(&s, 1));
	srv_request(&s, 2, "textDocument/hover",
		    json_pack("{s:{s:s}, s:o}", "textDocument", "uri", "file:///x.yaml", "position", position(0, 0)));
	expect_error(&s, json_integer(2), -32600, "hover after shutdown");
	srv_request(&s, 3, "shutdown", NULL);
	expect_error(&s, json_integer(3), -32600, "shutdown after shutdown");
	srv_notify(&s, "exit", NULL);
	cr_expect_eq(srv_end(&s, true), 0);
}

Test(lsp, unknown_methods)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	srv_send(&s, json_pack("{s:s, s:s, s:s}", "jsonrpc", "2.0", "id", "abc", "method", "cglint/nothing"));
	expect_error(&s, json_string("abc"), -32601, "an unknown request with a string id");
	/* notifications nobody knows, and $/ ones, are ignored: no reply at all (srv_stop checks) */
	srv_notify(&s, "cglint/nothing", json_object());
	srv_notify(&s, "$/cancelRequest", json_pack("{s:i}", "id", 1));
	srv_notify(&s, "$/setTrace", json_pack("{s:s}", "value", "off"));
	srv_notify(&s, "workspace/didChangeConfiguration", json_pack("{s:{}}", "settings"));
	srv_request(&s, 2, "$/unknownRequest", json_object());
	expect_error(&s, json_integer(2), -32601, "a $/ request");
	/* a response to a request the server never sent is ignored too */
	srv_send(&s, json_pack("{s:s, s:i, s:n}", "jsonrpc", "2.0", "id", 77, "result"));
	cr_expect_eq(srv_stop(&s), 0);
}

/* ---- malformed input --------------------------------------------------------------------- */

/* A message the server must answer with 'code' (id null where 'id' < 0), then keep working. */
struct bad_body {
	const char *body;
	int code;
	int id;
};

Test(lsp, malformed_messages)
{
	static const struct bad_body cases[] = {
		{"{\"jsonrpc\":\"2.0\",\"id\":1,", -32700, -1},
		{"not json", -32700, -1},
		{"", -32700, -1},
		{"\xff\xfe{}", -32700, -1},
		{"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"id\":1,\"id\":2}", -32700, -1},
		{"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"x\",\"params\":{\"a\":\"\\u0000\"}}", -32700, -1},
		{"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"\xc3\x28\"}", -32700, -1},
		{"[]", -32600, -1},
		{"[{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"shutdown\"}]", -32600, -1},
		{"42", -32600, -1},
		{"\"shutdown\"", -32600, -1},
		{"null", -32600, -1},
		{"{}", -32600, -1},
		{"{\"jsonrpc\":\"2.0\",\"id\":5}", -32600, 5},
		{"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":7}", -32600, 6},
		{"{\"id\":7,\"method\":\"shutdown\"}", -32600, 7},
		{"{\"jsonrpc\":\"1.0\",\"id\":8,\"method\":\"shutdown\"}", -32600, 8},
		{"{\"jsonrpc\":2,\"id\":9,\"method\":\"shutdown\"}", -32600, 9},
		{"{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"shutdown\"}", -32600, -1},
		{"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"shutdown\"}", -32600, -1},
		{"{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"shutdown\"}", -32600, -1},
		{"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"shutdown\"}", -32600, -1},
		{"{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":3}", -32600, -1},
		{"{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"textDocument/hover\",\"params\":5}", -32600, 10},
		{"{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"textDocument/hover\",\"params\":{}}", -32602, 11},
		{"{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"textDocument/hover\",\"params\":[]}", -32602, 12},
		{"{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"textDocument/hover\",\"params\":{\"textDocument\":"
		 "{\"uri\":\"file:///x.yaml\"},\"position\":{\"line\":-1,\"character\":0}}}",
		 -32602, 13},
		{"{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"textDocument/hover\",\"params\":{\"textDocument\":"
		 "{\"uri\":\"file:///x.yaml\"},\"position\":{\"line\":1,\"character\":\"0\"}}}",
		 -32602, 14},
		{"{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"textDocument/hover\",\"params\":{\"textDocument\":"
		 "{\"uri\":\"file:///x.yaml\"},\"position\":{\"line\":99999999999,\"character\":0}}}",
		 -32602, 15},
		{"{\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"textDocument/codeAction\",\"params\":{\"textDocument\":"
		 "{\"uri\":\"file:///x.yaml\"},\"range\":{\"start\":{\"line\":2,\"character\":0},\"end\":{\"line\":1,"
		 "\"character\":0}},\"context\":{\"diagnostics\":[]}}}",
		 -32602, 16},
		{"{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"textDocument/codeAction\",\"params\":{\"textDocument\":"
		 "{\"uri\":7},\"range\":{\"start\":{\"line\":0,\"character\":0},\"end\":{\"line\":1,\"character\":0}}}}",
		 -32602, 17},
	};
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		srv_body(&s, cases[k].body, strlen(cases[k].body));
		char what[96];
		snprintf(what, sizeof(what), "case %zu (%.60s)", k, cases[k].body);
		expect_error(&s, cases[k].id < 0 ? json_null() : json_integer(cases[k].id), cases[k].code, what);
	}
	/* notifications with bad params, and responses, get no reply (srv_end checks) */
	static const char *const quiet[] = {
		"{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":5}}}",
		"{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{}}",
		("{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{\"textDocument\":"
		 "{\"uri\":\"file:///never-opened.yaml\",\"version\":2},\"contentChanges\":[{\"text\":\"a: 1\"}]}}"),
		"{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didClose\",\"params\":[]}",
		"{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didSave\",\"params\":{\"textDocument\":{}}}",
		"{\"jsonrpc\":\"2.0\",\"id\":50,\"result\":{\"a\":1}}",
		"{\"jsonrpc\":\"2.0\",\"id\":51,\"error\":{\"code\":1,\"message\":\"x\"}}",
	};
	for (size_t k = 0; k < sizeof(quiet) / sizeof(quiet[0]); k++)
		srv_body(&s, quiet[k], strlen(quiet[k]));
	/* "id":7 above had no jsonrpc and was refused: the server is not shut down */
	char *uri = uri_of("a.yaml");
	open_doc(&s, uri, "yaml", 1, bad_yaml);
	json_t *d = srv_diags(&s, uri, 1);
	cr_expect_eq(json_array_size(d), 1);
	json_decref(d);
	free(uri);
	cr_expect_eq(srv_stop(&s), 0);
}

Test(lsp, deep_nesting)
{
	size_t n = 100000;
	char *deep = malloc(2 * n + 1);
	memset(deep, '[', n);
	memset(deep + n, ']', n);
	deep[2 * n] = '\0';
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	srv_body(&s, deep, 2 * n);
	expect_error(&s, json_null(), -32700, "100000 nested arrays");
	/* as deep in objects, inside a request */
	struct {
		char *p;
		size_t len;
	} b = {malloc(7 * n + 64), 0};
	b.len = (size_t)sprintf(b.p, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":");
	for (size_t k = 0; k < n; k++)
		memcpy(b.p + b.len, "{\"a\":", 5), b.len += 5;
	memcpy(b.p + b.len, "1", 1), b.len++;
	memset(b.p + b.len, '}', n + 1), b.len += n + 1;
	srv_body(&s, b.p, b.len);
	expect_error(&s, json_null(), -32700, "100000 nested objects");
	free(b.p);
	free(deep);
	cr_expect_eq(srv_stop(&s), 0);
}

/* A header the server must refuse with ParseError (id null) and then read past. */
Test(lsp, malformed_headers)
{
	char long_line[3000];
	memset(long_line, 'x', sizeof(long_line));
	memcpy(long_line, "X-Long: ", 8);
	long_line[sizeof(long_line) - 1] = '\0';
	char many[2048] = "";
	for (int k = 0; k < 40; k++)
		strcat(many, "X-Field: 1\r\n");
	const char *const bad[] = {
		"Content-Length: -5\r\n\r\n{}",
		"Content-Length: abc\r\n\r\n",
		"Content-Length: \r\n\r\n",
		"Content-Length: 12x\r\n\r\n",
		"Content-Length: +2\r\n\r\n{}",
		"Content-Length: 99999999999999999999999999\r\n\r\n",
		"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
		"no colon here\r\n\r\n",
		": no name\r\n\r\n",
		"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
		long_line,
		many,
		"\x01\x02\xff\xfe garbage\r\n\r\n",
		/* a Content-Length shorter than the message: its tail runs into the next header */
		"Content-Length: 5\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":999,\"method\":\"shutdown\"}",
	};
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		cr_assert(srv_raw(&s, bad[k], strlen(bad[k])));
		if (bad[k] == long_line || bad[k] == many)
			cr_assert(srv_raw(&s, "\r\n\r\n", 4));
		int id = 100 + (int)k;
		srv_request(&s, id, "cglint/ping", NULL);
		char what[64];
		snprintf(what, sizeof(what), "bad header %zu", k);
		expect_error(&s, json_null(), -32700, what);
		if (k == sizeof(bad) / sizeof(bad[0]) - 1)    /* the 5 bytes are no JSON, then the tail no header */
			expect_error(&s, json_null(), -32700, what);
		expect_error(&s, json_integer(id), -32601, what);
	}
	/* headers that are fine ('#' stands for the length): any case, no space, unknown fields,
	 * Content-Type, bare "\n", blank lines before, the same length twice */
	const char *const good[] = {
		"content-length: #\r\n\r\n",
		"CONTENT-LENGTH:#\r\n\r\n",
		"X-Whatever: 1\r\nContent-Length: #\r\nContent-Type: application/vscode-jsonrpc; charset=utf8\r\n\r\n",
		"Content-Length: #\n\n",
		"\r\n\r\nContent-Length:\t# \r\n\r\n",
		"Content-Length: #\r\nContent-Length: 000000#\r\n\r\n",
	};
	for (size_t k = 0; k < sizeof(good) / sizeof(good[0]); k++) {
		char body[128], msg[512] = "", num[32];
		int id = 200 + (int)k;
		snprintf(body, sizeof(body), "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"cglint/ping\"}", id);
		snprintf(num, sizeof(num), "%zu", strlen(body));
		for (const char *p = good[k]; *p; p++)
			if (*p == '#')
				strcat(msg, num);
			else
				strncat(msg, p, 1);
		strcat(msg, body);
		cr_assert(srv_raw(&s, msg, strlen(msg)));
		char what[64];
		snprintf(what, sizeof(what), "good header %zu", k);
		expect_error(&s, json_integer(id), -32601, what);
	}
	cr_expect_eq(srv_stop(&s), 0);
}

Test(lsp, message_over_the_limit_is_skipped)
{
	size_t n = (64u << 20) + 1;
	char *big = malloc(n);
	memset(big, ' ', n);
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	srv_body(&s, big, n);
	free(big);
	expect_error(&s, json_null(), -32600, "a 64 MiB + 1 message");
	srv_request(&s, 1, "cglint/ping", NULL);
	expect_error(&s, json_integer(1), -32601, "the request after it");
	cr_expect_eq(srv_stop(&s), 0);
}

/* A length no client will send is answered, and the next message is read as the next message,
 * not as the rest of that one's body. */
Test(lsp, absurd_content_length_then_a_request)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	const char *h = "Content-Length: 1000000000000\r\n\r\n{\"jsonrpc\":\"2.0\"}";
	cr_assert(srv_raw(&s, h, strlen(h)));
	expect_error(&s, json_null(), -32600, "Content-Length 10^12");
	srv_request(&s, 7, "cglint/ping", NULL);
	expect_error(&s, json_integer(7), -32601, "the request after it");
	cr_expect_eq(srv_stop(&s), 0);
}

Test(lsp, huge_content_length_then_end)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	const char *h = "Content-Length: 9223372036854775807\r\n\r\n{}";
	cr_assert(srv_raw(&s, h, strlen(h)));
	expect_error(&s, json_null(), -32600, "Content-Length 2^63-1");
	cr_expect_eq(srv_end(&s, true), 1, "the input ends inside the skipped message: no shutdown came");
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

Test(lsp, random_bodies)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	uint64_t x = 0x9E3779B97F4A7C15u;
	char body[256];
	for (int k = 0; k < 300; k++) {
		size_t n = rnd(&x) % sizeof(body);
		for (size_t i = 0; i < n; i++)
			body[i] = (char)rnd(&x);
		srv_body(&s, body, n);
		/* random bytes are not JSON (or, rarely, JSON that is no message): one error each, id null */
		json_t *m = srv_take(&s, is_response, json_null());
		cr_assert_not_null(m, "random body %d: no reply", k);
		json_int_t code = json_integer_value(json_object_get(json_object_get(m, "error"), "code"));
		cr_expect(code == -32700 || code == -32600, "random body %d: error %lld", k, code);
		json_decref(m);
	}
	cr_expect_eq(srv_stop(&s), 0);
}

/* Valid messages with bytes changed: any reply will do, as long as the server lives on. */
Test(lsp, mutated_messages)
{
	char *uri = uri_of("m.yaml");
	json_t *templ[] = {
		json_pack("{s:s, s:s, s:{s:{s:s, s:s, s:i, s:s}}}", "jsonrpc", "2.0", "method", "textDocument/didOpen",
			  "params", "textDocument", "uri", uri, "languageId", "yaml", "version", 1, "text", bad_yaml),
		json_pack("{s:s, s:i, s:s, s:{s:{s:s}, s:o}}", "jsonrpc", "2.0", "id", 1, "method", "textDocument/hover",
			  "params", "textDocument", "uri", uri, "position", position(4, 4)),
		json_pack("{s:s, s:i, s:s, s:{s:{s:s}, s:o, s:{s:[]}}}", "jsonrpc", "2.0", "id", 2, "method",
			  "textDocument/codeAction", "params", "textDocument", "uri", uri, "range", range_of(4, 0, 4, 9),
			  "context", "diagnostics"),
		json_pack("{s:s, s:s, s:{s:{s:s, s:i}, s:[{s:s}]}}", "jsonrpc", "2.0", "method", "textDocument/didChange",
			  "params", "textDocument", "uri", uri, "version", 2, "contentChanges", "text", good_yaml),
	};
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	uint64_t x = 12345;
	for (int k = 0; k < 400; k++) {
		char *t = json_dumps(templ[k % 4], JSON_COMPACT);
		size_t n = strlen(t);
		static const char subst[] = "{}[]\":,0-9e\\ \x80\xff";
		for (int j = 0, m = 1 + (int)(rnd(&x) % 4); j < m; j++)
			t[rnd(&x) % n] = subst[rnd(&x) % (sizeof(subst) - 1)];
		srv_body(&s, t, n);
		free(t);
	}
	for (int k = 0; k < 4; k++)
		json_decref(templ[k]);
	srv_request(&s, 4242, "cglint/ping", NULL);
	expect_error(&s, json_integer(4242), -32601, "after 400 mutated messages");
	srv_request(&s, 4243, "shutdown", NULL);
	json_decref(srv_result(&s, 4243));
	srv_notify(&s, "exit", NULL);
	cr_expect_eq(srv_end(&s, false), 0, "the replies to mutated messages are not checked");
	free(uri);
}

Test(lsp, random_stream_ends_cleanly)
{
	uint64_t x = 777;
	for (int round = 0; round < 4; round++) {
		struct srv s;
		srv_start(&s, NULL);
		char buf[4096];
		for (int k = 0; k < 64; k++) {
			size_t n = rnd(&x) % sizeof(buf);
			for (size_t i = 0; i < n; i++)
				buf[i] = (char)rnd(&x);
			if (k % 3 == 0)         /* some plausible headers among the noise */
				n = (size_t)snprintf(buf, sizeof(buf), "Content-Length: %llu\r\n\r\n",
						     (unsigned long long)(rnd(&x) % 300));
			if (!srv_raw(&s, buf, n))
				break;
		}
		int st = srv_end(&s, false);
		cr_expect(st == 1, "round %d: exit %d (a signal is -1)", round, st);
	}
}

/* ---- diagnostics, hover, code actions ---------------------------------------------------- */

Test(lsp, yaml_diagnostics_follow_the_text)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	char *uri = uri_of("a.yaml");
	open_doc(&s, uri, "yaml", 1, bad_yaml);
	json_t *list = srv_diags(&s, uri, 1);
	cr_assert_eq(json_array_size(list), 1);
	json_t *d = diag_with(list, "CG101");
	expect_range(json_object_get(d, "range"), 4, 2, 4, 16);
	cr_expect_eq(json_integer_value(json_object_get(d, "severity")), 1);
	cr_expect_str_eq(json_string_value(json_object_get(d, "source")), "cglint");
	const char *msg = json_string_value(json_object_get(d, "message"));
	cr_expect(!strncmp(msg, "Transformer engine's RNG tracker is required for cudagraphs", 59), "message: %s", msg);
	cr_expect_not_null(strstr(msg, "\nfix: set rng.te_rng_tracker: true"), "message: %s", msg);
	json_decref(list);

	change_doc(&s, uri, 2, good_yaml);
	list = srv_diags(&s, uri, 2);
	cr_expect_eq(json_array_size(list), 0, "fixed text: %zu diagnostics", json_array_size(list));
	json_decref(list);

	change_doc(&s, uri, 3, bad_yaml);
	list = srv_diags(&s, uri, 3);
	cr_expect_eq(json_array_size(list), 1);
	json_decref(list);

	srv_notify(&s, "textDocument/didSave", json_pack("{s:{s:s}}", "textDocument", "uri", uri));
	list = srv_diags(&s, uri, 3);
	cr_expect_eq(json_array_size(list), 1, "a save lints again");
	json_decref(list);

	srv_notify(&s, "textDocument/didClose", json_pack("{s:{s:s}}", "textDocument", "uri", uri));
	list = srv_diags(&s, uri, NO_VERSION);
	cr_expect_eq(json_array_size(list), 0, "closing clears");
	json_decref(list);
	free(uri);
	cr_expect_eq(srv_stop(&s), 0);
}

/* Past cglint's input limit (8 MiB) a document is not linted; one CG903 says so. */
Test(lsp, document_over_the_input_limit)
{
	size_t n = (8u << 20) + 1;
	char *text = malloc(n + 1);
	for (size_t k = 0; k < n; k++)
		text[k] = k % 8 == 7 ? '\n' : 'a';
	text[n] = '\0';
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	char *uri = uri_of("big.yaml");
	open_doc(&s, uri, "yaml", 1, text);
	json_t *list = srv_diags(&s, uri, 1);
	cr_assert_eq(json_array_size(list), 1);
	json_t *d = diag_with(list, "CG903");
	expect_range(json_object_get(d, "range"), 0, 0, 0, 0);
	cr_expect_eq(json_integer_value(json_object_get(d, "severity")), 1);
	cr_expect_str_eq(json_string_value(json_object_get(d, "message")), "file is 8388609 bytes; cglint reads at most 8388608");
	json_decref(list);
	/* back under the limit, it is linted again */
	change_doc(&s, uri, 2, bad_yaml);
	list = srv_diags(&s, uri, 2);
	diag_with(list, "CG101");
	json_decref(list);
	free(text);
	free(uri);
	cr_expect_eq(srv_stop(&s), 0);
}

Test(lsp, incremental_change_is_applied)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	char *uri = uri_of("inc.yaml");
	open_doc(&s, uri, "yaml", 1, bad_yaml);
	json_decref(srv_diags(&s, uri, 1));
	/* "false" on line 4 -> "true", as a range edit although the server asked for full text */
	srv_notify(&s, "textDocument/didChange",
		   json_pack("{s:{s:s, s:i}, s:[{s:o, s:s}]}", "textDocument", "uri", uri, "version", 2, "contentChanges",
			     "range", range_of(4, 18, 4, 23), "text", "true"));
	json_t *list = srv_diags(&s, uri, 2);
	cr_expect_eq(json_array_size(list), 0);
	json_decref(list);
	free(uri);
	cr_expect_eq(srv_stop(&s), 0);
}

Test(lsp, burst_of_changes_ends_with_the_last_version)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	char *uri = uri_of("burst.yaml");
	open_doc(&s, uri, "yaml", 1, bad_yaml);
	for (int v = 2; v <= 41; v++)
		change_doc(&s, uri, v, v % 2 ? bad_yaml : good_yaml);
	json_t *list = srv_diags(&s, uri, 41);
	cr_expect_eq(json_array_size(list), 1, "version 41 is the bad text");
	json_decref(list);
	free(uri);
	cr_expect_eq(srv_stop(&s), 0);
}

Test(lsp, hover_shows_the_rule)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	char *uri = uri_of("h.yaml");
	open_doc(&s, uri, "yaml", 1, bad_yaml);
	srv_request(&s, 1, "textDocument/hover",
		    json_pack("{s:{s:s}, s:o}", "textDocument", "uri", uri, "position", position(4, 5)));
	json_t *h = srv_result(&s, 1);
	json_t *c = json_object_get(h, "contents");
	cr_assert_str_eq(json_string_value(json_object_get(c, "kind")), "markdown");
	const char *v = json_string_value(json_object_get(c, "value"));
	cr_assert_not_null(v);
	cr_expect(!strncmp(v, "**CG101** te-rng-tracker-required (error)\n\n", 43), "hover: %s", v);
	cr_expect_not_null(strstr(v, "Captured graphs replay the same random-number state"), "the rule's doc: %s", v);
	cr_expect_not_null(strstr(v, "**Fix:** set rng.te_rng_tracker: true"), "the fix: %s", v);
	cr_expect_not_null(strstr(v, "**Mirrors:** `src/megatron/bridge/models/gpt_provider.py"), "mirrors: %s", v);
	expect_range(json_object_get(h, "range"), 4, 2, 4, 16);
	json_decref(h);
	/* off the diagnostic: the line before, and the range's end (exclusive) */
	unsigned off[][2] = {{0, 0}, {3, 1}, {4, 16}, {4, 1}};
	for (size_t k = 0; k < 4; k++) {
		srv_request(&s, 2 + (int)k, "textDocument/hover",
			    json_pack("{s:{s:s}, s:o}", "textDocument", "uri", uri, "position", position(off[k][0], off[k][1])));
		h = srv_result(&s, 2 + (int)k);
		cr_expect(json_is_null(h), "hover at %u:%u is null", off[k][0], off[k][1]);
		json_decref(h);
	}
	srv_request(&s, 9, "textDocument/hover",
		    json_pack("{s:{s:s}, s:o}", "textDocument", "uri", "file:///not/open.yaml", "position", position(0, 0)));
	h = srv_result(&s, 9);
	cr_expect(json_is_null(h), "hover on a document not open");
	json_decref(h);
	json_decref(srv_diags(&s, uri, 1));
	free(uri);
	cr_expect_eq(srv_stop(&s), 0);
}

/* The code actions for the diagnostic 'd' of 'uri' (as the client would ask: its range, it listed). */
static json_t *actions_for(struct srv *s, int id, const char *uri, json_t *d)
{
	json_t *r = json_object_get(d, "range");
	srv_request(s, id, "textDocument/codeAction",
		    json_pack("{s:{s:s}, s:O, s:{s:[O]}}", "textDocument", "uri", uri, "range", r, "context",
			      "diagnostics", d));
	json_t *a = srv_result(s, id);
	cr_assert(json_is_array(a));
	return a;
}

static json_t *action_titled(json_t *actions, const char *prefix)
{
	size_t k;
	json_t *a;
	json_array_foreach(actions, k, a)
	{
		const char *t = json_string_value(json_object_get(a, "title"));
		if (t && !strncmp(t, prefix, strlen(prefix)))
			return a;
	}
	return NULL;
}

Test(lsp, code_action_suppresses)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	char *uri = uri_of("ca.yaml");
	open_doc(&s, uri, "yaml", 1, bad_yaml);
	json_t *list = srv_diags(&s, uri, 1);
	json_t *actions = actions_for(&s, 1, uri, diag_with(list, "CG101"));
	json_t *sup = action_titled(actions, "Suppress CG101 on this line");
	cr_assert_not_null(sup, "no suppression among %zu actions", json_array_size(actions));
	cr_expect_str_eq(json_string_value(json_object_get(sup, "kind")), "quickfix");
	json_t *listed = json_object_get(sup, "diagnostics");
	cr_expect(json_array_size(listed) == 1 && json_equal(json_array_get(listed, 0), diag_with(list, "CG101")),
		  "the action names the diagnostic it suppresses");
	json_t *edits = json_object_get(json_object_get(json_object_get(sup, "edit"), "changes"), uri);
	cr_assert_eq(json_array_size(edits), 1);
	cr_expect_eq(json_integer_value(json_object_get(
			     json_object_get(json_object_get(json_array_get(edits, 0), "range"), "start"), "line")),
		     4, "the edit is on the finding's line");
	/* the edited text lints clean */
	char *fixed = apply_edit(bad_yaml, json_object_get(sup, "edit"), uri, LSP_ENC_UTF16);
	change_doc(&s, uri, 2, fixed);
	json_t *after = srv_diags(&s, uri, 2);
	cr_expect_eq(json_array_size(after), 0, "after the suppression: %s", fixed);
	json_decref(after);
	free(fixed);
	json_decref(actions);

	/* nothing for a range without findings, nor when only other kinds are wanted */
	srv_request(&s, 2, "textDocument/codeAction",
		    json_pack("{s:{s:s}, s:o, s:{s:[]}}", "textDocument", "uri", uri, "range", range_of(0, 0, 0, 3),
			      "context", "diagnostics"));
	actions = srv_result(&s, 2);
	cr_expect_eq(json_array_size(actions), 0);
	json_decref(actions);
	change_doc(&s, uri, 3, bad_yaml);
	json_decref(srv_diags(&s, uri, 3));
	srv_request(&s, 3, "textDocument/codeAction",
		    json_pack("{s:{s:s}, s:o, s:{s:[], s:[s]}}", "textDocument", "uri", uri, "range", range_of(4, 0, 4, 30),
			      "context", "diagnostics", "only", "refactor"));
	actions = srv_result(&s, 3);
	cr_expect_eq(json_array_size(actions), 0, "only: [refactor]");
	json_decref(actions);
	/* a client that lists no diagnostics still gets the actions for the range */
	srv_request(&s, 4, "textDocument/codeAction",
		    json_pack("{s:{s:s}, s:o, s:{s:[]}}", "textDocument", "uri", uri, "range", range_of(4, 0, 4, 30),
			      "context", "diagnostics"));
	actions = srv_result(&s, 4);
	cr_expect_not_null(action_titled(actions, "Suppress CG101 on this line"));
	json_decref(actions);
	json_decref(list);
	free(uri);
	cr_expect_eq(srv_stop(&s), 0);
}

/* Four findings on one line: a client that names one gets that one's actions only. */
Test(lsp, code_action_for_the_listed_diagnostic)
{
	const char *script = "torchrun pretrain_gpt.py --cuda-graph-impl transformer_engine --cuda-graph-scope moe_router moe\n";
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	char *uri = uri_of("line.sh");
	open_doc(&s, uri, "sh", 1, script);
	json_t *list = srv_diags(&s, uri, 1);
	cr_assert_eq(json_array_size(list), 4, "CG184, CG132, CG104, CG106");
	json_t *actions = actions_for(&s, 1, uri, diag_with(list, "CG104"));
	size_t k;
	json_t *a;
	json_array_foreach(actions, k, a)
	{
		json_t *named = json_object_get(a, "diagnostics");
		cr_expect(json_array_size(named) == 1 &&
				  !strcmp(json_string_value(json_object_get(json_array_get(named, 0), "code")), "CG104"),
			  "an action for another diagnostic: %s", json_string_value(json_object_get(a, "title")));
	}
	cr_expect_not_null(action_titled(actions, "Suppress CG104 on this line"));
	json_decref(actions);
	/* naming none: every finding in the range */
	srv_request(&s, 2, "textDocument/codeAction",
		    json_pack("{s:{s:s}, s:o, s:{s:[]}}", "textDocument", "uri", uri, "range", range_of(0, 0, 0, 99),
			      "context", "diagnostics"));
	actions = srv_result(&s, 2);
	const char *const ids[] = {"CG184", "CG132", "CG104", "CG106"};
	for (size_t i = 0; i < 4; i++) {
		char title[64];
		snprintf(title, sizeof(title), "Suppress %s on this line", ids[i]);
		cr_expect_not_null(action_titled(actions, title), "%s", title);
	}
	json_decref(actions);
	json_decref(list);
	free(uri);
	cr_expect_eq(srv_stop(&s), 0);
}

/* The fix a code action offers is the one `cglint --fix` writes (CG101 has an autofix). */
Test(lsp, code_action_fix_matches_the_command_line)
{
	char *path = harness_write(lsp_dir, "fix.yaml", bad_yaml, strlen(bad_yaml));
	char *out = NULL;
	harness_run(lsp_dir, "--fix fix.yaml", &out);
	free(out);
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f);
	char cli[4096];
	size_t n = fread(cli, 1, sizeof(cli) - 1, f);
	cli[n] = '\0';
	fclose(f);
	cr_assert_str_neq(cli, bad_yaml, "cglint --fix left the file as it was");

	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	char *uri = uri_of("fix.yaml");
	open_doc(&s, uri, "yaml", 1, bad_yaml);
	json_t *list = srv_diags(&s, uri, 1);
	json_t *actions = actions_for(&s, 1, uri, diag_with(list, "CG101"));
	json_t *fix = NULL, *a;
	size_t k;
	json_array_foreach(actions, k, a)
	{
		if (json_is_true(json_object_get(a, "isPreferred")))
			fix = a;
	}
	cr_assert_not_null(fix, "cglint --fix changes the file, the server offers no fix");
	cr_expect_str_eq(json_string_value(json_object_get(fix, "kind")), "quickfix");
	cr_expect_str_eq(json_string_value(json_object_get(fix, "title")), "set rng.te_rng_tracker: true");
	char *t = apply_edit(bad_yaml, json_object_get(fix, "edit"), uri, LSP_ENC_UTF16);
	cr_expect_str_eq(t, cli, "the code action's text differs from cglint --fix's");
	free(t);
	json_decref(actions);
	json_decref(list);
	free(uri);
	free(path);
	cr_expect_eq(srv_stop(&s), 0);
}

/* A Python recipe: fe_py's columns are bytes; before the finding "é" (2 bytes, 1 unit) and "😀"
 * (4 bytes, 2 units) in an f-string whose '#' is no comment. */
static const char wide_py[] = "def w_config():\n"
			      "    cfg = llama3_8b_pretrain_config()\n"
			      "    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
			      "    cfg.model.use_te_rng_tracker = False\n"
			      "    note = f'\xc3\xa9\xf0\x9f\x98\x80 #{1}'; cfg.rng.te_rng_tracker = False\n"
			      "    return cfg\n";

Test(lsp, python_diagnostics_hover_and_actions)
{
	char *path = harness_write(lsp_dir, "fix.py", wide_py, strlen(wide_py));
	char *cli = NULL;
	harness_run(lsp_dir, "--fix fix.py >/dev/null; cat fix.py", &cli);
	cr_assert_not_null(strstr(cli, "cfg.rng.te_rng_tracker = True\n"), "cglint --fix: %s", cli);
	for (int utf8 = 0; utf8 < 2; utf8++) {
		enum lsp_enc enc = utf8 ? LSP_ENC_UTF8 : LSP_ENC_UTF16;
		struct srv s;
		srv_start(&s, NULL);
		json_decref(srv_init(&s, utf8 ? utf8_caps() : NULL));
		char *uri = uri_of("r.py");
		open_doc(&s, uri, "python", 1, wide_py);
		json_t *list = srv_diags(&s, uri, 1);
		cr_assert_eq(json_array_size(list), 1);
		json_t *d = diag_with(list, "CG101");
		unsigned start = utf8 ? 35 : 32;
		expect_range(json_object_get(d, "range"), 4, start, 4, start + (unsigned)strlen("te_rng_tracker"));
		const char *msg = json_string_value(json_object_get(d, "message"));
		cr_expect_not_null(strstr(msg, "(in w_config)"), "message: %s", msg);

		srv_request(&s, 1, "textDocument/hover",
			    json_pack("{s:{s:s}, s:o}", "textDocument", "uri", uri, "position", position(4, start + 3)));
		json_t *h = srv_result(&s, 1);
		const char *v = json_string_value(json_object_get(json_object_get(h, "contents"), "value"));
		cr_expect(v && !strncmp(v, "**CG101** te-rng-tracker-required (error)", 41), "hover: %s", v ? v : "null");
		json_decref(h);

		json_t *actions = actions_for(&s, 2, uri, d);
		json_t *fix = action_titled(actions, "set rng.te_rng_tracker = True");
		cr_assert_not_null(fix, "no Python fix among %zu actions", json_array_size(actions));
		cr_expect(json_is_true(json_object_get(fix, "isPreferred")));
		char *t = apply_edit(wide_py, json_object_get(fix, "edit"), uri, enc);
		cr_expect_str_eq(t, cli, "the code action's text differs from cglint --fix's");
		free(t);
		/* the '#' in the string is not a comment: the directive goes at the line's end */
		json_t *sup = action_titled(actions, "Suppress CG101 on this line");
		cr_assert_not_null(sup);
		t = apply_edit(wide_py, json_object_get(sup, "edit"), uri, enc);
		cr_expect_not_null(strstr(t, "cfg.rng.te_rng_tracker = False  # cglint: disable=CG101\n"), "%s", t);
		change_doc(&s, uri, 2, t);
		json_t *after = srv_diags(&s, uri, 2);
		cr_expect_eq(json_array_size(after), 0, "after the suppression: %s", t);
		json_decref(after);
		free(t);
		json_decref(actions);
		json_decref(list);
		free(uri);
		cr_expect_eq(srv_stop(&s), 0);
	}
	free(cli);
	free(path);
}

/* languageId python makes a buffer without a .py name a Python recipe; one without settings is quiet. */
Test(lsp, python_by_language_id)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	open_doc(&s, "untitled:Untitled-1", "python", 1, wide_py);
	json_t *list = srv_diags(&s, "untitled:Untitled-1", 1);
	diag_with(list, "CG101");
	json_decref(list);
	char *uri = uri_of("plot.py");
	open_doc(&s, uri, "python", 1, "import os\n\n\ndef main(:\n    print(os.name)\n");
	list = srv_diags(&s, uri, 1);
	cr_expect_eq(json_array_size(list), 0, "a .py without CUDA-graph settings");
	json_decref(list);
	free(uri);
	cr_expect_eq(srv_stop(&s), 0);
}

/* Code points, UTF-16 units and bytes before the finding: "é" 2 bytes, "€" 3, "😀" 4 (2 units). */
static const char wide_yaml[] = "rng: {\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\": 1, te_rng_tracker: false}\n"
				"model:\n"
				"  cuda_graph_impl: local\n"
				"  use_te_rng_tracker: false\n";

Test(lsp, positions_utf16_and_utf8)
{
	for (int utf8 = 0; utf8 < 2; utf8++) {
		struct srv s;
		srv_start(&s, NULL);
		json_decref(srv_init(&s, utf8 ? utf8_caps() : NULL));
		char *uri = uri_of("wide.yaml");
		open_doc(&s, uri, "yaml", 1, wide_yaml);
		json_t *list = srv_diags(&s, uri, 1);
		json_t *d = diag_with(list, "CG101");
		/* 16 code points before the key; in UTF-16 the emoji counts 2, in UTF-8 the four take 9 bytes */
		unsigned start = utf8 ? 22 : 17;
		expect_range(json_object_get(d, "range"), 0, start, 0, start + 14);
		srv_request(&s, 1, "textDocument/hover",
			    json_pack("{s:{s:s}, s:o}", "textDocument", "uri", uri, "position", position(0, start + 3)));
		json_t *h = srv_result(&s, 1);
		cr_expect(json_is_object(h), "hover inside the key (%s)", utf8 ? "utf-8" : "utf-16");
		json_decref(h);
		json_decref(list);
		free(uri);
		cr_expect_eq(srv_stop(&s), 0);
	}
}

static const char wide_cu[] = "#include <cuda_runtime.h>\n"
			      "cudaError_t f(cudaStream_t s, cudaGraph_t *g)\n"
			      "{\n"
			      "\tcudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
			      "\t/* \xc3\xa9\xf0\x9f\x98\x80 */ cudaDeviceSynchronize();\n"
			      "\treturn cudaStreamEndCapture(s, g);\n"
			      "}\n";

Test(lsp, cuda_source)
{
	for (int utf8 = 0; utf8 < 2; utf8++) {
		struct srv s;
		srv_start(&s, NULL);
		json_decref(srv_init(&s, utf8 ? utf8_caps() : NULL));
		char *uri = uri_of("k.cu");
		open_doc(&s, uri, "cuda", 1, wide_cu);
		json_t *list = srv_diags(&s, uri, 1);
		json_t *d = diag_with(list, "CG301");
		/* clang's column is bytes (15); before the call: a tab, the comment's 7 ASCII, é, 😀 */
		unsigned start = utf8 ? 14 : 11;
		expect_range(json_object_get(d, "range"), 4, start, 4, start + (unsigned)strlen("cudaDeviceSynchronize"));
		cr_expect_eq(json_integer_value(json_object_get(d, "severity")), 1);
		json_t *actions = actions_for(&s, 1, uri, d);
		json_t *sup = action_titled(actions, "Suppress CG301 on this line");
		cr_assert_not_null(sup);
		char *fixed = apply_edit(wide_cu, json_object_get(sup, "edit"), uri, utf8 ? LSP_ENC_UTF8 : LSP_ENC_UTF16);
		cr_expect_not_null(strstr(fixed, "cudaDeviceSynchronize();"), "the edit keeps the call: %s", fixed);
		cr_expect_not_null(strstr(fixed, "// cglint: disable"), "a C comment: %s", fixed);
		free(fixed);
		json_decref(actions);
		json_decref(list);
		free(uri);
		cr_expect_eq(srv_stop(&s), 0);
	}
}

/* The suppression offered for a call after a block comment silences it. */
Test(lsp, cuda_suppression_after_a_block_comment)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	char *uri = uri_of("k.cu");
	open_doc(&s, uri, "cuda", 1, wide_cu);
	json_t *list = srv_diags(&s, uri, 1);
	json_t *actions = actions_for(&s, 1, uri, diag_with(list, "CG301"));
	json_t *sup = action_titled(actions, "Suppress CG301 on this line");
	cr_assert_not_null(sup);
	char *fixed = apply_edit(wide_cu, json_object_get(sup, "edit"), uri, LSP_ENC_UTF16);
	change_doc(&s, uri, 2, fixed);
	json_t *after = srv_diags(&s, uri, 2);
	cr_expect_eq(json_array_size(after), 0, "still reported after the suppression:\n%s", fixed);
	json_decref(after);
	free(fixed);
	json_decref(actions);
	json_decref(list);
	free(uri);
	cr_expect_eq(srv_stop(&s), 0);
}

static char *read_fixture(const char *rel)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", CGLINT_FIXTURES, rel);
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "%s", path);
	char *buf = malloc(1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

Test(lsp, cuda_fixture_diagnostics)
{
	char *text = read_fixture("source/CG301-device-sync.ko.cu");
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	char *uri = uri_of("CG301-device-sync.ko.cu");
	open_doc(&s, uri, "cuda", 7, text);
	json_t *list = srv_diags(&s, uri, 7);
	static const struct {
		unsigned line;
		const char *call;
	} want[] = {{10, "cudaDeviceSynchronize"}, {18, "cudaStreamSynchronize"}, {27, "cudaEventSynchronize"}};
	cr_assert_eq(json_array_size(list), 3);
	for (size_t k = 0; k < 3; k++) {
		json_t *d = json_array_get(list, k);
		cr_expect_str_eq(json_string_value(json_object_get(d, "code")), "CG301");
		expect_range(json_object_get(d, "range"), want[k].line, 1, want[k].line, 1 + (unsigned)strlen(want[k].call));
	}
	json_decref(list);
	free(uri);
	free(text);
	cr_expect_eq(srv_stop(&s), 0);
}

Test(lsp, notes_as_related_information_or_in_the_message)
{
	char *text = read_fixture("source/CG302-thread-raft-3121.ko.cu");
	for (int related = 0; related < 2; related++) {
		struct srv s;
		srv_start(&s, NULL);
		json_t *caps = related ? json_pack("{s:{s:{s:b}}}", "textDocument", "publishDiagnostics",
						   "relatedInformation", 1)
				       : NULL;
		json_decref(srv_init(&s, caps));
		char *uri = uri_of("raft.cu");
		open_doc(&s, uri, "cuda", 1, text);
		json_t *list = srv_diags(&s, uri, 1);
		json_t *d = diag_with(list, "CG302");
		expect_range(json_object_get(d, "range"), 9, 8, 9, 8 + (unsigned)strlen("cudaStreamQuery"));
		const char *msg = json_string_value(json_object_get(d, "message"));
		json_t *rel = json_object_get(d, "relatedInformation");
		if (related) {
			cr_assert_eq(json_array_size(rel), 1);
			json_t *loc = json_object_get(json_array_get(rel, 0), "location");
			cr_expect_str_eq(json_string_value(json_object_get(loc, "uri")), uri);
			expect_range(json_object_get(loc, "range"), 16, 6, 16, 6 + (unsigned)strlen("stream_idle"));
			cr_expect_str_eq(json_string_value(json_object_get(json_array_get(rel, 0), "message")),
					 "called from here, inside the capture begun at line 15");
			cr_expect_null(strstr(msg, "\nnote: "), "notes are not repeated in the message");
		} else {
			cr_expect_null(rel);
			cr_expect_not_null(strstr(msg, ":17:7: called from here, inside the capture begun at line 15"),
					   "the note folded into the message: %s", msg);
		}
		json_decref(list);
		free(uri);
		cr_expect_eq(srv_stop(&s), 0);
	}
	free(text);
}

Test(lsp, uris_name_the_file)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	const char *script = "torchrun pretrain_gpt.py --cuda-graph-impl transformer_engine --cuda-graph-scope moe_router moe\n";
	/* decoded, "run%2Esh" is run.sh: a script (bytes as columns); undecoded it would be read as YAML */
	char *enc = uri_of("sub%20dir/run%2Esh");
	open_doc(&s, enc, "sh", 1, script);
	json_t *list = srv_diags(&s, enc, 1);
	json_t *d = diag_with(list, "CG104");
	expect_range(json_object_get(d, "range"), 0, 81, 0, 91);
	json_decref(list);
	/* another scheme: the last segment names it */
	open_doc(&s, "untitled:/scratch/b.yaml", "yaml", 1, bad_yaml);
	list = srv_diags(&s, "untitled:/scratch/b.yaml", 1);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(list, 0), "code")), "CG101");
	json_decref(list);
	/* a URI that names nothing to lint: dropped, no diagnostics (srv_stop checks no reply) */
	open_doc(&s, "file://otherhost/x.yaml", "yaml", 1, bad_yaml);
	open_doc(&s, "untitled:", "yaml", 1, bad_yaml);
	free(enc);
	cr_expect_eq(srv_stop(&s), 0);
	struct diags_want w = {"file://otherhost/x.yaml", ANY_VERSION};
	cr_expect_null(srv_take(&s, is_diags, &w));
}

/* ---- the conversions underneath ---------------------------------------------------------- */

/* Each conversion on a text with its line index and on the bare text (scanned). */
static void texts(struct lsp_pos_text t[2], const char *s)
{
	lsp_pos_text_init(&t[0], s, strlen(s));
	t[1] = (struct lsp_pos_text){s, strlen(s)};
}

static void texts_release(struct lsp_pos_text t[2])
{
	lsp_pos_text_release(&t[0]);
}

Test(lsp, pos_conversions)
{
	struct lsp_pos_text T[2], K[2], Q[2], E[2];
	texts(T, "a\xc3\xa9\xf0\x9f\x98\x80z\r\nx\xff\xfey\n");
	texts(K, "  model.cuda-graph: x\n");
	texts(Q, "x: \"a b\" # c\n  {y}\n");
	texts(E, "");
	for (int i = 0; i < 2; i++) {
		const struct lsp_pos_text *t = &T[i], *k = &K[i], *q = &Q[i];
		size_t n = t->len;
		/* line 0: a é 😀 z; the z is code point 3, UTF-16 unit 4, byte 7 */
		struct lsp_pos p = lsp_pos_from_offset(t, 7, LSP_ENC_UTF16);
		cr_expect(p.line == 0 && p.character == 4);
		p = lsp_pos_from_offset(t, 7, LSP_ENC_UTF8);
		cr_expect(p.line == 0 && p.character == 7);
		cr_expect_eq(lsp_pos_to_offset(t, (struct lsp_pos){0, 4}, LSP_ENC_UTF16), 7);
		cr_expect_eq(lsp_pos_to_offset(t, (struct lsp_pos){0, 3}, LSP_ENC_UTF16), 3, "inside the pair: its start");
		cr_expect_eq(lsp_pos_to_offset(t, (struct lsp_pos){0, 2}, LSP_ENC_UTF8), 1, "inside é: its start");
		cr_expect_eq(lsp_pos_to_offset(t, (struct lsp_pos){0, 99}, LSP_ENC_UTF16), 8, "past the end: before \\r\\n");
		cr_expect_eq(lsp_pos_to_offset(t, (struct lsp_pos){7, 0}, LSP_ENC_UTF16), n, "past the last line");
		cr_expect_eq(lsp_pos_to_offset(t, (struct lsp_pos){1, 1}, LSP_ENC_UTF16), 11);
		/* line 1: x, two bytes that are not UTF-8 (one unit each), y; then the empty line 2 */
		p = lsp_pos_from_offset(t, 13, LSP_ENC_UTF16);
		cr_expect(p.line == 1 && p.character == 3, "%u:%u", p.line, p.character);
		p = lsp_pos_from_offset(t, n + 5, LSP_ENC_UTF16);
		cr_expect(p.line == 2 && p.character == 0, "%u:%u", p.line, p.character);
		/* a YAML column in code points and a C column in bytes land on the same z */
		struct lsp_range r = lsp_pos_range(t, 1, 4, LSP_COLS_CODEPOINTS, false, LSP_ENC_UTF16);
		cr_expect(r.start.character == 4 && r.end.character == 5, "%u-%u", r.start.character, r.end.character);
		r = lsp_pos_range(t, 1, 8, LSP_COLS_BYTES, true, LSP_ENC_UTF16);
		cr_expect(r.start.character == 4 && r.end.character == 5);
		/* the word: '.', '-' join config keys; in C they end an identifier */
		r = lsp_pos_range(k, 1, 3, LSP_COLS_CODEPOINTS, false, LSP_ENC_UTF8);
		cr_expect(r.start.character == 2 && r.end.character == 18);
		r = lsp_pos_range(k, 1, 3, LSP_COLS_BYTES, true, LSP_ENC_UTF8);
		cr_expect(r.start.character == 2 && r.end.character == 7);
		/* a quoted string to its quote; punctuation to the line end; column 0 and line 0 */
		r = lsp_pos_range(q, 1, 4, LSP_COLS_CODEPOINTS, false, LSP_ENC_UTF8);
		cr_expect(r.start.character == 3 && r.end.character == 8);
		r = lsp_pos_range(q, 2, 3, LSP_COLS_CODEPOINTS, false, LSP_ENC_UTF8);
		cr_expect(r.start.line == 1 && r.start.character == 2 && r.end.character == 5);
		r = lsp_pos_range(q, 2, 0, LSP_COLS_CODEPOINTS, false, LSP_ENC_UTF8);
		cr_expect(r.start.line == 1 && r.start.character == 2 && r.end.character == 5);
		r = lsp_pos_range(q, 0, 0, LSP_COLS_CODEPOINTS, false, LSP_ENC_UTF8);
		cr_expect(r.start.line == 0 && r.start.character == 0 && r.end.line == 0 && r.end.character == 12);
		/* positions past the text are clamped, never read out of bounds */
		r = lsp_pos_range(q, 40, 7, LSP_COLS_CODEPOINTS, false, LSP_ENC_UTF8);
		cr_expect(r.start.line == 2 && r.start.character == 0 && !lsp_pos_cmp(r.start, r.end));
		r = lsp_pos_range(q, 1, 500, LSP_COLS_BYTES, false, LSP_ENC_UTF8);
		cr_expect(r.start.character == 12 && r.end.character == 12);
		r = lsp_pos_range(&E[i], 3, 3, LSP_COLS_BYTES, false, LSP_ENC_UTF16);
		cr_expect(r.start.line == 0 && r.start.character == 0);
	}
	texts_release(T), texts_release(K), texts_release(Q), texts_release(E);
}

Test(lsp, uri_conversions)
{
	static const struct {
		const char *uri, *path;
		bool file;
	} cases[] = {
		{"file:///tmp/a.yaml", "/tmp/a.yaml", true},
		{"file:///tmp/sub%20dir/%C3%A9.yaml", "/tmp/sub dir/\xc3\xa9.yaml", true},
		{"FILE://localhost/etc/x.sh", "/etc/x.sh", true},
		{"file:/tmp/b.cu", "/tmp/b.cu", true},
		{"file:///tmp/q.yaml?x=1#f", "/tmp/q.yaml", true},
		{"file://otherhost/tmp/a.yaml", NULL, false},
		{"file:///tmp/%00.yaml", NULL, false},
		{"file:///tmp/%zz.yaml", NULL, false},
		{"file:///tmp/%4", NULL, false},
		{"file:relative.yaml", NULL, false},
		{"untitled:Untitled-1", "Untitled-1", false},
		{"untitled:/scratch/b.yaml", "b.yaml", false},
		{"git:/repo/c.yaml?%7B%22ref%22%7D", "c.yaml", false},
		{"vscode-notebook-cell://host/d/e%2Ff.yaml#x", "f.yaml", false},
		{"untitled:", NULL, false},
		{"untitled:/dir/..", NULL, false},
		{"no-scheme.yaml", NULL, false},
		{"/abs/path.yaml", NULL, false},
		{"", NULL, false},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		bool file = !cases[k].file;
		char *p = lsp_uri_to_path(cases[k].uri, &file);
		if (cases[k].path)
			cr_expect(p && !strcmp(p, cases[k].path), "%s -> %s", cases[k].uri, p ? p : "NULL");
		else
			cr_expect_null(p, "%s -> %s", cases[k].uri, p);
		cr_expect_eq(file, cases[k].file, "%s: is_file", cases[k].uri);
		free(p);
	}
	char *u = lsp_uri_from_path("/tmp/a b/\xc3\xa9#.yaml");
	cr_expect_str_eq(u, "file:///tmp/a%20b/%C3%A9%23.yaml");
	bool file;
	char *back = lsp_uri_to_path(u, &file);
	cr_expect_str_eq(back, "/tmp/a b/\xc3\xa9#.yaml");
	free(back);
	free(u);
	u = lsp_uri_from_path("./rel.yaml");
	cr_expect(!strncmp(u, "file:///", 8) && strstr(u, "/rel.yaml") && !strstr(u, "/./"), "%s", u);
	free(u);
}

/* SPDX-License-Identifier: MIT */
/*
 * lsp: `cglint lsp` driven through its pipes as an editor drives it (lsp_client.h): its
 * lifecycle and malformed input, plus the position and URI conversions underneath. The
 * documents (diagnostics, hover, code actions): test_lsp_doc.c; project configs in the editor:
 * test_lsp_cfg.c.
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

TestSuite(lsp, .init = harness_init_bare, .fini = harness_fini);

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

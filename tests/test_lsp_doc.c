/* SPDX-License-Identifier: MIT */
/*
 * lsp_doc: the documents `cglint lsp` is given, of Criterion suite 'lsp' (test_lsp.c): their
 * diagnostics as the text changes, hover and code actions, in YAML, Python and CUDA sources, in
 * UTF-16 and UTF-8 positions.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness.h"
#include "lsp_client.h"
#include "lsp/lsp_pos.h"

TestSuite(lsp, .init = harness_init_bare, .fini = harness_fini);

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
	char *path = harness_write(harness_dir, "fix.yaml", bad_yaml, strlen(bad_yaml));
	char *out = NULL;
	harness_run(harness_dir, "--fix fix.yaml", &out);
	free(out);
	char *cli = harness_read(NULL, path, NULL);
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
	free(cli);
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
	char *path = harness_write(harness_dir, "fix.py", wide_py, strlen(wide_py));
	char *cli = NULL;
	harness_run(harness_dir, "--fix fix.py >/dev/null; cat fix.py", &cli);
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

/* Issue 43: the server keeps the modules a recipe imports from one edit to the next, and reads
 * one again once it changes on disk: the helper's setting, changed there, is what the next
 * edit's diagnostics follow (CG101 while the helper leaves the TE RNG tracker off, none once it
 * turns it on). */
Test(lsp, python_imports_kept_until_they_change_on_disk)
{
	static const char off[] = "def set_graphs(cfg):\n    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
				  "    cfg.rng.te_rng_tracker = False\n";
	static const char on[] = "def set_graphs(cfg):\n    cfg.model.cuda_graph_impl = \"transformer_engine\"\n"
				 "    cfg.rng.te_rng_tracker = True\n    cfg.model.use_te_rng_tracker = True\n";
	static const char recipe[] = "from graph_helpers import set_graphs\n\n\n"
				     "def team_config():\n    cfg = ConfigContainer(model=GPTModelProvider(num_layers=2))\n"
				     "    set_graphs(cfg)\n    return cfg\n";
	free(harness_write(harness_dir, "graph_helpers.py", off, strlen(off)));
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	char *uri = uri_of("team.py");
	open_doc(&s, uri, "python", 1, recipe);
	json_t *list = srv_diags(&s, uri, 1);
	diag_with(list, "CG101");
	json_decref(list);
	change_doc(&s, uri, 2, recipe);        /* an edit: the helper, kept, gives the same */
	list = srv_diags(&s, uri, 2);
	diag_with(list, "CG101");
	json_decref(list);
	free(harness_write(harness_dir, "graph_helpers.py", on, strlen(on)));
	change_doc(&s, uri, 3, recipe);
	list = srv_diags(&s, uri, 3);
	cr_expect_eq(json_array_size(list), 0, "the helper changed on disk, its old text still read: %s",
		     json_dumps(list, 0));
	json_decref(list);
	/* a module that is not there yet is cached as absent until a watched-files notice says a
	 * Python file came */
	static const char later[] = "from later_helpers import set_graphs\n\n\n"
				    "def team_config():\n    cfg = ConfigContainer(model=GPTModelProvider(num_layers=2))\n"
				    "    set_graphs(cfg)\n    return cfg\n";
	change_doc(&s, uri, 4, later);
	list = srv_diags(&s, uri, 4);
	cr_expect_eq(json_array_size(list), 0, "%s", json_dumps(list, 0));   /* nothing it can follow sets graphs */
	json_decref(list);
	free(harness_write(harness_dir, "later_helpers.py", off, strlen(off)));
	char *helper = uri_of("later_helpers.py");
	srv_notify(&s, "workspace/didChangeWatchedFiles", json_pack("{s:[{s:s, s:i}]}", "changes", "uri", helper, "type", 1));
	list = srv_diags(&s, uri, 4);
	diag_with(list, "CG101");
	json_decref(list);
	free(helper);
	free(uri);
	cr_expect_eq(srv_stop(&s), 0);
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

Test(lsp, cuda_fixture_diagnostics)
{
	char *text = harness_read(CGLINT_FIXTURES, "source/CG301-device-sync.ko.cu", NULL);
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
	char *text = harness_read(CGLINT_FIXTURES, "source/CG302-thread-raft-3121.ko.cu", NULL);
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

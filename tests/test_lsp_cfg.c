/* SPDX-License-Identifier: MIT */
/*
 * lsp_cfg: project configs (.cglint.yaml) in the language server, driven as an editor drives it
 * (lsp_client.h). A broken config is published on the config file itself and named on every
 * open document it applies to; fixing it (on disk with a watched-files notification, or in its
 * open buffer) clears those and lints the documents again.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "harness.h"
#include "lsp_client.h"

TestSuite(lsp_cfg, .init = harness_init_git, .fini = harness_fini);

static const char typo_cfg[] = "select: [CG1O1]\n"
			       "bogus: 1\n";

static void watched_change(struct srv *s, const char *uri, int type)
{
	srv_notify(s, "workspace/didChangeWatchedFiles",
		   json_pack("{s:[{s:s, s:i}]}", "changes", "uri", uri, "type", type));
}

static const char *message_of(json_t *d)
{
	return json_string_value(json_object_get(d, "message"));
}

/* The one error a document gets for its broken config: at the top, naming the config. */
static json_t *broken_notice(json_t *list, const char *config, size_t problems)
{
	json_t *d = diag_with(list, "CG915");
	expect_range(json_object_get(d, "range"), 0, 0, 0, 0);
	cr_expect_eq(json_integer_value(json_object_get(d, "severity")), 1);
	char want[256];
	snprintf(want, sizeof(want), "the project config %s has %zu problem%s", config, problems,
		 problems == 1 ? "" : "s");
	cr_expect(strstr(message_of(d), want) != NULL, "message: %s", message_of(d));
	return d;
}

Test(lsp_cfg, broken_config_is_published_on_it_and_named_on_the_document)
{
	harness_put(".cglint.yaml", typo_cfg);
	struct srv s;
	srv_start_in(&s, harness_dir, NULL);    /* the config's problems name it relative to here */
	json_decref(srv_init(&s, NULL));
	char *uri = uri_of("a.yaml"), *cfg = uri_of(".cglint.yaml");
	open_doc(&s, uri, "yaml", 1, bad_yaml);

	json_t *list = srv_diags(&s, cfg, NO_VERSION);
	cr_assert_eq(json_array_size(list), 2, "the config's two problems");
	json_t *d = json_array_get(list, 0);
	cr_expect_str_eq(json_string_value(json_object_get(d, "code")), "CG915");
	expect_range(json_object_get(d, "range"), 0, 9, 0, 14);
	cr_expect(!strncmp(message_of(d), "no rule matches 'CG1O1' in select; did you mean", 47), "%s", message_of(d));
	d = json_array_get(list, 1);
	expect_range(json_object_get(d, "range"), 1, 0, 1, 5);
	cr_expect(!strncmp(message_of(d), "unknown key 'bogus' in the project config", 41), "%s", message_of(d));
	json_decref(list);

	/* the select typo selects nothing: the document is told why it has no findings */
	list = srv_diags(&s, uri, 1);
	cr_expect_eq(json_array_size(list), 1);
	d = broken_notice(list, ".cglint.yaml", 2);
	cr_expect(strstr(message_of(d), "\nnote: .cglint.yaml:1:10: no rule matches 'CG1O1'") != NULL, "%s", message_of(d));
	cr_expect(strstr(message_of(d), "\nnote: .cglint.yaml:2:1: unknown key 'bogus'") != NULL, "%s", message_of(d));
	json_decref(list);

	/* fixed on disk: the watched-files notification clears it and lints the document again */
	harness_put(".cglint.yaml", "select: [CG1]\n");
	watched_change(&s, cfg, 2);
	list = srv_diags(&s, cfg, NO_VERSION);
	cr_expect_eq(json_array_size(list), 0, "the fixed config is cleared");
	json_decref(list);
	list = srv_diags(&s, uri, 1);
	cr_expect_eq(json_array_size(list), 1);
	diag_with(list, "CG101");
	json_decref(list);
	free(uri);
	free(cfg);
	cr_expect_eq(srv_stop(&s), 0);
}

/* With relatedInformation, the notice points at each problem in the config (here one folder up,
 * through inherit: true, and named by an absolute path: the server runs elsewhere). */
Test(lsp_cfg, notice_points_into_an_inherited_config)
{
	harness_put(".cglint.yaml", "select: [\n");
	char sub[160];
	snprintf(sub, sizeof(sub), "%s/sub", harness_dir);
	cr_assert_eq(mkdir(sub, 0755), 0);
	harness_put("sub/.cglint.yaml", "inherit: true\n");
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, json_pack("{s:{s:{s:b}}}", "textDocument", "publishDiagnostics", "relatedInformation", 1)));
	char *uri = uri_of("sub/a.yaml"), *cfg = uri_of(".cglint.yaml");
	open_doc(&s, uri, "yaml", 1, bad_yaml);
	json_t *list = srv_diags(&s, cfg, NO_VERSION);
	json_t *d = diag_with(list, "CG901");
	expect_range(json_object_get(d, "range"), 1, 0, 1, 0);
	cr_expect(strstr(message_of(d), "YAML syntax error") != NULL, "%s", message_of(d));
	json_decref(list);

	list = srv_diags(&s, uri, 1);
	cr_expect_eq(json_array_size(list), 2, "CG101 (the broken config sets nothing) and the notice");
	diag_with(list, "CG101");
	char path[200];
	snprintf(path, sizeof(path), "%s/.cglint.yaml", harness_dir);
	d = broken_notice(list, path, 1);
	cr_expect_null(strstr(message_of(d), "\nnote: "), "the problems are related information: %s", message_of(d));
	json_t *rel = json_object_get(d, "relatedInformation");
	cr_assert_eq(json_array_size(rel), 1);
	json_t *loc = json_object_get(json_array_get(rel, 0), "location");
	cr_expect_str_eq(json_string_value(json_object_get(loc, "uri")), cfg);
	expect_range(json_object_get(loc, "range"), 1, 0, 1, 0);
	json_decref(list);
	free(uri);
	free(cfg);
	cr_expect_eq(srv_stop(&s), 0);
}

/* An open config is checked as a config (not linted as a Bridge YAML) from its buffer, which the
 * documents are linted under, saved or not; closed, the file on disk applies again. */
Test(lsp_cfg, open_config_applies_from_its_buffer)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	char *uri = uri_of("a.yaml"), *cfg = uri_of(".cglint.yaml");
	open_doc(&s, uri, "yaml", 1, bad_yaml);
	json_t *list = srv_diags(&s, uri, 1);
	diag_with(list, "CG101");
	json_decref(list);

	/* no such file on disk: the unsaved buffer is the config */
	open_doc(&s, cfg, "yaml", 1, typo_cfg);
	list = srv_diags(&s, cfg, 1);
	cr_expect_eq(json_array_size(list), 2);
	expect_range(json_object_get(json_array_get(list, 0), "range"), 0, 9, 0, 14);
	json_decref(list);
	/* its problems are the config's own diagnostics: hover shows the rule; no comment hides them */
	srv_request(&s, 1, "textDocument/hover",
		    json_pack("{s:{s:s}, s:o}", "textDocument", "uri", cfg, "position", position(0, 10)));
	json_t *r = srv_result(&s, 1);
	const char *text = json_string_value(json_object_get(json_object_get(r, "contents"), "value"));
	cr_expect(text && strstr(text, "**CG915** bad-project-config (error)"), "hover: %s", text ? text : "null");
	json_decref(r);
	srv_request(&s, 2, "textDocument/codeAction",
		    json_pack("{s:{s:s}, s:o, s:{s:[]}}", "textDocument", "uri", cfg, "range", range_of(0, 10, 0, 10),
			      "context", "diagnostics"));
	r = srv_result(&s, 2);
	cr_expect_eq(json_array_size(r), 0, "no suppression of a config's problem");
	json_decref(r);
	list = srv_diags(&s, uri, 1);
	cr_expect_eq(json_array_size(list), 1);
	char path[200];
	snprintf(path, sizeof(path), "%s/.cglint.yaml", harness_dir);
	broken_notice(list, path, 2);
	json_decref(list);

	change_doc(&s, cfg, 2, "ignore: [te-rng-tracker-required]\n");
	list = srv_diags(&s, cfg, 2);
	cr_expect_eq(json_array_size(list), 0, "the fixed buffer is clean");
	json_decref(list);
	list = srv_diags(&s, uri, 1);
	cr_expect_eq(json_array_size(list), 0, "the buffer's ignore applies");
	json_decref(list);

	srv_notify(&s, "textDocument/didSave", json_pack("{s:{s:s}}", "textDocument", "uri", cfg));
	json_decref(srv_diags(&s, cfg, 2));
	list = srv_diags(&s, uri, 1);
	cr_expect_eq(json_array_size(list), 0, "a save of the config lints the documents again");
	json_decref(list);

	srv_notify(&s, "textDocument/didClose", json_pack("{s:{s:s}}", "textDocument", "uri", cfg));
	list = srv_diags(&s, cfg, NO_VERSION);
	cr_expect_eq(json_array_size(list), 0, "closing clears");
	json_decref(list);
	list = srv_diags(&s, uri, 1);
	diag_with(list, "CG101");
	cr_expect_eq(json_array_size(list), 1, "no config on disk: only the finding");
	json_decref(list);
	free(uri);
	free(cfg);
	cr_expect_eq(srv_stop(&s), 0);
}

/* A config's problems go once no open document reads it: the last one closed, or the config
 * deleted. */
Test(lsp_cfg, config_no_document_reads_is_cleared)
{
	harness_put(".cglint.yaml", typo_cfg);
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	char *a = uri_of("a.yaml"), *b = uri_of("b.yaml"), *cfg = uri_of(".cglint.yaml");
	open_doc(&s, a, "yaml", 1, bad_yaml);
	open_doc(&s, b, "yaml", 1, good_yaml);
	json_t *list = srv_diags(&s, cfg, NO_VERSION);
	cr_expect_eq(json_array_size(list), 2);
	json_decref(list);
	json_decref(srv_diags(&s, a, 1));
	json_decref(srv_diags(&s, b, 1));

	srv_notify(&s, "textDocument/didClose", json_pack("{s:{s:s}}", "textDocument", "uri", a));
	json_decref(srv_diags(&s, a, NO_VERSION));
	/* b still reads it: nothing for the config yet; then it goes with the file */
	char path[200];
	snprintf(path, sizeof(path), "%s/.cglint.yaml", harness_dir);
	cr_assert_eq(unlink(path), 0);
	watched_change(&s, cfg, 3);
	list = srv_diags(&s, cfg, NO_VERSION);
	cr_expect_eq(json_array_size(list), 0, "a deleted config is cleared");
	json_decref(list);
	list = srv_diags(&s, b, 1);
	cr_expect_eq(json_array_size(list), 0, "b has no config now, and no finding");
	json_decref(list);

	/* the last reader closed: cleared */
	harness_put(".cglint.yaml", typo_cfg);
	watched_change(&s, cfg, 1);
	list = srv_diags(&s, cfg, NO_VERSION);
	cr_expect_eq(json_array_size(list), 2, "a new broken config is published");
	json_decref(list);
	json_decref(srv_diags(&s, b, 1));
	srv_notify(&s, "textDocument/didClose", json_pack("{s:{s:s}}", "textDocument", "uri", b));
	json_decref(srv_diags(&s, b, NO_VERSION));
	list = srv_diags(&s, cfg, NO_VERSION);
	cr_expect_eq(json_array_size(list), 0, "no document reads it: cleared");
	json_decref(list);
	free(a);
	free(b);
	free(cfg);
	cr_expect_eq(srv_stop(&s), 0);
}

static bool is_register(json_t *m, const void *arg)
{
	(void)arg;
	const char *method = json_string_value(json_object_get(m, "method"));
	return method && !strcmp(method, "client/registerCapability");
}

/* A client that can watch files is asked to watch the configs and Python modules (a module that
 * comes or goes drops the modules the server keeps); one that cannot is asked nothing. */
Test(lsp_cfg, configs_are_watched_where_the_client_can)
{
	struct srv s;
	srv_start(&s, NULL);
	json_decref(srv_init(&s, json_pack("{s:{s:{s:b}}}", "workspace", "didChangeWatchedFiles", "dynamicRegistration", 1)));
	json_t *m = srv_take(&s, is_register, NULL);
	cr_assert_not_null(m, "no client/registerCapability");
	json_t *id = json_object_get(m, "id");
	cr_expect(json_is_string(id) || json_is_integer(id));
	json_t *want = json_pack("{s:[{s:s, s:s, s:{s:[{s:s}, {s:s}, {s:s}]}}]}", "registrations", "id",
				 "cglint-configs", "method", "workspace/didChangeWatchedFiles", "registerOptions", "watchers",
				 "globPattern", "**/.cglint.yaml", "globPattern", "**/.cglint.yml", "globPattern", "**/*.py");
	cr_expect(json_equal(json_object_get(m, "params"), want), "%s", json_dumps(m, JSON_COMPACT));
	json_decref(want);
	/* the client's answer is taken quietly */
	srv_send(&s, json_pack("{s:s, s:O, s:n}", "jsonrpc", "2.0", "id", id, "result"));
	json_decref(m);
	cr_expect_eq(srv_stop(&s), 0);

	srv_start(&s, NULL);
	json_decref(srv_init(&s, NULL));
	srv_request(&s, 1, "textDocument/hover",
		    json_pack("{s:{s:s}, s:o}", "textDocument", "uri", "file:///nowhere.yaml", "position", position(0, 0)));
	json_decref(srv_result(&s, 1));
	size_t k;
	json_array_foreach(s.queue, k, m)
		cr_expect(!is_register(m, NULL), "a registration the client cannot take");
	cr_expect_eq(srv_stop(&s), 0);
}

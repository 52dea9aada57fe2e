/* SPDX-License-Identifier: MIT */
/*
 * report: what issue 17 added to the outputs, end to end through the cglint binary: the text
 * format's code frame (carets under the span, notes with their roles, fix, the rule's page,
 * colour), --format concise, SARIF fixes and suppressed findings kept with 'suppressions', JSON
 * edits and urls, and the GitLab and JUnit formats (a JUnit case fails only at or above
 * --fail-on). Their schemas are checked over every fixture by tests/formats/check.py.
 */
#define _GNU_SOURCE /* asprintf */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

TestSuite(report, .init = harness_init_git, .fini = harness_fini);

/* The impl on line 2, the tracker off on lines 3 and 5: CG101 fires at line 5 (rng.te_rng_tracker). */
static const char recipe[] =
	"model:\n"
	"  cuda_graph_impl: transformer_engine\n"
	"  use_te_rng_tracker: false\n"
	"rng:\n"
	"  te_rng_tracker: false\n";

#define HEAD101 "r.yaml:5:3: error: Transformer engine's RNG tracker is required for cudagraphs, it can be " \
		"enabled with use_te_rng_tracker=True'. [CG101 te-rng-tracker-required]\n"

static json_t *run_json(const char *args)
{
	char *out = NULL;
	harness_run(harness_dir, args, &out);
	json_error_t err;
	json_t *doc = json_loads(out ? out : "", 0, &err);
	cr_assert_not_null(doc, "cglint %s printed no JSON: %s", args, out ? out : "");
	free(out);
	return doc;
}

Test(report, text_frame_underlines_the_key_and_shows_the_other_keys)
{
	harness_put("r.yaml", recipe);
	char *out = NULL;
	cr_expect_eq(harness_run(harness_dir, "--mcore 0.17 --color never r.yaml 2>/dev/null", &out), 1);
	const char *want =
		HEAD101
		"    5 |   te_rng_tracker: false\n"
		"      |   ^^^^^^^^^^^^^^\n"
		"    related: r.yaml:2:3: model.cuda_graph_impl is transformer_engine here, which the rule's condition reads\n"
		"    2 |   cuda_graph_impl: transformer_engine\n"
		"      |   ^^^^^^^^^^^^^^^\n"
		"    related: r.yaml:3:3: model.use_te_rng_tracker is False here, which the rule's condition reads\n"
		"    3 |   use_te_rng_tracker: false\n"
		"      |   ^^^^^^^^^^^^^^^^^^\n"
		"    fix: set rng.te_rng_tracker: true (Bridge copies it to model.use_te_rng_tracker); for Megatron "
		"Core's GPTModelConfig set model.use_te_rng_tracker: true\n"
		"    see: cglint explain CG101\n";
	cr_expect_str_eq(out, want, "\n--- got:\n%s--- wanted:\n%s", out, want);
	free(out);
}

Test(report, concise_is_one_line_per_finding)
{
	harness_put("r.yaml", recipe);
	char *out = NULL;
	cr_expect_eq(harness_run(harness_dir, "--mcore 0.17 --format concise --color always r.yaml 2>/dev/null", &out), 1);
	cr_expect_str_eq(out, "\033[1mr.yaml:5:3:\033[0m \033[1;31merror:\033[0m Transformer engine's RNG tracker is "
		"required for cudagraphs, it can be enabled with use_te_rng_tracker=True'. [CG101 te-rng-tracker-required]\n");
	free(out);
}

Test(report, color_always_paints_the_frame_and_never_does_not)
{
	harness_put("r.yaml", recipe);
	char *out = NULL;
	harness_run(harness_dir, "--mcore 0.17 --color always r.yaml 2>/dev/null", &out);
	cr_expect(strstr(out, "\033[1;34m    5 |\033[0m   te_rng_tracker: false\n"), "%s", out);
	cr_expect(strstr(out, "\033[1;31m^^^^^^^^^^^^^^\033[0m\n"), "%s", out);
	free(out);
	harness_run(harness_dir, "--mcore 0.17 --color never r.yaml 2>/dev/null", &out);
	cr_expect_null(strchr(out, '\033'), "%s", out);
	free(out);
	/* auto: not a terminal here, so no colour, NO_COLOR or not */
	harness_run(harness_dir, "--mcore 0.17 r.yaml 2>/dev/null", &out);
	cr_expect_null(strchr(out, '\033'), "%s", out);
	free(out);
}

Test(report, frame_counts_code_points)
{
	/* a multi-byte value before the finding's key on its line, in a flow mapping */
	harness_put("u.yaml", "model: {name: \"é\xE2\x82\xAC\", cuda_graph_impl: locl}\n");
	char *out = NULL;
	harness_run(harness_dir, "--mcore 0.17 --color never u.yaml 2>/dev/null", &out);
	cr_expect(strstr(out, "    1 | model: {name: \"é€\", cuda_graph_impl: locl}\n"
			      "      |                     ^^^^^^^^^^^^^^^\n"), "%s", out);
	free(out);
}

Test(report, json_carries_url_and_edits)
{
	harness_put("r.yaml", recipe);
	json_t *doc = run_json("--mcore 0.17 --format json r.yaml");
	json_t *d = json_array_get(json_object_get(doc, "diagnostics"), 0);
	/* a build without -DCGLINT_DOCS_URL, not installed: no address to give (tests/install has the page) */
	cr_expect(json_is_null(json_object_get(d, "url")), "url: %s", json_string_value(json_object_get(d, "url")));
	json_t *e = json_array_get(json_object_get(d, "edits"), 0);
	cr_assert_not_null(e);
	cr_expect_str_eq(json_string_value(json_object_get(e, "text")), "true");
	cr_expect_eq(json_integer_value(json_object_get(e, "offset")), (json_int_t)strlen(recipe) - 6);
	cr_expect_eq(json_integer_value(json_object_get(e, "length")), 5);
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(e, "start"), "line")), 5);
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(e, "start"), "column")), 19);
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(e, "end"), "column")), 24);
	json_decref(doc);
}

Test(report, sarif_fixes_and_suppressions)
{
	harness_put("r.yaml", "model:\n"
			      "  cuda_graph_impl: transformer_engine\n"
			      "  use_te_rng_tracker: false\n"
			      "rng:\n"
			      "  te_rng_tracker: false  # cglint: disable=CG101 -- checked by hand\n");
	json_t *log = run_json("--mcore 0.17 --format sarif r.yaml");
	json_t *r = json_array_get(json_object_get(json_array_get(json_object_get(log, "runs"), 0), "results"), 0);
	cr_assert_not_null(r);
	cr_expect_str_eq(json_string_value(json_object_get(r, "ruleId")), "CG101");
	json_t *s = json_array_get(json_object_get(r, "suppressions"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(s, "kind")), "inSource");
	cr_expect_str_eq(json_string_value(json_object_get(s, "justification")), "checked by hand");
	json_t *rep = json_array_get(json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(r, "fixes"), 0),
				     "artifactChanges"), 0), "replacements"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(rep, "insertedContent"), "text")), "true");
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(rep, "deletedRegion"), "startColumn")), 19);
	json_decref(log);
	/* the other formats leave it out */
	json_t *doc = run_json("--mcore 0.17 --format json r.yaml");
	cr_expect_eq(json_array_size(json_object_get(doc, "diagnostics")), 0);
	json_decref(doc);
	/* a baseline's findings are "external", with the baseline named */
	harness_put("r.yaml", recipe);
	char *out = NULL;
	cr_expect_eq(harness_run(harness_dir, "--mcore 0.17 --baseline b.json --write-baseline r.yaml 2>/dev/null", &out), 0);
	free(out);
	log = run_json("--mcore 0.17 --format sarif --baseline b.json r.yaml");
	r = json_array_get(json_object_get(json_array_get(json_object_get(log, "runs"), 0), "results"), 0);
	s = json_array_get(json_object_get(r, "suppressions"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(s, "kind")), "external");
	cr_expect_str_eq(json_string_value(json_object_get(s, "justification")), "recorded in the baseline b.json");
	json_decref(log);
}

Test(report, gitlab_and_junit)
{
	harness_put("r.yaml", recipe);
	json_t *gl = run_json("--mcore 0.17 --format gitlab r.yaml");
	cr_assert_eq(json_array_size(gl), 1);
	json_t *i = json_array_get(gl, 0);
	cr_expect_str_eq(json_string_value(json_object_get(i, "check_name")), "CG101");
	cr_expect_str_eq(json_string_value(json_object_get(i, "severity")), "major");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(i, "location"), "path")), "r.yaml");
	json_t *lines = json_object_get(json_object_get(i, "location"), "lines");   /* Code Climate: both ends */
	cr_expect_eq(json_integer_value(json_object_get(lines, "begin")), 5);
	cr_expect_eq(json_integer_value(json_object_get(lines, "end")), 5);
	json_decref(gl);
	char *out = NULL;
	cr_expect_eq(harness_run(harness_dir, "--mcore 0.17 --format junit r.yaml", &out), 1);
	cr_expect(strstr(out, "<testsuites name=\"cglint\" tests=\"1\" failures=\"1\" errors=\"0\">\n"
			      "  <testsuite name=\"r.yaml\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\">\n"
			      "    <testcase name=\"CG101 te-rng-tracker-required at 5:3\" classname=\"r.yaml\" "
			      "file=\"r.yaml\" line=\"5\">\n"
			      "      <failure type=\"error\" message=\"Transformer engine's"), "%s", out);
	free(out);
	harness_put("ok.yaml", "model:\n  cuda_graph_impl: none\n");
	cr_expect_eq(harness_run(harness_dir, "--format junit ok.yaml", &out), 0);
	cr_expect(strstr(out, "<testcase name=\"no findings\" classname=\"cglint\"/>"), "%s", out);
	free(out);
}

/* Issue 30 item 9: a note (below the default --fail-on error) is a passing test case with its text
 * as system-out; at --fail-on note it fails. */
Test(report, junit_fails_only_at_or_above_fail_on)
{
	harness_put("n.yaml", "model:\n  cuda_graph_impl: none\n  cuda_graph_scope: [full_iteration]\n");
	char *out = NULL;
	cr_expect_eq(harness_run(harness_dir, "--bridge 0.6 --format junit n.yaml", &out), 0);
	cr_expect(strstr(out, "<testsuites name=\"cglint\" tests=\"1\" failures=\"0\" errors=\"0\">") &&
		  strstr(out, "<testsuite name=\"n.yaml\" tests=\"1\" failures=\"0\"") && !strstr(out, "<failure"), "%s", out);
	cr_expect(strstr(out, "<testcase name=\"CG123 scope-without-graphs at 3:3\" classname=\"n.yaml\" file=\"n.yaml\" "
			      "line=\"3\">\n      <system-out>n.yaml:3:3: note: "), "%s", out);
	free(out);
	cr_expect_eq(harness_run(harness_dir, "--bridge 0.6 --fail-on note --format junit n.yaml", &out), 1);
	cr_expect(strstr(out, "failures=\"1\"") && strstr(out, "<failure type=\"note\"") && !strstr(out, "system-out"),
		  "%s", out);
	free(out);
}

/* SPDX-License-Identifier: MIT */
/*
 * sarif: the SARIF format, end to end on a copy of fixtures/examples in a project of its own
 * (outs.h) and on diagnostics made by hand: the log, the rules' descriptors, results, regions,
 * URIs relative to the root, fingerprints. The GitHub format and project-relative paths are
 * test_out.c.
 */
#define _XOPEN_SOURCE 700       /* realpath, symlink */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/mem.h"
#include "config/pack.h"
#include "config/target.h"
#include "harness.h"
#include "input/text.h"
#include "outs.h"
#include "report/formats.h"
#include "report/out.h"

TestSuite(sarif, .init = outs_setup, .fini = outs_teardown);

/* ---- running it ---- */

static json_t *run_format(const char *cwd, const char *format, const char *args, int *rc)
{
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "--format %s %s", format, args);
	char *out = NULL;
	*rc = harness_run(cwd, cmd, &out);
	json_error_t err;
	json_t *doc = out ? json_loads(out, 0, &err) : NULL;
	cr_assert_not_null(doc, "cglint %s printed no JSON: %s", cmd, out ? out : "");
	free(out);
	return doc;
}

static json_t *run_sarif(const char *cwd, const char *args, int *rc)
{
	return run_format(cwd, "sarif", args, rc);
}

/* The result of 'rule' at 'uri', which must exist. */
static json_t *result(json_t *log, const char *rule, const char *uri)
{
	size_t k;
	json_t *r;
	json_array_foreach(outs_at(log, "runs.0.results"), k, r)
		if (!strcmp(outs_str(r, "ruleId"), rule) && !strcmp(outs_str(r, "locations.0.physicalLocation.artifactLocation.uri"), uri))
			return r;
	cr_assert_fail("no %s result at %s", rule, uri);
	return NULL;
}

static void expect_region(json_t *loc, long long line, long long col, long long end)
{
	cr_expect_eq(outs_num(loc, "physicalLocation.region.startLine"), line);
	cr_expect_eq(outs_num(loc, "physicalLocation.region.startColumn"), col);
	cr_expect_eq(outs_num(loc, "physicalLocation.region.endColumn"), end, "endColumn %lld, expected %lld",
		     outs_num(loc, "physicalLocation.region.endColumn"), end);
}

/* ---- SARIF ---- */

Test(sarif, log_run_and_tool)
{
	int rc;
	json_t *log = run_sarif(outs_dir, "examples", &rc);
	cr_expect_eq(rc, 1);
	cr_expect_str_eq(outs_str(log, "$schema"), "https://json.schemastore.org/sarif-2.1.0.json");
	cr_expect_str_eq(outs_str(log, "version"), "2.1.0");
	cr_expect_eq(json_array_size(outs_at(log, "runs")), 1);
	cr_expect_str_eq(outs_str(log, "runs.0.tool.driver.name"), "cglint");
	cr_expect_str_eq(outs_str(log, "runs.0.tool.driver.semanticVersion"), CGLINT_VERSION);
	/* no address that does not exist: the build was given none (-DCGLINT_DOCS_URL=) */
	cr_expect_null(outs_at(log, "runs.0.tool.driver.informationUri"));
	cr_expect_null(outs_at(log, "runs.0.tool.driver.rules.0.helpUri"));
	cr_expect_str_eq(outs_str(log, "runs.0.columnKind"), "unicodeCodePoints");
	char uri[PATH_MAX + 16];
	snprintf(uri, sizeof(uri), "file://%s/", outs_root);
	cr_expect_str_eq(outs_str(log, "runs.0.originalUriBaseIds.%SRCROOT%.uri"), uri);
	cr_expect(json_is_true(outs_at(log, "runs.0.invocations.0.executionSuccessful")));
	json_decref(log);
}

/* Whitespace runs as one space, trimmed: how descriptions are written. */
static char *collapse(const char *s)
{
	char *out = malloc(strlen(s) + 1);
	size_t n = 0;
	for (; *s; s++)
		if (!strchr(" \t\n\r", *s))
			out[n++] = *s;
		else if (n && out[n - 1] != ' ')
			out[n++] = ' ';
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	return out;
}

static const char *category(const char *id)
{
	switch (id[2]) {
	case '1': return "config";
	case '2': return "environment";
	case '3':
	case '4': return "source";
	case '9': return "input";
	default: return NULL;
	}
}

/* Whether some result of 'log' names rule 'id'. */
static bool fired(json_t *log, const char *id)
{
	size_t k;
	json_t *r;
	json_array_foreach(outs_at(log, "runs.0.results"), k, r)
		if (!strcmp(outs_str(r, "ruleId"), id))
			return true;
	return false;
}

/* A result of rule 'id' that is a finding (reported or suppressed), not an undecided check. */
static bool reported(json_t *log, const char *id)
{
	size_t k;
	json_t *r;
	json_array_foreach(outs_at(log, "runs.0.results"), k, r)
		if (!strcmp(outs_str(r, "ruleId"), id) && strcmp(outs_str(r, "kind"), "open"))
			return true;
	return false;
}

/* Relationships (issue 30 item 9): each names another rule of the packs, kind "relevant", with the
 * index of its descriptor exactly when this run carries one. Returns how many 'd' has. */
static size_t expect_relationships(const struct pack *p, json_t *rules, json_t *d)
{
	const char *id = outs_str(d, "id");
	size_t k, n = 0;
	json_t *rel;
	json_array_foreach(json_object_get(d, "relationships"), k, rel)
	{
		const char *to = outs_str(rel, "target.id");
		n++;
		cr_expect_neq(strcmp(to, id), 0, "%s is related to itself", id);
		cr_expect_not_null(pack_find(p, to), "%s is related to %s, no rule of the packs", id, to);
		cr_expect_str_eq(outs_str(rel, "kinds.0"), "relevant");
		json_t *index = outs_at(rel, "target.index"), *there = NULL, *x;
		size_t i;
		json_array_foreach(rules, i, x)
			if (!strcmp(outs_str(x, "id"), to))
				there = x;
		if (there)
			cr_expect(json_is_integer(index) && !strcmp(outs_str(json_array_get(rules, (size_t)json_integer_value(index)), "id"), to),
				  "%s -> %s: the index does not name its descriptor", id, to);
		else
			cr_expect_null(index, "%s -> %s: an index, yet the run has no descriptor of %s", id, to, to);
	}
	return n;
}

/* A descriptor for each rule that fired, once, sorted; none for the rest of the pack. A rule that
 * only an undecided check names is identified, without its doc, help or relationships. */
Test(sarif, one_descriptor_per_rule_that_fired)
{
	struct pack *p = pack_new();
	pack_load_builtin(p);
	int rc;
	json_t *log = run_sarif(outs_dir, "examples " CGLINT_FIXTURES "/config " CGLINT_FIXTURES "/mlm", &rc);
	json_t *rules = outs_at(log, "runs.0.tool.driver.rules");
	size_t distinct = 0, cut = 0, related = 0, bare = 0;
	for (size_t k = 0; k < p->n_rules; k++) {
		size_t i = 0;
		while (i < k && strcmp(p->rules[i]->head.id, p->rules[k]->head.id))
			i++;
		distinct += i == k && fired(log, p->rules[k]->head.id);
	}
	cr_assert_gt(distinct, 60, "the config and mlm fixtures fire %zu rules", distinct);
	int mcore = target_newest_release();    /* the default target, and the Bridge that ships it */
	const struct target newest[] = {{.mcore = mcore, .bridge = target_default_bridge(mcore)},
					{.mcore = mcore, .bridge = TARGET_NO_BRIDGE}};
	cr_assert_eq(json_array_size(rules), distinct, "%zu descriptors for %zu rule ids that fired",
		     json_array_size(rules), distinct);
	size_t k;
	json_t *d;
	const char *prev = "";
	json_array_foreach(rules, k, d)
	{
		const char *id = outs_str(d, "id");
		cr_expect_lt(strcmp(prev, id), 0, "%s after %s: ids sorted, each once", id, prev);
		cr_expect(fired(log, id), "%s has a descriptor but no result", id);
		prev = id;
		/* the variant for the run's target, the newest MCore: with its Bridge, or (launch scripts) none */
		const struct rule *r = NULL;
		for (int t = 0; t < 2 && !r; t++)
			for (size_t i = 0; i < p->n_rules && !r; i++)
				if (!strcmp(p->rules[i]->head.id, id) &&
				    pack_applies(&p->rules[i]->mcore, &p->rules[i]->bridge, &newest[t]))
					r = p->rules[i];
		cr_assert_not_null(r, "%s is not a rule of the pack", id);
		cr_expect_str_eq(outs_str(d, "name"), r->head.name);
		const char *shrt = outs_str(d, "shortDescription.text"), *full = outs_str(d, "fullDescription.text");
		cr_expect(*shrt && strlen(shrt) <= 1024, "%s: shortDescription '%s'", id, shrt);
		cr_expect_str_eq(outs_str(d, "defaultConfiguration.level"), diag_sev_name(r->head.sev));
		if (!reported(log, id)) {
			bare++;
			cr_expect_str_eq(outs_str(d, "fullDescription.text"), shrt, "%s: only undecided, yet described whole", id);
			cr_expect(strstr(outs_str(d, "help.text"), "cglint explain") && !outs_at(d, "relationships"),
				  "%s: only undecided, yet described whole", id);
			continue;
		}
		related += expect_relationships(p, rules, d);
		cr_expect(*full && strlen(full) <= 1024, "%s: fullDescription of %zu bytes", id, strlen(full));
		char *msg = collapse(r->message), *doc = collapse(r->doc ? r->doc : "");
		cr_expect_str_eq(shrt, msg);
		size_t fn = strlen(full);
		if (fn >= 3 && !strcmp(full + fn - 3, "\xE2\x80\xA6")) {
			/* cut at a word: the doc goes on with a space where the description stops */
			cut++;
			cr_expect(strlen(doc) > 1024 && !strncmp(doc, full, fn - 3) && doc[fn - 3] == ' ', "%s: cut '%s'",
				  id, full);
		} else {
			cr_expect_str_eq(full, doc);
		}
		const char *help = outs_str(d, "help.text"), *md = outs_str(d, "help.markdown");
		const char *lead = r->doc && *r->doc ? r->doc : r->message;     /* the doc, as written */
		size_t ln = strlen(lead);
		while (ln && strchr(" \n", lead[ln - 1]))
			ln--;
		cr_expect(!strncmp(help, lead, ln) && (!help[ln] || help[ln] == '\n'), "%s: help.text '%.60s'", id, help);
		cr_expect(*md, "%s: help.markdown", id);
		if (r->head.fix) {
			char want[1024];
			snprintf(want, sizeof(want), "\n\nFix: %s", r->head.fix);
			cr_expect(strstr(help, want), "%s: help.text has no fix", id);
			cr_expect(strstr(md, "\n\n**Fix:** "), "%s: help.markdown has no fix", id);
		}
		for (size_t m = 0; m < r->n_mirrors; m++) {
			char want[1024];
			snprintf(want, sizeof(want), "\n- %s: %s", r->mirrors[m].label, r->mirrors[m].where);
			cr_expect(strstr(help, want), "%s: help.text lacks '%s'", id, want);
		}
		cr_expect_str_eq(outs_str(d, "properties.tags.0"), "cuda-graphs");
		const char *cat = category(id);
		if (cat)
			cr_expect_str_eq(outs_str(d, "properties.tags.1"), cat, "%s", id);
		cr_expect_str_eq(outs_str(d, "properties.precision"), "high");
		free(msg);
		free(doc);
	}
	cr_expect_gt(cut, 0, "no long doc was cut (CG101's is over 1024 bytes)");
	cr_expect_gt(related, 5, "%zu relationships: the rules' docs name one another", related);
	cr_expect_gt(bare, 0, "no rule was named by an undecided check alone");
	cr_expect_str_eq(outs_str(result(log, "CG132", "examples/llama3_8b_te_scoped.yaml"), "ruleId"), "CG132");
	json_decref(log);
	pack_free(p);
}

/* Sized for CI (issue 30 item 9): a report of 3 findings (and 11 undecided checks) carries only
 * their rules, not the packs' 137 (365 KB before). */
Test(sarif, a_few_findings_make_a_small_report)
{
	char *out = NULL;
	cr_assert_eq(harness_run(outs_dir, "--format sarif examples/nemotron_full_recompute.yaml 2>/dev/null", &out), 1);
	json_error_t err;
	json_t *log = json_loads(out, 0, &err);
	cr_assert_not_null(log, "%s", err.text);
	size_t findings = 0, k;
	json_t *r;
	json_array_foreach(outs_at(log, "runs.0.results"), k, r)
		findings += strcmp(outs_str(r, "kind"), "open") != 0;
	cr_expect_eq(findings, 3);
	cr_expect_lt(strlen(out), 48u << 10, "%zu bytes of SARIF for 3 findings", strlen(out));
	json_decref(log);
	free(out);
}

Test(sarif, results_agree_with_json)
{
	int rc_s, rc_j;
	json_t *log = run_sarif(outs_dir, "examples", &rc_s), *doc;
	rc_j = harness_run_json(outs_dir, "examples", &doc);
	cr_assert_not_null(doc);
	cr_expect_eq(rc_s, rc_j);
	json_t *diags = json_object_get(doc, "diagnostics"), *results = outs_at(log, "runs.0.results");
	json_t *rules = outs_at(log, "runs.0.tool.driver.rules");
	/* the findings, then the undecided checks as results of kind "open" */
	json_t *open = json_object_get(doc, "undecided");
	size_t nd = json_array_size(diags);
	cr_assert_gt(nd, 10);
	cr_assert_gt(json_array_size(open), 0);
	cr_assert_eq(json_array_size(results), nd + json_array_size(open));
	size_t k;
	json_t *r;
	json_array_foreach(results, k, r)
	{
		json_t *d = k < nd ? json_array_get(diags, k) : json_array_get(open, k - nd);
		const char *id = outs_str(d, "rule");
		cr_expect_str_eq(outs_str(r, "ruleId"), id);
		cr_expect_str_eq(outs_str(json_array_get(rules, (size_t)outs_num(r, "ruleIndex")), "id"), id, "result %zu", k);
		cr_expect_str_eq(outs_str(r, "level"), k < nd ? outs_str(d, "severity") : "none");
		cr_expect_str_eq(k < nd ? "fail" : outs_str(r, "kind"), k < nd ? "fail" : "open");
		cr_expect(k < nd ? !json_object_get(r, "kind") : 1, "a finding's kind is SARIF's default, fail");
		char msg[2048];
		if (json_is_string(json_object_get(d, "fix")))
			snprintf(msg, sizeof(msg), "%s Fix: %s", outs_str(d, "message"), outs_str(d, "fix"));
		else
			snprintf(msg, sizeof(msg), "%s", outs_str(d, "message"));
		cr_expect_str_eq(outs_str(r, "message.text"), msg);
		json_t *loc = outs_at(r, "locations.0");
		const char *uri = outs_str(loc, "physicalLocation.artifactLocation.uri");
		cr_expect_str_eq(uri, outs_str(d, "path")); /* run from the root: the same relative path */
		cr_expect(uri[0] != '/' && !strstr(uri, "..") && !strchr(uri, ':'), "uri %s", uri);
		cr_expect_str_eq(outs_str(loc, "physicalLocation.artifactLocation.uriBaseId"), "%SRCROOT%");
		cr_expect_eq(outs_num(loc, "physicalLocation.region.startLine"), outs_num(d, "line"));
		cr_expect_eq(outs_num(loc, "physicalLocation.region.startColumn"), outs_num(d, "column"));
		cr_expect_geq(outs_num(loc, "physicalLocation.region.startLine"), 1);
		cr_expect_geq(outs_num(loc, "physicalLocation.region.startColumn"), 1);
		long long end = outs_num(loc, "physicalLocation.region.endColumn");
		cr_expect(end == -999 || end > outs_num(loc, "physicalLocation.region.startColumn"), "endColumn %lld", end);
		cr_expect_eq(json_array_size(json_object_get(r, "relatedLocations")),
			     json_array_size(json_object_get(d, "notes")));
		if (json_is_string(json_object_get(d, "fingerprint")))  /* once the post stage sets it */
			cr_expect_str_eq(outs_str(r, "partialFingerprints.cglintFingerprint/v1"), outs_str(d, "fingerprint"));
		else
			cr_expect_null(json_object_get(r, "partialFingerprints"));
	}
	json_decref(log);
	json_decref(doc);
}

Test(sarif, regions_end_where_the_word_ends)
{
	int rc;
	json_t *log = run_sarif(outs_dir, "examples", &rc);
	json_t *r = result(log, "CG307", "examples/capture.cu");
	expect_region(outs_at(r, "locations.0"), 11, 2, 7);             /* scale<<< */
	json_t *rel = outs_at(r, "relatedLocations.0");
	expect_region(rel, 24, 2, 11);                                  /* normalize(x) */
	cr_expect_str_eq(outs_str(rel, "physicalLocation.artifactLocation.uri"), "examples/capture.cu");
	cr_expect_str_eq(outs_str(rel, "message.text"), "called from here, inside the capture begun at line 21");
	cr_expect_eq(outs_num(rel, "id"), 0);
	expect_region(outs_at(result(log, "CG104", "examples/deepseek_v3_moe_scopes.yaml"), "locations.0"), 10, 3,
		      19);                                              /* cuda_graph_scope */
	expect_region(outs_at(result(log, "CG201", "examples/moe_te_graphs.sbatch"), "locations.0"), 9, 32,
		      51);                                              /* expandable_segments */
	json_decref(log);
}

Test(sarif, columns_count_code_points)
{
	/* YAML columns are code points already; C columns are bytes and become code points */
	outs_put("u.yaml", "model: {x: \"\xC3\xA9\xC3\xA9\", cuda_graph_impl: locl}\n");
	outs_put("u.cu", "#include <cuda_runtime.h>\nvoid f(cudaStream_t s)\n{\n\tcudaGraph_t g;\n"
		 "\tcudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
		 "\t/* \xC3\xA9 */ cudaStreamSynchronize(s);\n\tif (cudaStreamEndCapture(s, &g) == cudaSuccess)\n"
		 "\t\tcudaGraphDestroy(g);\n}\n");
	int rc;
	json_t *log = run_sarif(outs_dir, "u.yaml u.cu", &rc), *doc;
	harness_run_json(outs_dir, "u.cu", &doc);
	cr_assert_not_null(doc);
	cr_expect_eq(outs_num(doc, "diagnostics.0.column"), 11, "the C column counts bytes");
	expect_region(outs_at(result(log, "CG121", "u.yaml"), "locations.0"), 1, 18, 33); /* cuda_graph_impl */
	expect_region(outs_at(result(log, "CG301", "u.cu"), "locations.0"), 6, 10, 31); /* cudaStreamSynchronize */
	json_decref(log);
	json_decref(doc);
}

Test(sarif, paths_are_relative_to_the_root_from_a_subfolder)
{
	char sub[PATH_MAX];
	snprintf(sub, sizeof(sub), "%s/examples", outs_dir);
	int rc;
	json_t *log = run_sarif(sub, "deepseek_v3_moe_scopes.yaml ./../examples/llama3_8b_te_scoped.yaml", &rc);
	cr_expect_eq(rc, 1);
	result(log, "CG104", "examples/deepseek_v3_moe_scopes.yaml");
	result(log, "CG132", "examples/llama3_8b_te_scoped.yaml");
	json_decref(log);
}

Test(sarif, odd_names_stdin_command_line_and_outside_files)
{
	char args[PATH_MAX + 64], want[PATH_MAX + 64];
	harness_system("mkdir '%s/odd dir \xC3\xBC#' && cp '%s/examples/llama3_8b_te_scoped.yaml' '%s/odd dir \xC3\xBC#/a:b%%c.yaml'"
		       " && cp '%s/examples/llama3_8b_te_scoped.yaml' '%s/out.yaml'", outs_dir, outs_dir, outs_dir, outs_dir,
		       outs_outside);
	int rc;
	snprintf(args, sizeof(args), "'odd dir \xC3\xBC#/a:b%%c.yaml' '%s/out.yaml'", outs_outside);
	json_t *log = run_sarif(outs_dir, args, &rc);
	json_t *r = result(log, "CG132", "odd%20dir%20%C3%BC%23/a%3Ab%25c.yaml");
	cr_expect_str_eq(outs_str(r, "locations.0.physicalLocation.artifactLocation.uriBaseId"), "%SRCROOT%");
	snprintf(want, sizeof(want), "file://%s/out.yaml", outs_outside);
	r = result(log, "CG132", want);
	cr_expect_null(outs_at(r, "locations.0.physicalLocation.artifactLocation.uriBaseId"), "an absolute URI has no base");
	json_decref(log);

	log = run_sarif(outs_dir, "- < examples/llama3_8b_te_scoped.yaml", &rc);
	result(log, "CG132", "%3Cstdin%3E");
	json_decref(log);
	log = run_sarif(outs_dir, "--stdin-filename examples/new.yaml - < examples/llama3_8b_te_scoped.yaml", &rc);
	result(log, "CG132", "examples/new.yaml");
	json_decref(log);

	/* "<command line>" is no URI; percent-encoded it is, and names what the other formats name */
	log = run_sarif(outs_dir, "examples/llama3_8b_te_scoped.yaml model.cuda_graph_impl=locl", &rc);
	r = result(log, "CG121", "%3Ccommand%20line%3E");
	cr_expect_str_eq(outs_str(r, "locations.0.physicalLocation.artifactLocation.uriBaseId"), "%SRCROOT%");
	cr_expect_eq(outs_num(r, "locations.0.physicalLocation.region.startLine"), 1);
	cr_expect_eq(outs_num(r, "locations.0.physicalLocation.region.startColumn"), 1);
	json_decref(log);
}

Test(sarif, no_findings_no_descriptors)
{
	/* every check decided: nothing to describe */
	outs_put("ok.yaml", "model:\n  cuda_graph_impl: none\n  inference_cuda_graph_scope: none\n");
	int rc;
	json_t *log = run_sarif(outs_dir, "ok.yaml", &rc);
	cr_expect_eq(rc, 0);
	cr_expect(json_is_array(outs_at(log, "runs.0.results")));
	cr_expect_eq(json_array_size(outs_at(log, "runs.0.results")), 0);
	cr_expect(json_is_array(outs_at(log, "runs.0.tool.driver.rules")));
	cr_expect_eq(json_array_size(outs_at(log, "runs.0.tool.driver.rules")), 0);
	json_decref(log);
	/* one undecided check: a result of kind "open" and its rule's descriptor, exit 0 */
	outs_put("open.yaml", "model:\n  cuda_graph_impl: none\n");
	log = run_sarif(outs_dir, "open.yaml", &rc);
	cr_expect_eq(rc, 0);
	cr_assert_eq(json_array_size(outs_at(log, "runs.0.results")), 1);
	cr_expect_str_eq(outs_str(log, "runs.0.results.0.ruleId"), "CG150");
	cr_expect_str_eq(outs_str(log, "runs.0.results.0.kind"), "open");
	cr_expect_str_eq(outs_str(log, "runs.0.results.0.level"), "none");
	cr_expect_eq(json_array_size(outs_at(log, "runs.0.tool.driver.rules")), 1);
	json_decref(log);
}

Test(sarif, fingerprints_notes_and_bytes_that_are_not_utf8)
{
	cr_assert_eq(chdir(outs_dir), 0);
	struct pack *p = pack_new();
	pack_load_builtin(p);
	struct arena *a = arena_new();
	struct diag_list l;
	diag_init(&l, a, &p->lookup, NULL);
	static const struct diag_note notes[] = {{{"gone.cu", 3, 2}, "the capture began here"}};
	diag_report(&l, pack_find(p, "CG101"), (struct loc){"gone.yaml", 0, 0}, "value 'x\xFFy'", NULL, NULL);
	diag_report(&l, pack_find(p, "CG301"), (struct loc){"gone.cu", 7, 4}, "m", "f", NULL);
	l.items[0].fingerprint = "0123456789abcdef";
	l.items[1].notes = notes;
	l.items[1].n_notes = 1;
	char *out = outs_print(&out_sarif, &l, false);
	json_error_t err;
	json_t *log = json_loads(out, 0, &err);
	cr_assert_not_null(log, "%s: %s", err.text, out);
	json_t *rules = outs_at(log, "runs.0.tool.driver.rules"), *r0 = outs_at(log, "runs.0.results.0"),
	       *r1 = outs_at(log, "runs.0.results.1");
	cr_expect_str_eq(outs_str(r0, "partialFingerprints.cglintFingerprint/v1"), "0123456789abcdef");
	cr_expect_null(json_object_get(r1, "partialFingerprints"));
	cr_expect_str_eq(outs_str(r0, "message.text"), "value 'x\xEF\xBF\xBDy'");
	cr_expect_str_eq(outs_str(json_array_get(rules, (size_t)outs_num(r0, "ruleIndex")), "id"), "CG101");
	cr_expect_str_eq(outs_str(json_array_get(rules, (size_t)outs_num(r1, "ruleIndex")), "id"), "CG301");
	cr_expect_str_eq(outs_str(r0, "locations.0.physicalLocation.artifactLocation.uri"), "gone.yaml");
	expect_region(outs_at(r0, "locations.0"), 1, 1, -999);  /* line 0: the file; unreadable: no end */
	cr_expect_str_eq(outs_str(r1, "message.text"), "m Fix: f");
	expect_region(outs_at(r1, "locations.0"), 7, 4, -999);
	expect_region(outs_at(r1, "relatedLocations.0"), 3, 2, -999);
	cr_expect_str_eq(outs_str(r1, "relatedLocations.0.message.text"), "the capture began here");
	json_decref(log);
	free(out);
	diag_release(&l);
	arena_free(a);
	pack_free(p);
}

Test(sarif, regions_from_the_texts_the_run_read)
{
	cr_assert_eq(chdir(outs_dir), 0);
	outs_put("disk.yaml", "model:\n  cuda_graph_impl: none\n");      /* not what was linted */
	struct pack *p = pack_new();
	pack_load_builtin(p);
	struct arena *a = arena_new();
	struct diag_list l;
	diag_init(&l, a, &p->lookup, NULL);
	struct text_store *texts = text_store_new();
	static const char yaml[] = "model:\n  x: 1\n", src[] = "a\r\n\tcudaDeviceSynchronize();\r\n";
	text_put(texts, "disk.yaml", yaml, strlen(yaml));
	text_put(texts, "<stdin>", src, strlen(src));
	diag_report(&l, pack_find(p, "CG101"), (struct loc){"disk.yaml", 2, 3}, "m", NULL, NULL);
	diag_report(&l, pack_find(p, "CG301"), (struct loc){"<stdin>", 2, 2}, "m", NULL, NULL);
	static const struct target tgt = {.mcore = 190, .bridge = 60};
	char *out;
	size_t n;
	struct out_ctx o = {.f = open_memstream(&out, &n), .target = &tgt, .texts = texts};
	out_print(&out_sarif, &o, &l);
	fclose(o.f);
	json_error_t err;
	json_t *log = json_loads(out, 0, &err);
	cr_assert_not_null(log, "%s", err.text);
	expect_region(outs_at(log, "runs.0.results.0.locations.0"), 2, 3, 4);  /* x */
	expect_region(outs_at(log, "runs.0.results.1.locations.0"), 2, 2, 23); /* cudaDeviceSynchronize */
	cr_expect_str_eq(outs_str(log, "runs.0.results.1.locations.0.physicalLocation.artifactLocation.uri"), "%3Cstdin%3E");
	json_decref(log);
	free(out);
	text_store_free(texts);
	diag_release(&l);
	arena_free(a);
	pack_free(p);
}

/* SPDX-License-Identifier: MIT */
/*
 * out: the SARIF and GitHub formats and paths relative to the project root. End-to-end tests run
 * cglint in a temporary project (a folder with .git) holding a copy of fixtures/examples, so every
 * path, URI and the root are known exactly; the others print diagnostics made by hand. Criterion
 * runs each test in a process of its own, so a test may chdir() before the root is first asked for.
 */
#define _XOPEN_SOURCE 700       /* realpath, symlink */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "harness.h"
#include "base/mem.h"
#include "config/pack.h"
#include "config/target.h"
#include "input/text.h"
#include "report/formats.h"
#include "report/out.h"

static char base[] = "/tmp/cglint-out-XXXXXX";     /* holds the project and what lies outside it */
static char dir[64];            /* the project: base/proj, with .git and examples/ */
static char outside[PATH_MAX];  /* base/outside, resolved */
static char root[PATH_MAX];     /* 'dir' as getcwd() names it there */

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static void setup(void)
{
	strcpy(base, "/tmp/cglint-out-XXXXXX");
	cr_assert_not_null(mkdtemp(base));
	snprintf(dir, sizeof(dir), "%s/proj", base);
	sh("mkdir -p '%s/.git' '%s/outside' && cp -R '%s/examples' '%s/examples'", dir, base, CGLINT_FIXTURES, dir);
	cr_assert_not_null(realpath(dir, root));
	char o[PATH_MAX];
	snprintf(o, sizeof(o), "%s/outside", base);
	cr_assert_not_null(realpath(o, outside));
}

static void teardown(void)
{
	cr_assert_eq(chdir("/"), 0);
	sh("rm -rf '%s'", base);
}

TestSuite(sarif, .init = setup, .fini = teardown);
TestSuite(github, .init = setup, .fini = teardown);
TestSuite(relpath, .init = setup, .fini = teardown);

static void write_str(const char *name, const char *text)
{
	free(harness_write(dir, name, text, strlen(text)));
}

/* ---- JSON access: "runs.0.tool.driver.name" ---- */

static json_t *at(json_t *j, const char *path)
{
	char copy[256];
	snprintf(copy, sizeof(copy), "%s", path);
	for (char *save, *tok = strtok_r(copy, ".", &save); tok && j; tok = strtok_r(NULL, ".", &save))
		j = json_is_array(j) ? json_array_get(j, strtoul(tok, NULL, 10)) : json_object_get(j, tok);
	return j;
}

static const char *str(json_t *j, const char *path)
{
	const char *s = json_string_value(at(j, path));
	return s ? s : "(missing)";
}

static long long num(json_t *j, const char *path)
{
	json_t *v = at(j, path);
	return json_is_integer(v) ? json_integer_value(v) : -999;
}

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
	json_array_foreach(at(log, "runs.0.results"), k, r)
		if (!strcmp(str(r, "ruleId"), rule) && !strcmp(str(r, "locations.0.physicalLocation.artifactLocation.uri"), uri))
			return r;
	cr_assert_fail("no %s result at %s", rule, uri);
	return NULL;
}

static void expect_region(json_t *loc, long long line, long long col, long long end)
{
	cr_expect_eq(num(loc, "physicalLocation.region.startLine"), line);
	cr_expect_eq(num(loc, "physicalLocation.region.startColumn"), col);
	cr_expect_eq(num(loc, "physicalLocation.region.endColumn"), end, "endColumn %lld, expected %lld",
		     num(loc, "physicalLocation.region.endColumn"), end);
}

/* ---- SARIF ---- */

Test(sarif, log_run_and_tool)
{
	int rc;
	json_t *log = run_sarif(dir, "examples", &rc);
	cr_expect_eq(rc, 1);
	cr_expect_str_eq(str(log, "$schema"), "https://json.schemastore.org/sarif-2.1.0.json");
	cr_expect_str_eq(str(log, "version"), "2.1.0");
	cr_expect_eq(json_array_size(at(log, "runs")), 1);
	cr_expect_str_eq(str(log, "runs.0.tool.driver.name"), "cglint");
	cr_expect_str_eq(str(log, "runs.0.tool.driver.semanticVersion"), CGLINT_VERSION);
	/* no address that does not exist: the build was given none (-DCGLINT_DOCS_URL=) */
	cr_expect_null(at(log, "runs.0.tool.driver.informationUri"));
	cr_expect_null(at(log, "runs.0.tool.driver.rules.0.helpUri"));
	cr_expect_str_eq(str(log, "runs.0.columnKind"), "unicodeCodePoints");
	char uri[PATH_MAX + 16];
	snprintf(uri, sizeof(uri), "file://%s/", root);
	cr_expect_str_eq(str(log, "runs.0.originalUriBaseIds.%SRCROOT%.uri"), uri);
	cr_expect(json_is_true(at(log, "runs.0.invocations.0.executionSuccessful")));
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
	json_array_foreach(at(log, "runs.0.results"), k, r)
		if (!strcmp(str(r, "ruleId"), id))
			return true;
	return false;
}

/* A result of rule 'id' that is a finding (reported or suppressed), not an undecided check. */
static bool reported(json_t *log, const char *id)
{
	size_t k;
	json_t *r;
	json_array_foreach(at(log, "runs.0.results"), k, r)
		if (!strcmp(str(r, "ruleId"), id) && strcmp(str(r, "kind"), "open"))
			return true;
	return false;
}

/* Relationships (issue 30 item 9): each names another rule of the packs, kind "relevant", with the
 * index of its descriptor exactly when this run carries one. Returns how many 'd' has. */
static size_t expect_relationships(const struct pack *p, json_t *rules, json_t *d)
{
	const char *id = str(d, "id");
	size_t k, n = 0;
	json_t *rel;
	json_array_foreach(json_object_get(d, "relationships"), k, rel)
	{
		const char *to = str(rel, "target.id");
		n++;
		cr_expect_neq(strcmp(to, id), 0, "%s is related to itself", id);
		cr_expect_not_null(pack_find(p, to), "%s is related to %s, no rule of the packs", id, to);
		cr_expect_str_eq(str(rel, "kinds.0"), "relevant");
		json_t *index = at(rel, "target.index"), *there = NULL, *x;
		size_t i;
		json_array_foreach(rules, i, x)
			if (!strcmp(str(x, "id"), to))
				there = x;
		if (there)
			cr_expect(json_is_integer(index) && !strcmp(str(json_array_get(rules, (size_t)json_integer_value(index)), "id"), to),
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
	json_t *log = run_sarif(dir, "examples " CGLINT_FIXTURES "/config " CGLINT_FIXTURES "/mlm", &rc);
	json_t *rules = at(log, "runs.0.tool.driver.rules");
	size_t distinct = 0, cut = 0, related = 0, bare = 0;
	for (size_t k = 0; k < p->n_rules; k++) {
		size_t i = 0;
		while (i < k && strcmp(p->rules[i]->head.id, p->rules[k]->head.id))
			i++;
		distinct += i == k && fired(log, p->rules[k]->head.id);
	}
	cr_assert_gt(distinct, 60, "the config and mlm fixtures fire %zu rules", distinct);
	int mcore = 0;  /* the default target: the newest MCore and the Bridge that ships it */
	for (const int *v = target_mcore_supported; *v; v++)
		mcore = *v;
	const struct target newest[] = {{.mcore = mcore, .bridge = target_default_bridge(mcore)},
					{.mcore = mcore, .bridge = TARGET_NO_BRIDGE}};
	cr_assert_eq(json_array_size(rules), distinct, "%zu descriptors for %zu rule ids that fired",
		     json_array_size(rules), distinct);
	size_t k;
	json_t *d;
	const char *prev = "";
	json_array_foreach(rules, k, d)
	{
		const char *id = str(d, "id");
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
		cr_expect_str_eq(str(d, "name"), r->head.name);
		const char *shrt = str(d, "shortDescription.text"), *full = str(d, "fullDescription.text");
		cr_expect(*shrt && strlen(shrt) <= 1024, "%s: shortDescription '%s'", id, shrt);
		cr_expect_str_eq(str(d, "defaultConfiguration.level"), diag_sev_name(r->head.sev));
		if (!reported(log, id)) {
			bare++;
			cr_expect_str_eq(str(d, "fullDescription.text"), shrt, "%s: only undecided, yet described whole", id);
			cr_expect(strstr(str(d, "help.text"), "cglint explain") && !at(d, "relationships"),
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
		const char *help = str(d, "help.text"), *md = str(d, "help.markdown");
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
		cr_expect_str_eq(str(d, "properties.tags.0"), "cuda-graphs");
		const char *cat = category(id);
		if (cat)
			cr_expect_str_eq(str(d, "properties.tags.1"), cat, "%s", id);
		cr_expect_str_eq(str(d, "properties.precision"), "high");
		free(msg);
		free(doc);
	}
	cr_expect_gt(cut, 0, "no long doc was cut (CG101's is over 1024 bytes)");
	cr_expect_gt(related, 5, "%zu relationships: the rules' docs name one another", related);
	cr_expect_gt(bare, 0, "no rule was named by an undecided check alone");
	cr_expect_str_eq(str(result(log, "CG132", "examples/llama3_8b_te_scoped.yaml"), "ruleId"), "CG132");
	json_decref(log);
	pack_free(p);
}

/* Sized for CI (issue 30 item 9): a report of 3 findings (and 11 undecided checks) carries only
 * their rules, not the packs' 137 (365 KB before). */
Test(sarif, a_few_findings_make_a_small_report)
{
	char *out = NULL;
	cr_assert_eq(harness_run(dir, "--format sarif examples/nemotron_full_recompute.yaml 2>/dev/null", &out), 1);
	json_error_t err;
	json_t *log = json_loads(out, 0, &err);
	cr_assert_not_null(log, "%s", err.text);
	size_t findings = 0, k;
	json_t *r;
	json_array_foreach(at(log, "runs.0.results"), k, r)
		findings += strcmp(str(r, "kind"), "open") != 0;
	cr_expect_eq(findings, 3);
	cr_expect_lt(strlen(out), 48u << 10, "%zu bytes of SARIF for 3 findings", strlen(out));
	json_decref(log);
	free(out);
}

Test(sarif, results_agree_with_json)
{
	int rc_s, rc_j;
	json_t *log = run_sarif(dir, "examples", &rc_s), *doc;
	rc_j = harness_run_json(dir, "examples", &doc);
	cr_assert_not_null(doc);
	cr_expect_eq(rc_s, rc_j);
	json_t *diags = json_object_get(doc, "diagnostics"), *results = at(log, "runs.0.results");
	json_t *rules = at(log, "runs.0.tool.driver.rules");
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
		const char *id = str(d, "rule");
		cr_expect_str_eq(str(r, "ruleId"), id);
		cr_expect_str_eq(str(json_array_get(rules, (size_t)num(r, "ruleIndex")), "id"), id, "result %zu", k);
		cr_expect_str_eq(str(r, "level"), k < nd ? str(d, "severity") : "none");
		cr_expect_str_eq(k < nd ? "fail" : str(r, "kind"), k < nd ? "fail" : "open");
		cr_expect(k < nd ? !json_object_get(r, "kind") : 1, "a finding's kind is SARIF's default, fail");
		char msg[2048];
		if (json_is_string(json_object_get(d, "fix")))
			snprintf(msg, sizeof(msg), "%s Fix: %s", str(d, "message"), str(d, "fix"));
		else
			snprintf(msg, sizeof(msg), "%s", str(d, "message"));
		cr_expect_str_eq(str(r, "message.text"), msg);
		json_t *loc = at(r, "locations.0");
		const char *uri = str(loc, "physicalLocation.artifactLocation.uri");
		cr_expect_str_eq(uri, str(d, "path"));  /* run from the root: the same relative path */
		cr_expect(uri[0] != '/' && !strstr(uri, "..") && !strchr(uri, ':'), "uri %s", uri);
		cr_expect_str_eq(str(loc, "physicalLocation.artifactLocation.uriBaseId"), "%SRCROOT%");
		cr_expect_eq(num(loc, "physicalLocation.region.startLine"), num(d, "line"));
		cr_expect_eq(num(loc, "physicalLocation.region.startColumn"), num(d, "column"));
		cr_expect_geq(num(loc, "physicalLocation.region.startLine"), 1);
		cr_expect_geq(num(loc, "physicalLocation.region.startColumn"), 1);
		long long end = num(loc, "physicalLocation.region.endColumn");
		cr_expect(end == -999 || end > num(loc, "physicalLocation.region.startColumn"), "endColumn %lld", end);
		cr_expect_eq(json_array_size(json_object_get(r, "relatedLocations")),
			     json_array_size(json_object_get(d, "notes")));
		if (json_is_string(json_object_get(d, "fingerprint")))  /* once the post stage sets it */
			cr_expect_str_eq(str(r, "partialFingerprints.cglintFingerprint/v1"), str(d, "fingerprint"));
		else
			cr_expect_null(json_object_get(r, "partialFingerprints"));
	}
	json_decref(log);
	json_decref(doc);
}

Test(sarif, regions_end_where_the_word_ends)
{
	int rc;
	json_t *log = run_sarif(dir, "examples", &rc);
	json_t *r = result(log, "CG307", "examples/capture.cu");
	expect_region(at(r, "locations.0"), 11, 2, 7);                  /* scale<<< */
	json_t *rel = at(r, "relatedLocations.0");
	expect_region(rel, 24, 2, 11);                                  /* normalize(x) */
	cr_expect_str_eq(str(rel, "physicalLocation.artifactLocation.uri"), "examples/capture.cu");
	cr_expect_str_eq(str(rel, "message.text"), "called from here, inside the capture begun at line 21");
	cr_expect_eq(num(rel, "id"), 0);
	expect_region(at(result(log, "CG104", "examples/deepseek_v3_moe_scopes.yaml"), "locations.0"), 10, 3,
		      19);                                              /* cuda_graph_scope */
	expect_region(at(result(log, "CG201", "examples/moe_te_graphs.sbatch"), "locations.0"), 9, 32,
		      51);                                              /* expandable_segments */
	json_decref(log);
}

Test(sarif, columns_count_code_points)
{
	/* YAML columns are code points already; C columns are bytes and become code points */
	write_str("u.yaml", "model: {x: \"\xC3\xA9\xC3\xA9\", cuda_graph_impl: locl}\n");
	write_str("u.cu", "#include <cuda_runtime.h>\nvoid f(cudaStream_t s)\n{\n\tcudaGraph_t g;\n"
		  "\tcudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
		  "\t/* \xC3\xA9 */ cudaStreamSynchronize(s);\n\tif (cudaStreamEndCapture(s, &g) == cudaSuccess)\n"
		  "\t\tcudaGraphDestroy(g);\n}\n");
	int rc;
	json_t *log = run_sarif(dir, "u.yaml u.cu", &rc), *doc;
	harness_run_json(dir, "u.cu", &doc);
	cr_assert_not_null(doc);
	cr_expect_eq(num(doc, "diagnostics.0.column"), 11, "the C column counts bytes");
	expect_region(at(result(log, "CG121", "u.yaml"), "locations.0"), 1, 18, 33);   /* cuda_graph_impl */
	expect_region(at(result(log, "CG301", "u.cu"), "locations.0"), 6, 10, 31);     /* cudaStreamSynchronize */
	json_decref(log);
	json_decref(doc);
}

Test(sarif, paths_are_relative_to_the_root_from_a_subfolder)
{
	char sub[PATH_MAX];
	snprintf(sub, sizeof(sub), "%s/examples", dir);
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
	sh("mkdir '%s/odd dir \xC3\xBC#' && cp '%s/examples/llama3_8b_te_scoped.yaml' '%s/odd dir \xC3\xBC#/a:b%%c.yaml'"
	   " && cp '%s/examples/llama3_8b_te_scoped.yaml' '%s/out.yaml'", dir, dir, dir, dir, outside);
	int rc;
	snprintf(args, sizeof(args), "'odd dir \xC3\xBC#/a:b%%c.yaml' '%s/out.yaml'", outside);
	json_t *log = run_sarif(dir, args, &rc);
	json_t *r = result(log, "CG132", "odd%20dir%20%C3%BC%23/a%3Ab%25c.yaml");
	cr_expect_str_eq(str(r, "locations.0.physicalLocation.artifactLocation.uriBaseId"), "%SRCROOT%");
	snprintf(want, sizeof(want), "file://%s/out.yaml", outside);
	r = result(log, "CG132", want);
	cr_expect_null(at(r, "locations.0.physicalLocation.artifactLocation.uriBaseId"), "an absolute URI has no base");
	json_decref(log);

	log = run_sarif(dir, "- < examples/llama3_8b_te_scoped.yaml", &rc);
	result(log, "CG132", "%3Cstdin%3E");
	json_decref(log);
	log = run_sarif(dir, "--stdin-filename examples/new.yaml - < examples/llama3_8b_te_scoped.yaml", &rc);
	result(log, "CG132", "examples/new.yaml");
	json_decref(log);

	/* "<command line>" is no URI; percent-encoded it is, and names what the other formats name */
	log = run_sarif(dir, "examples/llama3_8b_te_scoped.yaml model.cuda_graph_impl=locl", &rc);
	r = result(log, "CG121", "%3Ccommand%20line%3E");
	cr_expect_str_eq(str(r, "locations.0.physicalLocation.artifactLocation.uriBaseId"), "%SRCROOT%");
	cr_expect_eq(num(r, "locations.0.physicalLocation.region.startLine"), 1);
	cr_expect_eq(num(r, "locations.0.physicalLocation.region.startColumn"), 1);
	json_decref(log);
}

Test(sarif, no_findings_no_descriptors)
{
	/* every check decided: nothing to describe */
	write_str("ok.yaml", "model:\n  cuda_graph_impl: none\n  inference_cuda_graph_scope: none\n");
	int rc;
	json_t *log = run_sarif(dir, "ok.yaml", &rc);
	cr_expect_eq(rc, 0);
	cr_expect(json_is_array(at(log, "runs.0.results")));
	cr_expect_eq(json_array_size(at(log, "runs.0.results")), 0);
	cr_expect(json_is_array(at(log, "runs.0.tool.driver.rules")));
	cr_expect_eq(json_array_size(at(log, "runs.0.tool.driver.rules")), 0);
	json_decref(log);
	/* one undecided check: a result of kind "open" and its rule's descriptor, exit 0 */
	write_str("open.yaml", "model:\n  cuda_graph_impl: none\n");
	log = run_sarif(dir, "open.yaml", &rc);
	cr_expect_eq(rc, 0);
	cr_assert_eq(json_array_size(at(log, "runs.0.results")), 1);
	cr_expect_str_eq(str(log, "runs.0.results.0.ruleId"), "CG150");
	cr_expect_str_eq(str(log, "runs.0.results.0.kind"), "open");
	cr_expect_str_eq(str(log, "runs.0.results.0.level"), "none");
	cr_expect_eq(json_array_size(at(log, "runs.0.tool.driver.rules")), 1);
	json_decref(log);
}

/* Print hand-made diagnostics in 'fmt'; returns the malloc'd output. */
static char *print_list(const struct out_format *fmt, const struct diag_list *l, bool color)
{
	static const struct target tgt = {.mcore = 190, .bridge = 60};
	char *buf;
	size_t n;
	struct out_ctx o = {.f = open_memstream(&buf, &n), .color = color, .target = &tgt};
	out_print(fmt, &o, l);
	fclose(o.f);
	return buf;
}

Test(sarif, fingerprints_notes_and_bytes_that_are_not_utf8)
{
	cr_assert_eq(chdir(dir), 0);
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
	char *out = print_list(&out_sarif, &l, false);
	json_error_t err;
	json_t *log = json_loads(out, 0, &err);
	cr_assert_not_null(log, "%s: %s", err.text, out);
	json_t *rules = at(log, "runs.0.tool.driver.rules"), *r0 = at(log, "runs.0.results.0"),
	       *r1 = at(log, "runs.0.results.1");
	cr_expect_str_eq(str(r0, "partialFingerprints.cglintFingerprint/v1"), "0123456789abcdef");
	cr_expect_null(json_object_get(r1, "partialFingerprints"));
	cr_expect_str_eq(str(r0, "message.text"), "value 'x\xEF\xBF\xBDy'");
	cr_expect_str_eq(str(json_array_get(rules, (size_t)num(r0, "ruleIndex")), "id"), "CG101");
	cr_expect_str_eq(str(json_array_get(rules, (size_t)num(r1, "ruleIndex")), "id"), "CG301");
	cr_expect_str_eq(str(r0, "locations.0.physicalLocation.artifactLocation.uri"), "gone.yaml");
	expect_region(at(r0, "locations.0"), 1, 1, -999);       /* line 0: the file; unreadable: no end */
	cr_expect_str_eq(str(r1, "message.text"), "m Fix: f");
	expect_region(at(r1, "locations.0"), 7, 4, -999);
	expect_region(at(r1, "relatedLocations.0"), 3, 2, -999);
	cr_expect_str_eq(str(r1, "relatedLocations.0.message.text"), "the capture began here");
	json_decref(log);
	free(out);
	diag_release(&l);
	arena_free(a);
	pack_free(p);
}

Test(sarif, regions_from_the_texts_the_run_read)
{
	cr_assert_eq(chdir(dir), 0);
	write_str("disk.yaml", "model:\n  cuda_graph_impl: none\n");      /* not what was linted */
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
	expect_region(at(log, "runs.0.results.0.locations.0"), 2, 3, 4);       /* x */
	expect_region(at(log, "runs.0.results.1.locations.0"), 2, 2, 23);      /* cudaDeviceSynchronize */
	cr_expect_str_eq(str(log, "runs.0.results.1.locations.0.physicalLocation.artifactLocation.uri"), "%3Cstdin%3E");
	json_decref(log);
	free(out);
	text_store_free(texts);
	diag_release(&l);
	arena_free(a);
	pack_free(p);
}

/* ---- GitHub workflow commands ---- */

/* @actions/core's escapeData and escapeProperty, written out again. */
static void escape(char *out, size_t size, const char *s, bool property)
{
	size_t n = 0;
	for (; *s && n + 4 < size; s++) {
		const char *e = *s == '%' ? "%25" : *s == '\r' ? "%0D" : *s == '\n' ? "%0A" : NULL;
		if (property && !e)
			e = *s == ':' ? "%3A" : *s == ',' ? "%2C" : NULL;
		if (e) {
			memcpy(out + n, e, 3);
			n += 3;
		} else {
			out[n++] = *s;
		}
	}
	out[n] = '\0';
}

Test(github, one_command_per_diagnostic_as_json_reports_them)
{
	json_t *doc;
	harness_run_json(dir, "examples", &doc);
	cr_assert_not_null(doc);
	char *out = NULL;
	int rc = harness_run(dir, "--format github --color always examples", &out);
	cr_expect_eq(rc, 1);
	char *want;
	size_t wn;
	FILE *w = open_memstream(&want, &wn);
	size_t k, counts[3] = {0};
	json_t *d;
	json_array_foreach(json_object_get(doc, "diagnostics"), k, d)
	{
		const char *sev = str(d, "severity");
		int s = !strcmp(sev, "error") ? 2 : !strcmp(sev, "warning") ? 1 : 0;
		counts[s]++;
		char file[512], title[256], msg[4096], t[256];
		escape(file, sizeof(file), str(d, "path"), true);
		snprintf(t, sizeof(t), "cglint %s (%s)", str(d, "rule"), str(d, "name"));
		escape(title, sizeof(title), t, true);
		escape(msg, sizeof(msg), str(d, "message"), false);
		fprintf(w, "::%s file=%s,line=%lld,col=%lld,title=%s::%s", s == 2 ? "error" : s == 1 ? "warning" : "notice",
			file, num(d, "line"), num(d, "column"), title, msg);
		if (json_is_string(json_object_get(d, "fix"))) {
			escape(msg, sizeof(msg), str(d, "fix"), false);
			fprintf(w, " Fix: %s", msg);
		}
		size_t i;
		json_t *n;
		json_array_foreach(json_object_get(d, "notes"), i, n)
		{
			escape(msg, sizeof(msg), str(n, "message"), false);
			fprintf(w, "%%0A%s:%lld:%lld: note: %s", str(n, "path"), num(n, "line"), num(n, "column"), msg);
		}
		fputc('\n', w);
	}
	cr_assert_gt(counts[2], 10, "the examples give more than 10 errors");
	fprintf(w, "cglint: %zu error(s), %zu warning(s), %zu note(s); GitHub shows 10 annotations of each kind per"
		" step, upload --format sarif to code scanning to see them all\n", counts[2], counts[1], counts[0]);
	fclose(w);
	cr_expect_str_eq(out, want);
	cr_expect_null(strchr(out, '\033'), "no colour, even when asked");
	cr_expect(strstr(out, "::error file=examples/capture.cu,line=11,col=2,title=cglint CG307 ("),
		  "CG307 at capture.cu:11:2");
	cr_expect(strstr(out, "%0Aexamples/capture.cu:24:2: note: called from here, inside the capture begun at line 21\n"),
		  "CG307's note");
	free(want);
	free(out);
	json_decref(doc);
}

Test(github, hostile_text_is_escaped_exactly)
{
	cr_assert_eq(chdir(dir), 0);
	struct pack *p = pack_new();
	pack_load_builtin(p);
	struct arena *a = arena_new();
	struct diag_list l;
	diag_init(&l, a, &p->lookup, NULL);
	static const struct diag_note notes[] = {{{"a,b:c%.yaml", 1, 1}, "first\nsecond"}};
	const struct rule *r1 = pack_find(p, "CG122"), *r2 = pack_find(p, "CG132"), *r3 = pack_find(p, "CG142");
	diag_report(&l, r1, (struct loc){"a,b:c%.yaml", 3, 24}, "unknown 'x%y,z:w\r\n::error::injected'", "drop it",
		    NULL);
	diag_report(&l, r2, (struct loc){"<command line>", 1, 2}, "100% sure:\nyes", NULL, NULL);
	diag_report(&l, r3, (struct loc){"a,b:c%.yaml", 0, 0}, "whole file", NULL, NULL);
	l.items[0].sev = SEV_ERROR;
	l.items[0].notes = notes;
	l.items[0].n_notes = 1;
	l.items[1].sev = SEV_WARNING;
	l.items[2].sev = SEV_NOTE;
	char *out = print_list(&out_github, &l, true), want[4096];
	snprintf(want, sizeof(want),
		 "::error file=a%%2Cb%%3Ac%%25.yaml,line=3,col=24,title=cglint CG122 (%s)::unknown "
		 "'x%%25y,z:w%%0D%%0A::error::injected' Fix: drop it%%0Aa,b:c%%25.yaml:1:1: note: first%%0Asecond\n"
		 "::warning title=cglint CG132 (%s)::100%%25 sure:%%0Ayes\n"
		 "::notice file=a%%2Cb%%3Ac%%25.yaml,line=1,col=1,title=cglint CG142 (%s)::whole file\n"
		 "cglint: 1 error(s), 1 warning(s), 1 note(s)\n",
		 r1->head.name, r2->head.name, r3->head.name);
	cr_expect_str_eq(out, want);
	free(out);
	diag_release(&l);
	arena_free(a);
	pack_free(p);
}

Test(github, a_config_value_cannot_inject_a_command)
{
	write_str("h,1:x%.yaml", "model:\n  cuda_graph_impl: transformer_engine\n"
		  "  cuda_graph_modules: [\"a,b:c%d\\r\\n::error::x\"]\n");
	char *out = NULL;
	int rc = harness_run(dir, "--format github 'h,1:x%.yaml'", &out);
	cr_expect_eq(rc, 1);
	cr_assert_not_null(out);
	cr_expect_null(strchr(out, '\r'));
	char *nl = strchr(out, '\n');
	cr_assert_not_null(nl);
	*nl = '\0';
	cr_expect(!strncmp(out, "::error file=h%2C1%3Ax%25.yaml,line=3,col=", 42), "%s", out);
	cr_expect(strstr(out, ",title=cglint CG122 (unknown-cuda-graph-scope)::"), "%s", out);
	cr_expect(strstr(out, "'a,b:c%25d%0D%0A::error::x'"), "%s", out);
	cr_expect_str_eq(nl + 1, "cglint: 1 error(s), 0 warning(s), 0 note(s)\n");
	free(out);
}

Test(github, nothing_found_prints_nothing)
{
	write_str("ok.yaml", "model:\n  cuda_graph_impl: none\n");
	char *out = NULL;
	cr_expect_eq(harness_run(dir, "--format github ok.yaml", &out), 0);
	cr_expect_str_eq(out, "");
	free(out);
}

/* ---- the table and project-relative paths ---- */

Test(out, table_of_formats)
{
	cr_expect_eq(formats_find("sarif"), &out_sarif);
	cr_expect_eq(formats_find("github"), &out_github);
	cr_expect_eq(formats_find("text"), &out_text);
	cr_expect_null(formats_find("xml"));
	cr_expect_str_eq(formats_names(), "text|concise|json|sarif|github|gitlab|junit");
	cr_expect_eq(formats_find("concise"), &out_concise);
	cr_expect_eq(formats_find("gitlab"), &out_gitlab);
	cr_expect_eq(formats_find("junit"), &out_junit);
}

/* -DCGLINT_DOCS_URL=: a folder of pages (ID.md after a '/'), or a pattern with {id} for a site */
Test(out, rule_page_under_a_docs_url)
{
	const char *cases[][2] = {
		{"https://docs.example.org/cglint/rules/", "https://docs.example.org/cglint/rules/CG101.md"},
		{"https://docs.example.org/cglint/rules", "https://docs.example.org/cglint/rules/CG101.md"},
		{"https://docs.example.org/rules/{id}.html", "https://docs.example.org/rules/CG101.html"},
		{"https://docs.example.org/r?rule={id}", "https://docs.example.org/r?rule=CG101"},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
		char *url = out_docs_link(cases[k][0], "CG101");
		cr_expect_str_eq(url, cases[k][1], "%s", cases[k][0]);
		free(url);
	}
	const char *homes[][2] = {
		{"https://docs.example.org/rules/{id}.html", "https://docs.example.org/rules/"},
		{"https://docs.example.org/cglint/rules/", "https://docs.example.org/cglint/rules/"},
	};
	for (size_t k = 0; k < sizeof(homes) / sizeof(*homes); k++) {
		char *home = out_docs_home(homes[k][0]);
		cr_expect_str_eq(home, homes[k][1], "%s", homes[k][0]);
		free(home);
	}
	char *uri = out_uri_encode("file://", "/opt/my env/share/doc/cglint/rules/CG101.md", "");
	cr_expect_str_eq(uri, "file:///opt/my%20env/share/doc/cglint/rules/CG101.md");
	free(uri);
}

static void expect_rel(const char *path, const char *want)
{
	char buf[PATH_MAX];
	const char *got = out_relpath(buf, sizeof(buf), path);
	if (want) {
		cr_expect_eq(got, buf, "%s: not made relative", path);
		cr_expect_str_eq(got, want, "%s", path);
	} else {
		cr_expect_eq(got, path, "%s: made '%s'", path, got ? got : "(null)");
	}
}

Test(relpath, from_a_subfolder_of_a_project)
{
	char sub[PATH_MAX + 16], abs[PATH_MAX + 64];
	snprintf(sub, sizeof(sub), "%s/examples", root);
	cr_assert_eq(chdir(sub), 0);
	cr_expect_str_eq(out_root(), root);
	expect_rel("capture.cu", "examples/capture.cu");
	expect_rel("./x/.././/capture.cu", "examples/capture.cu");
	expect_rel("missing.yaml", "examples/missing.yaml");    /* judged as written: need not exist */
	expect_rel("../README", "README");
	snprintf(abs, sizeof(abs), "%s/examples/capture.cu", root);
	expect_rel(abs, "examples/capture.cu");
	expect_rel("<stdin>", NULL);
	expect_rel("<command line>", NULL);
	expect_rel(NULL, NULL);
	expect_rel("", NULL);
	expect_rel("..", NULL);                 /* the root itself */
	expect_rel("../..", NULL);
	expect_rel("/etc/passwd", NULL);
	/* a path outside that resolves inside takes the inside name; a link inside keeps its own */
	sh("ln -s '%s/capture.cu' '%s/in.cu' && ln -s '%s/examples' '%s/ex'", sub, outside, root, outside);
	snprintf(abs, sizeof(abs), "%s/in.cu", outside);
	expect_rel(abs, "examples/capture.cu");
	snprintf(abs, sizeof(abs), "%s/ex/..", outside);
	expect_rel(abs, NULL);                  /* resolves to the root itself */
	sh("ln -s /etc/passwd '%s/pw'", root);
	expect_rel("../pw", "pw");
	char small[8];
	const char *p = "capture.cu";
	cr_expect_eq(out_relpath(small, sizeof(small), p), p, "a result that does not fit: the path as given");
}

Test(relpath, a_git_file_marks_a_worktree)
{
	char sub[PATH_MAX + 16], want[PATH_MAX + 16];
	sh("mkdir -p '%s/wt/sub' && echo 'gitdir: /elsewhere' > '%s/wt/.git'", dir, dir);
	snprintf(sub, sizeof(sub), "%s/wt/sub", root);
	snprintf(want, sizeof(want), "%s/wt", root);
	cr_assert_eq(chdir(sub), 0);
	cr_expect_str_eq(out_root(), want);
	expect_rel("x.yaml", "sub/x.yaml");
	expect_rel("../../examples/capture.cu", NULL);
}

Test(relpath, without_git_the_current_folder)
{
	cr_assert(access("/tmp/.git", F_OK) && access("/.git", F_OK), "a .git above /tmp spoils this test");
	cr_assert_eq(chdir(outside), 0);
	cr_expect_str_eq(out_root(), outside);
	expect_rel("a/b.yaml", "a/b.yaml");
	expect_rel("../proj/x.yaml", NULL);
}

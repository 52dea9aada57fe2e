/* SPDX-License-Identifier: MIT */
/*
 * out: the GitHub format and paths relative to the project root, in a project of its own
 * (outs.h), on diagnostics made by hand; the table of formats. The SARIF format is
 * test_sarif.c.
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

TestSuite(github, .init = outs_setup, .fini = outs_teardown);
TestSuite(relpath, .init = outs_setup, .fini = outs_teardown);

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
	harness_run_json(outs_dir, "examples", &doc);
	cr_assert_not_null(doc);
	char *out = NULL;
	int rc = harness_run(outs_dir, "--format github --color always examples", &out);
	cr_expect_eq(rc, 1);
	char *want;
	size_t wn;
	FILE *w = open_memstream(&want, &wn);
	size_t k, counts[3] = {0};
	json_t *d;
	json_array_foreach(json_object_get(doc, "diagnostics"), k, d)
	{
		const char *sev = outs_str(d, "severity");
		int s = !strcmp(sev, "error") ? 2 : !strcmp(sev, "warning") ? 1 : 0;
		counts[s]++;
		char file[512], title[256], msg[4096], t[256];
		escape(file, sizeof(file), outs_str(d, "path"), true);
		snprintf(t, sizeof(t), "cglint %s (%s)", outs_str(d, "rule"), outs_str(d, "name"));
		escape(title, sizeof(title), t, true);
		escape(msg, sizeof(msg), outs_str(d, "message"), false);
		fprintf(w, "::%s file=%s,line=%lld,col=%lld,title=%s::%s", s == 2 ? "error" : s == 1 ? "warning" : "notice",
			file, outs_num(d, "line"), outs_num(d, "column"), title, msg);
		if (json_is_string(json_object_get(d, "fix"))) {
			escape(msg, sizeof(msg), outs_str(d, "fix"), false);
			fprintf(w, " Fix: %s", msg);
		}
		size_t i;
		json_t *n;
		json_array_foreach(json_object_get(d, "notes"), i, n)
		{
			escape(msg, sizeof(msg), outs_str(n, "message"), false);
			fprintf(w, "%%0A%s:%lld:%lld: note: %s", outs_str(n, "path"), outs_num(n, "line"), outs_num(n, "column"),
				msg);
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
	cr_assert_eq(chdir(outs_dir), 0);
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
	char *out = outs_print(&out_github, &l, true), want[4096];
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
	outs_put("h,1:x%.yaml", "model:\n  cuda_graph_impl: transformer_engine\n"
		 "  cuda_graph_modules: [\"a,b:c%d\\r\\n::error::x\"]\n");
	char *out = NULL;
	int rc = harness_run(outs_dir, "--format github 'h,1:x%.yaml'", &out);
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
	outs_put("ok.yaml", "model:\n  cuda_graph_impl: none\n");
	char *out = NULL;
	cr_expect_eq(harness_run(outs_dir, "--format github ok.yaml", &out), 0);
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
	snprintf(sub, sizeof(sub), "%s/examples", outs_root);
	cr_assert_eq(chdir(sub), 0);
	cr_expect_str_eq(out_root(), outs_root);
	expect_rel("capture.cu", "examples/capture.cu");
	expect_rel("./x/.././/capture.cu", "examples/capture.cu");
	expect_rel("missing.yaml", "examples/missing.yaml");    /* judged as written: need not exist */
	expect_rel("../README", "README");
	snprintf(abs, sizeof(abs), "%s/examples/capture.cu", outs_root);
	expect_rel(abs, "examples/capture.cu");
	expect_rel("<stdin>", NULL);
	expect_rel("<command line>", NULL);
	expect_rel(NULL, NULL);
	expect_rel("", NULL);
	expect_rel("..", NULL);                 /* the root itself */
	expect_rel("../..", NULL);
	expect_rel("/etc/passwd", NULL);
	/* a path outside that resolves inside takes the inside name; a link inside keeps its own */
	harness_system("ln -s '%s/capture.cu' '%s/in.cu' && ln -s '%s/examples' '%s/ex'", sub, outs_outside, outs_root,
		       outs_outside);
	snprintf(abs, sizeof(abs), "%s/in.cu", outs_outside);
	expect_rel(abs, "examples/capture.cu");
	snprintf(abs, sizeof(abs), "%s/ex/..", outs_outside);
	expect_rel(abs, NULL);                  /* resolves to the root itself */
	harness_system("ln -s /etc/passwd '%s/pw'", outs_root);
	expect_rel("../pw", "pw");
	char small[8];
	const char *p = "capture.cu";
	cr_expect_eq(out_relpath(small, sizeof(small), p), p, "a result that does not fit: the path as given");
}

Test(relpath, a_git_file_marks_a_worktree)
{
	char sub[PATH_MAX + 16], want[PATH_MAX + 16];
	harness_system("mkdir -p '%s/wt/sub' && echo 'gitdir: /elsewhere' > '%s/wt/.git'", outs_dir, outs_dir);
	snprintf(sub, sizeof(sub), "%s/wt/sub", outs_root);
	snprintf(want, sizeof(want), "%s/wt", outs_root);
	cr_assert_eq(chdir(sub), 0);
	cr_expect_str_eq(out_root(), want);
	expect_rel("x.yaml", "sub/x.yaml");
	expect_rel("../../examples/capture.cu", NULL);
}

Test(relpath, without_git_the_current_folder)
{
	cr_assert(access("/tmp/.git", F_OK) && access("/.git", F_OK), "a .git above /tmp spoils this test");
	cr_assert_eq(chdir(outs_outside), 0);
	cr_expect_str_eq(out_root(), outs_outside);
	expect_rel("a/b.yaml", "a/b.yaml");
	expect_rel("../proj/x.yaml", NULL);
}

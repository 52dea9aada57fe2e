/* SPDX-License-Identifier: MIT */
/*
 * fix: --fix and --diff, the files they write and the ones they must not touch; --output. Of
 * Criterion suite 'project' (test_project.c says how its tests are set up).
 */
#define _GNU_SOURCE /* asprintf */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "projfx.h"

TestSuite(project, .init = harness_init, .fini = harness_fini);

/* ---- 1. --fix and --diff ---- */

static const char crlf[] =
	"# recipe: keep me\r\n"
	"model: {cuda_graph_impl: transformer_engine, use_te_rng_tracker: false}\r\n"
	"rng: {te_rng_tracker: false, seed: 1234}   # flow\r\n"
	"train:\r\n"
	"    micro_batch_size: 1\r\n";
static const char crlf_fixed[] =
	"# recipe: keep me\r\n"
	"model: {cuda_graph_impl: transformer_engine, use_te_rng_tracker: false}\r\n"
	"rng: {te_rng_tracker: true, seed: 1234}   # flow\r\n"
	"train:\r\n"
	"    micro_batch_size: 1\r\n";
static const char block[] =
	"model:\n"
	"    cuda_graph_impl: transformer_engine   # per layer\n"
	"    use_te_rng_tracker: false\n"
	"rng:\n"
	"    te_rng_tracker:   false   # legacy, see the A/B run\n"
	"    seed: 1234\n";
static const char block_fixed[] =
	"model:\n"
	"    cuda_graph_impl: transformer_engine   # per layer\n"
	"    use_te_rng_tracker: false\n"
	"rng:\n"
	"    te_rng_tracker:   true   # legacy, see the A/B run\n"
	"    seed: 1234\n";

static void expect_file(const char *name, const char *want)
{
	size_t n;
	char *got = harness_try_read(harness_dir, name, &n);
	cr_assert_not_null(got, "%s is gone", name);
	cr_expect_eq(n, strlen(want), "%s: %zu bytes, expected %zu", name, n, strlen(want));
	expect_str(got, want);
	free(got);
}

Test(project, diff_prints_and_changes_nothing)
{
	harness_put("r.yaml", crlf);
	harness_put("b.yaml", block);
	char *out, *err;
	int rc = harness_run_in("", "--mcore 0.16 --bridge 0.3 --diff r.yaml b.yaml", &out, &err);
	cr_expect_eq(rc, 1);
	expect_str(out, "--- a/r.yaml\n"
			"+++ b/r.yaml\n"
			"@@ -1,5 +1,5 @@\n"
			" # recipe: keep me\r\n"
			" model: {cuda_graph_impl: transformer_engine, use_te_rng_tracker: false}\r\n"
			"-rng: {te_rng_tracker: false, seed: 1234}   # flow\r\n"
			"+rng: {te_rng_tracker: true, seed: 1234}   # flow\r\n"
			" train:\r\n"
			"     micro_batch_size: 1\r\n"
			"--- a/b.yaml\n"
			"+++ b/b.yaml\n"
			"@@ -2,5 +2,5 @@\n"
			"     cuda_graph_impl: transformer_engine   # per layer\n"
			"     use_te_rng_tracker: false\n"
			" rng:\n"
			"-    te_rng_tracker:   false   # legacy, see the A/B run\n"
			"+    te_rng_tracker:   true   # legacy, see the A/B run\n"
			"     seed: 1234\n");
	expect_str(err, "");
	free(out);
	free(err);
	expect_file("r.yaml", crlf);
	expect_file("b.yaml", block);
	/* nothing to fix: no diff, status 0 */
	harness_put("ok.yaml", block_fixed);
	rc = harness_run_in("", "--mcore 0.16 --bridge 0.3 --diff ok.yaml", &out, NULL);
	cr_expect_eq(rc, 0);
	expect_str(out, "");
	free(out);
}

Test(project, diff_without_a_final_newline)
{
	harness_put("n.yaml", "model:\n  cuda_graph_impl: transformer_engine\n  use_te_rng_tracker: false\nrng:\n"
			      "  te_rng_tracker: false");
	char *out;
	cr_expect_eq(harness_run_in("", "--mcore 0.16 --bridge 0.3 --diff n.yaml", &out, NULL), 1);
	expect_str(out, "--- a/n.yaml\n+++ b/n.yaml\n@@ -2,4 +2,4 @@\n"
			"   cuda_graph_impl: transformer_engine\n"
			"   use_te_rng_tracker: false\n"
			" rng:\n"
			"-  te_rng_tracker: false\n\\ No newline at end of file\n"
			"+  te_rng_tracker: true\n\\ No newline at end of file\n");
	free(out);
}

Test(project, fix_edits_only_the_value)
{
	harness_put("r.yaml", crlf);
	harness_put("b.yaml", block);
	harness_put("c.yaml", "rng:\r\n  te_rng_tracker: false\r\n  seed: 1\r\nmodel:\r\n  cuda_graph_impl: transformer_engine\r\n  use_te_rng_tracker: false\r\n");
	char *out, *err;
	int rc = harness_run_in("", "--mcore 0.16 --bridge 0.3 --fix r.yaml b.yaml c.yaml", &out, &err);
	cr_expect_eq(rc, 0);
	expect_str(out, "");
	expect_str(err, "cglint: fixed 3 finding(s)\ncglint: no findings (3 files checked; 72 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them))\n");
	expect_file("c.yaml", "rng:\r\n  te_rng_tracker: true\r\n  seed: 1\r\nmodel:\r\n  cuda_graph_impl: transformer_engine\r\n  use_te_rng_tracker: false\r\n");
	free(out);
	free(err);
	expect_file("r.yaml", crlf_fixed);
	expect_file("b.yaml", block_fixed);
	/* again: nothing to do */
	rc = harness_run_in("", "--mcore 0.16 --bridge 0.3 --fix r.yaml b.yaml c.yaml", &out, &err);
	cr_expect_eq(rc, 0);
	expect_str(out, "");
	expect_str(err, "cglint: fixed 0 finding(s)\ncglint: no findings (3 files checked; 72 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them))\n");
	free(out);
	free(err);
	expect_file("r.yaml", crlf_fixed);
	expect_file("b.yaml", block_fixed);
}

Test(project, fix_reports_what_is_left)
{
	harness_put("t.yaml", projfx_recipe);
	int rc;
	char *err;
	char *got = harness_lint("", "--mcore 0.18 --fix t.yaml", &rc, &err);
	expect_str(got, "t.yaml:3:3: note: " M132 "t.yaml:5:3: warning: " M905);
	expect_str(err, "cglint: fixed 1 finding(s)\ncglint: 1 warning, 1 note in 1 file; 1 file checked; 16 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them)\n");
	cr_expect_eq(rc, 0);
	free(got);
	free(err);
	expect_file("t.yaml", "model:\n"
			      "  cuda_graph_impl: transformer_engine\n"
			      "  cuda_graph_scope: [attn]\n"
			      "  use_te_rng_tracker: false\n"
			      "  cuda_graph_warmup_stepz: 3\n"
			      "rng:\n"
			      "  te_rng_tracker: true\n");
	/* warnings left fail at --fail-on warning */
	harness_put("t.yaml", projfx_recipe);
	harness_expect_lint("", "--mcore 0.18 --fix --fail-on warning t.yaml", 1,
			    "t.yaml:3:3: note: " M132 "t.yaml:5:3: warning: " M905);
}

Test(project, fix_keeps_mode_and_symlinks)
{
	harness_put("real/t.yaml", projfx_rng_off);
	char *real = harness_path("real/t.yaml"), *link = harness_path("link.yaml"), *plain = harness_path("p.yaml");
	harness_put("p.yaml", projfx_rng_off);
	cr_assert_eq(chmod(real, 0600), 0);
	cr_assert_eq(chmod(plain, 0751), 0);
	cr_assert_eq(symlink("real/t.yaml", link), 0);
	char *out, *err;
	int rc = harness_run_in("", "--mcore 0.16 --bridge 0.3 --fix link.yaml p.yaml", &out, &err);
	cr_expect_eq(rc, 0);
	expect_str(out, "");
	expect_str(err, "cglint: fixed 2 finding(s)\ncglint: no findings (2 files checked; 48 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them))\n");
	free(out);
	free(err);
	struct stat st;
	cr_assert_eq(lstat(link, &st), 0);
	cr_expect(S_ISLNK(st.st_mode), "link.yaml is no longer a symbolic link");
	cr_assert_eq(stat(real, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0600, "mode %o", st.st_mode & 07777);
	cr_assert_eq(stat(plain, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0751, "mode %o", st.st_mode & 07777);
	expect_file("real/t.yaml", projfx_rng_on);
	expect_file("p.yaml", projfx_rng_on);
	/* no temporary file left beside them */
	char *cmd;
	cr_assert(asprintf(&cmd, "find '%s' -name '*.cglint-*' | wc -l", harness_dir) > 0);
	FILE *p = popen(cmd, "r");
	char buf[16] = "";
	cr_assert_not_null(fgets(buf, sizeof(buf), p));
	pclose(p);
	cr_expect_str_eq(buf, "0\n");
	free(cmd);
	free(real);
	free(link);
	free(plain);
}

Test(project, fix_in_a_read_only_folder)
{
	harness_put("ro/t.yaml", projfx_rng_off);
	char *ro = harness_path("ro"), *file = harness_path("ro/t.yaml"), *cfg = harness_path(".cglint.yaml");
	cr_assert_eq(chmod(harness_dir, 0755), 0);
	cr_assert_eq(chmod(file, 0644), 0);     /* whatever the umask */
	cr_assert_eq(chmod(cfg, 0644), 0);
	cr_assert_eq(chmod(ro, 0555), 0);
	/* root writes anywhere: run as nobody then (setpriv, util-linux) */
	char *cmd;
	cr_assert(asprintf(&cmd, "cd '%s' && %s '%s' --mcore 0.16 --bridge 0.3 --fix ro/t.yaml 2>&1; echo rc=$?", harness_dir,
			   geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups" : "", CGLINT_BIN) > 0);
	FILE *p = popen(cmd, "r");
	char buf[1024];
	size_t n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	pclose(p);
	expect_str(buf, "cglint: --fix: not writing ro/t.yaml: you may not write it (cglint replaces a file only "
			"where you could edit it)\nrc=2\n");
	expect_file("ro/t.yaml", projfx_rng_off);
	free(cmd);
	free(ro);
	free(file);
	free(cfg);
}

/* The output of a shell command run in the test's folder, as the unprivileged 'nobody' when
 * the suite runs as root. */
static char *as_user(const char *script, bool nobody)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "cd '%s' && %s sh -c '%s' 2>&1; echo rc=$?", harness_dir,
			   nobody && geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups" : "", script) > 0);
	FILE *p = popen(cmd, "r");
	static char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	pclose(p);
	free(cmd);
	return buf;
}

/* In a world-writable folder a user could rename over someone else's file; --fix does not. */
Test(project, fix_never_replaces_what_the_user_may_not_write)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to make a file that belongs to someone else");
	harness_put("pub/t.yaml", projfx_rng_off);
	char *pub = harness_path("pub"), *file = harness_path("pub/t.yaml"), *cfg = harness_path(".cglint.yaml");
	cr_assert_eq(chmod(harness_dir, 0755), 0);
	cr_assert_eq(chmod(cfg, 0644), 0);
	cr_assert_eq(chmod(pub, 01777 & ~01000), 0);    /* world-writable, no sticky bit */
	cr_assert_eq(chmod(file, 0644), 0);             /* root's, read-only to others */
	char script[1024];
	snprintf(script, sizeof(script), "%s --mcore 0.16 --bridge 0.3 --fix pub/t.yaml", CGLINT_BIN);
	expect_str(as_user(script, true), "cglint: --fix: not writing pub/t.yaml: you may not write it (cglint replaces "
					  "a file only where you could edit it)\nrc=2\n");
	expect_file("pub/t.yaml", projfx_rng_off);
	struct stat st;
	cr_assert_eq(stat(file, &st), 0);
	cr_expect_eq(st.st_uid, 0u, "the file is still root's");
	free(pub);
	free(file);
	free(cfg);
}

/* Run as root on another user's file, --fix keeps its owner and group. */
Test(project, fix_keeps_owner_and_group)
{
	if (geteuid() != 0)
		cr_skip_test("needs root to make a file that belongs to someone else");
	harness_put("t.yaml", projfx_rng_off);
	char *file = harness_path("t.yaml");
	cr_assert_eq(chown(file, 65534, 65534), 0);
	char script[1024];
	snprintf(script, sizeof(script), "%s --mcore 0.16 --bridge 0.3 --fix -q t.yaml >/dev/null", CGLINT_BIN);
	as_user(script, false);
	size_t n;
	char *text = harness_try_read(harness_dir, "t.yaml", &n);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "  te_rng_tracker: true\n"), "not fixed:\n%s", text);
	free(text);
	struct stat st;
	cr_assert_eq(stat(file, &st), 0);
	cr_expect_eq(st.st_uid, 65534u);
	cr_expect_eq(st.st_gid, 65534u);
	free(file);
}

/* A file with a second hard link is left alone: replacing it would silently split the two. */
Test(project, fix_refuses_hard_links)
{
	harness_put("t.yaml", projfx_rng_off);
	char script[1024];
	snprintf(script, sizeof(script), "ln t.yaml other.yaml && %s --mcore 0.16 --bridge 0.3 --fix t.yaml", CGLINT_BIN);
	expect_str(as_user(script, false), "cglint: --fix: not writing t.yaml: it has more than one hard link, which "
					   "replacing it would break\nrc=2\n");
	expect_file("t.yaml", projfx_rng_off);
	expect_file("other.yaml", projfx_rng_off);
}

/* Walking a folder, a symbolic link out of it is not followed into a write. */
Test(project, fix_stays_inside_the_paths_given)
{
	harness_put("outside.yaml", projfx_rng_off);
	harness_put("in/keep.txt", "");
	char script[1024];
	snprintf(script, sizeof(script), "ln -s ../outside.yaml in/t.yaml && %s --mcore 0.16 --bridge 0.3 --fix in", CGLINT_BIN);
	expect_str(as_user(script, false), "cglint: --fix: not writing in/t.yaml: it lies outside the paths given "
					   "(through a symbolic link)\nrc=2\n");
	expect_file("outside.yaml", projfx_rng_off);
}

Test(project, fix_and_diff_exclude_each_other)
{
	harness_put("a.yaml", projfx_rng_off);
	char *out, *err;
	int rc = harness_run_in("", "--fix --diff a.yaml", &out, &err);
	cr_expect_eq(rc, 2);
	expect_str(out, "");
	expect_str(err, "cglint: --fix and --diff exclude each other: --diff shows what --fix would do\n"
			"(try 'cglint --help')\n");
	free(out);
	free(err);
	expect_file("a.yaml", projfx_rng_off);
}

Test(project, fix_leaves_stdin_alone)
{
	harness_put("a.yaml", projfx_rng_off);
	int rc;
	char *err;
	char *got = harness_lint("", "--mcore 0.16 --bridge 0.3 --fix - < a.yaml", &rc, &err);
	expect_str(got, "<stdin>:5:3: error: " M101);
	expect_str(err, "cglint: fixed 0 finding(s)\ncglint: 1 error in 1 file; 1 file checked; 24 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them)\n");
	cr_expect_eq(rc, 1);
	free(got);
	free(err);
	expect_file("a.yaml", projfx_rng_off);
}

/* ---- 2. --output ---- */

Test(project, output_files_match_separate_runs)
{
	harness_put("t.yaml", projfx_recipe);
	char *out, *err;
	int rc = harness_run_in("", "--mcore 0.18 --format concise -o json=out.json --output concise=out.txt t.yaml", &out, &err);
	cr_expect_eq(rc, 1);
	char *text_run, *json_run;
	cr_expect_eq(harness_run_in("", "--mcore 0.18 --format concise t.yaml", &text_run, NULL), 1);
	cr_expect_eq(harness_run_in("", "--mcore 0.18 --format json t.yaml", &json_run, NULL), 1);
	expect_str(out, text_run);
	expect_file("out.txt", text_run);
	expect_file("out.json", json_run);
	expect_str(err, "cglint: 1 error, 1 warning, 1 note in 1 file; 1 file checked; 16 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them)\n");
	char *h = harness_heads(text_run);
	char *want = projfx_at_018("t.yaml");
	expect_str(h, want);
	free(want);
	free(h);
	free(out);
	free(err);
	free(text_run);
	free(json_run);
}

Test(project, output_errors)
{
	harness_put("t.yaml", projfx_recipe);
	char *out, *err;
	int rc = harness_run_in("", "--mcore 0.18 -o xml=a.xml t.yaml", &out, &err);
	cr_expect_eq(rc, 2);
	expect_str(out, "");
	expect_str(err, "cglint: --output wants FORMAT=PATH with FORMAT one of text|concise|json|sarif|github|gitlab|junit, not 'xml'\n"
			"(try 'cglint --help')\n");
	free(out);
	free(err);
	cr_expect_null(harness_try_read(harness_dir, "a.xml", NULL));
	rc = harness_run_in("", "--mcore 0.18 -o json t.yaml", &out, &err);
	cr_expect_eq(rc, 2);
	expect_str(err, "cglint: --output wants FORMAT=PATH with FORMAT one of text|concise|json|sarif|github|gitlab|junit, not 'json'\n"
			"(try 'cglint --help')\n");
	free(out);
	free(err);
	rc = harness_run_in("", "--mcore 0.18 -o json=nodir/x.json t.yaml", &out, &err);
	cr_expect_eq(rc, 2);
	expect_str(err, "cglint: --output nodir/x.json: No such file or directory\n"
			"cglint: 1 error, 1 warning, 1 note in 1 file; 1 file checked; 16 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them)\n");
	free(out);
	free(err);
}

/* SPDX-License-Identifier: MIT */
/*
 * lsp_jobs: a C, C++ or CUDA document is linted in a worker process while the server goes on
 * answering (lsp_doc.h). A macro bomb runs until its --source-timeout: meanwhile a hover on it
 * and a YAML document's lint are answered, then it is published as stopped (CG920); an edit
 * cancels the stale lint, whose result is never published. Edits are checked from the file's
 * own preamble, by one worker that keeps the file's unit between them.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "lsp_client.h"

TestSuite(lsp_jobs, .init = harness_init_git, .fini = harness_fini);

/* Ten billion tokens: parsed until a limit stops it. */
static const char bomb[] = "#define A0 x x x x x x x x x x\n"
			   "#define A1 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0\n"
			   "#define A2 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1\n"
			   "#define A3 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2\n"
			   "#define A4 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3\n"
			   "#define A5 A4 A4 A4 A4 A4 A4 A4 A4 A4 A4\n"
			   "#define A6 A5 A5 A5 A5 A5 A5 A5 A5 A5 A5\n"
			   "#define A7 A6 A6 A6 A6 A6 A6 A6 A6 A6 A6\n"
			   "#define A8 A7 A7 A7 A7 A7 A7 A7 A7 A7 A7\n"
			   "#define A9 A8 A8 A8 A8 A8 A8 A8 A8 A8 A8\n"
			   "int tokens(void) { return A9; }\n";

static const char capture[] = "#include <cuda_runtime.h>\n"
			      "cudaError_t step(cudaStream_t s, cudaGraph_t *g)\n{\n"
			      "\tcudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
			      "\tcudaStreamSynchronize(s);\n"
			      "\treturn cudaStreamEndCapture(s, g);\n}\n";

static bool is_publish_for(json_t *m, const void *uri)
{
	json_t *method = json_object_get(m, "method");
	return method && !strcmp(json_string_value(method), "textDocument/publishDiagnostics") &&
	       !strcmp(json_string_value(json_object_get(json_object_get(m, "params"), "uri")), uri);
}

/* Whether the server has already sent a publishDiagnostics for 'uri' (read so far, not taken). */
static bool published(struct srv *s, const char *uri)
{
	size_t i;
	json_t *m;
	json_array_foreach(s->queue, i, m)
		if (is_publish_for(m, uri))
			return true;
	return false;
}

Test(lsp_jobs, the_server_answers_while_a_source_lints_and_reports_it_stopped)
{
	struct srv s;
	srv_start(&s, "--source-timeout=5");
	json_decref(srv_init(&s, NULL));
	char *cu = uri_of("bomb.cu"), *yaml = uri_of("a.yaml");
	open_doc(&s, cu, "cuda", 1, bomb);
	open_doc(&s, yaml, "yaml", 1, bad_yaml);
	srv_request(&s, 2, "textDocument/hover", json_pack("{s:{s:s}, s:o}", "textDocument", "uri", cu, "position",
							    position(0, 0)));
	json_t *r = srv_result(&s, 2);
	cr_expect(json_is_null(r), "no result yet, so nothing to hover");
	json_decref(r);
	json_t *list = srv_diags(&s, yaml, 1);
	diag_with(list, "CG101");
	json_decref(list);
	cr_expect_not(published(&s, cu), "the bomb was published before the hover and the YAML were answered");
	list = srv_diags(&s, cu, 1);
	json_t *d = diag_with(list, "CG920");
	const char *msg = json_string_value(json_object_get(d, "message"));
	cr_expect(strstr(msg, "analysis stopped: not finished after 5 s (--source-timeout)"), "%s", msg);
	json_decref(list);
	cr_expect_eq(srv_stop(&s), 0);
	free(cu);
	free(yaml);
}

Test(lsp_jobs, an_edit_cancels_the_stale_lint)
{
	struct srv s;
	srv_start(&s, "--source-timeout=30");
	json_decref(srv_init(&s, NULL));
	char *cu = uri_of("k.cu");
	open_doc(&s, cu, "cuda", 1, bomb);
	srv_request(&s, 2, "textDocument/hover", json_pack("{s:{s:s}, s:o}", "textDocument", "uri", cu, "position",
							    position(0, 0)));
	json_decref(srv_result(&s, 2));         /* its lint has started by now */
	change_doc(&s, cu, 2, capture);
	json_t *list = srv_diags(&s, cu, 2);
	json_t *d = diag_with(list, "CG301");
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(json_object_get(d, "range"), "start"), "line")), 4);
	json_decref(list);
	/* exit 0 with every message taken: version 1's lint, killed at the edit, published nothing */
	cr_expect_eq(srv_stop(&s), 0);
	free(cu);
}

/* The file-preamble precompiled headers the server has saved: their count, the first's inode. */
static size_t preambles(ino_t *ino)
{
	char pat[4200];
	snprintf(pat, sizeof(pat), "%s/tmp/cglint-pch-*/*-*.pch", harness_dir);
	glob_t g;
	size_t n = glob(pat, 0, NULL, &g) == 0 ? g.gl_pathc : 0;
	struct stat st;
	*ino = n && stat(g.gl_pathv[0], &st) == 0 ? st.st_ino : 0;
	if (n)
		globfree(&g);
	return n;
}

/* A server in the test's folder with 'name' open as CUDA: its URI in *uri, its first diagnostics. */
static json_t *serve_source(struct srv *s, const char *name, const char *text, char **uri, const char *extra)
{
	srv_start_in(s, harness_dir, extra);
	json_decref(srv_init(s, NULL));
	*uri = uri_of(name);
	open_doc(s, *uri, "cuda", 1, text);
	return srv_diags(s, *uri, 1);
}

static void expect_line(json_t *list, const char *code, long long line)
{
	json_t *d = diag_with(list, code);
	cr_expect_eq(json_integer_value(json_object_get(json_object_get(json_object_get(d, "range"), "start"), "line")),
		     line, "%s", code);
}

/* Without the cache kept between runs (--no-cache), a source's own #includes are precompiled
 * at its first check into a folder of the server's and each edit is checked from them, with
 * the same findings at the same places (the missing header's error included); a header changed
 * since is noticed, not read from the stale preamble. The folder goes at exit. */
Test(lsp_jobs, edits_are_checked_from_the_files_own_preamble)
{
	static const char text[] = "#include <cuda_runtime.h>\n#include \"local.h\"\n#include \"missing.h\"\n"
				   "cudaError_t step(cudaStream_t s, cudaGraph_t *g)\n{\n"
				   "\tcudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
				   "\tSYNC(s);\n"
				   "\treturn cudaStreamEndCapture(s, g);\n}\n";
	char tmp[4200], edited[sizeof(text) + 16];
	snprintf(tmp, sizeof(tmp), "%s/tmp", harness_dir);
	cr_assert_eq(mkdir(tmp, 0700), 0);
	setenv("TMPDIR", tmp, 1);
	harness_put("local.h", "#define SYNC(s) ((void)(s))     /* not a sync yet */\n");
	struct srv s;
	char *cu;
	json_t *list = serve_source(&s, "p.cu", text, &cu, "--no-cache");
	cr_expect_eq(json_array_size(list), 1);
	expect_line(list, "CG919", 2);
	json_decref(list);
	ino_t first, again;
	cr_assert_eq(preambles(&first), 1, "the file's preamble is saved");

	snprintf(edited, sizeof(edited), "%s// edit\n", text);
	change_doc(&s, cu, 2, edited);
	list = srv_diags(&s, cu, 2);
	cr_expect_eq(json_array_size(list), 1);
	expect_line(list, "CG919", 2);
	json_decref(list);
	cr_expect_eq(preambles(&again), 1);
	cr_expect_eq(again, first, "the edit reused it");

	harness_put("local.h", "#define SYNC(s) cudaStreamSynchronize(s)\n");
	change_doc(&s, cu, 3, text);
	list = srv_diags(&s, cu, 3);
	expect_line(list, "CG301", 6);          /* the header as it is now */
	expect_line(list, "CG919", 2);
	json_decref(list);

	cr_expect_eq(srv_stop(&s), 0);
	cr_expect_eq(preambles(&again), 0);
	DIR *d = opendir(tmp);
	size_t left = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		left += e->d_name[0] != '.';
	if (d)
		closedir(d);
	cr_expect_eq(left, 0, "the server's preamble folder is removed");
	unsetenv("TMPDIR");
	free(cu);
}

/* The preambles in the cache folder 'cache': their count, the first's inode and time. */
static size_t cached(const char *cache, struct stat *st)
{
	char pat[4300];
	snprintf(pat, sizeof(pat), "%s/cglint/*.pch", cache);
	glob_t g;
	size_t n = glob(pat, 0, NULL, &g) == 0 ? g.gl_pathc : 0;
	memset(st, 0, sizeof(*st));
	if (n) {
		cr_assert_eq(stat(g.gl_pathv[0], st), 0);
		globfree(&g);
	}
	return n;
}

/* The server keeps its preambles in the cache the command line keeps ($XDG_CACHE_HOME/cglint),
 * under the same names: a file linted from the command line (a pre-commit hook, a CI run)
 * opens in the editor from the preamble that run saved, with the same findings, and the server
 * makes no folder of its own; the cache outlives it. */
Test(lsp_jobs, an_editors_first_open_after_a_command_line_run_is_warm)
{
	static const char text[] = "#include <cuda_runtime.h>\n#include \"local.h\"\n"
				   "cudaError_t step(cudaStream_t s, cudaGraph_t *g)\n{\n"
				   "\tcudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
				   "\tSYNC(s);\n"
				   "\treturn cudaStreamEndCapture(s, g);\n}\n";
	char cache[4200], tmp[4200], cmd[8600];
	snprintf(cache, sizeof(cache), "%s/xdg", harness_dir);
	snprintf(tmp, sizeof(tmp), "%s/tmp", harness_dir);
	cr_assert_eq(mkdir(tmp, 0700), 0);
	setenv("XDG_CACHE_HOME", cache, 1);
	setenv("TMPDIR", tmp, 1);
	harness_put("local.h", "#define SYNC(s) cudaStreamSynchronize(s)\n");
	harness_put("p.cu", text);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' -q p.cu 2>/dev/null | grep -c 'p.cu:6:.*CG301'", harness_dir, CGLINT_BIN);
	cr_assert_eq(system(cmd), 0, "the command line finds the sync");
	struct stat first, now;
	cr_assert_eq(cached(cache, &first), 1, "the command line saved the file's preamble");
	char pat[4300];
	snprintf(pat, sizeof(pat), "%s/cglint", cache);
	DIR *d = opendir(pat);
	for (struct dirent *e; d && (e = readdir(d));) {        /* 2000-01-01: a use touches it */
		char path[8400];
		snprintf(path, sizeof(path), "%s/%s", pat, e->d_name);
		struct timespec t[2] = {{946684800, 0}, {946684800, 0}};
		if (e->d_name[0] != '.')
			cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
	}
	if (d)
		closedir(d);

	struct srv s;
	char *cu;
	json_t *list = serve_source(&s, "p.cu", text, &cu, NULL);
	cr_expect_eq(json_array_size(list), 1);
	expect_line(list, "CG301", 5);
	json_decref(list);
	cr_assert_eq(cached(cache, &now), 1, "no second preamble");
	cr_expect_eq(now.st_ino, first.st_ino, "the server read the command line's preamble");
	cr_expect_gt(now.st_atime, 946684800, "and marked it used");
	cr_expect_eq(srv_stop(&s), 0);
	cr_expect_eq(cached(cache, &now), 1, "the cache outlives the server");
	cr_expect_eq(rmdir(tmp), 0, "the server made no preamble folder of its own");
	unsetenv("TMPDIR");
	unsetenv("XDG_CACHE_HOME");
	free(cu);
}

/* The server's child processes (its workers), from /proc: their count, the first's pid. */
static size_t workers(const struct srv *s, pid_t *first)
{
	DIR *d = opendir("/proc");
	size_t n = 0;
	*first = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		char path[300], buf[512];
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		FILE *f = e->d_name[0] >= '1' && e->d_name[0] <= '9' ? fopen(path, "r") : NULL;
		size_t len = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		if (f)
			fclose(f);
		buf[len] = '\0';
		const char *paren = strrchr(buf, ')');  /* the name before it may hold anything */
		int ppid = 0;
		char state;
		if (paren && sscanf(paren + 1, " %c %d", &state, &ppid) == 2 && ppid == s->pid && state != 'Z') {
			*first = *first ? *first : (pid_t)atoi(e->d_name);
			n++;
		}
	}
	if (d)
		closedir(d);
	return n;
}

/* A source keeps one worker across its edits, which reparses the unit it kept: the findings are
 * the same, and a header included below the preamble that changed between edits is read as it
 * is now. A config edited in the editor replaces the worker (it holds the configs' texts as
 * they were when it was forked). */
Test(lsp_jobs, edits_are_checked_by_one_worker_that_keeps_the_unit)
{
	static const char text[] = "#include <cuda_runtime.h>\n"
				   "static int calls;\n"
				   "#include \"late.h\"\n"
				   "cudaError_t step(cudaStream_t s, cudaGraph_t *g)\n{\n"
				   "\tcalls++;\n"
				   "\tcudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
				   "\tLATE(s);\n"
				   "\treturn cudaStreamEndCapture(s, g);\n}\n";
	char edited[sizeof(text) + 16];
	harness_put("late.h", "#define LATE(s) ((void)(s))\n");
	struct srv s;
	char *cu;
	json_t *list = serve_source(&s, "k.cu", text, &cu, NULL);
	cr_expect_eq(json_array_size(list), 0);
	json_decref(list);
	pid_t first, now;
	cr_assert_eq(workers(&s, &first), 1, "the document's worker waits for its next edit");

	snprintf(edited, sizeof(edited), "%s// edit\n", text);
	change_doc(&s, cu, 2, edited);
	list = srv_diags(&s, cu, 2);
	cr_expect_eq(json_array_size(list), 0);
	json_decref(list);
	cr_expect_eq(workers(&s, &now), 1);
	cr_expect_eq(now, first, "the same worker checked the edit");

	harness_put("late.h", "#define LATE(s) cudaStreamSynchronize(s)\n");
	change_doc(&s, cu, 3, text);
	list = srv_diags(&s, cu, 3);
	cr_expect_eq(json_array_size(list), 1);
	expect_line(list, "CG301", 7);          /* late.h as it is now */
	json_decref(list);
	cr_expect_eq(workers(&s, &now), 1);
	cr_expect_eq(now, first);

	char *cfg = uri_of(".cglint.yaml");     /* open in the editor, not saved */
	open_doc(&s, cfg, "yaml", 1, "ignore: [CG301]\n");
	list = srv_diags(&s, cu, 3);
	cr_expect_eq(json_array_size(list), 0, "the edited config applies");
	json_decref(list);
	cr_expect_eq(workers(&s, &now), 1);
	cr_expect_neq(now, first, "a new worker, forked under the new config");

	cr_expect_eq(srv_stop(&s), 0);
	free(cfg);
	free(cu);
}

/* A request answered: the server has done what it did before reading it. */
static void barrier(struct srv *s, int id, const char *uri)
{
	srv_request(s, id, "textDocument/hover", json_pack("{s:{s:s}, s:o}", "textDocument", "uri", uri, "position",
							   position(0, 0)));
	json_decref(srv_result(s, id));
}

/* Idle workers are kept for the four sources given a text last (each holds a parsed unit):
 * six open sources leave four workers, and the one edited again gets one back. */
Test(lsp_jobs, at_most_four_idle_workers_are_kept)
{
	struct srv s;
	srv_start_in(&s, harness_dir, NULL);
	json_decref(srv_init(&s, NULL));
	char *uri[6];
	for (int k = 0; k < 6; k++) {
		char name[16];
		snprintf(name, sizeof(name), "f%d.cu", k);
		uri[k] = uri_of(name);
		open_doc(&s, uri[k], "cuda", 1, capture);
	}
	for (int k = 0; k < 6; k++) {
		json_t *list = srv_diags(&s, uri[k], 1);
		expect_line(list, "CG301", 4);
		json_decref(list);
	}
	pid_t first, now;
	barrier(&s, 2, uri[5]);         /* idle workers are retired after the publish */
	cr_expect_eq(workers(&s, &first), 4);
	change_doc(&s, uri[0], 2, capture);
	json_t *list = srv_diags(&s, uri[0], 2);
	expect_line(list, "CG301", 4);
	json_decref(list);
	barrier(&s, 3, uri[0]);
	cr_expect_eq(workers(&s, &now), 4);
	cr_expect_eq(srv_stop(&s), 0);
	for (int k = 0; k < 6; k++)
		free(uri[k]);
}

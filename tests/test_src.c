/* SPDX-License-Identifier: MIT */
/*
 * src: the source scanner end to end and the parts of it that are plain C: compile-command
 * flags, the compile database, -j, hostile sources, notes in JSON, the arguments libclang gets.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <glob.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "config/pack.h"
#include "source/cflags.h"
#include "source/fe_clang.h"
#include "source/preamble.h"
#include "source/sir.h"
#include "harness.h"
#include "base/mem.h"

TestSuite(src, .init = harness_init_bare, .fini = harness_fini);

static const char capture[] =
	"#include <cuda_runtime.h>\n"
	"__global__ void k(float *x) {}\n"
	"static void helper(float *x) { k<<<1, 1>>>(x); }\n"               /* line 3 */
	"int f(float *x) {\n"
	"  cudaStream_t s; cudaGraph_t g;\n"
	"  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);\n"
	"  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"       /* line 7 */
	"  helper(x);\n"                                                    /* line 8 */
	"  cudaDeviceSynchronize();\n"                                      /* line 9 */
	"  if (cudaStreamEndCapture(s, &g) != cudaSuccess) return 1;\n"
	"  cudaGraphDestroy(g);\n"
	"  return 0;\n"
	"}\n";

/* The rule ids of a JSON document's diagnostics, "CG301@9 CG307@3 ", in order. */
/* "RULE@line " for each diagnostic, after "file:" (its name without the folder) with 'files'. */
static char *listing(json_t *doc, bool files)
{
	static char buf[1024];
	buf[0] = 0;
	size_t i;
	json_t *d;
	json_array_foreach(json_object_get(doc, "diagnostics"), i, d) {
		const char *path = json_string_value(json_object_get(d, "path")), *slash = strrchr(path, '/');
		size_t n = strlen(buf);
		snprintf(buf + n, sizeof(buf) - n, "%s%s%s@%d ", files ? (slash ? slash + 1 : path) : "", files ? ":" : "",
			 json_string_value(json_object_get(d, "rule")), (int)json_integer_value(json_object_get(d, "line")));
	}
	return buf;
}

static char *ids(json_t *doc)
{
	return listing(doc, false);
}

static char *places(json_t *doc)
{
	return listing(doc, true);
}

/* Run cglint on 'args' in the test folder; its findings must be 'want' (as ids() lists them). */
static void expect_ids(const char *args, const char *want)
{
	json_t *doc;
	harness_run_json(harness_dir, args, &doc);
	cr_assert_not_null(doc, "%s", args);
	cr_expect_str_eq(ids(doc), want, "%s", args);
	json_decref(doc);
}

Test(src, region_through_a_call_with_chain_note)
{
	free(harness_write(harness_dir, "a.cu", capture, sizeof(capture) - 1));
	json_t *doc;
	int rc = harness_run_json(harness_dir, "a.cu", &doc);
	cr_assert_not_null(doc);
	cr_expect_eq(rc, 1);
	cr_expect_str_eq(ids(doc), "CG307@3 CG301@9 ");
	json_t *d = json_array_get(json_object_get(doc, "diagnostics"), 0);
	json_t *notes = json_object_get(d, "notes");
	cr_assert_eq(json_array_size(notes), 1, "the helper's finding carries its call chain");
	cr_expect_eq(json_integer_value(json_object_get(json_array_get(notes, 0), "line")), 8);
	/* non-blocking capture stream: the launch is silently left out, not an error code */
	cr_expect(strstr(json_string_value(json_object_get(d, "message")), "missing from every replay"));
	json_decref(doc);
}

Test(src, jobs_do_not_change_the_output)
{
	for (int k = 0; k < 6; k++) {
		char name[16];
		snprintf(name, sizeof(name), "f%d.cu", k);
		free(harness_write(harness_dir, name, capture, sizeof(capture) - 1));
	}
	char *one, *two;
	int rc1 = harness_run(harness_dir, "-j 1 .", &one);
	int rc2 = harness_run(harness_dir, "-j 2 .", &two);
	cr_expect_eq(rc1, 1);
	cr_expect_eq(rc2, 1);
	cr_assert(one && two);
	cr_expect_str_eq(one, two);
	cr_expect(strstr(one, "f5.cu:9:3: error"));
	free(one);
	free(two);
}

Test(src, syntax_error_is_not_analysed)
{
	static const char bad[] = "#include <cuda_runtime.h>\nvoid f(cudaStream_t s) {\n  cudaDeviceSynchronize(;\n}\n";
	free(harness_write(harness_dir, "bad.cu", bad, sizeof(bad) - 1));
	json_t *doc;
	cr_expect_eq(harness_run_json(harness_dir, "bad.cu", &doc), 2);
	cr_assert_not_null(doc);
	cr_expect_str_eq(ids(doc), "CG911@3 ");
	json_decref(doc);
}

Test(src, missing_header_is_analysed_in_part)
{
	/* clang recovers from the missing header: the function is analysed, the header named once */
	static const char inc[] = "#include \"absent.h\"\n#include <cuda_runtime.h>\n"
				  "void f(cudaStream_t s) { cudaGraph_t g;\n"
				  "  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
				  "  cudaDeviceSynchronize();\n  (void)cudaStreamEndCapture(s, &g); }\n";
	free(harness_write(harness_dir, "inc.cu", inc, sizeof(inc) - 1));
	json_t *doc;
	cr_expect_eq(harness_run_json(harness_dir, "inc.cu", &doc), 1);
	cr_assert_not_null(doc);
	cr_expect_str_eq(ids(doc), "CG919@1 CG301@5 CG407@6 ");
	json_decref(doc);
}

Test(src, hostile_sources_never_crash)
{
	struct {
		const char *name;
		char *text;
		size_t len;
	} in[4];
	in[0].name = "binary.cu";
	in[0].len = 4096;
	in[0].text = malloc(in[0].len);
	for (size_t i = 0; i < in[0].len; i++)
		in[0].text[i] = (char)(i * 131 + 7);
	/* nesting far past clang's bracket limit */
	in[1].name = "deep.c";
	in[1].len = 20000 * 2 + 64;
	in[1].text = malloc(in[1].len);
	size_t n = (size_t)sprintf(in[1].text, "int f(void) { return ");
	for (int i = 0; i < 20000; i++)
		in[1].text[n++] = '(';
	in[1].text[n++] = '1';
	for (int i = 0; i < 20000; i++)
		in[1].text[n++] = ')';
	n += (size_t)sprintf(in[1].text + n, "; }\n");
	in[1].len = n;
	in[2].name = "empty.cpp";
	in[2].text = calloc(1, 1);
	in[2].len = 0;
	in[3].name = "utf8.cu";
	in[3].text = strdup("// \xff\xfe not UTF-8\nint x = \"\xc3\x28\";\n");
	in[3].len = strlen(in[3].text);
	for (size_t k = 0; k < 4; k++) {
		free(harness_write(harness_dir, in[k].name, in[k].text, in[k].len));
		free(in[k].text);
		char *out;
		int rc = harness_run(harness_dir, in[k].name, &out);
		cr_expect(rc == 0 || rc == 2, "%s: exit %d", in[k].name, rc);
		if (rc == 2)
			cr_expect(out && strstr(out, "[CG911 source-not-analysed]"), "%s: no CG911 in:\n%s", in[k].name,
				  out ? out : "");
		free(out);
	}
}

Test(src, compile_database_flags_reach_libclang)
{
	char json[1024];
	snprintf(json, sizeof(json),
		 "[{\"directory\": \"%s\", \"file\": \"%s/a.cu\", \"command\": \"/usr/local/cuda/bin/nvcc "
		 "-DUSE_X=1 -Iinc --default-stream per-thread -O3 --generate-code=arch=compute_90,code=sm_90 "
		 "-c a.cu -o a.o\"}]",
		 harness_dir, harness_dir);
	free(harness_write(harness_dir, "compile_commands.json", json, strlen(json)));
	free(harness_write(harness_dir, "a.cu", capture, sizeof(capture) - 1));
	char *out;
	cr_expect_eq(harness_run(harness_dir, "--show-clang-args a.cu", &out), 0);
	cr_assert_not_null(out);
	cr_expect(strstr(out, "\n-DUSE_X=1\n"), "got:\n%s", out);
	cr_expect(strstr(out, "\n-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1\n"), "got:\n%s", out);
	char inc[600];
	snprintf(inc, sizeof(inc), "\n-I\n%s/inc\n", harness_dir);
	cr_expect(strstr(out, inc), "relative include made absolute; got:\n%s", out);
	cr_expect(!strstr(out, "-O3") && !strstr(out, "generate-code"), "codegen flags dropped; got:\n%s", out);
	free(out);
	cr_expect_eq(harness_run(harness_dir, "--show-clang-args a.cu 2>&1 >/dev/null", &out), 0);
	cr_assert_not_null(out);
	cr_expect_str_eq(out, "cglint: a.cu: left out of the compile command (they do not change parsing): -O3 "
			      "--generate-code=arch=compute_90,code=sm_90 -c -o\n");
	free(out);
	/* per-thread default stream: stream 0 is cudaStreamPerThread, not the legacy stream */
	expect_ids("a.cu", "CG301@9 ");
}

Test(src, cflags_keep_only_what_parses)
{
	struct arena *a = arena_new();
	const char *argv[] = {"g++", "-DA", "-D", "B=2", "-isystem", "/opt/x", "-Irel", "-O2", "-fno-plt",
			      "-std=gnu++20", "-include", "pre.h", "-MF", "dep.d", "-c", "x.cc", "-o", "x.o"};
	struct cflags f = {0};
	cflags_from_command(a, &f, argv, sizeof(argv) / sizeof(argv[0]), "/src");
	const char *want[] = {"-DA", "-DB=2", "-isystem", "/opt/x", "-I", "/src/rel", "-std=gnu++20", "-include", "/src/pre.h"};
	cr_assert_eq(f.n, sizeof(want) / sizeof(want[0]));
	for (size_t k = 0; k < f.n; k++)
		cr_expect_str_eq(f.v[k], want[k]);
	cr_expect(!f.per_thread_stream);
	const char *nv[] = {"nvcc", "--define-macro=CUDA_API_PER_THREAD_DEFAULT_STREAM", "--std", "c++17"};
	struct cflags g = {0};
	cflags_from_command(a, &g, nv, 4, NULL);
	cr_expect(g.per_thread_stream);
	cr_assert_eq(g.n, 2);
	cr_expect_str_eq(g.v[1], "-std=c++17");
	arena_free(a);
}

Test(src, cflags_read_nvcc_response_files)
{
	/* CMake's CUDA rules: --options-file (and -optf, @file) read relative to the entry's folder;
	 * -Xcompiler's comma-separated host flags; nvcc-only flags dropped */
	static const char inc[] = "-I include \"-DNAME=a b\"\n-optf more.rsp\n";
	free(harness_write(harness_dir, "inc.rsp", inc, sizeof(inc) - 1));
	free(harness_write(harness_dir, "more.rsp", "-isystem /opt/y\n", 16));
	free(harness_write(harness_dir, "at.rsp", "-DAT=1", 6));
	struct arena *a = arena_new();
	const char *argv[] = {"nvcc", "-forward-unknown-to-host-compiler", "--options-file", "inc.rsp", "@at.rsp",
			      "-Xcompiler=-DHOST=1,-fPIC", "--expt-relaxed-constexpr", "-x", "cu", "-c", "k.cu"};
	struct cflags f = {0};
	cflags_from_command(a, &f, argv, sizeof(argv) / sizeof(argv[0]), harness_dir);
	const char *want[] = {"-I", arena_printf(a, "%s/include", harness_dir), "-DNAME=a b", "-isystem", "/opt/y", "-DAT=1", "-DHOST=1"};
	cr_assert_eq(f.n, sizeof(want) / sizeof(want[0]));
	for (size_t k = 0; k < f.n; k++)
		cr_expect_str_eq(f.v[k], want[k]);
	arena_free(a);
}

Test(src, cflags_response_files_bounded)
{
	/* a database may name any path as a response file: a device that never ends, a FIFO no one
	 * writes, a folder are each skipped, and a file naming itself ten times over is read a
	 * bounded number of times (they once filled memory, hung the run, or read it 10^8 times) */
	static const char self[] = "-optf self.rsp,self.rsp,self.rsp,self.rsp,self.rsp,self.rsp,self.rsp,self.rsp,"
				   "self.rsp,self.rsp\n";
	free(harness_write(harness_dir, "self.rsp", self, sizeof(self) - 1));
	struct arena *a = arena_new();
	const char *fifo = arena_printf(a, "%s/fifo.rsp", harness_dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	const char *argv[] = {"nvcc", "--options-file", "/dev/zero", "-optf", "fifo.rsp", "@.", "@self.rsp", "-DOK=1",
			      "-c", "k.cu"};
	struct cflags f = {0};
	cflags_from_command(a, &f, argv, sizeof(argv) / sizeof(argv[0]), harness_dir);
	cr_assert_eq(f.n, 1);
	cr_expect_str_eq(f.v[0], "-DOK=1");
	arena_free(a);
}

/* A stand-in toolkit under the test folder: its include folder is recognised by these two. */
static void fake_toolkit(void)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/tk/include/crt", harness_dir);
	char cmd[320];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
	cr_assert_eq(system(cmd), 0);
	free(harness_write(harness_dir, "tk/include/cuda_runtime.h", "", 0));
	free(harness_write(harness_dir, "tk/include/crt/host_config.h", "", 0));
	free(harness_write(harness_dir, "a.cu", "", 0));
}

Test(src, toolkit_found_or_refused)
{
	fake_toolkit();
	char *out, args[512];
	setenv("CGLINT_CUDA_PATH", "", 1);      /* ctest sets none; found from CUDA_PATH here */
	snprintf(args, sizeof(args), "%s/tk", harness_dir);
	setenv("CUDA_PATH", args, 1);
	harness_run(harness_dir, "--show-clang-args a.cu", &out);
	snprintf(args, sizeof(args), "--cuda-path=%s/tk\n", harness_dir);
	cr_expect_not_null(strstr(out, args), "%s", out);
	free(out);
	harness_run(harness_dir, "--cuda-path none --show-clang-args a.cu", &out);
	cr_expect_not_null(strstr(out, "-nocudainc\n"), "%s", out);
	cr_expect_null(strstr(out, "/tk"), "%s", out);
	free(out);
}

Test(src, compile_database_toolkit_never_mixed_with_the_shim)
{
	fake_toolkit();
	char db[1024];
	int n = snprintf(db, sizeof(db),
			 "[{\"directory\": \"%s\", \"file\": \"%s/a.cu\", \"arguments\": [\"nvcc\", \"-I%s/tk/include\", \"-c\", \"a.cu\"]}]",
			 harness_dir, harness_dir, harness_dir);
	free(harness_write(harness_dir, "compile_commands.json", db, (size_t)n));
	char *out, want[512];
	setenv("CGLINT_CUDA_PATH", "", 1);
	unsetenv("CUDA_PATH");
	unsetenv("CUDA_HOME");
	harness_run(harness_dir, "--show-clang-args a.cu", &out); /* the build's toolkit comes before one installed */
	snprintf(want, sizeof(want), "--cuda-path=%s/tk\n", harness_dir);
	cr_expect_not_null(strstr(out, want), "%s", out);
	free(out);
	harness_run(harness_dir, "--cuda-path none --show-clang-args a.cu", &out);
	cr_expect_null(strstr(out, "/tk/include"), "%s", out);
	cr_expect_not_null(strstr(out, "/cglint-shim\n"), "%s", out);
	free(out);
}

/* A compile database is the repository's own input: its -include of a file outside the
 * repository gives that file's position in the refusal, never clang's words about its text
 * (which quote it). The same file inside the repository is quoted as usual. */
Test(src, errors_in_files_outside_the_repository_are_not_quoted)
{
	const char *secret = "root:x:0:0:TOKEN-5d1e:/root:/bin/bash\n";
	char mk[128];
	snprintf(mk, sizeof(mk), "mkdir -p '%s/repo/.git'", harness_dir);
	cr_assert_eq(system(mk), 0);
	free(harness_write(harness_dir, "secret.txt", secret, strlen(secret)));
	free(harness_write(harness_dir, "repo/own.txt", secret, strlen(secret)));
	free(harness_write(harness_dir, "repo/.git/HEAD", "ref: refs/heads/main\n", 21));
	free(harness_write(harness_dir, "repo/a.cu", capture, strlen(capture)));
	const char *inc[] = {"../secret.txt", "own.txt"};
	for (size_t k = 0; k < 2; k++) {
		char json[1024];
		snprintf(json, sizeof(json),
			 "[{\"directory\": \"%s/repo\", \"file\": \"a.cu\", \"command\": \"nvcc -include %s -c a.cu\"}]",
			 harness_dir, inc[k]);
		free(harness_write(harness_dir, "repo/compile_commands.json", json, strlen(json)));
		char *out;
		int rc = harness_run(harness_dir, "--format concise repo/a.cu", &out);
		cr_expect(rc == 1 || rc == 2, "exit %d:\n%s", rc, out);
		cr_expect(strstr(out, k ? "own.txt:1:1: " : "secret.txt:1:1: "), "no position in:\n%s", out);
		if (k)
			cr_expect(strstr(out, "root"), "the repository's own file is not quoted:\n%s", out);
		else
			cr_expect(!strstr(out, "TOKEN") && !strstr(out, "root"), "the outside file was quoted:\n%s", out);
		free(out);
	}
}

/* Files in 'path' (a folder), or -1 when it cannot be read. */
static int entries(const char *path)
{
	DIR *d = opendir(path);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return d ? n : -1;
}

Test(src, preamble_made_once_for_the_same_flags)
{
	char pch[300];
	snprintf(pch, sizeof(pch), "%s/pch", harness_dir);
	cr_assert_eq(mkdir(pch, 0700), 0);
	struct pack *p = pack_new();
	pack_load_builtin(p);
	struct fe_clang_cdbs *c = fe_clang_cdbs_new();
	struct fe_clang_opts o = {.cuda_path = "none", .cdbs = c, .pch_dir = pch};
	ino_t ino[2] = {0, 0};
	for (int k = 0; k < 2; k++) {
		char name[16];
		snprintf(name, sizeof(name), "f%d.cu", k);
		char *path = harness_write(harness_dir, name, capture, sizeof(capture) - 1);
		struct arena *a = arena_new();
		struct diag_list d;
		diag_init(&d, a, &p->lookup, NULL);
		struct sir_tu *tu;
		cr_assert_eq(fe_clang_parse(a, &d, path, capture, sizeof(capture) - 1, &o, &tu), 0);
		cr_expect_eq(d.n, 0, "a clean parse with the preamble");
		cr_expect_eq(tu->n_fns, 3, "k, helper and f");
		glob_t g;
		char pat[320];
		snprintf(pat, sizeof(pat), "%s/*.pch", pch);
		cr_assert_eq(glob(pat, 0, NULL, &g), 0, "a preamble was saved");
		cr_assert_eq(g.gl_pathc, 1);
		struct stat st;
		cr_assert_eq(stat(g.gl_pathv[0], &st), 0);
		ino[k] = st.st_ino;
		globfree(&g);
		diag_release(&d);
		arena_free(a);
		free(path);
	}
	cr_expect_eq(ino[0], ino[1], "the second parse used the first one's preamble, not a new one");
	/* libclang drops the saving thread to SCHED_IDLE when it reads a freed index's options */
	cr_expect_eq(sched_getscheduler(0), SCHED_OTHER, "saving the preamble left this thread's scheduling alone");
	cr_expect_eq(entries(pch), 3, "one preamble, the list of what it included and the lock it was made under");
	fe_clang_cdbs_free(c);
	pack_free(p);
}

Test(src, preamble_changes_no_finding_and_is_removed)
{
	static const char broken[] = "#include <cuda_runtime.h>\nint f( {\n";
	free(harness_write(harness_dir, "a.cu", capture, sizeof(capture) - 1));
	free(harness_write(harness_dir, "b.cu", broken, sizeof(broken) - 1));
	free(harness_write(harness_dir, "c.cu", capture, sizeof(capture) - 1));
	char tmp[300], alone[1024] = "";
	snprintf(tmp, sizeof(tmp), "%s/tmp", harness_dir);
	cr_assert_eq(mkdir(tmp, 0700), 0);
	setenv("TMPDIR", tmp, 1);
	static const char *const files[] = {"a.cu", "b.cu", "c.cu"};
	for (size_t k = 0; k < 3; k++) {      /* one file a run: no preamble is made */
		json_t *doc;
		harness_run_json(harness_dir, files[k], &doc);
		cr_assert_not_null(doc);
		strcat(alone, ids(doc));
		json_decref(doc);
	}
	json_t *doc;
	int rc = harness_run_json(harness_dir, "--no-cache -j 1 a.cu b.cu c.cu", &doc); /* the run's own preambles */
	cr_assert_not_null(doc);
	cr_expect_eq(rc, 2);
	cr_expect_str_eq(ids(doc), alone);
	cr_expect_str_eq(alone, "CG307@3 CG301@9 CG911@2 CG307@3 CG301@9 ");
	json_decref(doc);
	cr_expect_eq(entries(tmp), 0, "the run's preambles are removed");
	unsetenv("TMPDIR");
}

/* A header is checked through the first queued file that includes it, with that file's macros,
 * once however many include it and whatever -j; alone, it is checked on its own. */
Test(src, a_header_is_checked_through_its_includer)
{
	static const char hdr[] = "#pragma once\n"
				  "static inline int step(cudaStream_t s, cudaGraph_t *g) {\n"
				  "  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
				  "  SYNC(s);\n"                                /* line 4: a sync through a.cu's macro */
				  "  return cudaStreamEndCapture(s, g) != cudaSuccess;\n}\n";
	static const char user[] = "#include <cuda_runtime.h>\n#define SYNC(s) cudaStreamSynchronize(s)\n"
				   "#include \"gpu.h\"\nint run(cudaStream_t s, cudaGraph_t *g) { return step(s, g); }\n";
	free(harness_write(harness_dir, "gpu.h", hdr, sizeof(hdr) - 1));
	free(harness_write(harness_dir, "a.cu", user, sizeof(user) - 1));
	free(harness_write(harness_dir, "b.cu", user, sizeof(user) - 1));
	static const char *const runs[] = {"-j 1 a.cu b.cu gpu.h", "-j 2 a.cu b.cu gpu.h", "-j 2 gpu.h b.cu a.cu", "-j 1 ."};
	static const char *const want[] = {"gpu.h:CG301@4 ", "gpu.h:CG301@4 ", "gpu.h:CG301@4 ", "gpu.h:CG301@4 "};
	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		json_t *doc;
		cr_expect_eq(harness_run_json(harness_dir, runs[k], &doc), 1, "%s", runs[k]);
		cr_assert_not_null(doc);
		cr_expect_str_eq(places(doc), want[k], "%s", runs[k]);
		json_decref(doc);
	}
	json_t *doc;
	harness_run_json(harness_dir, "gpu.h", &doc); /* alone (as CUDA, beside .cu files): SYNC unknown */
	cr_assert_not_null(doc);
	cr_expect_str_eq(places(doc), "gpu.h:CG919@4 ");
	json_decref(doc);
}

/* What a file's preamble covers: whole lines of directives and comments before its code. */
Test(src, preamble_len_stops_at_code_and_open_conditionals)
{
	static const struct {
		const char *text, *preamble;    /* preamble: the prefix preamble_len gives */
	} cases[] = {
		{"#include <a.h>\n#include \"b.h\"\nint x;\n", "#include <a.h>\n#include \"b.h\"\n"},
		{"// c\n/* a\n   b */\n#include <a.h>\n\nint x;\n", "// c\n/* a\n   b */\n#include <a.h>\n"},
		{"#ifdef W\n#include <w.h>\n#else\n#include <u.h>\n#endif\nint x;\n",
		 "#ifdef W\n#include <w.h>\n#else\n#include <u.h>\n#endif\n"},
		{"#include <a.h>\n#ifndef G_H\n#define G_H\nint x;\n#endif\n", "#include <a.h>\n"},   /* a guard */
		{"#ifndef G_H\n#define G_H\n#include <a.h>\nint x;\n#endif\n", ""},
		{"#define N 4\nint x;\n", ""},                                      /* nothing included */
		{"#include <a.h>\n#define N 4\n#if M\n#endif\nint x;\n", "#include <a.h>\n"},      /* macros after */
		{"int x;\n#include <a.h>\n", ""},
		{"#define L(a) \\\n  (a)\n#include <a.h>\nint x;\n", "#define L(a) \\\n  (a)\n#include <a.h>\n"},
		{"#include <a.h>\n/* open", "#include <a.h>\n"},
		{"#include <a.h> /* runs\n on */\nint x;\n", ""},                   /* stopped at the comment */
		{"#include <a.h>\n#endif\n#include <b.h>\n", "#include <a.h>\n"},
		{"#include <a.h>", ""},                                             /* no whole line */
		{"  #  include <a.h>\r\n\tint x;\n", "  #  include <a.h>\r\n"},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		cr_expect_eq(preamble_len(cases[k].text, strlen(cases[k].text)), strlen(cases[k].preamble), "case %zu", k);
}

/* A file the database does not name borrows its nearest source's command, but not a -std= of
 * another language: a .cu beside a C file's entry parsed with -std=gnu11 fails outright. */
Test(src, borrowed_command_keeps_the_language_standard)
{
	char json[1024];
	snprintf(json, sizeof(json),
		 "[{\"directory\": \"%s\", \"file\": \"%s/main.c\", \"command\": \"cc -std=gnu11 -DX=1 -c main.c\"}]",
		 harness_dir, harness_dir);
	free(harness_write(harness_dir, "compile_commands.json", json, strlen(json)));
	free(harness_write(harness_dir, "main.c", "int main(void) { return 0; }\n", 29));
	free(harness_write(harness_dir, "k.cu", capture, sizeof(capture) - 1));
	char *out;
	cr_expect_eq(harness_run(harness_dir, "--show-clang-args k.cu 2>/dev/null", &out), 0);
	cr_assert_not_null(out);
	cr_expect(strstr(out, "\n-DX=1\n"), "the neighbour's macros are borrowed; got:\n%s", out);
	cr_expect(!strstr(out, "gnu11"), "its C standard is not; got:\n%s", out);
	free(out);
	expect_ids("k.cu", "CG307@3 CG301@9 ");
}

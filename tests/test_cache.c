/* SPDX-License-Identifier: MIT */
/*
 * cache: the precompiled preambles kept between runs in $XDG_CACHE_HOME/cglint (pch_cache.h):
 * made on a miss, used on a hit, made again when a header they hold changes or the file is
 * corrupt (checked by checksum before libclang reads it), left alone with --no-cache, shared by runs at the same time, cleaned by age and size.
 * Every run's findings must equal those of a run without the cache.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "source/pch_cache.h"

static char cache[sizeof(harness_dir) + 32];

/* The test folder, with XDG_CACHE_HOME in it: the cache is the test's own. */
static void init(void)
{
	harness_init();
	snprintf(cache, sizeof(cache), "%s/xdg", harness_dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	strcat(cache, "/cglint");
}

TestSuite(cache, .init = init, .fini = harness_fini);

/* A capture that calls a helper from a header of its folder, so the preamble holds the helper. */
static const char user[] =
	"#include <cuda_runtime.h>\n"
	"#include \"step.h\"\n"
	"__global__ void k(float *x) {}\n"
	"int f(float *x) {\n"
	"  cudaStream_t s; cudaGraph_t g;\n"
	"  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);\n"
	"  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
	"  step(s);\n"                                                  /* line 8 */
	"  k<<<1, 1, 0, s>>>(x);\n"
	"  cudaStreamSynchronize(s);\n"                                 /* line 10 */
	"  if (cudaStreamEndCapture(s, &g) != cudaSuccess) return 1;\n"
	"  cudaGraphDestroy(g);\n"
	"  return 0;\n"
	"}\n";
static const char quiet_step[] = "static inline void step(cudaStream_t s) { (void)s; }\n";
static const char syncing_step[] = "static inline void step(cudaStream_t s) { cudaDeviceSynchronize(); }\n";

/* "file:RULE@line " for each finding in a JSON document (malloc'd); NULL for none. */
static char *listing(json_t *doc)
{
	char *out = calloc(1, 2048);
	size_t i;
	json_t *d;
	json_array_foreach(json_object_get(doc, "diagnostics"), i, d) {
		const char *path = json_string_value(json_object_get(d, "path")), *slash = strrchr(path, '/');
		size_t n = strlen(out);
		snprintf(out + n, 2048 - n, "%s:%s@%d ", slash ? slash + 1 : path,
			 json_string_value(json_object_get(d, "rule")), (int)json_integer_value(json_object_get(d, "line")));
	}
	return out;
}

/* The findings of `cglint --format json ARGS` in the test folder, as listing() gives them. */
static char *findings(const char *args, int *rc)
{
	json_t *doc;
	*rc = harness_run_json(harness_dir, args, &doc);
	cr_assert_not_null(doc, "%s", args);
	char *out = listing(doc);
	json_decref(doc);
	return out;
}

/* Run ARGS with the cache and with --no-cache: the same findings and exit status, which are returned. */
static char *same_as_without(const char *args)
{
	int rc, rc_no;
	char *got = findings(args, &rc), no_cache[512];
	snprintf(no_cache, sizeof(no_cache), "--no-cache %s", args);
	char *want = findings(no_cache, &rc_no);
	cr_expect_str_eq(got, want, "%s: with the cache as without", args);
	cr_expect_eq(rc, rc_no, "%s", args);
	free(want);
	return got;
}

/* The cache's entries whose names end in 'ext' (".pch", ".tmp", ...); the last one's path in 'path'. */
static int count(const char *ext, char *path, size_t size)
{
	DIR *d = opendir(cache);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len > strlen(ext) && !strcmp(e->d_name + len - strlen(ext), ext)) {
			n++;
			if (path)
				snprintf(path, size, "%s/%s", cache, e->d_name);
		}
	}
	if (d)
		closedir(d);
	return n;
}

static void age(const char *path, time_t when)
{
	struct timespec t[2] = {{when, 0}, {when, 0}};
	cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0, "%s", path);
}

/* a.cu with step.h as 'step' in the test folder, run once with the cache (and once without):
 * its findings must be 'want'; the one preamble saved, its path in pch[0..size). */
static void first_run(const char *step, const char *want, char *pch, size_t size)
{
	harness_put("a.cu", user);
	harness_put("step.h", step);
	char *got = same_as_without("a.cu");
	cr_expect_str_eq(got, want);
	free(got);
	cr_assert_eq(count(".pch", pch, size), 1, "the miss saved one preamble");
}

Test(cache, a_miss_makes_the_preamble_and_a_hit_uses_it)
{
	char pch[600];
	first_run(quiet_step, "a.cu:CG301@10 ", pch, sizeof(pch));
	cr_expect_eq(count(".pch.inc", NULL, 0), 1, "with the list of the files it holds");
	struct stat before, after;
	age(pch, 946684800);    /* 2000-01-01: a hit touches it */
	cr_assert_eq(stat(pch, &before), 0);
	char *second = same_as_without("a.cu");
	cr_expect_str_eq(second, "a.cu:CG301@10 ");
	free(second);
	cr_assert_eq(stat(pch, &after), 0);
	cr_expect_eq(after.st_ino, before.st_ino, "the hit read the saved preamble, it did not make a new one");
	cr_expect_gt(after.st_atime, before.st_atime, "the hit marked the preamble used");
	cr_expect_eq(after.st_mtime, before.st_mtime, "by its access time: a chain on it holds its modification time");
	cr_expect_eq(count(".pch", NULL, 0), 1);
}

Test(cache, a_changed_header_is_read_anew)
{
	char pch[600];
	first_run(quiet_step, "a.cu:CG301@10 ", pch, sizeof(pch));
	struct stat before, after;
	cr_assert_eq(stat(pch, &before), 0);
	harness_put("step.h", syncing_step);    /* the helper the preamble holds now syncs */
	char *second = same_as_without("a.cu");
	cr_expect_str_eq(second, "step.h:CG301@1 a.cu:CG301@10 ", "the header as it is now, not as the preamble held it");
	free(second);
	cr_assert_eq(count(".pch", pch, sizeof(pch)), 1, "the stale preamble was replaced, not kept beside");
	cr_assert_eq(stat(pch, &after), 0);
	cr_expect_neq(after.st_ino, before.st_ino, "a new preamble was made");
}

/* Issue 43: a header that includes one not found (a CPU-only libtorch lacks
 * c10/cuda/impl/cuda_cmake_macros.h) leaves the file analysed in part; its preamble is still
 * saved, with the error beside it (.pch.err, no .bad mark), and a run from it says what a run
 * without it says, word for word. Once the header is there, the preamble is made again. */
Test(cache, a_header_not_found_keeps_its_preamble)
{
	static const char vendor[] = "#include \"vendor_config.h\"\n"
				     "static inline void step(cudaStream_t s) { (void)s; }\n";
	char *user_vendor = strdup(user);
	memcpy(strstr(user_vendor, "\"step.h\""), "\"vnd.h\" ", 8);
	harness_put("a.cu", user_vendor);
	harness_put("vnd.h", vendor);
	char *first = NULL, *plain = NULL, *second = NULL;
	harness_run(harness_dir, "a.cu 2>&1", &first);
	harness_run(harness_dir, "--no-cache a.cu 2>&1", &plain);
	cr_expect_str_eq(first, plain, "a miss: the same words as without the cache");
	cr_expect_not_null(strstr(first, "[CG919"), "analysed in part: %s", first);
	cr_expect_not_null(strstr(first, "vendor_config.h"), "%s", first);
	char pch[600];
	cr_assert_eq(count(".pch", pch, sizeof(pch)), 1, "the preamble was saved");
	cr_expect_eq(count(".pch.err", NULL, 0), 1, "with the header not found beside it");
	cr_expect_eq(count(".bad", NULL, 0), 0, "and no mark that it failed");
	struct stat before, after;
	cr_assert_eq(stat(pch, &before), 0);
	harness_run(harness_dir, "a.cu 2>&1", &second);
	cr_expect_str_eq(second, plain, "a hit: the same words as without the cache");
	cr_assert_eq(stat(pch, &after), 0);
	cr_expect_eq(after.st_ino, before.st_ino, "the hit read the saved preamble");
	free(second);
	harness_put("vendor_config.h", "#define VENDOR 1\n");     /* the header is there now */
	char *third = NULL;
	harness_run(harness_dir, "a.cu 2>&1", &third);
	cr_expect_null(strstr(third, "CG919"), "the header found, not read from the preamble without it: %s", third);
	cr_expect_eq(count(".pch.err", NULL, 0), 0, "the new preamble has no error to keep");
	free(third);
	free(first);
	free(plain);
	free(user_vendor);
}

/* A header put since in an include folder searched before the one the preamble's came from
 * (-I ahead before -I behind) is what a parse reads now: the preamble is made again, not read
 * with the old header in it (pch_shadow.h). Before, the cached run passed where a run without
 * the cache failed. */
Test(cache, a_header_put_ahead_is_read_anew)
{
	char *angled = strdup(user);
	memcpy(strstr(angled, "\"step.h\""), "<step.h>", 8);
	harness_put("a.cu", angled);
	harness_put("behind/step.h", quiet_step);
	char db[2048];
	int n = snprintf(db, sizeof(db),
			 "[{\"directory\": \"%s\", \"file\": \"%s/a.cu\", "
			 "\"command\": \"nvcc -I ahead -I behind -c a.cu -o a.o\"}]\n",
			 harness_dir, harness_dir);
	cr_assert_lt(n, (int)sizeof(db));
	harness_put("compile_commands.json", db);
	char *first = same_as_without("a.cu");
	cr_expect_str_eq(first, "a.cu:CG301@10 ");
	cr_assert_eq(count(".pch", NULL, 0), 1, "the miss saved one preamble");
	harness_put("ahead/step.h", syncing_step);     /* found first now */
	char *second = same_as_without("a.cu");
	cr_expect_str_eq(second, "step.h:CG301@1 a.cu:CG301@10 ", "the header found first now, not the preamble's");
	free(first);
	free(second);
	free(angled);
}

Test(cache, no_cache_reads_and_writes_nothing)
{
	harness_put("a.cu", user);
	harness_put("step.h", quiet_step);
	int rc;
	free(findings("--no-cache a.cu", &rc));
	cr_expect_eq(rc, 1);
	cr_expect_eq(count(".pch", NULL, 0), 0, "nothing written");
	free(findings("a.cu", &rc));    /* a preamble that would be wrong if read */
	char pch[600];
	cr_assert_eq(count(".pch", pch, sizeof(pch)), 1);
	harness_put("step.h", syncing_step);
	char *got = findings("--no-cache a.cu", &rc);
	cr_expect_str_eq(got, "step.h:CG301@1 a.cu:CG301@10 ");
	free(got);
	struct stat st;
	cr_expect_eq(stat(pch, &st), 0, "--no-cache left the stale one alone (the next cached run replaces it)");
}

/* A preamble overwritten with garbage of its own size (libclang refuses it), cut short, or with
 * its list unreadable: each run's findings stay those of a run without the cache. */
Test(cache, a_corrupt_entry_is_never_trusted)
{
	char pch[600], inc[620];
	first_run(syncing_step, "step.h:CG301@1 a.cu:CG301@10 ", pch, sizeof(pch));
	snprintf(inc, sizeof(inc), "%s.inc", pch);
	struct stat st;
	cr_assert_eq(stat(pch, &st), 0);
	static const char *const damage[] = {"garbage", "short", "list"};
	for (size_t k = 0; k < 3; k++) {
		if (count(".pch", NULL, 0) == 0)
			free(same_as_without("a.cu"));  /* made again */
		FILE *f = fopen(k == 2 ? inc : pch, k == 1 ? "r+" : "w");
		cr_assert_not_null(f);
		if (k == 0)
			for (off_t i = 0; i < st.st_size; i++)
				fputc((int)(i * 7919 % 251), f);
		else if (k == 2)
			fputs("not a list\n", f);
		fclose(f);
		if (k == 1)
			cr_assert_eq(truncate(pch, st.st_size / 2), 0);
		int rc;
		char *got = findings("a.cu", &rc);
		cr_expect_str_eq(got, "step.h:CG301@1 a.cu:CG301@10 ", "%s", damage[k]);
		cr_expect_eq(rc, 1, "%s", damage[k]);
		free(got);
	}
	free(same_as_without("a.cu"));
	cr_expect_eq(count(".pch", NULL, 0), 1, "a sound preamble in the end");
}

/* Flip one byte of a file at 'at' (from its end when negative), keeping its size. */
static void flip(const char *path, long at)
{
	FILE *f = fopen(path, "r+");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fseek(f, at, at < 0 ? SEEK_END : SEEK_SET), 0);
	long where = ftell(f);
	int c = fgetc(f);
	cr_assert_neq(c, EOF);
	cr_assert_eq(fseek(f, where, SEEK_SET), 0);
	fputc(c ^ 0x20, f);
	fclose(f);
}

/* A preamble with one byte changed in its middle (its size as recorded, so only the checksum
 * tells), or its list cut after a few lines: detected before libclang reads it, and made again
 * in the same run, which finds what a run without the cache finds. */
Test(cache, a_damaged_entry_is_made_again)
{
	char pch[600], inc[620];
	first_run(syncing_step, "step.h:CG301@1 a.cu:CG301@10 ", pch, sizeof(pch));
	snprintf(inc, sizeof(inc), "%s.inc", pch);
	cr_assert(pch_cache_fresh(pch, inc), "sound as saved");
	struct stat st;
	cr_assert_eq(stat(pch, &st), 0);
	for (int k = 0; k < 3; k++) {
		if (k == 0) {
			flip(pch, (long)st.st_size / 2);
		} else if (k == 1) {
			flip(pch, -1);
		} else {        /* the first two lines kept: each still well-formed */
			FILE *f = fopen(inc, "r");
			cr_assert_not_null(f);
			char line[4096];
			long keep = 0;
			for (int i = 0; i < 2 && fgets(line, sizeof(line), f); i++)
				keep += (long)strlen(line);
			fclose(f);
			cr_assert_eq(truncate(inc, keep), 0);
		}
		cr_expect_not(pch_cache_fresh(pch, inc), "damage %d detected", k);
		struct stat before, after;
		cr_assert_eq(stat(pch, &before), 0);
		char *got = same_as_without("a.cu");
		cr_expect_str_eq(got, "step.h:CG301@1 a.cu:CG301@10 ", "damage %d", k);
		free(got);
		cr_assert_eq(count(".pch", pch, sizeof(pch)), 1, "damage %d: made again in place", k);
		snprintf(inc, sizeof(inc), "%s.inc", pch);
		cr_assert_eq(stat(pch, &after), 0);
		cr_expect_neq(after.st_ino, before.st_ino, "damage %d: a new preamble, the damaged one not used", k);
		cr_expect(pch_cache_fresh(pch, inc), "damage %d: the new one is sound", k);
	}
}

/* pch_cache_put_list and pch_cache_fresh on files of their own: every cut of the list and a
 * change of any one byte of the preamble or list is refused, and nothing crashes. */
Test(cache, every_cut_and_flipped_byte_is_refused)
{
	char pch[600], inc[620], hdr[600];
	snprintf(pch, sizeof(pch), "%s/p.pch", harness_dir);
	snprintf(inc, sizeof(inc), "%s/p.pch.inc", harness_dir);
	snprintf(hdr, sizeof(hdr), "%s/h.h", harness_dir);
	harness_put("p.pch", "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!");
	harness_put("h.h", "int h;\n");
	char inc_dir[600];
	snprintf(inc_dir, sizeof(inc_dir), "%s/inc", harness_dir);
	harness_put("inc/x.h", "int x;\n");
	const char *files[] = {hdr, "/cglint-shim/cuda_runtime.h"}, *dirs[] = {inc_dir};
	cr_assert(pch_cache_put_list(inc, pch, files, 2, dirs, 1));
	cr_assert(pch_cache_fresh(pch, inc));
	struct stat p, l;
	cr_assert_eq(stat(pch, &p), 0);
	cr_assert_eq(stat(inc, &l), 0);
	for (long at = 0; at < p.st_size; at++) {
		flip(pch, at);
		cr_expect_not(pch_cache_fresh(pch, inc), "preamble byte %ld", at);
		flip(pch, at);
	}
	for (long at = 0; at < l.st_size; at++) {
		flip(inc, at);
		cr_expect_not(pch_cache_fresh(pch, inc), "list byte %ld", at);
		flip(inc, at);
	}
	for (long keep = l.st_size - 1; keep >= 0; keep--) {
		cr_assert_eq(truncate(inc, keep), 0);
		cr_expect_not(pch_cache_fresh(pch, inc), "list cut to %ld bytes", keep);
	}
	cr_assert(pch_cache_put_list(inc, pch, files, 2, dirs, 1));
	cr_expect(pch_cache_fresh(pch, inc), "written again, sound again");
	harness_put("inc/new.h", "int n;\n");  /* the folder changes: a file may stand in front now */
	age(inc_dir, 946684800);                /* its time, changed whatever the clock's tick */
	cr_expect_not(pch_cache_fresh(pch, inc), "a folder it lists changed");
}

/* Files that begin with the same #includes and then each include a header of their own share
 * one preamble of the lines they have in common; a later run over one of them alone reads it
 * (its own block is not in the cache), and finds what a run without the cache finds. */
Test(cache, files_share_the_lines_they_begin_with)
{
	static const char head[] = "#include <cuda_runtime.h>\n#include \"step.h\"\n";
	static const char tail[] = "int f(cudaStream_t s, cudaGraph_t *g) {\n"
				   "  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
				   "  step(s);\n"
				   "  OWN(s);\n"
				   "  return cudaStreamEndCapture(s, g) != cudaSuccess;\n}\n";
	char a[512], b[512];
	snprintf(a, sizeof(a), "%s#include \"a_only.h\"\n%s", head, tail);
	snprintf(b, sizeof(b), "%s#include \"b_only.h\"\n%s", head, tail);
	harness_put("a.cu", a);
	harness_put("b.cu", b);
	harness_put("step.h", syncing_step);
	harness_put("a_only.h", "#define OWN(s) cudaStreamSynchronize(s)\n");
	harness_put("b_only.h", "#define OWN(s) ((void)(s))\n");
	char *got = same_as_without("-j 1 a.cu b.cu");
	cr_expect_str_eq(got, "step.h:CG301@1 a.cu:CG301@7 ", "each file's own header read with it");
	free(got);
	cr_assert_eq(count(".pch", NULL, 0), 3, "one of the two lines both begin with, each file's block on top of it");
	got = same_as_without("a.cu");
	cr_expect_str_eq(got, "step.h:CG301@1 a.cu:CG301@7 ");
	free(got);
	cr_expect_eq(count(".pch", NULL, 0), 3, "alone, a.cu found its preamble and made none");
}

/* The largest preamble in the cache: the one files share (a chain on it holds only the rest). */
static void largest(char *path, size_t size)
{
	DIR *d = opendir(cache);
	off_t best = -1;
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		char p[600];
		struct stat st;
		snprintf(p, sizeof(p), "%s/%s", cache, e->d_name);
		if (len > 4 && !strcmp(e->d_name + len - 4, ".pch") && stat(p, &st) == 0 && st.st_size > best) {
			best = st.st_size;
			snprintf(path, size, "%s", p);
		}
	}
	if (d)
		closedir(d);
	cr_assert_geq(best, 0, "a preamble in the cache");
}

/* Issue 43: a file's block past the lines it shares with others is precompiled on top of their
 * preamble (a chain), so that the next run reads none of its headers; a shared preamble made
 * again (another run renamed its own into place) gets new chains rather than ones clang refuses. */
Test(cache, the_rest_of_a_block_is_chained_to_the_shared_lines)
{
	static const char own_a[] = "#define OWN(s) cudaStreamSynchronize(s)\n",
			  same_size[] = "#define OWN(s) ((void)(s))             \n";
	cr_assert_eq(strlen(own_a), strlen(same_size));
	harness_put("a.cu", "#include <cuda_runtime.h>\n#include \"step.h\"\n#include \"a_only.h\"\n"
			    "int f(cudaStream_t s, cudaGraph_t *g) {\n"
			    "  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
			    "  OWN(s);\n"
			    "  return cudaStreamEndCapture(s, g) != cudaSuccess;\n}\n");
	harness_put("b.cu", "#include <cuda_runtime.h>\n#include \"step.h\"\n");
	harness_put("step.h", quiet_step);
	harness_put("a_only.h", own_a);
	char *got = same_as_without("-j 1 a.cu b.cu");
	cr_expect_str_eq(got, "a.cu:CG301@6 ");
	free(got);
	cr_assert_eq(count(".pch", NULL, 0), 2, "the shared lines', and a.cu's whole block on them");
	/* a_only.h changed under the same size and time: the cache takes it as it was */
	char path[600];
	snprintf(path, sizeof(path), "%s/a_only.h", harness_dir);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	harness_put("a_only.h", same_size);
	struct timespec t[2] = {st.st_atim, st.st_mtim};
	cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
	int rc;
	got = findings("a.cu", &rc);
	cr_expect_str_eq(got, "a.cu:CG301@6 ", "the macro read from the chain, not from the header");
	free(got);
	harness_put("a_only.h", own_a);
	cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
	char base[600];
	largest(base, sizeof(base));
	age(base, 946684800);   /* made again: another time */
	got = same_as_without("a.cu");
	cr_expect_str_eq(got, "a.cu:CG301@6 ");
	free(got);
	cr_expect_eq(count(".pch", NULL, 0), 3, "a chain of its own on the base as it is now");
}

/* Issue 43: a C++ preamble is made as a whole unit, so the templates its headers instantiate
 * are instantiated there, once; a capture that calls one is still followed into its body, read
 * from the preamble, cold and warm as without the cache. */
Test(cache, a_template_the_headers_instantiate_is_read_from_the_preamble)
{
	harness_put("tpl.h", "#include <cuda_runtime.h>\n"
			     "template <typename T> void wait_on(T s) { cudaStreamSynchronize(s); }\n"
			     "inline void warm(cudaStream_t s) { wait_on(s); }\n");
	harness_put("a.cu", "#include \"tpl.h\"\n"
			    "int f(cudaStream_t s, cudaGraph_t *g) {\n"
			    "  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n"
			    "  wait_on(s);\n"
			    "  return cudaStreamEndCapture(s, g) != cudaSuccess;\n}\n");
	for (int run = 0; run < 2; run++) {
		char *got = same_as_without("a.cu");
		cr_expect_str_eq(got, "tpl.h:CG301@2 ", "run %d: the sync in the instantiated body", run);
		free(got);
	}
	cr_expect_eq(count(".pch", NULL, 0), 1);
}

/* Runs at the same time over the same files, the cache empty: each writes under a name of its
 * own and renames it into place, so every run's findings are whole and one preamble is left. */
Test(cache, runs_at_the_same_time_share_it)
{
	harness_put("a.cu", user);
	harness_put("b.cu", user);
	harness_put("step.h", syncing_step);
	char cmd[2048];
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && for k in 1 2 3 4 5 6; do '%s' --format json -j 1 a.cu b.cu >out$k.json 2>/dev/null & done; wait",
		 harness_dir, CGLINT_BIN);
	cr_assert_eq(system(cmd), 0);
	int rc;
	char *want = findings("--no-cache -j 1 a.cu b.cu", &rc);
	cr_expect_str_eq(want, "step.h:CG301@1 a.cu:CG301@10 b.cu:CG301@10 ");
	for (int k = 1; k <= 6; k++) {
		char name[16];
		snprintf(name, sizeof(name), "out%d.json", k);
		char path[600];
		snprintf(path, sizeof(path), "%s/%s", harness_dir, name);
		json_error_t err;
		json_t *doc = json_load_file(path, 0, &err);
		cr_assert_not_null(doc, "run %d wrote whole JSON", k);
		char *got = listing(doc);
		json_decref(doc);
		cr_expect_str_eq(got, want, "run %d", k);
		free(got);
	}
	free(want);
	cr_expect_eq(count(".pch", NULL, 0), 1, "one preamble for the files' shared block");
	cr_expect_eq(count(".tmp", NULL, 0), 0, "no half-written file left");
}

static void make(const char *name, size_t bytes, time_t when)
{
	char *text = malloc(bytes + 1);
	memset(text, 'x', bytes);
	char *path = harness_write(cache, name, text, bytes);
	age(path, when);
	free(path);
	free(text);
}

static bool exists(const char *name)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/%s", cache, name);
	return access(path, F_OK) == 0;
}

/* Entries unused for the given days go, then the least recently used past the size; a preamble
 * goes with its list and mark, and other programs' files stay. */
Test(cache, cleaned_by_age_then_size)
{
	char *d = pch_cache_dir();
	cr_assert_not_null(d);
	cr_expect_str_eq(d, cache, "under $XDG_CACHE_HOME");
	free(d);
	time_t now = 1700000000, day = 86400;
	make("old.pch", 100, now - 40 * day);
	make("old.pch.inc", 10, now - 40 * day);
	make("old.lock", 0, now - 40 * day);
	make("used.pch", 100, now - 1 * day);
	make("used.pch.inc", 10, now - 50 * day);       /* its list ages with the preamble it belongs to */
	make("newer.pch", 100, now - 2 * day);
	make("newer.bad", 5, now - 2 * day);
	make("newest.pch", 100, now);
	make("dead.pch.123.0.1.tmp", 100, now - 2 * 3600);
	make("live.pch.123.0.1.tmp", 100, now - 60);
	make("notes.txt", 100, now - 400 * day);
	pch_cache_clean(cache, now, 30, 250);
	cr_expect_not(exists("old.pch") || exists("old.pch.inc") || exists("old.lock"), "unused for 40 days");
	cr_expect_not(exists("newer.pch") || exists("newer.bad"), "the least recently used, past 250 bytes");
	cr_expect(exists("used.pch") && exists("used.pch.inc"), "used a day ago, its list with it");
	cr_expect(exists("newest.pch"));
	cr_expect_not(exists("dead.pch.123.0.1.tmp"), "a writer's temporary file two hours old");
	cr_expect(exists("live.pch.123.0.1.tmp"), "one being written");
	cr_expect(exists("notes.txt"), "not the cache's");
}

Test(cache, no_usable_folder_means_no_cache)
{
	setenv("XDG_CACHE_HOME", "relative/path", 1);   /* the spec says to ignore it */
	char home[600];
	snprintf(home, sizeof(home), "%s/home", harness_dir);
	setenv("HOME", home, 1);
	char *d = pch_cache_dir();
	cr_assert_not_null(d);
	char want[640];
	snprintf(want, sizeof(want), "%s/.cache/cglint", home);
	cr_expect_str_eq(d, want);
	free(d);
	snprintf(home, sizeof(home), "%s/file", harness_dir);
	harness_put("file", "");
	setenv("HOME", home, 1);
	cr_expect_null(pch_cache_dir(), "a file where the folder would be");
	harness_put("a.cu", user);
	harness_put("step.h", syncing_step);
	int rc;
	char *got = findings("a.cu", &rc);
	cr_expect_str_eq(got, "step.h:CG301@1 a.cu:CG301@10 ", "the run goes on without the cache");
	free(got);
}

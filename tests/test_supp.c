/* SPDX-License-Identifier: MIT */
/*
 * supp: inline suppressions (CG913, CG914) in YAML, shell and C comments, of Criterion suite
 * 'project' (test_project.c says how its tests are set up).
 */
#define _GNU_SOURCE /* asprintf */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "projfx.h"

TestSuite(project, .init = harness_init, .fini = harness_fini);

/* ---- 1. inline suppressions ---- */

Test(project, suppressions_in_yaml)
{
	harness_put("s.yaml", "model:\n"
			      "  cuda_graph_impl: transformer_engine\n"
			      "  cuda_graph_scope: [attn]   # cglint: disable=CG132 -- migrating in Q3\n"
			      "  use_te_rng_tracker: false\n"
			      "  # cglint: disable=unknown-key\n"    /* alone: the next line of code */
			      "  # another comment\n"
			      "\n"
			      "  cuda_graph_warmup_stepz: 3\n"       /* line 8 */
			      "rng:\n"
			      "  # cglint: disable-next-line=CG101,CG905 -- both, CG905 for nothing\n"
			      "  te_rng_tracker: false\n"            /* line 11 */
			      "  seed: 1  # cglint: disable=CG101\n" /* nothing here */
			      "  inference_rng_tracker: \"x # cglint: disable=CG101\"\n" /* in a string: no directive */
			      "  data_parallel_random_init: 'y # cglint: disable=CG999'\n");
	int rc;
	char *err;
	char *got = harness_lint("", "--mcore 0.18 s.yaml", &rc, &err);
	expect_str(got, "s.yaml:10:5: warning: this suppression of CG905 covers nothing on line 11 [CG913 unused-suppression]\n"
			"s.yaml:12:14: warning: this suppression of CG101 covers nothing on line 12 [CG913 unused-suppression]\n");
	expect_str(err, "cglint: 2 warnings in 1 file; 1 file checked; 16 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them); 3 suppressed inline\n");
	cr_expect_eq(rc, 0);
	free(got);
	free(err);
	/* an audit: everything the comments hide, and no CG913 */
	got = harness_lint("", "--mcore 0.18 --no-inline-suppressions s.yaml", &rc, &err);
	expect_str(got, "s.yaml:3:3: note: " M132 "s.yaml:8:3: warning: " M905 "s.yaml:11:3: error: " M101);
	expect_str(err, "cglint: 1 error, 1 warning, 1 note in 1 file; 1 file checked; 16 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them)\n");
	cr_expect_eq(rc, 1);
	free(got);
	free(err);
}

Test(project, disable_file_by_id_and_name)
{
	harness_put("f.yaml", "# cglint: disable-file=CG101,unknown-key -- legacy file\n"
			      "model:\n  cuda_graph_impl: transformer_engine\n  use_te_rng_tracker: false\n"
			      "  cuda_graph_warmup_stepz: 3\n"
			      "rng:\n  te_rng_tracker: false\n");
	int rc;
	char *err;
	char *got = harness_lint("", "--mcore 0.16 --bridge 0.3 f.yaml", &rc, &err);
	expect_str(got, "");
	expect_str(err, "cglint: no findings (1 file checked; 24 checks undecided (--show-undecided lists them; --assume-defaults or -E/--env-file decide them); 2 suppressed inline)\n");
	cr_expect_eq(rc, 0);
	free(got);
	free(err);
	harness_put("g.yaml", "# cglint: disable-file=CG132\nmodel:\n  cuda_graph_impl: transformer_engine\n");
	harness_expect_lint("", "--mcore 0.16 --bridge 0.3 g.yaml", 0,
			    "g.yaml:1:3: warning: this suppression of CG132 covers nothing in this file [CG913 unused-suppression]\n");
}

Test(project, suppression_in_a_shell_script)
{
	harness_put("run.sh", "#!/bin/bash\n"
			      "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True  # cglint: disable=CG201 -- NCCL is 0 there\n"
			      "torchrun --nproc-per-node 8 pretrain_gpt.py --cuda-graph-impl transformer_engine --te-rng-tracker\n");
	int rc;
	char *err;
	char *got = harness_lint("", "--mcore 0.17 --bridge none --no-inline-suppressions run.sh", &rc, &err);
	expect_str(got, "run.sh:2:32: error: PYTORCH_CUDA_ALLOC_CONF has expandable_segments:True but NCCL_GRAPH_REGISTER "
			"is not 0: graph capture asserts (illegal memory access otherwise) "
			"[CG201 expandable-segments-need-nccl-graph-register-0]\n");
	cr_expect_eq(rc, 1);
	free(got);
	free(err);
	got = harness_lint("", "--mcore 0.17 --bridge none run.sh", &rc, &err);
	expect_str(got, "");
	expect_str(err, "cglint: all checks passed (1 file checked; 1 suppressed inline)\n");
	cr_expect_eq(rc, 0);
	free(got);
	free(err);
}

Test(project, suppressions_in_c)
{
	char text[2048];
	snprintf(text, sizeof(text), "%s"
		 "\tcudaDeviceSynchronize();  // cglint: disable=CG301 -- tested by hand\n"        /* 6 */
		 "\t/* cglint: disable-next-line=sync-in-capture */\n"                             /* 7 */
		 "\t// and a comment line between\n"
		 "\tcudaDeviceSynchronize();\n"                                                    /* 9 */
		 "\tcudaDeviceSynchronize(); /* cglint: disable=CG301 */\n"                        /* 10 */
		 "\tconst char *m = \"// cglint: disable=CG301\"; (void)m; cudaDeviceSynchronize();\n" /* 11 */
		 "\tcudaDeviceSynchronize(); // cglint: disable=device-sync\n"                     /* 12 */
		 "\treturn cudaStreamEndCapture(s, out);\n"
		 "}\n", projfx_cu_head);
	harness_put("k.cu", text);
	int rc;
	char *err;
	char *got = harness_lint("", "k.cu", &rc, &err);
	expect_str(got, "k.cu:11:55: error: " M301
			"k.cu:12:2: error: " M301
			"k.cu:12:30: error: no rule 'device-sync' to disable [CG914 bad-suppression]\n");
	expect_str(err, "cglint: 3 errors in 1 file; 1 file checked; 3 suppressed inline\n");
	cr_expect_eq(rc, 2);     /* a suppression naming no rule is broken input */
	free(got);
	free(err);
}

Test(project, malformed_suppressions)
{
	harness_put("n.yaml", "model:\n"
			      "  a: 1  # cglint: disable=GC101\n"
			      "  b: 1  # cglint: enable=CG101\n"
			      "  c: 1  # cglint: disable CG101\n"
			      "  d: 1  # cglint: disable=CG101 because\n"
			      "  e: 1  # cglint: disable= -- nothing\n");
	harness_expect_lint("", "--isolated --ignore CG927 n.yaml", 2,
			    "n.yaml:2:11: error: no rule 'GC101' to disable; did you mean 'CG101'? [CG914 bad-suppression]\n"
			    "n.yaml:3:11: error: unknown directive 'cglint: enable'; the directives are disable=, "
			    "disable-next-line= and disable-file= [CG914 bad-suppression]\n"
			    "n.yaml:4:11: error: 'cglint: disable' wants '=' and the rules it disables, e.g. disable=CG101 "
			    "[CG914 bad-suppression]\n"
			    "n.yaml:5:11: error: unexpected 'because' after the rules; a reason follows '--' [CG914 bad-suppression]\n"
			    "n.yaml:6:11: error: a suppression names no rule: give ids or names, e.g. disable=CG101 "
			    "[CG914 bad-suppression]\n");
	/* malformed ones suppress nothing */
	harness_put("m.yaml", "model:\n  cuda_graph_impl: transformer_engine\n  use_te_rng_tracker: false\n"
			      "rng:\n  te_rng_tracker: false  # cglint: disable CG101\n");
	harness_expect_lint("", "--mcore 0.16 --bridge 0.3 m.yaml", 2,
			    "m.yaml:5:3: error: " M101
			    "m.yaml:5:28: error: 'cglint: disable' wants '=' and the rules it disables, e.g. disable=CG101 "
			    "[CG914 bad-suppression]\n");
}

/* BUG: a misspelt rule name gets no did-you-mean (only ids are candidates). */
Test(project, misspelt_rule_name_gets_no_suggestion)
{
	harness_put("n.yaml", "model:\n  a: 1  # cglint: disable=te-rng-tracker-requird\n");
	harness_expect_lint("", "--isolated --ignore CG927 n.yaml", 2,
			    "n.yaml:2:11: error: no rule 'te-rng-tracker-requird' to disable; did you mean "
			    "'te-rng-tracker-required'? [CG914 bad-suppression]\n");
}

/*
 * BUG: a lower-case id both suppresses the finding (ids compare case-insensitively there) and
 * is reported as naming no rule (CG914). It must be one or the other.
 */
Test(project, lower_case_id_suppresses_and_is_unknown)
{
	harness_put("c.yaml", "model:\n  cuda_graph_impl: transformer_engine\n  use_te_rng_tracker: false\n"
			      "rng:\n  te_rng_tracker: false  # cglint: disable=cg101\n");
	int rc;
	char *got = harness_lint("", "--mcore 0.16 --bridge 0.3 c.yaml", &rc, NULL);
	bool suppressed = !strstr(got, "[CG101 ");
	bool unknown = strstr(got, "[CG914 ") != NULL;
	cr_expect(suppressed != unknown, "suppressed=%d and reported unknown=%d:\n%s", suppressed, unknown, got);
	free(got);
}

/*
 * BUG: a block comment that opens a line of code is taken for a comment alone on its line, so
 * it covers the NEXT line: here line 6 stays reported and line 7's finding is hidden.
 */
Test(project, leading_block_comment_covers_its_own_line)
{
	char text[1024];
	snprintf(text, sizeof(text), "%s"
		 "\t/* cglint: disable=CG301 */ cudaDeviceSynchronize();\n"
		 "\tcudaDeviceSynchronize();\n"
		 "\treturn cudaStreamEndCapture(s, out);\n"
		 "}\n", projfx_cu_head);
	harness_put("m.cu", text);
	harness_expect_lint("", "m.cu", 1, "m.cu:7:2: error: " M301);
}

/* BUG: YAML's '' inside a single-quoted string ends the string for the comment scanner. */
Test(project, doubled_quote_in_single_quoted_yaml)
{
	harness_put("q.yaml", "model:\n  cuda_graph_impl: none\n  seq_length: 'it''s # cglint: disable=CG101'\n");
	harness_expect_lint("", "--isolated q.yaml", 0, "");
}

/* BUG: a '# cglint:' line inside a YAML block scalar is text, not a comment. */
Test(project, directive_text_in_a_block_scalar)
{
	harness_put("b.yaml", "description: |\n  Run with:\n  # cglint: disable=CG101\nmodel:\n  cuda_graph_impl: none\n");
	harness_expect_lint("", "--isolated b.yaml", 0, "");
}

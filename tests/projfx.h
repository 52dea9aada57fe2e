/* SPDX-License-Identifier: MIT */
/*
 * projfx: what the suites of a team's project setup share (Criterion suite 'project', in
 * test_project.c, test_supp.c, test_baseline.c and test_fix.c): a recipe whose findings tell the
 * target apart, the messages of its findings, and the inputs more than one of them edits.
 */
#ifndef CGLINT_TEST_PROJFX_H
#define CGLINT_TEST_PROJFX_H

#define expect_str(got, want) cr_expect_str_eq(got, want, "\n--- got:\n%s\n--- wanted:\n%s", got, want)

/* The message part of the text output (after "path:line:col: severity: "). */
#define M101 "Transformer engine's RNG tracker is required for cudagraphs, it can be enabled with " \
	     "use_te_rng_tracker=True'. [CG101 te-rng-tracker-required]\n"
#define M122 "--cuda-graph-scope should be full or attn, got ['attn']. [CG122 unknown-cuda-graph-scope]\n"
#define M132 "cuda_graph_scope is deprecated, use cuda_graph_modules instead. [CG132 deprecated-cuda-graph-scope]\n"
#define M925 "a Megatron-Bridge config judged as plain Megatron-LM: no Megatron-Bridge release ships Megatron Core 0.15, " \
	     "so the target has no Bridge and Bridge's checks are off; pass --bridge 0.2 (it ships Megatron Core 0.15-dev) " \
	     "or --mcore 0.15-dev [CG925 bridge-input-without-bridge]\n"
#define M905 "unknown key 'cuda_graph_warmup_stepz'; did you mean 'cuda_graph_warmup_steps'? [CG905 unknown-key]\n"
#define M301 "cudaDeviceSynchronize inside a capture of 's' (begun at line 5): cudaErrorStreamCaptureUnsupported " \
	     "(900) in every capture mode, from any thread; the capture is invalidated [CG301 sync-in-capture]\n"

/*
 * A recipe whose findings tell the target apart: MCore 0.15 reports CG122 (line 3) and CG905
 * (line 5); 0.16 and 0.17 report CG905 and CG101 (line 7); 0.18 and later add CG132 (line 3).
 */
extern const char projfx_recipe[];

/* What the recipe gives for each target, as the file NAME (malloc'd). */
char *projfx_at_015(const char *name);
char *projfx_at_016(const char *name);
char *projfx_at_018(const char *name);

/* A CUDA source's first lines, up to a capture begun on stream 's' at line 5. */
extern const char projfx_cu_head[];

/* A partial override with the RNG tracker off (CG101 on Bridge 0.3), and the same turned on. */
extern const char projfx_rng_off[], projfx_rng_on[];

#endif

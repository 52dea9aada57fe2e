/* SPDX-License-Identifier: MIT */
/* projfx: the recipe and inputs the project suites share (see projfx.h). */
#include "projfx.h"

#include <stdio.h>
#include <stdlib.h>

const char projfx_recipe[] =
	"model:\n"
	"  cuda_graph_impl: transformer_engine\n"
	"  cuda_graph_scope: [attn]\n"
	"  use_te_rng_tracker: false\n"
	"  cuda_graph_warmup_stepz: 3\n"
	"rng:\n"
	"  te_rng_tracker: false\n";

char *projfx_at_015(const char *name)
{
	char *s = malloc(1024);
	snprintf(s, 1024, "%s:2:3: warning: " M925 "%s:3:3: error: " M122 "%s:5:3: warning: " M905, name, name, name);
	return s;
}

char *projfx_at_016(const char *name)
{
	char *s = malloc(1024);
	snprintf(s, 1024, "%s:5:3: warning: " M905 "%s:7:3: error: " M101, name, name);
	return s;
}

char *projfx_at_018(const char *name)
{
	char *s = malloc(1024);
	snprintf(s, 1024, "%s:3:3: note: " M132 "%s:5:3: warning: " M905 "%s:7:3: error: " M101, name, name, name);
	return s;
}

const char projfx_cu_head[] =
	"#include <cuda_runtime.h>\n"
	"\n"
	"cudaError_t cap(cudaStream_t s, cudaGraph_t *out)\n"
	"{\n"
	"\tcudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);\n";      /* line 5 */

const char projfx_rng_off[] =
	"model:\n"
	"  cuda_graph_impl: transformer_engine\n"
	"  use_te_rng_tracker: false\n"
	"rng:\n"
	"  te_rng_tracker: false\n";
const char projfx_rng_on[] =
	"model:\n"
	"  cuda_graph_impl: transformer_engine\n"
	"  use_te_rng_tracker: false\n"
	"rng:\n"
	"  te_rng_tracker: true\n";

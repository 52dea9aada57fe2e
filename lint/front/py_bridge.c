/* SPDX-License-Identifier: MIT */
/* py_bridge: Megatron-Bridge's config classes as the Python front-end sees them (see py_bridge.h). */
#include "front/py_bridge.h"

#include <string.h>

/* Config classes by their section of a ConfigContainer, for an object built on its own. */
const char *py_bridge_section(const char *cls)
{
	static const struct {
		const char *suffix, *section;
	} map[] = {
		{"ConfigContainer", ""},
		{"Provider", "model"},
		{"ModelConfig", "model"},
		{"TransformerConfig", "model"},
		{"RNGConfig", "rng"},
		{"TrainingConfig", "train"},
		{"DistributedDataParallelConfig", "ddp"},
		{"OptimizerConfig", "optimizer"},
		{"CommOverlapConfig", "comm_overlap"},
		{"RerunStateMachineConfig", "rerun_state_machine"},
		{"CheckpointConfig", "checkpoint"},
		{"LoggerConfig", "logger"},
	};
	size_t n = strlen(cls);
	for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++) {
		size_t m = strlen(map[k].suffix);
		if (n >= m && !strcmp(cls + n - m, map[k].suffix))
			return map[k].section;
	}
	/* Bridge's sized providers: Llama3ModelProvider8B, Qwen3MoEModelProvider30B_A3B, ... */
	return strstr(cls, "ModelProvider") ? "model" : NULL;
}

/* Config classes whose field defaults the packs hold (rules/defaults.yaml): a keyword
 * constructor of one leaves its other fields at those defaults. A model family's provider
 * (Llama3ModelProvider8B) has defaults of its own and is not one of them. */
bool py_bridge_defaults_known(const char *cls)
{
	static const char *const known[] = {"GPTModelProvider", "TransformerConfig", "RNGConfig",
					    "DistributedDataParallelConfig", "OptimizerConfig",
					    "RerunStateMachineConfig"};
	for (size_t k = 0; cls && k < sizeof(known) / sizeof(known[0]); k++)
		if (!strcmp(cls, known[k]))
			return true;
	return false;
}

/* Bridge 0.6's ConfigContainer (training/config.py:962-1009): the sections a constructor may
 * leave out. Those with a default_factory are that class built with no arguments: closed, so
 * the packs' defaults fill them; the others are None. */
static const char *const factories[] = {"rng", "rerun_state_machine", "ddp", "validation", "dist",
						   "profiling", "env_vars"};
static const char *const nones[] = {"ft", "straggler", "nvrx_straggler", "peft", "comm_overlap",
					      "mixed_precision", "tensor_inspect", "inprocess_restart"};

const char *py_bridge_container_section(size_t k, bool *factory)
{
	size_t nf = sizeof(factories) / sizeof(*factories), nn = sizeof(nones) / sizeof(*nones);
	*factory = k < nf;
	return k < nf ? factories[k] : k < nf + nn ? nones[k - nf] : NULL;
}

/* Bridge 0.6's MixedPrecisionConfig fields (training/mixed_precision.py:30-75); setup() copies
 * each onto the config that has it (update_config_with_precision_settings, L148-156). */
bool py_bridge_mixed_precision(const char *field)
{
	static const char *const names[] = {
		"fp32", "fp16", "bf16", "params_dtype", "pipeline_dtype", "autocast_dtype", "autocast_enabled",
		"grad_reduce_in_fp32", "fp8", "fp8_recipe", "first_last_layers_bf16", "fp8_margin",
		"fp8_amax_history_len", "fp8_amax_compute_algo", "fp8_wgrad", "fp8_dot_product_attention",
		"fp8_multi_head_attention", "fp8_param", "fp8_param_gather", "fp4", "fp4_recipe", "fp4_param",
		"fp4_param_gather", "loss_scale", "initial_loss_scale", "min_loss_scale", "loss_scale_window",
		"hysteresis", "num_layers_at_start_in_bf16", "num_layers_at_end_in_bf16",
		"reuse_grad_buf_for_mxfp8_param_ag"};
	for (size_t k = 0; field && k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(field, names[k]))
			return true;
	return false;
}

/* SPDX-License-Identifier: MIT */
/* py_bridge: Megatron-Bridge's config classes as the Python front-end sees them (see py_bridge.h). */
#include "front/py/py_bridge.h"

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
		{"MixedPrecisionConfig", "mixed_precision"},
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

bool py_bridge_section_class(const char *section, const char **module, const char **cls)
{
	static const char *const map[][3] = {
		{"model", "megatron.bridge.models.gpt_provider", "GPTModelProvider"},
		{"rng", "megatron.bridge.training.config", "RNGConfig"},
		{"rerun_state_machine", "megatron.bridge.training.config", "RerunStateMachineConfig"},
		{"ddp", "megatron.bridge.training.config", "DistributedDataParallelConfig"},
		{"optimizer", "megatron.bridge.training.config", "OptimizerConfig"},
	};
	for (size_t k = 0; k < sizeof(map) / sizeof(map[0]); k++)
		if (!strcmp(section, map[k][0])) {
			*module = map[k][1];
			*cls = map[k][2];
			return true;
		}
	return false;
}

/* Bridge's MixedPrecisionConfig.__setattr__ (training/mixed_precision.py, 0.6.0 L77-95; the
 * same pairs 0.2-0.5) keeps fp8_param equal to fp8_param_gather, and fp4_param to
 * fp4_param_gather: a write to one writes the other. */
const char *py_bridge_mp_partner(const char *key, size_t *stem)
{
	static const char *const pairs[][2] = {{"fp8_param", "fp8_param_gather"}, {"fp4_param", "fp4_param_gather"}};
	static const char sec[] = "mixed_precision.";
	size_t n = key ? strlen(key) : 0;
	for (size_t k = 0; k < 2 * sizeof(pairs) / sizeof(pairs[0]); k++) {
		const char *name = pairs[k / 2][k % 2];
		size_t m = strlen(name), s = sizeof(sec) - 1;
		if (n >= m + s && !strcmp(key + n - m, name) && !strncmp(key + n - m - s, sec, s) &&
		    (n == m + s || key[n - m - s - 1] == '.')) {
			*stem = n - m;
			return pairs[k / 2][1 - k % 2];
		}
	}
	return NULL;
}

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate realistic Megatron-Bridge ConfigContainer YAML files for benchmarking cglint.

usage: gen_configs.py OUTDIR [-n N] [--seed S]

About a third of the files are full ``ConfigContainer.to_yaml()`` dumps (Bridge v0.4 /
MCore 0.17 shape: every section a dataclass with ``_target_``, enums as
``{_args_, _call_, _name_, _target_}`` dicts, keys sorted as PyYAML's
``safe_dump(default_flow_style=False)`` sorts them); the rest are partial override files
(``--config-file``: plain nested mappings, 10-60 lines, written by hand). The CUDA-graph
settings vary over the shapes of the rules catalogue (§B.1-B.2, §D); some scenarios are
deliberately broken so that cglint has errors to report, the rest are clean.
Output is a pure function of (N, seed). Standard library only.
"""

import argparse
import os
import random
import re
import sys

# ---------------------------------------------------------------------------------------
# A minimal PyYAML-compatible block emitter (safe_dump, default_flow_style=False,
# sort_keys=True): sequences inside mappings are not indented, empty containers are
# written in flow style, strings are quoted only where a plain scalar would change type.
# ---------------------------------------------------------------------------------------

_RESOLVES = re.compile(
    r"""^(?:~|null|Null|NULL
        |yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
        |[-+]?(?:0|[1-9][0-9_]*)
        |[-+]?0b[01_]+|[-+]?0o?[0-7_]+|[-+]?0x[0-9a-fA-F_]+
        |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+
        |[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
        |\.[0-9_]+(?:[eE][-+][0-9]+)?
        |[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|=|<<)$""",
    re.X,
)


def _scalar(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v != v:
            return ".nan"
        if v in (float("inf"), float("-inf")):
            return ".inf" if v > 0 else "-.inf"
        r = repr(v).lower()
        if "." not in r and "e" in r:
            r = r.replace("e", ".0e", 1)
        return r
    s = str(v)
    if (
        s == ""
        or _RESOLVES.match(s)
        or s[0] in "-?:,[]{}#&*!|>'\"%@` "
        or s[-1] == " "
        or ": " in s
        or " #" in s
        or "\n" in s
    ):
        return "'" + s.replace("'", "''") + "'"
    return s


def dump_sorted(obj, indent=0):
    """Lines of a block mapping, as yaml.safe_dump(obj, default_flow_style=False)."""
    out = []
    pad = " " * indent
    for k in sorted(obj):
        out.extend(_entry(pad, _scalar(k), obj[k], indent))
    return out


def _entry(pad, key, v, indent):
    if isinstance(v, dict):
        if not v:
            return [f"{pad}{key}: {{}}"]
        return [f"{pad}{key}:"] + dump_sorted(v, indent + 2)
    if isinstance(v, list):
        if not v:
            return [f"{pad}{key}: []"]
        return [f"{pad}{key}:"] + _seq(v, indent)
    return [f"{pad}{key}: {_scalar(v)}"]


def _seq(items, indent):
    out = []
    pad = " " * indent
    for it in items:
        if isinstance(it, dict) and it:
            sub = dump_sorted(it, indent + 2)
            out.append(f"{pad}- {sub[0].lstrip()}")
            out.extend(sub[1:])
        elif isinstance(it, list) and it:
            sub = _seq(it, indent + 2)
            out.append(f"{pad}- {sub[0].lstrip()}")
            out.extend(sub[1:])
        elif isinstance(it, (dict, list)):
            out.append(f"{pad}- {'{}' if isinstance(it, dict) else '[]'}")
        else:
            out.append(f"{pad}- {_scalar(it)}")
    return out


# Helpers for the objects to_yaml() writes for non-plain values (§B.1).
def enum(target, name, value):
    return {"_target_": target, "_call_": True, "_args_": [value], "_name_": name}


def ref(target):  # functions, classes, torch dtypes
    return {"_target_": target, "_call_": False}


def partial(target, **kwargs):
    d = {"_target_": target, "_partial_": True, "_args_": []}
    d.update(kwargs)
    return d


SCOPE_ENUM = "megatron.core.transformer.enums.CudaGraphScope"
# MCore 0.16/0.17 ordinals (differ from 0.18's CudaGraphModule).
SCOPE_ORD = {"full_iteration": 1, "attn": 2, "mlp": 3, "moe": 4, "moe_router": 5,
             "moe_preprocess": 6, "mamba": 7}

# ---------------------------------------------------------------------------------------
# Model families (a few real Bridge providers with their characteristic sizes).
# ---------------------------------------------------------------------------------------

FAMILIES = {
    "llama3_8b": dict(
        target="megatron.bridge.models.llama.llama_provider.Llama3ModelProvider8B",
        hf="meta-llama/Meta-Llama-3-8B", num_layers=32, hidden_size=4096, ffn_hidden_size=14336,
        num_attention_heads=32, num_query_groups=8, vocab_size=128256, seq_length=8192,
        rotary_base=500000, moe=False),
    "llama3_70b": dict(
        target="megatron.bridge.models.llama.llama_provider.Llama3ModelProvider70B",
        hf="meta-llama/Meta-Llama-3-70B", num_layers=80, hidden_size=8192, ffn_hidden_size=28672,
        num_attention_heads=64, num_query_groups=8, vocab_size=128256, seq_length=8192,
        rotary_base=500000, moe=False),
    "qwen3_30b_a3b": dict(
        target="megatron.bridge.models.qwen.qwen_provider.Qwen3MoEModelProvider30B_A3B",
        hf="Qwen/Qwen3-30B-A3B", num_layers=48, hidden_size=2048, ffn_hidden_size=6144,
        num_attention_heads=32, num_query_groups=4, vocab_size=151936, seq_length=4096,
        rotary_base=1000000, moe=True, experts=128, topk=8, moe_ffn=768, layer_freq=1,
        shared=None),
    "deepseek_v3": dict(
        target="megatron.bridge.models.deepseek.deepseek_provider.DeepSeekV3ModelProvider",
        hf="deepseek-ai/DeepSeek-V3", num_layers=61, hidden_size=7168, ffn_hidden_size=18432,
        num_attention_heads=128, num_query_groups=128, vocab_size=129280, seq_length=4096,
        rotary_base=10000, moe=True, experts=256, topk=8, moe_ffn=2048,
        layer_freq=[0] * 3 + [1] * 58, shared=2048, mla=True),
    "gpt_oss_120b": dict(
        target="megatron.bridge.models.gpt_oss.gpt_oss_provider.GPTOSSProvider120B",
        hf="openai/gpt-oss-120b", num_layers=36, hidden_size=2880, ffn_hidden_size=2880,
        num_attention_heads=64, num_query_groups=8, vocab_size=201088, seq_length=4096,
        rotary_base=150000, moe=True, experts=128, topk=4, moe_ffn=2880, layer_freq=1,
        shared=None),
    "nemotronh_56b": dict(
        target="megatron.bridge.models.mamba.mamba_provider.MambaModelProvider",
        hf="nvidia/Nemotron-H-56B-Base-8K", num_layers=118, hidden_size=8192,
        ffn_hidden_size=32768, num_attention_heads=64, num_query_groups=8, vocab_size=131072,
        seq_length=8192, rotary_base=10000, moe=False, hybrid=True),
}

# ---------------------------------------------------------------------------------------
# CUDA-graph scenarios. Each returns the CUDA-graph-relevant settings; "bad" marks the ones
# that break a rule (CG1xx/CG2xx) so that the file set mixes findings and clean files.
# ---------------------------------------------------------------------------------------


def scenarios_for(fam):
    f = FAMILIES[fam]
    moe, hybrid = f["moe"], f.get("hybrid", False)
    ok, bad = [], []
    ok.append(("none", dict(impl="none", scope=[])))
    ok.append(("none", dict(impl="none", scope=[], rng=False)))
    ok.append(("te_attn", dict(impl="transformer_engine", scope=["attn"], rng=True)))
    ok.append(("local_full_iter", dict(impl="local", scope=["full_iteration"], rng=True,
                                       nan=False, env="es_rsr")))
    if moe:
        ok.append(("te_attn_router", dict(impl="transformer_engine",
                                          scope=["attn", "moe_router", "moe_preprocess"],
                                          rng=True, env="es_ngr")))
        ok.append(("te_router_recompute", dict(
            impl="transformer_engine", scope=["moe_router", "moe_preprocess"], rng=True,
            recompute=("selective", ["mla_up_proj"] if f.get("mla") else ["moe_act"]))))
        bad.append(("both_moe_router", dict(impl="transformer_engine",
                                            scope=["moe", "moe_router"], rng=True)))
        bad.append(("preprocess_alone", dict(impl="transformer_engine",
                                             scope=["attn", "moe_preprocess"], rng=True)))
        bad.append(("moe_dropless", dict(impl="transformer_engine", scope=["moe"], rng=True)))
        if f["layer_freq"] == 1:
            bad.append(("mlp_no_dense", dict(impl="transformer_engine", scope=["mlp"], rng=True)))
        bad.append(("moe_recompute_router", dict(
            impl="transformer_engine", scope=["moe_router", "moe_preprocess"], rng=True,
            recompute=("selective", ["moe"]))))
    elif hybrid:
        ok.append(("te_mamba_attn", dict(impl="transformer_engine", scope=["mamba", "attn"],
                                         rng=True, env="es_ngr")))
    else:
        ok.append(("te_mlp", dict(impl="transformer_engine", scope=["mlp"], rng=True,
                                  env="es_ngr")))
        ok.append(("te_attn_mlp", dict(impl="transformer_engine", scope=["attn", "mlp"],
                                       rng=True)))
        bad.append(("moe_scope_dense", dict(impl="transformer_engine", scope=["moe_router"],
                                            rng=True)))
    if not hybrid:  # Mamba/hybrid providers do not assert the RNG tracker
        bad.append(("no_rng", dict(impl="transformer_engine", scope=["attn"], rng=False)))
    bad.append(("full_iter_nan", dict(impl="local", scope=["full_iteration"], rng=True,
                                      nan=True)))
    bad.append(("full_recompute_te", dict(impl="transformer_engine", scope=["attn"], rng=True,
                                          recompute=("full", None))))
    bad.append(("dropout_recompute", dict(impl="transformer_engine", scope=["attn"], rng=True,
                                          recompute=("selective", ["core_attn"]),
                                          dropout=0.1)))
    bad.append(("es_without_ngr", dict(impl="transformer_engine", scope=["attn"], rng=True,
                                       env="es_only")))
    return ok, bad


def pick_scenario(rng, fam):
    ok, bad = scenarios_for(fam)
    # roughly 40% of the files carry an error
    return rng.choice(bad) if rng.random() < 0.4 else rng.choice(ok)


ENVS = {
    "es_ngr": {"NCCL_GRAPH_REGISTER": 0, "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
               "TORCH_NCCL_AVOID_RECORD_STREAMS": 1},
    "es_rsr": {"NCCL_GRAPH_REGISTER": 0,
               "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,graph_capture_record_stream_reuse:True",
               "TORCH_NCCL_AVOID_RECORD_STREAMS": 0},
    "es_only": {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
                "CUDA_DEVICE_MAX_CONNECTIONS": 1},
}

# ---------------------------------------------------------------------------------------
# Full ConfigContainer dump
# ---------------------------------------------------------------------------------------

P = "megatron.bridge.training.config."


def model_section(r, fam, sc, par):
    f = FAMILIES[fam]
    moe = f["moe"]
    drop = sc.get("dropout", 0.0)
    gran, mods = sc.get("recompute", (None, None))
    if gran == "selective" and mods is None:
        mods = ["core_attn"]
    m = {
        "_target_": f["target"],
        # --- ModelParallelConfig ---
        "tensor_model_parallel_size": par["tp"], "pipeline_model_parallel_size": par["pp"],
        "pipeline_model_parallel_comm_backend": None,
        "virtual_pipeline_model_parallel_size": par["vpp"], "sequence_parallel": par["tp"] > 1,
        "context_parallel_size": par["cp"], "hierarchical_context_parallel_sizes": None,
        "expert_model_parallel_size": par["ep"], "expert_tensor_parallel_size": 1 if moe else None,
        "moe_extended_tp": False, "perform_initialization": True, "use_cpu_initialization": False,
        "fp16": False, "bf16": True, "params_dtype": ref("torch.bfloat16"), "timers": None,
        "finalize_model_grads_func": None, "grad_scale_func": None, "no_sync_func": None,
        "grad_sync_func": None, "param_sync_func": None, "deterministic_mode": False,
        "enable_autocast": False, "autocast_dtype": ref("torch.bfloat16"),
        "num_microbatches_with_partial_activation_checkpoints": None,
        "gradient_accumulation_fusion": True, "async_tensor_model_parallel_allreduce": True,
        "use_te_rng_tracker": sc.get("rng", False), "tp_comm_overlap": False,
        "tp_comm_bulk_wgrad": True, "tp_comm_bulk_dgrad": True, "tp_comm_overlap_ag": True,
        "tp_comm_overlap_rs": True, "tp_comm_overlap_rs_dgrad": False, "tp_comm_split_ag": True,
        "tp_comm_atomic_ag": False, "tp_comm_split_rs": True, "tp_comm_atomic_rs": False,
        "cross_entropy_loss_fusion": True, "cross_entropy_fusion_impl": "native",
        "tp_comm_overlap_disable_qkv": False, "tp_comm_overlap_disable_fc1": False,
        "tp_comm_bootstrap_backend": "nccl", "overlap_moe_expert_parallel_comm": False,
        "delay_wgrad_compute": False, "pipeline_dtype": ref("torch.bfloat16"),
        "variable_seq_lengths": False, "overlap_p2p_comm": par["pp"] > 1, "batch_p2p_comm": par["pp"] == 1,
        "batch_p2p_sync": True, "use_ring_exchange_p2p": False, "deallocate_pipeline_outputs": True,
        "defer_embedding_wgrad_compute": False, "wgrad_deferral_limit": 0,
        "overlap_p2p_comm_warmup_flush": False, "microbatch_group_size_per_vp_stage": par["pp"],
        "cpu_offloading": False, "cpu_offloading_num_layers": 0,
        "cpu_offloading_activations": True, "cpu_offloading_weights": False,
        "cpu_offloading_double_buffering": False, "barrier_with_L1_time": True,
        # --- TransformerConfig ---
        "num_layers": f["num_layers"], "mtp_num_layers": 1 if f.get("mla") else None,
        "mtp_loss_scaling_factor": 0.1 if f.get("mla") else None,
        "num_layers_in_first_pipeline_stage": None, "num_layers_in_last_pipeline_stage": None,
        "pipeline_model_parallel_layout": None, "account_for_embedding_in_pipeline_split": False,
        "account_for_loss_in_pipeline_split": False, "hidden_size": f["hidden_size"],
        "num_attention_heads": f["num_attention_heads"],
        "attention_backend": enum("megatron.core.transformer.enums.AttnBackend", "auto", 5),
        "softmax_scale": None, "softmax_type": "vanilla",
        "num_query_groups": f["num_query_groups"], "ffn_hidden_size": f["ffn_hidden_size"],
        "kv_channels": 128, "hidden_dropout": drop, "attention_dropout": drop,
        "fp32_residual_connection": False, "apply_residual_connection_post_layernorm": False,
        "layernorm_epsilon": 1.0e-05 if not moe else 1.0e-06, "layernorm_zero_centered_gamma": False,
        "add_bias_linear": False, "add_qkv_bias": False, "gated_linear_unit": True,
        "activation_func": ref("torch.nn.functional.silu"), "activation_func_fp8_input_store": False,
        "glu_linear_offset": 0.0, "activation_func_clamp_value": None,
        "num_moe_experts": f.get("experts"), "rotary_interleaved": False, "window_size": None,
        "window_attn_skip_freq": None, "normalization": "RMSNorm", "qk_layernorm": fam.startswith("qwen3"),
        "qk_clip": False, "qk_clip_alpha": 0.5, "qk_clip_threshold": 100,
        "log_max_attention_logit": False, "test_mode": False, "calculate_per_token_loss": False,
        "multi_latent_attention": bool(f.get("mla")), "no_rope_freq": None,
        "moe_deepep_num_sms": 20, "moe_hybridep_num_sms": 16, "init_method": None,
        "output_layer_init_method": None, "init_method_std": 0.02,
        "embedding_init_method": None, "embedding_init_method_std": None,
        "init_model_with_meta_device": False, "apply_query_key_layer_scaling": False,
        "attention_softmax_in_fp32": False, "disable_bf16_reduced_precision_matmul": False,
        "bias_activation_fusion": True, "masked_softmax_fusion": True, "persist_layer_norm": True,
        "memory_efficient_layer_norm": False, "bias_dropout_fusion": True, "apply_rope_fusion": True,
        "use_fused_weighted_squared_relu": False, "fused_single_qkv_rope": False,
        "recompute_granularity": gran, "recompute_method": "uniform" if gran == "full" else None,
        "recompute_num_layers": 1 if gran == "full" else None,
        "distribute_saved_activations": None, "recompute_modules": mods,
        "fp8": par["fp8"], "fp8_recipe": "tensorwise", "fp8_param": par["fp8"] is not None,
        "fp8_margin": 0, "fp8_interval": 1, "fp8_amax_history_len": 1,
        "fp8_amax_compute_algo": "most_recent", "fp8_wgrad": True,
        "fp8_dot_product_attention": False, "fp8_multi_head_attention": False,
        "tp_only_amax_red": False, "first_last_layers_bf16": False,
        "num_layers_at_start_in_bf16": 1, "num_layers_at_end_in_bf16": 1, "use_kitchen": False,
        "fp4": None, "fp4_recipe": "nvfp4", "fp4_param": False,
        "moe_shared_expert_intermediate_size": f.get("shared"), "moe_shared_expert_gate": False,
        "moe_shared_expert_overlap": False, "moe_layer_freq": f.get("layer_freq", 1),
        "moe_ffn_hidden_size": f.get("moe_ffn"), "moe_router_load_balancing_type": "aux_loss",
        "moe_router_topk": f.get("topk", 2), "moe_router_topk_limited_devices": None,
        "moe_router_padding_for_quantization": False, "moe_router_padding_for_fp8": False,
        "moe_router_num_groups": 8 if f.get("mla") else None,
        "moe_router_group_topk": 4 if f.get("mla") else None, "moe_router_pre_softmax": False,
        "moe_router_topk_scaling_factor": 2.5 if f.get("mla") else None,
        "moe_router_score_function": "sigmoid" if f.get("mla") else "softmax",
        "moe_router_dtype": "fp32" if moe else None,
        "moe_router_enable_expert_bias": bool(f.get("mla")), "moe_router_bias_update_rate": 0.001,
        "moe_router_force_load_balancing": False, "moe_grouped_gemm": moe,
        "moe_use_legacy_grouped_gemm": False, "moe_aux_loss_coeff": 0.001 if moe else 0.0,
        "moe_z_loss_coeff": None, "moe_input_jitter_eps": None, "moe_token_dropping": False,
        "moe_token_dispatcher_type": "alltoall" if moe else "allgather",
        "moe_enable_deepep": False, "moe_flex_dispatcher_backend": "deepep",
        "moe_per_layer_logging": False, "moe_expert_capacity_factor": None,
        "moe_pad_expert_input_to_capacity": False, "moe_token_drop_policy": "probs",
        "moe_layer_recompute": False, "moe_permute_fusion": moe, "moe_router_fusion": False,
        "moe_apply_probs_on_input": False, "moe_latent_size": None, "cp_comm_type": None,
        # --- CUDA graphs (post-finalize: scope is a list of CudaGraphScope enums) ---
        "enable_cuda_graph": False, "external_cuda_graph": False,
        "cuda_graph_impl": sc["impl"],
        "cuda_graph_scope": [enum(SCOPE_ENUM, s, SCOPE_ORD[s]) for s in sc["scope"]],
        "cuda_graph_use_single_mempool": False, "cuda_graph_retain_backward_graph": False,
        "cuda_graph_warmup_steps": r.choice([3, 3, 3, 2, 1]),
        "clone_scatter_output_in_embedding": True, "disable_parameter_transpose_cache": False,
        "config_logger_dir": "", "flash_decode": False, "use_te_activation_func": False,
        "inference_rng_tracker": False, "inference_sampling_seed": 42,
        "symmetric_ar_type": None, "mrope_section": None, "is_hybrid_model": bool(f.get("hybrid")),
        "mamba_state_dim": 128, "mamba_head_dim": 64, "mamba_num_groups": 8,
        "mamba_num_heads": None, "use_mamba_mem_eff_path": True, "mlp_chunks_for_prefill": 1,
        "heterogeneous_block_specs": False, "hetereogenous_dist_checkpoint": False,
        "quant_recipe": None, "transformer_impl": "transformer_engine",
        "fine_grained_activation_offloading": False, "offload_modules": None,
        "min_offloaded_tensor_size": 1048576,
        # --- GPTModelProvider ---
        "fp16_lm_cross_entropy": False, "parallel_output": True,
        "share_embeddings_and_output_weights": False, "make_vocab_size_divisible_by": 128,
        "position_embedding_type": "rope", "rotary_base": f["rotary_base"], "rotary_percent": 1.0,
        "seq_len_interpolation_factor": None, "seq_length": f["seq_length"],
        "scatter_embedding_sequence_parallel": True, "tp_comm_overlap_cfg": None,
        "use_transformer_engine_full_layer_spec": False,
        "use_transformer_engine_op_fuser": None,
        "transformer_layer_spec": ref("megatron.bridge.models.gpt_provider.default_layer_spec"),
        "generation_config": None, "vocab_size": f["vocab_size"], "should_pad_vocab": False,
        "hf_model_id": f["hf"], "restore_modelopt_state": False,
        "use_arbitrary_attention_mask": None, "init_method_xavier_uniform": False,
        "rope_scaling": fam.startswith("llama"), "rope_scaling_factor": 8.0,
        "apply_rope_fusion_for_mla": False, "persist_layer_norm_for_mla": False,
    }
    if f.get("mla"):
        m.update({"q_lora_rank": 1536, "kv_lora_rank": 512, "qk_head_dim": 128,
                  "qk_pos_emb_head_dim": 64, "v_head_dim": 128, "rotary_scaling_factor": 40.0,
                  "mscale": 1.0, "mscale_all_dim": 1.0, "beta_fast": 32.0, "beta_slow": 1.0,
                  "original_max_position_embeddings": 4096, "cache_mla_latents": False})
    if f.get("hybrid"):
        m.update({"hybrid_attention_ratio": 0.0, "hybrid_mlp_ratio": 0.0,
                  "hybrid_override_pattern": "M-M-M-M*-M-M-M-M-M*-" * 5 + "M-M-M-M-M*-M-M-M-M-",
                  "mamba_stack_spec": ref("megatron.core.models.mamba.mamba_layer_specs.mamba_stack_spec"),
                  "post_process": True, "pre_process": True})
    return m


def full_dump(r, idx, fam, sc):
    par = dict(tp=r.choice([1, 2, 4, 8]), pp=r.choice([1, 1, 2, 4]), cp=r.choice([1, 1, 2]),
               ep=r.choice([8, 16, 32, 64]) if FAMILIES[fam]["moe"] else 1,
               fp8=r.choice([None, None, "hybrid", "e4m3"]))
    par["vpp"] = r.choice([None, 2, 4]) if par["pp"] > 1 else None
    gbs = r.choice([128, 256, 512, 1024])
    name = f"{fam}_pretrain_{idx:04d}"
    root = f"/lustre/fsw/portfolios/llmservice/users/bench/nemo_experiments/{name}"
    nan = sc.get("nan", True)
    cfg = {
        "_target_": P + "ConfigContainer",
        "rng": {"_target_": P + "RNGConfig", "seed": r.choice([1234, 42, 5678]),
                "te_rng_tracker": sc.get("rng", False), "inference_rng_tracker": False,
                "data_parallel_random_init": False},
        "rerun_state_machine": {
            "_target_": P + "RerunStateMachineConfig", "check_for_nan_in_loss": nan,
            "check_for_spiky_loss": False, "error_injection_rate": 0,
            "error_injection_type": "transient_error", "rerun_mode": "disabled",
            "spiky_loss_factor": 10.0},
        "train": {
            "_target_": P + "TrainingConfig", "check_weight_hash_across_dp_replicas_interval": None,
            "decrease_batch_size_if_needed": False, "empty_unused_memory_level": 0,
            "eval_interval": 2000, "eval_iters": 32, "exit_duration_in_mins": None,
            "exit_interval": None, "exit_signal": enum("signal.Signals", "SIGTERM", 15),
            "exit_signal_handler": False, "exit_signal_handler_for_dataloader": False,
            "global_batch_size": gbs, "iterations_to_skip": [], "manual_gc": True,
            "manual_gc_eval": True, "manual_gc_interval": 100, "micro_batch_size": 1,
            "rampup_batch_size": None, "skip_train": False,
            "train_iters": r.choice([50, 100, 1168251]), "train_samples": None,
            "train_sync_interval": None},
        "model": model_section(r, fam, sc, par),
        "optimizer": {
            "_target_": "megatron.bridge.training.config.OptimizerConfig", "adam_beta1": 0.9,
            "adam_beta2": 0.95, "adam_eps": 1.0e-08, "apply_wd_to_qk_layernorm": False,
            "barrier_with_L1_time": False, "bf16": True, "clip_grad": 1.0,
            "config_logger_dir": "", "decoupled_lr": None, "decoupled_min_lr": None,
            "decoupled_weight_decay": True, "exp_avg_dtype": ref("torch.float32"),
            "exp_avg_sq_dtype": ref("torch.float32"), "fp16": False, "fp8_recipe": None,
            "hysteresis": 2, "initial_loss_scale": 4294967296, "log_num_zeros_in_grad": False,
            "loss_scale": None, "loss_scale_window": 1000,
            "lr": r.choice([0.0003, 0.0001, 1.0e-05, 4.2e-4]),
            "main_grads_dtype": ref("torch.float32"), "main_params_dtype": ref("torch.float32"),
            "min_loss_scale": 1.0, "min_lr": 3.0e-05, "optimizer": "adam",
            "optimizer_cpu_offload": False, "optimizer_offload_fraction": 0.0,
            "overlap_cpu_optimizer_d2h_h2d": False,
            "overlap_param_gather_with_optimizer_step": False, "params_dtype": ref("torch.float32"),
            "pin_cpu_grads": True, "pin_cpu_params": True, "sgd_momentum": 0.9,
            "store_param_remainders": True, "timers": None, "use_distributed_optimizer": True,
            "use_megatron_fsdp": False, "use_precision_aware_optimizer": False,
            "use_torch_optimizer_for_cpu_offload": False, "weight_decay": 0.1},
        "ddp": {
            "_target_": P + "DistributedDataParallelConfig", "align_param_gather": par["pp"] > 1,
            "average_in_collective": True, "bucket_size": None,
            "check_for_large_grads": False, "check_for_nan_in_grad": nan,
            "data_parallel_sharding_strategy": "no_shard", "delay_wgrad_compute": False,
            "fp8_param_gather": par["fp8"] is not None, "grad_reduce_in_fp32": True,
            "gradient_reduce_div_fusion": True, "keep_fp8_transpose_cache": False,
            "nccl_ub": False, "num_distributed_optimizer_instances": 1,
            "outer_dp_sharding_strategy": "no_shard", "overlap_grad_reduce": True,
            "overlap_param_gather": True, "pad_buckets_for_high_nccl_busbw": False,
            "preserve_fp32_weights": True, "reduce_scatter_with_fp32_accumulation": False,
            "reuse_grad_buf_for_mxfp8_param_ag": False, "suggested_communication_unit_size": None,
            "use_custom_fsdp": False, "use_distributed_optimizer": True,
            "use_megatron_fsdp": False},
        "scheduler": {
            "_target_": P + "SchedulerConfig", "end_weight_decay": 0.033,
            "lr_decay_iters": None, "lr_decay_samples": None, "lr_decay_steps": None,
            "lr_decay_style": "cosine", "lr_warmup_fraction": None, "lr_warmup_init": 0.0,
            "lr_warmup_iters": 2000, "lr_warmup_samples": 0, "lr_warmup_steps": None,
            "lr_wsd_decay_iters": None, "lr_wsd_decay_samples": None,
            "lr_wsd_decay_style": "exponential", "no_weight_decay_cond_type": None,
            "override_opt_param_scheduler": True, "start_weight_decay": 0.033,
            "use_checkpoint_opt_param_scheduler": False, "wd_incr_steps": None,
            "weight_decay_incr_style": "constant", "wsd_decay_steps": None},
        "dataset": {
            "_target_": P + "GPTDatasetConfig", "add_extra_token_to_sequence": True,
            "blend": None, "blend_per_split": None, "create_attention_mask": False,
            "data_sharding": True, "dataloader_type": "single",
            "drop_last_partial_validation_sequence": True, "eod_mask_loss": False,
            "mid_level_dataset_surplus": 0.005, "mmap_bin_files": True,
            "num_dataset_builder_threads": 1, "num_workers": 8, "object_storage_cache_path": None,
            "path_to_cache": None, "persistent_workers": False, "pin_memory": True,
            "random_seed": 1234, "reset_attention_mask": False, "reset_position_ids": False,
            "s3_cache_path": None, "sequence_length": FAMILIES[fam]["seq_length"],
            "split": "9999,8,2", "split_matrix": [[0, 0.9999], [0.9999, 0.99998], [0.99998, 1.0]],
            "tokenizer": None},
        "logger": {
            "_target_": P + "LoggerConfig", "filter_warnings": True,
            "log_energy": False, "log_interval": 10, "log_l2_norm_grad_to_tensorboard": False,
            "log_loss_scale_to_tensorboard": True, "log_memory_to_tensorboard": False,
            "log_params_norm": False, "log_progress": False, "log_throughput": True,
            "log_timers_to_tensorboard": True, "log_validation_ppl_to_tensorboard": False,
            "log_world_size_to_tensorboard": False, "logging_level": 20,
            "modules_to_filter": None, "save_config_filepath": root + "/configs/ConfigContainer.yaml",
            "set_level_for_all_loggers": False, "tensorboard_dir": root + "/tb_logs",
            "tensorboard_log_interval": 1, "tensorboard_queue_size": 1000, "timing_log_level": 0,
            "timing_log_option": "minmax", "wandb_entity": None, "wandb_exp_name": name,
            "wandb_project": None, "wandb_save_dir": None},
        "tokenizer": {
            "_target_": P + "TokenizerConfig", "image_tag_type": None, "merge_file": None,
            "special_tokens": None, "tiktoken_num_special_tokens": 1000,
            "tiktoken_pattern": None, "tiktoken_special_tokens": None,
            "tokenizer_model": FAMILIES[fam]["hf"], "tokenizer_prompt_format": None,
            "tokenizer_type": "HuggingFaceTokenizer", "vocab_extra_ids": 0, "vocab_file": None,
            "vocab_size": None},
        "checkpoint": {
            "_target_": P + "CheckpointConfig", "async_save": False, "ckpt_assume_constant_structure": False,
            "ckpt_convert_format": None, "ckpt_convert_save": None, "ckpt_format": "torch_dist",
            "ckpt_step": None, "dist_ckpt_optim_fully_reshardable": False,
            "dist_ckpt_strictness": "assume_ok_unexpected", "exit_on_missing_checkpoint": False,
            "finetune": False, "fully_parallel_load": False, "fully_parallel_save": True,
            "load": root + "/checkpoints", "load_main_params_from_ckpt": False,
            "load_optim": True, "load_rng": True, "most_recent_k": -1,
            "non_persistent_ckpt_type": None, "non_persistent_global_ckpt_dir": None,
            "non_persistent_local_ckpt_algo": "fully_parallel",
            "non_persistent_local_ckpt_dir": None, "non_persistent_save_interval": None,
            "pretrained_checkpoint": None, "replication": False, "replication_factor": 2,
            "replication_jump": None, "save": root + "/checkpoints", "save_interval": 500,
            "save_optim": True, "save_rng": True, "save_tokenizer_assets": True,
            "strict_fsdp_dtensor_load": False, "use_checkpoint_args": False,
            "use_persistent_ckpt_worker": True},
        "dist": {
            "_target_": P + "DistributedInitConfig", "align_grad_reduce": True,
            "disable_jit_fuser": False, "distributed_backend": "nccl",
            "distributed_timeout_minutes": 10, "distributed_timeout_seconds_after_init": None,
            "enable_megatron_core_experimental": False, "external_gpu_device_mapping": False,
            "high_priority_stream_groups": None, "lazy_init": False, "local_rank": 0,
            "nccl_communicator_config_path": None, "sharp_enabled_group": None,
            "use_decentralized_pg": False, "use_gloo_process_groups": True,
            "use_sharp": False, "use_torch_fsdp2": False, "use_tp_pp_dp_mapping": False},
        "comm_overlap": {
            "_target_": "megatron.bridge.training.comm_overlap.CommOverlapConfig",
            "align_param_gather": None, "batch_p2p_comm": None, "bucket_size": None,
            "data_parallel_size": None, "defer_embedding_wgrad_compute": None,
            "delay_wgrad_compute": None, "overlap_grad_reduce": None,
            "overlap_moe_expert_parallel_comm": None, "overlap_p2p_comm": None,
            "overlap_param_gather": None, "overlap_param_gather_with_optimizer_step": None,
            "tp_comm_bootstrap_backend": None, "tp_comm_overlap": False,
            "tp_comm_overlap_cfg": None, "wgrad_deferral_limit": None},
        "mixed_precision": {
            "_target_": "megatron.bridge.training.mixed_precision.MixedPrecisionConfig",
            "autocast_dtype": None, "autocast_enabled": False, "bf16": True,
            "first_last_layers_bf16": False, "fp16": False, "fp4": None, "fp4_recipe": "nvfp4",
            "fp8": par["fp8"], "fp8_amax_compute_algo": "most_recent", "fp8_amax_history_len": 1,
            "fp8_dot_product_attention": False, "fp8_margin": 0,
            "fp8_multi_head_attention": False, "fp8_param": None, "fp8_param_gather": False,
            "fp8_recipe": "tensorwise", "fp8_wgrad": True, "grad_reduce_in_fp32": True,
            "hysteresis": 2, "initial_loss_scale": 4294967296, "loss_scale": None,
            "loss_scale_window": 1000, "min_loss_scale": 1.0, "num_layers_at_end_in_bf16": 0,
            "num_layers_at_start_in_bf16": 0, "params_dtype": ref("torch.bfloat16"),
            "pipeline_dtype": ref("torch.bfloat16"), "reuse_grad_buf_for_mxfp8_param_ag": False},
        # unused optional sections are dumped as null
        "ft": None, "straggler": None, "nvrx_straggler": None, "profiling": None, "peft": None,
        "inprocess_restart": None, "tensor_inspect": None, "optimizer_config_override_provider": {
            "_target_": "megatron.bridge.training.config.OptimizerConfigOverrideProvider"},
        "validation": {"_target_": P + "ValidationConfig", "eval_interval": 2000,
                       "eval_iters": 32, "skip_train": False},
    }
    if "env" in sc:
        cfg["env_vars"] = dict(ENVS[sc["env"]])
    elif r.random() < 0.15:
        cfg["env_vars"] = {"CUDA_DEVICE_MAX_CONNECTIONS": 1, "NCCL_NVLS_ENABLE": 0}
    text = "\n".join(dump_sorted(cfg)) + "\n"
    return text


# ---------------------------------------------------------------------------------------
# Partial override files: hand-written, insertion order, optional comments and flow lists.
# ---------------------------------------------------------------------------------------


def _flow(v):
    return "[" + ", ".join(_scalar(x) for x in v) + "]"


def dump_override(sections, comments):
    out = []
    if comments:
        out += ["# To override a parameter, ensure the structure matches the ConfigContainer",
                "# and its sub-configurations (e.g., model, train, etc.)"]
    for sec, body in sections:
        out.append(f"{sec}:")
        for k, v in body:
            if isinstance(v, tuple):  # ("block", [...]) -> block sequence
                out.append(f"  {k}:")
                out += [f"  - {_scalar(x)}" for x in v[1]]
            elif isinstance(v, list):
                out.append(f"  {k}: {_flow(v)}")
            else:
                out.append(f"  {k}: {_scalar(v)}")
    return out


FILLER = {  # harmless keys that override files commonly touch
    "train": [("train_iters", 100), ("global_batch_size", 256), ("micro_batch_size", 1),
              ("eval_interval", 1000), ("eval_iters", 0), ("manual_gc", True),
              ("manual_gc_interval", 100)],
    "model": [("num_layers", 4), ("seq_length", 4096), ("tensor_model_parallel_size", 2),
              ("pipeline_model_parallel_size", 1), ("context_parallel_size", 1),
              ("sequence_parallel", True), ("cuda_graph_warmup_steps", 3),
              ("make_vocab_size_divisible_by", 128), ("cross_entropy_loss_fusion", True)],
    "optimizer": [("lr", 0.0003), ("min_lr", 3.0e-05), ("weight_decay", 0.1),
                  ("clip_grad", 1.0), ("use_distributed_optimizer", True)],
    "scheduler": [("lr_warmup_iters", 10), ("lr_decay_style", "cosine")],
    "checkpoint": [("save_interval", 1000), ("save", "/results/checkpoints"),
                   ("ckpt_format", "torch_dist"), ("async_save", False)],
    "logger": [("log_interval", 1), ("tensorboard_dir", "/results/tb_logs"),
               ("log_throughput", True), ("wandb_project", None)],
    "ddp": [("overlap_grad_reduce", True), ("overlap_param_gather", True),
            ("grad_reduce_in_fp32", True)],
    "dataset": [("num_workers", 8), ("split", "99,1,0"), ("sequence_length", 4096)],
}


def override_file(r, fam, sc):
    f = FAMILIES[fam]
    model = []
    # the CUDA-graph part, written the ways people write it
    if sc["impl"] == "none" and r.random() < 0.5:
        model.append(("cuda_graph_impl", "none"))
    elif r.random() < 0.08 and sc["impl"] == "local" and sc["scope"] == ["full_iteration"]:
        model.append(("enable_cuda_graph", True))  # deprecated spelling (warning only)
        model.append(("cuda_graph_scope", "full_iteration"))
    else:
        model.append(("cuda_graph_impl", sc["impl"]))
        if sc["scope"]:
            style = r.random()
            if len(sc["scope"]) == 1 and style < 0.3:
                model.append(("cuda_graph_scope", sc["scope"][0]))
            elif style < 0.7:
                model.append(("cuda_graph_scope", list(sc["scope"])))
            else:
                model.append(("cuda_graph_scope", ("block", sc["scope"])))
        elif sc["impl"] == "none" and r.random() < 0.3:
            model.append(("cuda_graph_scope", "full"))
    if "rng" in sc and r.random() < 0.5:
        model.append(("use_te_rng_tracker", sc["rng"]))
    gran, mods = sc.get("recompute", (None, None))
    if gran == "full":
        model += [("recompute_granularity", "full"), ("recompute_method", "uniform"),
                  ("recompute_num_layers", 1)]
    elif gran == "selective":
        model += [("recompute_granularity", "selective"), ("recompute_modules", mods)]
    if "dropout" in sc:
        model += [("attention_dropout", sc["dropout"]), ("hidden_dropout", sc["dropout"])]
    if f["moe"]:
        model += [("num_moe_experts", f["experts"]), ("moe_router_topk", f["topk"]),
                  ("moe_token_dispatcher_type", "alltoall"), ("moe_grouped_gemm", True),
                  ("moe_layer_freq", f["layer_freq"] if f["layer_freq"] == 1 else "([0]*3+[1]*58)"),
                  ("expert_model_parallel_size", r.choice([8, 16, 32]))]
        if r.random() < 0.3:
            model.append(("moe_permute_fusion", True))
    sections = []
    if "rng" in sc and (sc["rng"] or r.random() < 0.7) and not any(k == "use_te_rng_tracker" for k, _ in model):
        sections.append(("rng", [("te_rng_tracker", sc["rng"])]))
    elif "rng" in sc and not sc["rng"]:
        sections.append(("rng", [("te_rng_tracker", False)]))
    if "nan" in sc:
        sections.append(("rerun_state_machine", [("check_for_nan_in_loss", sc["nan"])]))
    sections.append(("model", model))
    if "env" in sc:
        env = ENVS[sc["env"]]
        sections.append(("env_vars", [(k, str(v) if r.random() < 0.5 else v) for k, v in env.items()]))
    # pad with ordinary overrides to 10-60 lines
    target = r.randint(10, 59)  # a filler section may overshoot by one line
    extra = [s for s in FILLER if s != "model"]
    r.shuffle(extra)
    filler_model = list(FILLER["model"])
    r.shuffle(filler_model)
    comments = r.random() < 0.4
    while True:
        lines = dump_override(sections, comments)
        room = target - len(lines)
        if room <= 0 or (not extra and not filler_model):
            break
        if filler_model and (room < 2 or not extra or r.random() < 0.4):
            k, v = filler_model.pop()
            if not any(k == kk for kk, _ in model):
                model.append((k, v))
        else:
            s = extra.pop()
            body = list(FILLER[s])
            r.shuffle(body)
            n = r.randint(1, max(1, min(len(body), room - 1)))
            sections.insert(r.randint(0, len(sections)), (s, body[:n]))
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("-n", type=int, default=300, help="number of files (default 300)")
    ap.add_argument("--seed", type=int, default=20260822, help="random seed")
    a = ap.parse_args(argv)
    os.makedirs(a.outdir, exist_ok=True)
    r = random.Random(a.seed)
    fams = list(FAMILIES)
    counts = {"fulldump": 0, "override": 0, "bad": 0}
    for i in range(a.n):
        fam = r.choice(fams)
        label, sc = pick_scenario(r, fam)
        ok, _ = scenarios_for(fam)
        counts["bad"] += (label, sc) not in ok
        if i % 3 == 0:  # every third file is a full dump
            kind, text = "fulldump", full_dump(r, i, fam, sc)
        else:
            kind, text = "override", override_file(r, fam, sc)
        counts[kind] += 1
        path = os.path.join(a.outdir, f"{i:04d}_{kind}_{fam}_{label}.yaml")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    print(f"gen_configs: {a.n} files in {a.outdir}: {counts['fulldump']} full dumps, "
          f"{counts['override']} overrides, {counts['bad']} with a deliberate error",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

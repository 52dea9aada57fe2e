#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate Megatron-Bridge-like Python recipe modules for benchmarking cglint's Python front-end.

usage: gen_recipes.py OUTDIR [-n N] [--seed S]

Shaped like Megatron-Bridge v0.6.0's src/megatron/bridge/recipes and perf_recipes: a licence
header, imports, a module docstring, then 2-12 builder functions per file (`cfg = base()` then
straight-line `cfg.<section>.<key> = literal` assignments, about a fifth of them CUDA-graph keys,
chained RNG switches, `cfg.env_vars = {**COMMON_ENV, ...}`, a helper call, an occasional `if`
block, a constructor-style function), and a fifth of the files with no CUDA-graph key at all
(dataset helpers and utilities). Output is a pure function of (N, seed). Standard library only.
"""

import argparse
import os
import random

LICENSE = """# Copyright (c) 2025, NVIDIA CORPORATION.  All rights reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""

FAMILIES = ["llama3", "qwen3", "qwen3_moe", "deepseek_v3", "gpt_oss", "nemotronh", "gemma3", "mixtral"]
GPUS = ["h100", "b200", "gb200", "gb300", "b300"]
PLAIN = [  # ordinary training keys, as the recipes set them
    ("model.tensor_model_parallel_size", [1, 2, 4, 8]),
    ("model.pipeline_model_parallel_size", [1, 2, 4]),
    ("model.context_parallel_size", [1, 2]),
    ("model.sequence_parallel", [True, False]),
    ("model.seq_length", [4096, 8192]),
    ("model.expert_model_parallel_size", [1, 8, 16]),
    ("model.moe_token_dispatcher_type", ["alltoall", "flex"]),
    ("model.recompute_granularity", [None, "selective"]),
    ("model.recompute_modules", [["core_attn"], ["mla_up_proj", "moe_act"]]),
    ("train.train_iters", [50, 100, 1000]),
    ("train.global_batch_size", [128, 256, 1024]),
    ("train.micro_batch_size", [1, 2]),
    ("optimizer.lr", [3e-4, 1e-4]),
    ("optimizer.min_lr", [3e-5, 1e-5]),
    ("scheduler.lr_warmup_iters", [50, 500]),
    ("ddp.overlap_grad_reduce", [True, False]),
    ("ddp.overlap_param_gather", [True, False]),
    ("ddp.use_distributed_optimizer", [True]),
    ("logger.log_interval", [1, 10]),
    ("checkpoint.save_interval", [1000, 2000]),
    ("dataset.sequence_length", [4096, 8192]),
    ("mixed_precision", ["bf16_mixed", "bf16_with_fp8_current_scaling_mixed"]),
    ("comm_overlap.tp_comm_overlap", [True, False]),
]
GRAPH = [
    ("model.cuda_graph_impl", ["local", "transformer_engine", "none", "full_iteration"]),
    ("model.cuda_graph_scope", ["full", ["attn"], ["attn", "moe_router", "moe_preprocess"], []]),
    ("model.cuda_graph_modules", [["attn", "mlp"], []]),
    ("model.cuda_graph_warmup_steps", [3]),
]


def lit(v):
    if isinstance(v, str):
        return '"' + v + '"'
    return repr(v)


def builder(r, fam, gpu, k):
    name = f"{fam}_{r.choice(['8b', '70b', '30b_a3b', '671b'])}_pretrain_{r.choice([1, 8, 64, 256])}gpu_{gpu}_{r.choice(['bf16', 'fp8cs', 'mxfp8'])}_{k}_config"
    out = [f"def {name}() -> ConfigContainer:",
           f'    """Return a pre-training config for {fam} on {gpu.upper()}."""',
           f"    cfg = {fam}_pretrain_config()", ""]
    graphs = r.random() < 0.8
    lines = r.sample(PLAIN, r.randint(8, len(PLAIN)))
    for key, vals in lines:
        out.append(f"    cfg.{key} = {lit(r.choice(vals))}")
        if graphs and r.random() < 0.25:
            gk, gv = r.choice(GRAPH)
            out.append(f"    cfg.{gk} = {lit(r.choice(gv))}")
    if graphs:
        out.append(f'    cfg.model.cuda_graph_impl = "{r.choice(["local", "transformer_engine"])}"')
        out.append(f"    cfg.rng.te_rng_tracker = cfg.model.use_te_rng_tracker = True")
        if r.random() < 0.6:
            out += ["    cfg.env_vars = {",
                    "        **COMMON_PERF_ENV_VARS,",
                    f'        "NCCL_GRAPH_REGISTER": {r.choice([0, 1])},',
                    '        "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",',
                    '        "NVTE_FWD_LAYERNORM_SM_MARGIN": 16,',
                    "    }"]
    if r.random() < 0.4:
        out += ["", "    _benchmark_common(cfg)"]
    if r.random() < 0.3:
        out += ["    if cfg.model.num_moe_experts:", '        cfg.model.moe_router_dtype = "fp32"']
    out += ["", "    return cfg", "", ""]
    return out


def ctor_builder(r, fam, gpu):
    return [f"def {fam}_{gpu}_finetune_config() -> ConfigContainer:",
            '    """Constructor-style recipe."""',
            "    return ConfigContainer(",
            "        model=GPTModelProvider(",
            f'            cuda_graph_impl="{r.choice(["local", "transformer_engine"])}",',
            '            cuda_graph_scope=["attn"],',
            "            tensor_model_parallel_size=2,",
            "            use_te_rng_tracker=True,",
            "        ),",
            "        rng=RNGConfig(seed=1234, te_rng_tracker=True),",
            "        train=TrainingConfig(train_iters=100, global_batch_size=128),",
            "        optimizer=OptimizerConfig(lr=3e-4),",
            "    )", "", ""]


def plain_module(r, i):
    out = [LICENSE, f'"""Dataset and utility helpers ({i})."""', "", "import os", "from dataclasses import dataclass", "", ""]
    for k in range(r.randint(3, 12)):
        out += [f"def helper_{k}(path: str, seq_length: int = 4096) -> dict:",
                f'    """Return the dataset blend for split {k}."""',
                "    blend = {}",
                "    for name in sorted(os.listdir(path)):",
                "        if name.endswith('.bin'):",
                "            blend[name[:-4]] = 1.0",
                f"    return {{'blend': blend, 'seq_length': seq_length, 'split': '{k}'}}", "", ""]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("-n", type=int, default=290)
    ap.add_argument("--seed", type=int, default=6)
    a = ap.parse_args()
    r = random.Random(a.seed)
    os.makedirs(a.outdir, exist_ok=True)
    for i in range(a.n):
        fam, gpu = r.choice(FAMILIES), r.choice(GPUS)
        if r.random() < 0.2:
            lines = plain_module(r, i)
            name = f"{i:04d}_utils.py"
        else:
            lines = [LICENSE, f'"""{fam} recipes for {gpu.upper()}."""', "",
                     "from megatron.bridge.perf_recipes._common import COMMON_PERF_ENV_VARS, _benchmark_common",
                     f"from megatron.bridge.recipes.{fam} import {fam}_pretrain_config",
                     "from megatron.bridge.training.config import ConfigContainer, OptimizerConfig, RNGConfig, TrainingConfig",
                     "from megatron.bridge.models import GPTModelProvider", "", ""]
            for k in range(r.randint(2, 12)):
                lines += builder(r, fam, gpu, k)
            if r.random() < 0.2:
                lines += ctor_builder(r, fam, gpu)
            name = f"{i:04d}_{fam}_{gpu}.py"
        with open(os.path.join(a.outdir, name), "w") as fh:
            fh.write("\n".join(lines).rstrip() + "\n")


if __name__ == "__main__":
    main()

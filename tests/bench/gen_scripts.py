#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate realistic Megatron-LM / Megatron-Bridge launch scripts for benchmarking cglint.

usage: gen_scripts.py OUTDIR [-n N] [--seed S]

About 80% are Megatron-LM launch scripts of 60-200 lines in the style of the repository's
examples/ (optional #SBATCH header, exports, arrays of flags expanded with "${ARR[@]}",
variables reused on the command line, comments, if/for blocks, small functions, a torchrun or
srun+python command with line continuations); the rest launch Megatron-Bridge's performance
harness (scripts/performance/run_script.py or setup_experiment.py, with --cuda_graph_impl /
--cuda_graph_scope and trailing Hydra overrides). The CUDA-graph settings are written for
Megatron Core 0.17 / Bridge 0.4 (cglint's default target). About a third are broken on
purpose (file name contains "_bad_"), the rest are clean ("_ok_"):

  Megatron-LM: TE graphs without --te-rng-tracker (validate_args turns it on and warns),
  expandable_segments:True without NCCL_GRAPH_REGISTER=0 under TE graphs, --cuda-graph-modules
  (a 0.18 flag) on 0.17, --cuda-graph-scope with both moe and moe_router.
  Harness: --cuda_graph_scope full (not a harness scope), moe,moe_router, expandable segments
  without NCCL_GRAPH_REGISTER=0, full_iteration with transformer_engine.

Only the settings that decide a case are written so that a static reader can resolve them;
the rest uses the usual ${VAR:-default}, $1, $(...) forms. Every script passes `bash -n`.
Output is a pure function of (N, seed). Standard library only.
"""

import argparse
import os
import random
import sys

# ---------------------------------------------------------------------------------------
# Model families: (Megatron-LM flags, harness family/recipe names).
# ---------------------------------------------------------------------------------------

FAMILIES = {
    "llama3_8b": dict(
        layers=32, hidden=4096, ffn=14336, heads=32, groups=8, seq=8192, vocab=128256,
        rotary=500000, moe=None, tok="meta-llama/Meta-Llama-3-8B", hf=("llama", "llama3_8b")),
    "llama3_70b": dict(
        layers=80, hidden=8192, ffn=28672, heads=64, groups=8, seq=8192, vocab=128256,
        rotary=500000, moe=None, tok="meta-llama/Meta-Llama-3-70B", hf=("llama", "llama3_70b")),
    "gpt3_175b": dict(
        layers=96, hidden=12288, ffn=49152, heads=96, groups=None, seq=2048, vocab=None,
        rotary=None, moe=None, tok=None, hf=None),
    "mixtral_8x7b": dict(
        layers=32, hidden=4096, ffn=14336, heads=32, groups=8, seq=4096, vocab=32000,
        rotary=1000000, moe=dict(experts=8, topk=2, ffn=14336, freq=None, shared=None),
        tok="mistralai/Mixtral-8x7B-v0.1", hf=None),
    "qwen3_30b_a3b": dict(
        layers=48, hidden=2048, ffn=6144, heads=32, groups=4, seq=4096, vocab=151936,
        rotary=1000000, moe=dict(experts=128, topk=8, ffn=768, freq=None, shared=None),
        tok="Qwen/Qwen3-30B-A3B", hf=("qwen", "qwen3_30b_a3b")),
    "deepseek_v3": dict(
        layers=61, hidden=7168, ffn=18432, heads=128, groups=None, seq=4096, vocab=129280,
        rotary=10000, moe=dict(experts=256, topk=8, ffn=2048, freq="([0]*3+[1]*58)",
                               shared=2048),
        mla=True, tok="deepseek-ai/DeepSeek-V3", hf=("deepseek", "deepseek_v3")),
}

# ---------------------------------------------------------------------------------------
# CUDA-graph scenarios. impl/scope/rng are what the command line says; env names an ENVS
# entry; "bad" ones break a rule of the 0.17 / Bridge 0.4 target.
# ---------------------------------------------------------------------------------------

ENVS = {
    "es_ngr": [("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"), ("NCCL_GRAPH_REGISTER", "0")],
    "es_only": [("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")],
    "no_es": [("PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:512")],
}


def mlm_scenarios(fam):
    moe = FAMILIES[fam]["moe"] is not None
    # 0.16/0.17 validate_args: local graphs with expert parallelism need padded experts
    ok = [
        ("none", dict(impl=None)),
        ("te_attn", dict(impl="transformer_engine", scope=["attn"], rng=True)),
        ("te_attn_es", dict(impl="transformer_engine", scope=["attn"], rng=True, env="es_ngr")),
        ("local_full_iter", dict(impl="local", scope=["full_iteration"], rng=True, nan_off=True,
                                 pad=moe)),
        ("local_layers", dict(impl="local", scope=[], rng=True, env="no_es", pad=moe)),
    ]
    bad = [
        ("no_rng", dict(impl="transformer_engine", scope=["attn"], rng=False)),
        ("es_without_ngr", dict(impl="transformer_engine", scope=["attn"], rng=True, env="es_only")),
        ("modules_flag", dict(impl="transformer_engine", modules=["attn"], rng=True)),
    ]
    if moe:
        ok.append(("te_router", dict(impl="transformer_engine",
                                     scope=["attn", "moe_router", "moe_preprocess"], rng=True)))
        bad.append(("moe_and_router", dict(impl="transformer_engine",
                                           scope=["moe", "moe_router"], rng=True)))
    else:
        ok.append(("te_attn_mlp", dict(impl="transformer_engine", scope=["attn", "mlp"], rng=True)))
    return ok, bad


def perf_scenarios(fam):
    moe = FAMILIES[fam]["moe"] is not None
    ok = [
        ("none", dict(impl=None)),
        ("te_attn", dict(impl="transformer_engine", scope=["attn"])),
        ("local_full_iter", dict(impl="local", scope=["full_iteration"])),
        ("te_attn_es", dict(impl="transformer_engine", scope=["attn"], env="es_ngr")),
    ]
    bad = [
        ("scope_full", dict(impl="transformer_engine", scope=["full"])),
        ("es_without_ngr", dict(impl="transformer_engine", scope=["attn"], env="es_only")),
        ("te_full_iter", dict(impl="transformer_engine", scope=["full_iteration"])),
    ]
    if moe:
        ok.append(("te_router", dict(impl="transformer_engine",
                                     scope=["attn", "moe_router", "moe_preprocess"])))
        bad.append(("moe_and_router", dict(impl="transformer_engine", scope=["moe", "moe_router"])))
    return ok, bad


def pick(r, ok, bad):
    # roughly a third of the scripts carry a deliberate mistake
    return ("bad",) + r.choice(bad) if r.random() < 0.35 else ("ok",) + r.choice(ok)


# ---------------------------------------------------------------------------------------
# Pieces shared by both kinds
# ---------------------------------------------------------------------------------------

LICENSE = [
    "# Copyright (c) 2025, NVIDIA CORPORATION.  All rights reserved.",
    "#",
    "# Licensed under the Apache License, Version 2.0 (the \"License\");",
    "# you may not use this file except in compliance with the License.",
]

PLAIN_EXPORTS = [
    ("CUDA_DEVICE_MAX_CONNECTIONS", "1"),
    ("NCCL_IB_SL", "1"),
    ("NCCL_IB_TIMEOUT", "19"),
    ("NVTE_FWD_LAYERNORM_SM_MARGIN", "16"),
    ("NVTE_BWD_LAYERNORM_SM_MARGIN", "16"),
    ("NCCL_P2P_NET_CHUNKSIZE", "2097152"),
    ("TORCH_NCCL_AVOID_RECORD_STREAMS", "1"),
    ("NVTE_NORM_FWD_USE_CUDNN", "1"),
    ("NVTE_NORM_BWD_USE_CUDNN", "1"),
    ("TORCH_NCCL_HIGH_PRIORITY", "1"),
    ("PYTHONWARNINGS", "ignore"),
    ("TOKENIZERS_PARALLELISM", "False"),
    ("NCCL_NVLS_ENABLE", "0"),
]

FUNCTIONS = [
    ["log() {", "    echo \"[$(date '+%Y-%m-%d %H:%M:%S')] $*\"", "}"],
    ["die() {", "    echo \"error: $*\" >&2", "    exit 1", "}"],
    ["require_dir() {", "    if [ ! -d \"$1\" ]; then", "        mkdir -p \"$1\" || die \"cannot create $1\"",
     "    fi", "}"],
    ["print_banner() {", "    echo \"============================================================\"",
     "    echo \" $1\"", "    echo \"============================================================\"", "}"],
]


def export_line(r, name, value):
    q = r.random()
    if q < 0.5:
        return f"export {name}={value}"
    if q < 0.8:
        return f"export {name}=\"{value}\""
    return f"{name}={value}\nexport {name}"


def sbatch_header(r, fam, nodes):
    part = r.choice(["batch", "batch_block1", "gpu", "luna", "polar"])
    lines = [
        f"#SBATCH --job-name={fam}-pretrain",
        f"#SBATCH --nodes={nodes}",
        "#SBATCH --ntasks-per-node=8",
        "#SBATCH --gpus-per-node=8",
        f"#SBATCH --partition={part}",
        f"#SBATCH --time={r.choice(['00:30:00', '01:00:00', '04:00:00', '23:59:00'])}",
    ]
    if r.random() < 0.6:
        lines.append(f"#SBATCH --account={r.choice(['coreai_dlalgo_llm', 'llmservice_nlp', 'research'])}")
    if r.random() < 0.5:
        lines.append("#SBATCH --exclusive")
    if r.random() < 0.5:
        lines.append("#SBATCH --dependency=singleton")
    lines.append(f"#SBATCH --output=logs/%x_%j.out")
    return lines


def fmt_array(name, items, indent="    ", plus=False, per_line=1):
    """NAME=( ... ) with per_line flags (each with its values) per line."""
    out = [f"{name}{'+=' if plus else '='}("]
    for k in range(0, len(items), per_line):
        out.append(indent + " ".join(items[k:k + per_line]))
    out.append(")")
    return out


# ---------------------------------------------------------------------------------------
# Megatron-LM launch script
# ---------------------------------------------------------------------------------------


def model_flags(f):
    fl = ["--use-mcore-models", f"--num-layers {f['layers']}", f"--hidden-size {f['hidden']}",
          f"--ffn-hidden-size {f['ffn']}", f"--num-attention-heads {f['heads']}"]
    if f["groups"]:
        fl += ["--group-query-attention", f"--num-query-groups {f['groups']}"]
    fl += [f"--seq-length $SEQ_LEN", f"--max-position-embeddings $SEQ_LEN"]
    if f["rotary"]:
        fl += ["--position-embedding-type rope", f"--rotary-base {f['rotary']}",
               "--normalization RMSNorm", "--swiglu", "--untie-embeddings-and-output-weights"]
    if f.get("mla"):
        fl += ["--multi-latent-attention", "--q-lora-rank 1536", "--kv-lora-rank 512",
               "--qk-head-dim 128", "--qk-pos-emb-head-dim 64", "--v-head-dim 128"]
    fl += ["--attention-dropout 0.0", "--hidden-dropout 0.0", "--disable-bias-linear",
           "--init-method-std 0.0134"]
    return fl


def moe_flags(f, r):
    m = f["moe"]
    fl = [f"--num-experts {m['experts']}", f"--moe-router-topk {m['topk']}",
          f"--moe-ffn-hidden-size {m['ffn']}", "--moe-router-load-balancing-type aux_loss",
          "--moe-aux-loss-coeff 1e-3", "--moe-grouped-gemm", "--moe-token-dispatcher-type alltoall"]
    if m["freq"]:
        fl.append(f"--moe-layer-freq \"{m['freq']}\"")
    if m["shared"]:
        fl.append(f"--moe-shared-expert-intermediate-size {m['shared']}")
    if r.random() < 0.5:
        fl += ["--moe-router-dtype fp32", "--moe-permute-fusion"]
    return fl


TRAIN_EXTRA = [
    "--lr-decay-style cosine", "--clip-grad 1.0", "--weight-decay 0.1", "--adam-beta1 0.9",
    "--adam-beta2 0.95", "--bf16", "--cross-entropy-loss-fusion", "--manual-gc",
    "--manual-gc-interval 10", "--use-distributed-optimizer", "--overlap-grad-reduce",
    "--overlap-param-gather", "--calculate-per-token-loss", "--exit-duration-in-mins 230",
    "--distributed-timeout-minutes 60", "--empty-unused-memory-level 1",
]

LOG_EXTRA = [
    "--log-interval 1", "--log-throughput", "--eval-interval 1000", "--eval-iters 10",
    "--save-interval 2000", "--log-timers-to-tensorboard", "--log-memory-to-tensorboard",
    "--log-validation-ppl-to-tensorboard", "--log-params-norm", "--log-num-zeros-in-grad",
    "--ckpt-format torch_dist", "--auto-detect-ckpt-format", "--dist-ckpt-strictness log_all",
]


def cg_words(sc):
    """The CUDA-graph flags of a scenario, one list entry per flag with its values."""
    w = []
    if sc["impl"] is None:
        return w
    w.append(f"--cuda-graph-impl {sc['impl']}")
    if sc.get("scope"):
        w.append("--cuda-graph-scope " + " ".join(sc["scope"]))
    if sc.get("modules"):
        w.append("--cuda-graph-modules " + " ".join(sc["modules"]))
    if sc.get("rng"):
        w.append("--te-rng-tracker")
    if sc.get("nan_off"):
        w.append("--no-check-for-nan-in-loss-and-grad")
    if sc.get("pad"):
        w.append("--moe-pad-experts-for-cuda-graph-inference")
    return w


def mlm_script(r, fam, sc):
    f = FAMILIES[fam]
    target = r.randint(60, 200)
    # short scripts pack several flags per array line, as many hand-written ones do
    pl = 1 if target >= 130 else r.choice([2, 3]) if target >= 90 else 4
    nodes = r.choice([1, 2, 4, 8, 16, 32])
    tp = r.choice([1, 2, 4, 8])
    pp = r.choice([1, 1, 2, 4, 8])
    L = ["#!/bin/bash"]
    if r.random() < (0.65 if pl < 4 else 0.2):
        L += sbatch_header(r, fam, nodes)
    L.append("")
    if pl < 4 and r.random() < 0.3:
        L += LICENSE + [""]
    L.append(f"# Pretrain {fam.replace('_', ' ')} with Megatron-LM (mcore 0.17)")
    if r.random() < 0.5:
        L.append("# usage: bash $0 [CHECKPOINT_PATH] [TOKENIZER_MODEL] [DATA_PATH]")
    if r.random() < 0.5:
        L.append(r.choice(["set -euo pipefail", "set -e", "set -ex"]))
    L.append("")

    # environment
    L.append("# --- environment ---")
    env = list(PLAIN_EXPORTS)
    r.shuffle(env)
    for k, v in env[: r.randint(2, 8)]:
        L.extend(export_line(r, k, v).split("\n"))
    scen_env = ENVS.get(sc.get("env"), [])
    inline_ngr = False
    for k, v in scen_env:
        if k == "NCCL_GRAPH_REGISTER" and r.random() < 0.3:
            inline_ngr = True  # given on the launch line instead
            continue
        L.extend(export_line(r, k, v).split("\n"))
    if r.random() < 0.4:
        L.append("# export NCCL_DEBUG=INFO")
    L.append("")

    # paths and sizes
    L.append("# --- paths (override on the command line) ---")
    L.append(f"CHECKPOINT_PATH=${{1:-\"/lustre/checkpoints/{fam}\"}}")
    if f["tok"]:
        L.append(f"TOKENIZER_MODEL=${{2:-\"{f['tok']}\"}}")
    L.append(f"DATA_PATH=${{3:-\"/lustre/data/{fam}/text_document\"}}")
    L.append("MEGATRON_PATH=/opt/megatron-lm")
    L.append(f"LOG_DIR=\"${{CHECKPOINT_PATH}}/logs\"")
    L.append("RUN_ID=$(date +%Y%m%d_%H%M%S)")
    L.append("")
    L.append("GPUS_PER_NODE=8")
    L.append(f"NNODES=${{SLURM_NNODES:-{nodes}}}")
    L.append("MASTER_ADDR=${MASTER_ADDR:-localhost}")
    L.append("MASTER_PORT=${MASTER_PORT:-6000}")
    L.append("NODE_RANK=${SLURM_NODEID:-0}")
    L.append("WORLD_SIZE=$((GPUS_PER_NODE * NNODES))")
    L.append(f"TP={tp}")
    L.append(f"PP={pp}")
    L.append(f"SEQ_LEN={f['seq']}")
    L.append(f"MBS={r.choice([1, 1, 2, 4])}")
    L.append(f"GBS={r.choice([256, 512, 1024, 2048])}")
    if f["moe"]:
        L.append(f"EP={r.choice([4, 8, 16])}")
    L.append("")

    funcs = list(FUNCTIONS)
    r.shuffle(funcs)
    nfun = r.randint(0, 2)
    for fn in funcs[:nfun]:
        L += fn + [""]
    has_log = any(fn[0].startswith("log()") for fn in funcs[:nfun])

    # arrays
    arrays = []
    L.append("DISTRIBUTED_ARGS=(")
    L += ["    --nproc_per_node $GPUS_PER_NODE", "    --nnodes $NNODES", "    --node_rank $NODE_RANK",
          "    --master_addr $MASTER_ADDR", "    --master_port $MASTER_PORT"]
    L += [")", ""]

    cg = cg_words(sc)
    style = r.random() if cg else 1.0
    # where the CUDA-graph flags go: own array, inside MODEL_ARGS, through variables, in an
    # if block on a switch that is on, or on the launch line
    cg_in_model = cg if 0.2 <= style < 0.4 else []
    mf = model_flags(f) + cg_in_model
    L.append("# model")
    L += fmt_array("MODEL_ARGS", mf, per_line=pl)
    L.append("")
    arrays.append("MODEL_ARGS")
    if f["moe"]:
        L.append("# mixture of experts")
        L += fmt_array("MOE_ARGS", moe_flags(f, r), per_line=pl)
        L.append("")
        arrays.append("MOE_ARGS")

    par = [f"--tensor-model-parallel-size ${{TP}}", f"--pipeline-model-parallel-size ${{PP}}"]
    if tp > 1:
        par.append("--sequence-parallel")
    if f["moe"]:
        par += ["--expert-model-parallel-size ${EP}", "--expert-tensor-parallel-size 1"]
    L += fmt_array("MODEL_PARALLEL_ARGS", par, per_line=pl)
    L.append("")
    arrays.append("MODEL_PARALLEL_ARGS")

    extra = list(TRAIN_EXTRA)
    r.shuffle(extra)
    train = ["--micro-batch-size ${MBS}", "--global-batch-size ${GBS}",
             f"--train-iters {r.choice([500, 20000, 250000, 500000])}",
             f"--lr {r.choice(['1.0e-4', '3.0e-4', '1.5e-4'])}", "--min-lr 1.0e-5",
             f"--lr-warmup-iters {r.choice([100, 500, 2000])}"]
    train += extra[: r.randint(4, len(extra)) if pl == 1 else r.randint(2, 8)]
    L += fmt_array("TRAINING_ARGS", train, per_line=pl)
    L.append("")
    arrays.append("TRAINING_ARGS")

    if style < 0.2:
        L.append("# CUDA graphs")
        L += fmt_array("CUDA_GRAPH_ARGS", cg)
        L.append("")
        arrays.append("CUDA_GRAPH_ARGS")
    elif 0.4 <= style < 0.6:
        L.append("# CUDA graphs: impl and scope as variables")
        L.append(f"CG_IMPL={sc['impl']}")
        scope_flag = [w for w in cg if w.startswith(("--cuda-graph-scope", "--cuda-graph-modules"))]
        if scope_flag:
            flag, vals = scope_flag[0].split(" ", 1)
            L.append(f"CG_SCOPE=\"{vals}\"" if " " in vals else f"CG_SCOPE={vals}")
        L.append("CUDA_GRAPH_ARGS=(")
        L.append("    --cuda-graph-impl ${CG_IMPL}")
        if scope_flag:
            L.append(f"    {flag} ${{CG_SCOPE}}")
        for w in cg:
            if not w.startswith(("--cuda-graph-impl", "--cuda-graph-scope", "--cuda-graph-modules")):
                L.append("    " + w)
        L += [")", ""]
        arrays.append("CUDA_GRAPH_ARGS")
    elif 0.6 <= style < 0.8:
        L.append("USE_CUDA_GRAPHS=1")
        L.append("if [ \"${USE_CUDA_GRAPHS}\" = 1 ]; then")
        L += ["    " + x for x in fmt_array("TRAINING_ARGS", cg, plus=True)]
        L += ["fi", ""]

    data = []
    if f["tok"]:
        data += ["--tokenizer-type HuggingFaceTokenizer", "--tokenizer-model ${TOKENIZER_MODEL}"]
    else:
        data += ["--vocab-file ${DATA_DIR:-/lustre/data}/gpt2-vocab.json",
                 "--merge-file ${DATA_DIR:-/lustre/data}/gpt2-merges.txt"]
    data += ["--data-path $DATA_PATH", "--split 99,1,0", "--num-workers 4",
             "--data-cache-path ${CHECKPOINT_PATH}/cache"]
    L += fmt_array("DATA_ARGS", data, per_line=pl)
    L.append("")
    arrays.insert(r.randint(1, len(arrays)), "DATA_ARGS")

    lx = list(LOG_EXTRA)
    r.shuffle(lx)
    logging = ["--save $CHECKPOINT_PATH", "--load $CHECKPOINT_PATH",
               "--tensorboard-dir \"${LOG_DIR}/tensorboard\""] + lx[: r.randint(3, len(lx) if pl == 1 else 6)]
    L += fmt_array("LOGGING_ARGS", logging, per_line=pl)
    L.append("")
    arrays.append("LOGGING_ARGS")

    # optional blocks, added while they fit (the launch takes ~len(arrays)+8 lines)
    blocks = []
    blocks.append(["if [ -n \"${WANDB_API_KEY:-}\" ]; then",
                   "    LOGGING_ARGS+=(",
                   f"        --wandb-project ${{WANDB_PROJECT:-\"{fam}\"}}",
                   f"        --wandb-exp-name \"{fam}-tp${{TP}}-pp${{PP}}-${{RUN_ID}}\"",
                   "    )", "fi", ""])
    blocks.append(["for d in \"$CHECKPOINT_PATH\" \"$LOG_DIR\"; do",
                   "    mkdir -p \"$d\"", "done", ""])
    blocks.append(["if [ \"${NNODES}\" -gt 1 ]; then",
                   "    echo \"multi-node run: ${NNODES} nodes x ${GPUS_PER_NODE} GPUs\"",
                   "else", "    echo \"single node run\"", "fi", ""])
    blocks.append(["# Profiling (nsys) is off by default",
                   "PROFILE=${PROFILE:-0}",
                   "if [ \"${PROFILE}\" = 1 ]; then",
                   "    PROFILE_CMD=\"nsys profile -s none -t cuda,nvtx -o ${LOG_DIR}/profile_${RUN_ID} --capture-range=cudaProfilerApi\"",
                   "else", "    PROFILE_CMD=\"\"", "fi", ""])
    blocks.append(["echo \"Megatron-LM commit: $(git -C \"$MEGATRON_PATH\" rev-parse --short HEAD 2>/dev/null || echo unknown)\"",
                   "echo \"TP=${TP} PP=${PP} MBS=${MBS} GBS=${GBS} SEQ_LEN=${SEQ_LEN}\"", ""])
    blocks.append(["case \"${CLUSTER:-eos}\" in",
                   "    eos) export NCCL_IB_QPS_PER_CONNECTION=2 ;;",
                   "    draco) export NCCL_SOCKET_IFNAME=ib0 ;;",
                   "    *) echo \"unknown cluster ${CLUSTER:-}\" ;;",
                   "esac", ""])
    blocks.append(["# Activation checkpointing is not needed at this size",
                   "# TRAINING_ARGS+=(--recompute-granularity full --recompute-method uniform --recompute-num-layers 1)",
                   ""])
    blocks.append(["if [ ! -f \"${MEGATRON_PATH}/pretrain_gpt.py\" ]; then",
                   "    echo \"pretrain_gpt.py not found under ${MEGATRON_PATH}\" >&2",
                   "    exit 1", "fi", ""])
    blocks.append(["# Learning-rate schedule notes:",
                   "#   warmup is linear, then cosine decay to --min-lr",
                   "#   --lr-decay-iters defaults to --train-iters", ""])
    for k in range(r.randint(0, 6)):
        blocks.append([f"# knob {k}: keep in sync with the cluster defaults",
                       f"EXTRA_KNOB_{k}=${{EXTRA_KNOB_{k}:-{r.randint(0, 64)}}}", ""])
    r.shuffle(blocks)
    launch_len = len(arrays) + 9
    for b in blocks:
        if len(L) + len(b) + launch_len <= target:
            L += b
    if has_log:
        L.append("log \"launching ${WORLD_SIZE} ranks\"")

    # launch
    L.append("cd \"${MEGATRON_PATH}\"")
    exp = [f"\"${{{a}[@]}}\"" if r.random() < 0.6 else f"${{{a}[@]}}" for a in arrays]
    pre = "NCCL_GRAPH_REGISTER=0 " if inline_ngr else ""
    tail = [" ".join(cg)] if style >= 0.8 and cg else []
    q = r.random()
    if q < 0.6:
        head = [f"{pre}torchrun \"${{DISTRIBUTED_ARGS[@]}}\" pretrain_gpt.py"]
    elif q < 0.8:
        head = [f"{pre}srun --mpi=pmix --container-image=${{CONTAINER_IMAGE:-nvcr.io/nvidia/pytorch:25.04-py3}}",
                "--container-mounts=/lustre:/lustre", "python -u pretrain_gpt.py"]
    else:
        head = [f"{pre}torchrun --nproc_per_node=$GPUS_PER_NODE --nnodes=$NNODES --node_rank=$NODE_RANK",
                "--master_addr=$MASTER_ADDR --master_port=$MASTER_PORT", "${MEGATRON_PATH}/pretrain_gpt.py"]
    words = head + exp + tail
    out = [words[0] + " \\"] + ["    " + w + " \\" for w in words[1:-1]] + ["    " + words[-1]]
    if r.random() < 0.4:
        out[-1] += " 2>&1 | tee \"${LOG_DIR}/train_${RUN_ID}.log\""
    L += out
    return "\n".join(L) + "\n"


# ---------------------------------------------------------------------------------------
# Megatron-Bridge performance-harness launcher
# ---------------------------------------------------------------------------------------

HYDRA = [
    "train.train_iters=50", "train.eval_iters=0", "logger.log_interval=1",
    "model.moe_router_dtype=fp32", "ddp.grad_reduce_in_fp32=true",
    "mixed_precision.grad_reduce_in_fp32=true", "checkpoint.save=null",
    "model.cuda_graph_warmup_steps=3", "profiling.use_nsys_profiler=false",
    "dataset.num_workers=4", "optimizer.lr=3e-4", "scheduler.lr_warmup_iters=10",
]


def perf_script(r, fam, sc):
    f = FAMILIES[fam]
    family, recipe = f["hf"]
    gpu = r.choice(["h100", "b200", "gb200"])
    dtype = r.choice(["bf16", "fp8_cs", "fp8_mx"])
    ngpus = r.choice([8, 16, 32, 64, 128])
    slurm = r.random() < 0.4
    L = ["#!/bin/bash"]
    if r.random() < 0.4:
        L += LICENSE
    L += ["",
          f"# Performance run of {recipe} through Megatron-Bridge's harness",
          "# (" + ("submits a Slurm job through setup_experiment.py" if slurm
                   else "runs in an allocation, one process per GPU") + ")",
          "set -euo pipefail", ""]
    env = list(PLAIN_EXPORTS)
    r.shuffle(env)
    for k, v in env[: r.randint(2, 6)]:
        L.extend(export_line(r, k, v).split("\n"))
    for k, v in ENVS.get(sc.get("env"), []):
        L.extend(export_line(r, k, v).split("\n"))
    L.append("export HF_TOKEN=\"${HF_TOKEN:-}\"")
    L.append("")
    L += ["MBRIDGE_ROOT=${MBRIDGE_ROOT:-/opt/Megatron-Bridge}",
          f"MODEL_FAMILY={family}", f"MODEL_RECIPE={recipe}", f"GPU_TYPE={gpu}",
          f"COMPUTE_DTYPE={dtype}", f"NUM_GPUS={ngpus}", f"MAX_STEPS={r.choice([20, 50, 100])}"]
    if sc["impl"] is not None:
        L.append(f"CG_IMPL={sc['impl']}")
        if sc.get("scope"):
            L.append(f"CG_SCOPE={','.join(sc['scope'])}")
    L.append("")
    if r.random() < 0.5:
        L += ["if [ ! -f \"${MBRIDGE_ROOT}/scripts/performance/run_script.py\" ]; then",
              "    echo \"ERROR: set MBRIDGE_ROOT to the Megatron-Bridge checkout\" >&2",
              "    exit 1", "fi", ""]
    hydra = list(HYDRA)
    r.shuffle(hydra)
    hydra = hydra[: r.randint(1, 6)]
    L += ["# Hydra-style overrides, after the argparse flags"]
    L += fmt_array("HYDRA_OVERRIDES", hydra)
    L.append("")
    if r.random() < 0.5:
        L += ["if [ \"${ENABLE_NSYS:-0}\" = 1 ]; then", "    HYDRA_OVERRIDES+=(",
              "        profiling.use_nsys_profiler=true", "        profiling.profile_step_start=5",
              "        profiling.profile_step_end=6", "    )", "fi", ""]
    L += ["echo \"model: ${MODEL_FAMILY}/${MODEL_RECIPE} on ${NUM_GPUS} x ${GPU_TYPE} (${COMPUTE_DTYPE})\"",
          "cd \"${MBRIDGE_ROOT}\"", ""]
    words = []
    if slurm:
        words.append("python scripts/performance/setup_experiment.py")
        words += [f"-a {r.choice(['coreai_dlalgo_llm', 'llmservice_nlp'])}",
                  f"-p {r.choice(['batch', 'gpu'])}",
                  "-i ${CONTAINER_IMAGE:-nvcr.io/nvidia/nemo:25.11}", "-t 00:30:00"]
    else:
        words.append("torchrun --nproc_per_node=8 scripts/performance/run_script.py")
    words += ["--model_family_name ${MODEL_FAMILY}", "--model_recipe_name ${MODEL_RECIPE}",
              "--gpu ${GPU_TYPE}", "--compute_dtype ${COMPUTE_DTYPE}", "--num_gpus ${NUM_GPUS}",
              "--max_steps ${MAX_STEPS}"]
    if r.random() < 0.5:
        words += [f"-tp {r.choice([1, 2, 4])}", f"-pp {r.choice([1, 2, 4])}"]
    if f["moe"] and r.random() < 0.6:
        words.append(f"-ep {r.choice([8, 16])}")
    if sc["impl"] is not None:
        words.append("--cuda_graph_impl ${CG_IMPL}")
        if sc.get("scope"):
            words.append("--cuda_graph_scope ${CG_SCOPE}")
    words.append("\"${HYDRA_OVERRIDES[@]}\"")
    L += [words[0] + " \\"] + ["    " + w + " \\" for w in words[1:-1]] + ["    " + words[-1]]
    L += ["", "echo \"done: ${MODEL_RECIPE}\""]
    return "\n".join(L) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("-n", type=int, default=300, help="number of files (default 300)")
    ap.add_argument("--seed", type=int, default=20260822, help="random seed")
    a = ap.parse_args(argv)
    os.makedirs(a.outdir, exist_ok=True)
    r = random.Random(a.seed)
    fams = list(FAMILIES)
    perf_fams = [k for k, f in FAMILIES.items() if f["hf"]]  # those the harness has recipes for
    counts = {"mlm": 0, "perf": 0, "bad": 0}
    for i in range(a.n):
        kind = "mlm" if r.random() < 0.8 else "perf"
        fam = r.choice(fams if kind == "mlm" else perf_fams)
        ok, bad = (mlm_scenarios if kind == "mlm" else perf_scenarios)(fam)
        verdict, label, sc = pick(r, ok, bad)
        text = (mlm_script if kind == "mlm" else perf_script)(r, fam, sc)
        counts[kind] += 1
        counts["bad"] += verdict == "bad"
        path = os.path.join(a.outdir, f"{i:04d}_{kind}_{fam}_{verdict}_{label}.sh")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    print(f"gen_scripts: {a.n} files in {a.outdir}: {counts['mlm']} Megatron-LM, "
          f"{counts['perf']} harness launchers, {counts['bad']} with a deliberate error",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

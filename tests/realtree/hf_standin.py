#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A stand-in Hugging Face cache for the models Megatron-Bridge v0.6.0's recipes name.

usage: hf_standin.py generate DIR      (needs transformers: writes DIR in huggingface_hub's layout)
       hf_standin.py check TREE        (every model id TREE's recipes pass to from_hf_pretrained
                                        must be in MODELS; exit 1 naming the ones that are not)

The recipes read their model with `AutoBridge.from_hf_pretrained("org/name")`, i.e. from the
model's config.json on the Hub, which cannot be reached where these tests run. Each model's
config.json is *stood in* by transformers' own config class for that architecture:
`AutoConfig.for_model(model_type)` with its defaults (real library defaults, NOT the model's own
sizes: layer counts, head counts, expert counts are the class's), `architectures` set to the HF
class Bridge's model bridge registers for that model (models/*/..._bridge.py register_bridge
source=). So a stand-in config says what kind of model it is (dense or MoE, MLA or not, VL or
not) the way that architecture's library class does, and nothing about the model's size.
Models whose model_type this transformers does not know (remote code, or a config class Bridge
registers itself) get no stand-in; generate lists them in DIR/STANDIN.json.

Layout: DIR/models--ORG--NAME/refs/main holds a made-up commit hash (sha1 of the id), the
config in DIR/models--ORG--NAME/snapshots/HASH/config.json; a revision the recipe pins (a commit
hash) gets its own snapshot with the same config. Use it with HF_HUB_CACHE=DIR HF_HUB_OFFLINE=1.
"""

import ast
import hashlib
import json
import os
import sys

# model id -> (architecture Bridge's bridge registers, transformers model_type of that class)
LLAMA = ("LlamaForCausalLM", "llama")
QWEN2 = ("Qwen2ForCausalLM", "qwen2")
QWEN3 = ("Qwen3ForCausalLM", "qwen3")
QWEN3_MOE = ("Qwen3MoeForCausalLM", "qwen3_moe")
QWEN35 = ("Qwen3_5ForConditionalGeneration", "qwen3_5")
QWEN35_MOE = ("Qwen3_5MoeForConditionalGeneration", "qwen3_5_moe")
QWEN25_VL = ("Qwen2_5_VLForConditionalGeneration", "qwen2_5_vl")
GEMMA2 = ("Gemma2ForCausalLM", "gemma2")
GEMMA3_VL = ("Gemma3ForConditionalGeneration", "gemma3")
GEMMA4_VL = ("Gemma4ForConditionalGeneration", "gemma4")
NEMOTRON_H = ("NemotronHForCausalLM", "nemotron_h")
MINISTRAL3 = ("Mistral3ForConditionalGeneration", "mistral3")
DSV3 = ("DeepseekV3ForCausalLM", "deepseek_v3")
DSV2 = ("DeepseekV2ForCausalLM", "deepseek_v2")
DSV4 = ("DeepseekV4ForCausalLM", "deepseek_v4")
GLM5 = ("GlmMoeDsaForCausalLM", "glm_moe_dsa")
GLM45 = ("Glm4MoeForCausalLM", "glm4_moe")
GPT_OSS = ("GptOssForCausalLM", "gpt_oss")

MODELS = {
    **{f"meta-llama/{n}": LLAMA for n in (
        "Llama-2-7b-hf", "Llama-3.2-1B", "Llama-3.2-3B", "Meta-Llama-3-8B", "Meta-Llama-3-70B",
        "Meta-Llama-3.1-8B", "Meta-Llama-3.1-70B", "Meta-Llama-3.1-405B")},
    **{f"Qwen/{n}": QWEN2 for n in (
        "Qwen2-0.5B", "Qwen2-1.5B", "Qwen2-7B", "Qwen2-72B", "Qwen2.5-0.5B", "Qwen2.5-1.5B",
        "Qwen2.5-7B", "Qwen2.5-14B", "Qwen2.5-32B", "Qwen2.5-72B")},
    **{f"Qwen/{n}": QWEN3 for n in ("Qwen3-0.6B", "Qwen3-1.7B", "Qwen3-4B", "Qwen3-8B", "Qwen3-14B", "Qwen3-32B")},
    "Qwen/Qwen3-30B-A3B": QWEN3_MOE,
    "Qwen/Qwen3-235B-A22B": QWEN3_MOE,
    "Qwen/Qwen3-Next-80B-A3B-Instruct": ("Qwen3NextForCausalLM", "qwen3_next"),
    "Qwen/Qwen3-Omni-30B-A3B-Instruct": ("Qwen3OmniMoeForConditionalGeneration", "qwen3_omni_moe"),
    "Qwen/Qwen3-VL-8B-Instruct": ("Qwen3VLForConditionalGeneration", "qwen3_vl"),
    "Qwen/Qwen3-VL-30B-A3B-Instruct": ("Qwen3VLMoeForConditionalGeneration", "qwen3_vl_moe"),
    "Qwen/Qwen3-VL-235B-A22B-Instruct": ("Qwen3VLMoeForConditionalGeneration", "qwen3_vl_moe"),
    **{f"Qwen/Qwen3.5-{n}": QWEN35 for n in ("0.8B", "2B", "4B", "9B", "27B")},
    **{f"Qwen/Qwen3.5-{n}": QWEN35_MOE for n in ("35B-A3B", "122B-A10B", "397B-A17B")},
    **{f"Qwen/Qwen2.5-VL-{n}-Instruct": QWEN25_VL for n in ("3B", "7B", "32B", "72B")},
    **{f"google/gemma-2-{n}": GEMMA2 for n in ("2b", "9b", "27b")},
    "google/gemma-3-1b-pt": ("Gemma3ForCausalLM", "gemma3_text"),
    **{f"google/gemma-3-{n}-it": GEMMA3_VL for n in ("4b", "12b", "27b")},
    "google/gemma-4-E4B-it": GEMMA4_VL,
    "google/gemma-4-26B-A4B-it": GEMMA4_VL,
    **{f"nvidia/NVIDIA-Nemotron-3-{n}-BF16": NEMOTRON_H for n in ("Nano-30B-A3B", "Super-120B-A12B", "Ultra-550B-A55B")},
    # remote code (trust_remote_code); no transformers class: no stand-in
    "nvidia/NVIDIA-Nemotron-Nano-12B-v2-VL-BF16": ("NemotronH_Nano_VL_V2", "NemotronH_Nano_VL_V2"),
    "nvidia/Nemotron-3-Nano-Omni-30B-A3B-Reasoning-BF16": ("NemotronH_Nano_Omni_Reasoning_V3", "NemotronH_Nano_Omni_Reasoning_V3"),
    **{f"mistralai/Ministral-3-{n}-Instruct-2512": MINISTRAL3 for n in ("3B", "8B", "14B")},
    "LGAI-EXAONE/EXAONE-4.0-1.2B": ("Exaone4ForCausalLM", "exaone4"),
    "LGAI-EXAONE/EXAONE-4.5-33B": ("Exaone4_5_ForConditionalGeneration", "exaone4_5"),
    "LGAI-EXAONE/K-EXAONE-236B-A23B": ("ExaoneMoeForCausalLM", "exaone_moe"),
    "deepseek-ai/DeepSeek-V2": DSV2,
    "deepseek-ai/DeepSeek-V2-Lite": DSV2,
    "deepseek-ai/DeepSeek-V3": DSV3,
    "deepseek-ai/DeepSeek-V4-Flash": DSV4,
    "deepseek-ai/DeepSeek-V4-Pro": DSV4,
    # Kimi K2 and Moonlight are DeepSeek-V3 models (their config.json subclasses DeepseekV3Config
    # by remote code); Bridge's Kimi bridge registers the class name KimiK2ForCausalLM
    "moonshotai/Kimi-K2-Instruct": ("KimiK2ForCausalLM", "deepseek_v3"),
    "moonshotai/Moonlight-16B-A3B": DSV3,
    "moonshotai/Kimi-K2.5": ("KimiK25ForConditionalGeneration", "kimi_k25"),
    "zai-org/GLM-4.5": GLM45,
    "zai-org/GLM-4.5-Air": GLM45,
    "zai-org/GLM-4.5V": ("Glm4vMoeForConditionalGeneration", "glm4v_moe"),
    "zai-org/GLM-5.1": GLM5,
    "zai-org/GLM-5.2": GLM5,
    "openai/gpt-oss-20b": GPT_OSS,
    "openai/gpt-oss-120b": GPT_OSS,
    # configs Bridge registers itself (AutoConfig.register in stepfun/*_bridge.py), if transformers lacks them
    "stepfun-ai/Step-3.5-Flash": ("Step3p5ForCausalLM", "step3p5"),
    "stepfun-ai/Step-3.7-Flash": ("Step3p7ForConditionalGeneration", "step3p7"),
    "MiniMaxAI/MiniMax-M3": ("MiniMaxM3SparseForConditionalGeneration", "minimax_m3"),
}
# revisions the recipes pin (commit hashes): each gets a snapshot of its own
REVISIONS = {
    "Qwen/Qwen3-30B-A3B": ["ad44e777bcd18fa416d9da3bd8f70d33ebb85d39"],
    "Qwen/Qwen3-8B": ["b968826d9c46dd6066d109eabc6255188de91218"],
    "zai-org/GLM-5.2": ["4d67f66cc64d3219133b767c253b2ad1425c6c88"],
    "moonshotai/Moonlight-16B-A3B": ["476b36a473d4467f94469414bef6cee75c9c8172"],
}
LABEL = ("stand-in config: transformers' own config class for the architecture, AutoConfig.for_model(model_type) "
         "defaults (not the model's own sizes), architectures set to the class Bridge's bridge registers")


def fake_commit(model_id):
    return hashlib.sha1(f"cglint stand-in {model_id}".encode()).hexdigest()


def generate(out):
    import transformers
    from transformers import AutoConfig
    manifest = {"label": LABEL, "transformers": transformers.__version__, "models": {}}
    for mid, (arch, mtype) in sorted(MODELS.items()):
        rec = {"architectures": [arch], "model_type": mtype}
        manifest["models"][mid] = rec
        try:
            cfg = AutoConfig.for_model(mtype)
        except Exception as e:          # not in this transformers: no stand-in
            rec["error"] = f"{type(e).__name__}: {str(e)[:200]}"
            continue
        cfg.architectures = [arch]
        org, name = mid.split("/")
        repo = os.path.join(out, f"models--{org}--{name}")
        main = fake_commit(mid)
        os.makedirs(os.path.join(repo, "refs"), exist_ok=True)
        with open(os.path.join(repo, "refs", "main"), "w") as f:
            f.write(main)
        for rev in [main] + REVISIONS.get(mid, []):
            snap = os.path.join(repo, "snapshots", rev)
            os.makedirs(snap, exist_ok=True)
            cfg.to_json_file(os.path.join(snap, "config.json"), use_diff=False)
        rec["config_class"] = type(cfg).__name__
    with open(os.path.join(out, "STANDIN.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    bad = [m for m, r in manifest["models"].items() if "error" in r]
    print(f"stand-in cache {out}: {len(MODELS) - len(bad)} of {len(MODELS)} model ids, transformers "
          f"{transformers.__version__}; no config class for: " + ", ".join(f"{m} ({MODELS[m][1]})" for m in bad))
    return 0


def tree_ids(tree):
    """(id, revision) of every from_hf_pretrained call in TREE's recipes whose id is a literal,
    a module constant or a parameter's default."""
    out = set()
    for top in ("recipes", "perf_recipes"):
        for d, _, names in os.walk(os.path.join(tree, "src/megatron/bridge", top)):
            for n in names:
                if not n.endswith(".py"):
                    continue
                t = ast.parse(open(os.path.join(d, n), encoding="utf-8").read())
                consts = {tg.id: s.value.value for s in t.body if isinstance(s, ast.Assign)
                          and isinstance(s.value, ast.Constant) for tg in s.targets if isinstance(tg, ast.Name)}
                for fn in ast.walk(t):
                    if not isinstance(fn, ast.FunctionDef):
                        continue
                    a = fn.args
                    pos = a.posonlyargs + a.args
                    dflt = {x.arg: v.value for x, v in zip(pos[len(pos) - len(a.defaults):], a.defaults)
                            if isinstance(v, ast.Constant)}
                    dflt.update({x.arg: v.value for x, v in zip(a.kwonlyargs, a.kw_defaults) if isinstance(v, ast.Constant)})

                    def value(x):
                        if isinstance(x, ast.Constant):
                            return x.value
                        return consts.get(x.id, dflt.get(x.id)) if isinstance(x, ast.Name) else None
                    for c in ast.walk(fn):
                        if isinstance(c, ast.Call) and getattr(c.func, "attr", None) == "from_hf_pretrained" and c.args:
                            rev = next((value(k.value) for k in c.keywords if k.arg == "revision"), None)
                            if isinstance(value(c.args[0]), str):
                                out.add((value(c.args[0]), rev))
    return out


def check(tree):
    found = tree_ids(tree)
    missing = sorted(f"{m}" + (f"@{r}" if r else "") for m, r in found
                     if m not in MODELS or (r and r not in REVISIONS.get(m, [])))
    print(f"{len(found)} (model id, revision) pairs in {tree}'s recipes; {len(missing)} not in hf_standin.MODELS"
          + (": " + ", ".join(missing) if missing else ""))
    return 1 if missing else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("generate", "check"):
        sys.exit(__doc__.split("\n\n")[1])
    sys.exit(generate(sys.argv[2]) if sys.argv[1] == "generate" else check(sys.argv[2]))

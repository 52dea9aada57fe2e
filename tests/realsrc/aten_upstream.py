#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cglint on real PyTorch extension code: TransformerEngine's pytorch/csrc and apex's csrc at
pinned commits, with host syncs written into what a graphed step captures.

usage: aten_upstream.py CGLINT [--mode shim|torch|both] [--torch-include DIR] [--cuda-path DIR]
                        [--min-recall PCT] [--max-false N] [--warm] [--timeout S] [--keep DIR]

No upstream file is in this repository. At test time the pinned files are taken from a fetched
tree (git archive of the pinned commit from $CGLINT_TE_GIT / $CGLINT_APEX_GIT, default the
mirrors under /work/.mirror) into a temporary folder; a tree or commit that is not there is
skipped with its reason, and with neither the script exits 77 (ctest: skipped).

In each chosen file, EDITS write code into functions the way extension code writes it: a host
sync in a check macro (.item()), a copy to the host (.cpu()), nonzero, torch::cuda::synchronize,
c10::cuda::stream_synchronize, cudaMalloc / cudaFree, pin_memory, a commented-out
cudaDeviceSynchronize turned back on; and clean edits beside them (device-side reductions, the
caching allocator's raw_alloc, shape checks, syncs after capture_end, the graph-safe variant
of an op). DRIVERS append to each file a graphed step that captures the upstream functions
through at::cuda::CUDAGraph, as a C++ caller would. A hazard is marked `// expect: error RULE`
on its line, a clean edit `// clean`.

Modes:
  shim   --cuda-path none: cglint's built-in CUDA, c10/ATen/torch headers where no real ones
         are on the include path
  torch  PyTorch's own headers (--torch-include, $CGLINT_TORCH_INCLUDE, else /usr/include when it
         holds torch/extension.h) with a CUDA toolkit (--cuda-path, $CUDA_PATH, /usr/local/cuda),
         as torch.utils.cpp_extension passes them (include, include/torch/csrc/api/include, Python)
Each file is its own cglint process (one compile_commands.json for all), so its time is its own;
--no-cache, or with --warm each file twice with a fresh $XDG_CACHE_HOME, the second run from
the preamble the first saved.

Reports recall (marked hazards reported with their rule on their line), false reports (errors
and warnings on a line not marked: on a clean edit, or on upstream code), files refused or
analysed in part (CG911/CG912/CG919/CG920) and the seconds each file took. Fails under
--min-recall (default 95) or over --max-false (default 0) in any mode that ran.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time

MIRROR = "/work/.mirror"
TREES = {
    "te": {"env": "CGLINT_TE_GIT", "git": f"{MIRROR}/NVIDIA+TransformerEngine/repo",
           "commit": "d0067d0da6cb01811b8072a7d304f0e00344ce2b",
           "paths": ["transformer_engine/pytorch/csrc", "transformer_engine/common"],
           "includes": ["transformer_engine/common/include", "transformer_engine/pytorch/csrc",
                        "transformer_engine"],
           "defines": ["-DTORCH_EXTENSION_NAME=transformer_engine_torch", "-DTORCH_API_INCLUDE_EXTENSION_H"]},
    "apex": {"env": "CGLINT_APEX_GIT", "git": f"{MIRROR}/NVIDIA+apex/repo",
             "commit": "6424da3b4faa6c8f062da4a48c424fff3f02d42d",
             "paths": ["csrc"], "includes": ["csrc"],
             "defines": ["-DTORCH_EXTENSION_NAME=amp_C", "-DTORCH_API_INCLUDE_EXTENSION_H"]},
}

TE = "transformer_engine/pytorch/csrc/extensions/"
# (tree, file, function anchor, line anchor after it or None for the function's opening brace,
#  "after" | "replace", lines)
EDITS = [
    ("te", TE + "padding.cpp", "void fused_multi_row_padding(", "const auto num_tensors =", "after", [
        "  const int64_t rows_seen = input.ne(0).sum().item<int64_t>();  // expect: error CG312",
        "  auto rows_per_split = input.ne(0).sum(1);  // clean",
    ]),
    ("te", TE + "multi_tensor/scale.cpp", "void multi_tensor_scale_cuda(", None, "after", [
        "  NVTE_CHECK(!is_infinite.item<bool>(), \"scaling after an overflow\");  // expect: error CG312",
    ]),
    ("te", TE + "multi_tensor/scale.cpp", "void multi_tensor_scale_tensor_cuda(", None, "after", [
        "  NVTE_CHECK(scale.numel() == 1, \"one scale\");  // clean",
        "  auto inv_scale = scale.reciprocal();  // clean",
    ]),
    ("te", TE + "permutation.cpp", "moe_permute_fwd(", "workspace.push_back(temp_storage);", "after", [
        "    void *sort_scratch = nullptr;",
        "    NVTE_CHECK_CUDA(cudaMalloc(&sort_scratch, temp_storage_bytes));  // expect: error CG304",
        "    NVTE_CHECK_CUDA(cudaFree(sort_scratch));  // expect: error CG304",
    ]),
    ("te", TE + "permutation.cpp", "at::Tensor moe_unpermute_fwd(", None, "after", [
        "  auto host_map = row_id_map.cpu();  // expect: error CG312",
    ]),
    ("te", TE + "permutation.cpp", "at::Tensor moe_permute_bwd(", None, "after", [
        "  void *scratch = c10::cuda::CUDACachingAllocator::raw_alloc(64);  // clean",
        "  c10::cuda::CUDACachingAllocator::raw_delete(scratch);  // clean",
    ]),
    ("te", TE + "router.cpp", "std::tuple<at::Tensor, at::Tensor> fused_moe_aux_loss_fwd(at::Tensor probs,",
     "// Create the output tensor", "after", [
        "  auto experts_hit = at::nonzero(tokens_per_expert);  // expect: error CG312",
        "  torch::cuda::synchronize();  // expect: error CG312",
    ]),
    ("apex", "csrc/multi_tensor_scale_kernel.cu", "void multi_tensor_scale_cuda(", "using namespace at;", "after", [
        "  if (noop_flag.item<int>() != 0) return;  // expect: error CG312",
    ]),
    ("apex", "csrc/multi_tensor_scale_kernel.cu", "void multi_tensor_scale_cuda(",
     "// AT_CUDA_CHECK(cudaDeviceSynchronize());", "replace", [
        "  AT_CUDA_CHECK(cudaDeviceSynchronize());  // expect: error CG301",
    ]),
    ("apex", "csrc/welford.cu", "std::vector<at::Tensor> welford_mean_var_CUDA(", None, "after", [
        "  TORCH_CHECK(!input.isnan().any().item<bool>(), \"NaN in the batch\");  // expect: error CG312",
    ]),
    ("apex", "csrc/welford.cu", "at::Tensor batchnorm_forward_CUDA(", None, "after", [
        "  TORCH_CHECK(input.is_cuda(), \"the batch is on the GPU\");  // clean",
    ]),
    ("apex", "csrc/multi_tensor_l2norm_kernel.cu", "multi_tensor_l2norm_cuda(int chunk_size",
     "auto stream = at::cuda::getCurrentCUDAStream();", "after", [
        "  c10::cuda::stream_synchronize(stream);  // expect: error CG312",
    ]),
    ("apex", "csrc/multi_tensor_l2norm_kernel.cu", "multi_tensor_l2norm_cuda(int chunk_size",
     "return std::tuple<at::Tensor, at::Tensor>(ret, ret_per_tensor);", "before", [
        "  auto host_norm = at::empty({1}, float_options.device(at::kCPU)).pin_memory();  // expect: error CG305",
        "  auto norm_scale = at::clamp_min(ret, 1e-6);  // clean",
    ]),
    ("apex", "csrc/update_scale_hysteresis.cu", "at::Tensor update_scale_hysteresis_cuda(", None, "after", [
        "  TORCH_CHECK(found_inf.numel() == 1, \"one overflow flag\");  // clean",
    ]),
]

GRAPH = "#include <ATen/cuda/CUDAGraph.h>\n"
DRIVERS = {
    ("te", TE + "padding.cpp"): """
void cglint_graphed_padding(at::cuda::CUDAGraph &graph, at::Tensor input, at::Tensor output,
                            std::vector<size_t> rows, std::vector<size_t> padded) {
  graph.capture_begin();
  transformer_engine::pytorch::fused_multi_row_padding(input, output, rows, padded);
  graph.capture_end();
}
""",
    ("te", TE + "multi_tensor/scale.cpp"): """
void cglint_graphed_unscale(at::cuda::CUDAGraph &graph, at::Tensor is_infinite,
                            std::vector<std::vector<at::Tensor>> lists, at::Tensor scale) {
  graph.capture_begin();
  transformer_engine::pytorch::multi_tensor_scale_cuda(65536, is_infinite, lists, 0.5f);
  transformer_engine::pytorch::multi_tensor_scale_tensor_cuda(65536, is_infinite, lists, scale);
  graph.capture_end();
  if (is_infinite.item<bool>()) graph.reset();  // clean: after the capture
}
""",
    ("te", TE + "permutation.cpp"): """
void cglint_graphed_permute(at::cuda::CUDAGraph &graph, at::Tensor input, transformer_engine::DType dtype,
                            at::Tensor indices, at::Tensor probs, std::vector<at::Tensor> workspace) {
  graph.capture_begin();
  auto permuted = transformer_engine::pytorch::moe_permute_fwd(input, dtype, indices, input.size(0), workspace, 4096);
  auto back = transformer_engine::pytorch::moe_permute_bwd(std::get<0>(permuted), dtype, std::get<1>(permuted),
                                                           probs, input.size(0), indices.size(1));
  graph.capture_end();
}
""",
    ("te", TE + "router.cpp"): """
void cglint_graphed_aux_loss(at::cuda::CUDAGraph &graph, at::Tensor probs, at::Tensor tokens_per_expert,
                             at::Tensor total_tokens, int num_experts, int topk) {
  graph.capture_begin();
  auto safe = transformer_engine::pytorch::fused_moe_aux_loss_fwd_graph_safe(  // clean: device count
      probs, tokens_per_expert, total_tokens, num_experts, probs.size(0), probs.size(1), topk, 1e-2f);
  int total = total_tokens.item<int>();  // expect: error CG312
  auto loss = transformer_engine::pytorch::fused_moe_aux_loss_fwd(
      probs, tokens_per_expert, total, num_experts, probs.size(0), probs.size(1), topk, 1e-2f);
  graph.capture_end();
}
""",
    ("apex", "csrc/multi_tensor_scale_kernel.cu"): """
void cglint_graphed_scale(at::cuda::CUDAGraph &graph, at::Tensor noop_flag,
                          std::vector<std::vector<at::Tensor>> lists) {
  graph.capture_begin();
  multi_tensor_scale_cuda(2048 * 32, noop_flag, lists, 1.f / 65536.f);
  graph.capture_end();
}
""",
    ("apex", "csrc/welford.cu"): """
void cglint_graphed_bn(at::cuda::CUDAGraph &graph, at::Tensor input, at::Tensor weight, at::Tensor shift) {
  graph.capture_begin();
  auto stats = welford_mean_var_CUDA(input);
  auto out = batchnorm_forward_CUDA(input, stats[0], stats[1].rsqrt(), weight, shift);
  graph.capture_end();
}
""",
    ("apex", "csrc/multi_tensor_l2norm_kernel.cu"): """
void cglint_graphed_norm(at::cuda::CUDAGraph &graph, at::Tensor noop_flag,
                         std::vector<std::vector<at::Tensor>> lists) {
  graph.capture_begin();
  auto norms = multi_tensor_l2norm_cuda(2048 * 32, noop_flag, lists, true);
  graph.capture_end();
  float host_total = std::get<0>(norms).item<float>();  // clean: after the capture
  (void)host_total;
}
""",
    ("apex", "csrc/update_scale_hysteresis.cu"): """
void cglint_graphed_scaler(at::cuda::CUDAGraph &graph, at::Tensor scale, at::Tensor growth,
                           at::Tensor hysteresis, at::Tensor found_inf) {
  graph.capture_begin();
  update_scale_hysteresis_cuda(scale, growth, hysteresis, found_inf, 2.0, 0.5, 2000, 2);
  graph.capture_end();
}
""",
}

MARK = re.compile(r"//\s*expect:\s*(error|warning|note)\s+(CG\d+)")
REFUSED = {"CG911", "CG912", "CG919", "CG920"}


def fetch(name, dest):
    """The pinned paths of tree 'name' under dest/name; None and the reason when they are not at hand."""
    t = TREES[name]
    git = os.environ.get(t["env"]) or t["git"]
    if not os.path.isdir(git):
        return None, f"no {name} tree at {git} (set {t['env']})"
    out = os.path.join(dest, name)
    os.makedirs(out)
    arch = subprocess.run(["git", "-C", git, "archive", t["commit"], *t["paths"]], capture_output=True)
    if arch.returncode:
        return None, f"{name}: commit {t['commit'][:12]} not in {git}: {arch.stderr.decode()[:200].strip()}"
    subprocess.run(["tar", "x", "-C", out], input=arch.stdout, check=True)
    return out, None


def find_line(lines, start_text, anchor, mode):
    start = next((i for i, l in enumerate(lines) if start_text in l), None)
    if start is None:
        sys.exit(f"aten_upstream.py: '{start_text}' not found: the pinned file changed?")
    if anchor is None:
        return next(i for i in range(start, len(lines)) if lines[i].rstrip().endswith("{"))
    at = next((i for i in range(start, len(lines)) if anchor in lines[i]), None)
    if at is None:
        sys.exit(f"aten_upstream.py: '{anchor}' not found after '{start_text}'")
    return at


def edit(root, files, edits):
    """Write EDITS and DRIVERS into the extracted files; returns the (file, line, rule) wanted and
    the (file, line) of clean edits."""
    texts = {}
    for tree, rel in files:
        with open(os.path.join(root, tree, rel), encoding="utf-8") as f:
            texts[(tree, rel)] = f.read().split("\n")
    for tree, rel, fn, anchor, mode, add in edits:
        lines = texts[(tree, rel)]
        at = find_line(lines, fn, anchor, mode)
        if mode == "replace":
            lines[at:at + 1] = add
        elif mode == "before":
            lines[at:at] = add
        else:
            lines[at + 1:at + 1] = add
    want, clean = set(), set()
    for key, lines in texts.items():
        text = "\n".join(lines) + "\n" + GRAPH + DRIVERS[key]
        path = os.path.join(root, *key)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        for n, line in enumerate(text.split("\n"), 1):
            for m in MARK.finditer(line):
                want.add((path, n, m.group(2)))
            if "// clean" in line:
                clean.add((path, n))
    return want, clean


def torch_include(given):
    for d in (given, os.environ.get("CGLINT_TORCH_INCLUDE"), "/usr/include"):
        if d and os.path.isfile(os.path.join(d, "torch", "extension.h")):
            return d
    return None


def compile_db(root, files, extra):
    db = []
    for tree, rel in files:
        t = TREES[tree]
        flags = [f"-I{os.path.join(root, tree, i)}" for i in t["includes"]] + extra + ["-std=c++17", *t["defines"]]
        path = os.path.join(root, tree, rel)
        db.append({"directory": os.path.join(root, tree), "file": path,
                   "arguments": ["nvcc" if rel.endswith(".cu") else "c++", *flags, "-c", path]})
    with open(os.path.join(root, "compile_commands.json"), "w") as o:
        json.dump(db, o, indent=1)


def lint(cglint, args, path, env, timeout):
    start = time.monotonic()
    p = subprocess.run([cglint, "--format", "json", "-q", "-j", "1", "--source-timeout", str(timeout), *args, path],
                       capture_output=True, text=True, env=env)
    took = time.monotonic() - start
    if p.returncode > 2:
        sys.exit(f"aten_upstream.py: cglint exited {p.returncode} on {path}: {p.stderr[:500]}")
    return json.loads(p.stdout)["diagnostics"], took


def run_mode(mode, a, root, files, want, clean, args):
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(root, f"cache-{mode}"))
    got, notes, refused, times = set(), set(), {}, []
    if not a.warm:      # one run each: a preamble made for it would only cost
        args = ["--no-cache", *args]
    for tree, rel in files:
        path = os.path.join(root, tree, rel)
        diags, took = lint(a.cglint, args, path, env, a.timeout)
        row = [took]
        if a.warm:
            diags, again = lint(a.cglint, args, path, env, a.timeout)
            row.append(again)
        times.append((f"{tree}/{os.path.basename(rel)}", row))
        print(f"  {mode}: {tree}/{rel} " + " ".join(f"{t:.1f} s" for t in row), file=sys.stderr, flush=True)
        for d in diags:
            key = (os.path.join(root, tree, d["path"]) if not os.path.isabs(d["path"]) else d["path"], d["line"], d["rule"])
            if d["rule"] in REFUSED:
                refused.setdefault(f"{tree}/{os.path.basename(rel)}", d["rule"] + " " + d["message"][:160])
            (notes if d["severity"] == "note" else got).add(key)
    found = want & (got | notes)
    false = sorted(k for k in got - want if k[2] not in REFUSED)
    recall = 100.0 * len(found) / len(want)
    on_clean = [k for k in false if (k[0], k[1]) in clean]
    print(f"{mode:6} recall {len(found)}/{len(want)} ({recall:.0f}%), false reports {len(false)} "
          f"({len(on_clean)} on the {len(clean)} clean edits), files refused or in part {len(refused)}/{len(files)}")
    for tree_file, row in times:
        print(f"  {tree_file:34} " + " ".join(f"{t:7.1f} s" for t in row) + ("  (cold, warm)" if a.warm else ""))
    for k in sorted(want - found):
        print(f"  missed  {os.path.relpath(k[0], root)}:{k[1]} {k[2]}")
    for k in false:
        print(f"  false   {os.path.relpath(k[0], root)}:{k[1]} {k[2]}")
    for f, why in sorted(refused.items()):
        print(f"  partial {f}: {why}")
    return recall >= a.min_recall and len(false) <= a.max_false


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cglint")
    ap.add_argument("--mode", choices=["shim", "torch", "both"], default="both")
    ap.add_argument("--torch-include")
    ap.add_argument("--cuda-path")
    ap.add_argument("--min-recall", type=float, default=95.0)
    ap.add_argument("--max-false", type=int, default=0)
    ap.add_argument("--warm", action="store_true")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--keep", help="extract into this folder (kept) instead of a temporary one")
    ap.add_argument("--only", help="check only the files whose path holds this text")
    a = ap.parse_args()
    root = a.keep or tempfile.mkdtemp(prefix="cglint-aten-upstream-")
    try:
        have = {}
        for name in TREES:
            got, why = fetch(name, root)
            if got:
                have[name] = got
            else:
                print(f"skipped {why}")
        if not have:
            sys.exit(77)
        edits = [e for e in EDITS if e[0] in have and (not a.only or a.only in e[1])]
        files = sorted({(t, f) for t, f, *_ in edits})
        want, clean = edit(root, files, edits)
        print(f"{len(files)} files ({', '.join(n + ' ' + TREES[n]['commit'][:12] for n in have)}), "
              f"{len(want)} hazards written, {len(clean)} clean edits")
        ok = True
        if a.mode in ("shim", "both"):
            compile_db(root, files, [])
            ok &= run_mode("shim", a, root, files, want, clean, ["--cuda-path", "none", "-p", root])
        if a.mode in ("torch", "both"):
            inc = torch_include(a.torch_include)
            cuda = a.cuda_path or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
            if inc and os.path.isfile(os.path.join(cuda, "include", "cuda_runtime.h")):
                extra = [f"-I{inc}", f"-I{os.path.join(inc, 'torch', 'csrc', 'api', 'include')}",
                         f"-I{sysconfig.get_paths()['include']}", f"-I{os.path.join(cuda, 'include')}"]
                compile_db(root, files, extra)
                print(f"torch  headers {inc}, CUDA {cuda}")
                ok &= run_mode("torch", a, root, files, want, clean, ["--cuda-path", cuda, "-p", root])
            else:
                print(f"torch  skipped: no PyTorch headers (--torch-include, CGLINT_TORCH_INCLUDE, /usr/include) "
                      f"or no CUDA toolkit at {cuda}")
        sys.exit(0 if ok else 1)
    finally:
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

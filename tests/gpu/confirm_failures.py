"""Confirm on a real GPU, with PyTorch and Megatron Core's own code, the failures that
cglint's rules in rules/failures.yaml (and CG103 on Bridge 0.2, in rules/bridge.yaml)
describe. The recording of a run is docs/failures-gpu.txt.

Needs: one CUDA GPU, PyTorch with NCCL, and Megatron Core's source on PYTHONPATH (no
Transformer Engine or Apex needed: the experiments use Megatron Core's local layer
specs and its local fallbacks). To export Megatron Core 0.19 from a Megatron-LM clone:

    mkdir -p .gpu-mcore
    git -C ../Megatron-LM archive core_v0.19.0 megatron/core | tar -x -C .gpu-mcore

Run (from the repository root):

    NCCL_NVLS_ENABLE=0 PYTHONPATH=$PWD/.gpu-mcore timeout 540 \
        python3 tests/gpu/confirm_failures.py            # every case
    python3 tests/gpu/confirm_failures.py CG174 CG103    # only these rules' cases
    python3 tests/gpu/confirm_failures.py --one cg174_a2a_dropless_dispatch   # one case, in-process

Each case runs in its own process (a failed capture can leave CUDA or NCCL state behind)
with torch.distributed initialized on one rank (NCCL) and, where needed, Megatron Core's
parallel_state.initialize_model_parallel(1, 1). Each case prints one line:

    RESULT <rule> <confirmed|not-reproduced|could-not-run> [<case>] <evidence>
    CONTROL <rule> <as-expected|UNEXPECTED|could-not-run> [<case>] <evidence>

RESULT lines are the failure a rule describes; CONTROL lines are the configuration the
rule's fix points at, which should work. Evidence is the exception chain (root cause
first) and the deepest Megatron Core frame it came from. Where the failure is a wrong
number rather than an error (CG500: evaluation replays the graph captured for training),
the case compares outputs and its evidence is the differences it measured and which path
(graph replay or eager forward) the calls took. CG500's cases are in confirm_cg500.py.
"""

import os
import subprocess
import sys
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

# Run as a script, this module is __main__. confirm_cg500 imports its helpers from
# "confirm_failures", which must then be this module, not a second copy of it (whose
# SetupError run_one would not catch).
sys.modules.setdefault("confirm_failures", sys.modules[__name__])

HIDDEN = 64
SEQ, BATCH = 16, 2


# ----------------------------------------------------------------------------- helpers


def _one_line(text, limit=220):
    line = " ".join(str(text).strip().splitlines()[:1]) if str(text).strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _mcore_frame(exc):
    """The deepest frame of the exception's traceback that lies in Megatron Core."""
    where = None
    for fs in traceback.extract_tb(exc.__traceback__):
        fn = fs.filename.replace("\\", "/")
        if "/megatron/core/" in fn:
            where = "megatron/core/" + fn.split("/megatron/core/", 1)[1] + f":{fs.lineno} ({fs.name})"
    return where


def describe(exc):
    """Exception chain, root cause first: 'Type: message @ mcore-frame | then Type: ...'."""
    chain = []
    e = exc
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        chain.append(e)
        e = e.__cause__ or e.__context__
    parts = []
    for e in reversed(chain):
        s = f"{type(e).__name__}: {_one_line(e)}"
        w = _mcore_frame(e)
        if w:
            s += f" @ {w}"
        parts.append(s)
    return " | then ".join(parts)


def _all_text(exc):
    out = []
    e = exc
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        out.append(f"{type(e).__name__}: {e} {_mcore_frame(e) or ''}")
        e = e.__cause__ or e.__context__
    return "\n".join(out)


class SetupError(Exception):
    """Raised when a case's setup (not the step under test) fails."""


def setup_dist(model_parallel=True, cudagraphable_rng=False):
    try:
        import torch
        import torch.distributed as dist

        torch.cuda.set_device(0)
        fd, path = tempfile.mkstemp(prefix="cglint-pg-")
        os.close(fd)
        os.unlink(path)
        dist.init_process_group("nccl", init_method="file://" + path, rank=0, world_size=1)
        # Initialize the communicator eagerly, outside any capture.
        t = torch.ones(8, device="cuda")
        dist.all_reduce(t)
        torch.cuda.synchronize()
        if model_parallel:
            from megatron.core import parallel_state
            from megatron.core.tensor_parallel.random import model_parallel_cuda_manual_seed

            parallel_state.initialize_model_parallel(1, 1)
            model_parallel_cuda_manual_seed(123, use_cudagraphable_rng=cudagraphable_rng)
    except Exception as e:  # noqa: BLE001
        raise SetupError(describe(e)) from e


def capture(fn, mode="thread_local", warmup=True):
    """Warm fn up on a side stream, then capture it with torch.cuda.graph and replay it.
    'thread_local' is the mode of Megatron Core's FullCudaGraphWrapper."""
    import torch

    if warmup:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            fn()
        torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, capture_error_mode=mode):
        out = fn()
    torch.cuda.synchronize()
    g.replay()
    torch.cuda.synchronize()
    return out


# ----------------------------------------------------------------------------- CG174

_CG174_NOTE = {}


def _moe_config(dispatcher, drop_and_pad):
    from megatron.core.transformer.transformer_config import TransformerConfig

    kw = dict(
        num_layers=1,
        hidden_size=HIDDEN,
        num_attention_heads=4,
        ffn_hidden_size=128,
        num_moe_experts=4,
        moe_router_topk=2,
        moe_router_load_balancing_type="none",
        moe_token_dispatcher_type=dispatcher,
        add_bias_linear=False,
        hidden_dropout=0.0,
        attention_dropout=0.0,
    )
    if drop_and_pad:
        kw.update(moe_expert_capacity_factor=1.0, moe_pad_expert_input_to_capacity=True)
    else:
        kw.update(moe_expert_capacity_factor=None)
    # A full-iteration graph (whole layers captured); fall back to no graph setting if
    # this release's config refuses it (the dispatcher's host syncs do not depend on it,
    # only where the device-to-host copies start).
    try:
        return TransformerConfig(cuda_graph_impl="full_iteration", cuda_graph_modules=[], **kw)
    except Exception as e:  # noqa: BLE001
        _CG174_NOTE["impl"] = f"cuda_graph_impl=full_iteration refused ({_one_line(e, 100)}); used none"
        return TransformerConfig(**kw)


def _moe_layer(dispatcher, drop_and_pad, cudagraphable_rng=False):
    try:
        import torch
        from megatron.core.models.gpt.gpt_layer_specs import get_gpt_layer_local_spec
        from megatron.core.transformer.spec_utils import build_module

        # A whole layer forks the model-parallel RNG tracker; under capture only the
        # graph-safe tracker may (what te_rng_tracker / --use-cudagraphable-rng give a job).
        setup_dist(cudagraphable_rng=cudagraphable_rng)
        cfg = _moe_config(dispatcher, drop_and_pad)
        spec = get_gpt_layer_local_spec(num_experts=4, moe_grouped_gemm=False)
        layer = build_module(spec, config=cfg, layer_number=1).cuda()
        x = torch.randn(SEQ, BATCH, HIDDEN, device="cuda")
        return layer, x
    except SetupError:
        raise
    except Exception as e:  # noqa: BLE001
        raise SetupError(describe(e)) from e


def _cg174_dispatch(dispatcher, drop_and_pad):
    import torch

    layer, x = _moe_layer(dispatcher, drop_and_pad)
    moe = layer.mlp
    disp = moe.token_dispatcher
    try:
        with torch.no_grad():
            probs, routing_map = moe.route(x)
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001
        raise SetupError(describe(e)) from e

    def step():
        with torch.no_grad():
            hs, pr = disp.dispatch_preprocess(x, routing_map, probs)
            hs, pr = disp.token_dispatch(hs, pr)
            out, _tokens_per_expert, _pp = disp.dispatch_postprocess(hs, pr)
        return out

    capture(step)
    return f"{type(disp).__name__} dispatch captured and replayed"


def _cg174_layer(dispatcher, drop_and_pad):
    import torch

    layer, x = _moe_layer(dispatcher, drop_and_pad, cudagraphable_rng=True)

    def step():
        with torch.no_grad():
            return layer(x, attention_mask=None)[0]

    capture(step)
    return "whole TransformerLayer (local spec, MoE) forward captured and replayed"


def cg174_a2a_dropless_dispatch():
    return _cg174_dispatch("alltoall", False)


def cg174_a2a_droppad_dispatch():
    return _cg174_dispatch("alltoall", True)


def cg174_ag_dropless_dispatch():
    return _cg174_dispatch("allgather", False)


def cg174_ag_droppad_dispatch():
    return _cg174_dispatch("allgather", True)


def cg174_a2a_dropless_layer():
    return _cg174_layer("alltoall", False)


def cg174_a2a_droppad_layer():
    return _cg174_layer("alltoall", True)


# ----------------------------------------------------------------------------- CG175


def local_layer(modules, **extra):
    """The one-layer config with local graphs of 'modules' (and 'extra' fields) and Megatron
    Core's local layer spec that the CG175 and CG500 cases build."""
    from megatron.core.models.gpt.gpt_layer_specs import get_gpt_layer_local_spec
    from megatron.core.transformer.transformer_config import TransformerConfig

    cfg = TransformerConfig(num_layers=1, hidden_size=HIDDEN, num_attention_heads=4, ffn_hidden_size=128,
                            cuda_graph_impl="local", cuda_graph_modules=list(modules), **extra)
    return cfg, get_gpt_layer_local_spec()


def _cg175_build(modules):
    try:
        from megatron.core.transformer.spec_utils import build_module

        setup_dist(cudagraphable_rng=True)
        cfg, spec = local_layer(modules)
    except SetupError:
        raise
    except Exception as e:  # noqa: BLE001
        raise SetupError(describe(e)) from e
    layer = build_module(spec, config=cfg, layer_number=1)
    return (
        f"TransformerLayer built (cuda_graph_modules={list(modules)}), "
        f"cudagraph_manager={type(getattr(layer, 'cudagraph_manager', None)).__name__}"
    )


def cg175_local_mlp_build():
    return _cg175_build(["mlp"])


def cg175_local_attn_build():
    return _cg175_build(["attn"])


# ----------------------------------------------------------------------------- CG176


def cg176_mech_wait_outside_launch():
    """An async all-gather launched outside the capture, waited on inside it."""
    import torch
    import torch.distributed as dist

    setup_dist(model_parallel=False)
    src = torch.randn(1024, device="cuda")
    dst = torch.empty(1024, device="cuda")
    torch.cuda.synchronize()
    work = dist.all_gather_into_tensor(dst, src, async_op=True)  # outside the capture
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, capture_error_mode="thread_local"):
        work.wait()
        y = dst * 2
    torch.cuda.synchronize()
    g.replay()
    torch.cuda.synchronize()
    return f"wait() on an outside handle captured and replayed (y.sum={float(y.sum()):.3f})"


def cg176_mech_inside():
    """Control: the async all-gather launched and waited on inside the capture."""
    import torch
    import torch.distributed as dist

    setup_dist(model_parallel=False)
    src = torch.randn(1024, device="cuda")
    dst = torch.empty(1024, device="cuda")

    def step():
        work = dist.all_gather_into_tensor(dst, src, async_op=True)
        work.wait()
        return dst * 2

    capture(step)
    return "all-gather launched and waited inside the capture: captured and replayed"


def _cg176_ddp(with_optimizer_step):
    import torch

    try:
        from megatron.core.distributed import DistributedDataParallel, DistributedDataParallelConfig
        from megatron.core.transformer.module import MegatronModule
        from megatron.core.transformer.transformer_config import TransformerConfig

        setup_dist()
        cfg = TransformerConfig(num_layers=1, hidden_size=HIDDEN, num_attention_heads=4)

        class Tiny(MegatronModule):
            def __init__(self, config):
                super().__init__(config)
                self.fc1 = torch.nn.Linear(HIDDEN, HIDDEN, bias=False, device="cuda")
                self.fc2 = torch.nn.Linear(HIDDEN, HIDDEN, bias=False, device="cuda")

            def forward(self, x):
                return self.fc2(torch.relu(self.fc1(x)))

        ddp_cfg = DistributedDataParallelConfig(
            use_distributed_optimizer=True, overlap_param_gather=True, overlap_grad_reduce=True
        )
        ddp = DistributedDataParallel(config=cfg, ddp_config=ddp_cfg, module=Tiny(cfg))
        # get_megatron_optimizer sets this on the first model chunk (optimizer/__init__.py).
        ddp.overlap_param_gather_with_optimizer_step = with_optimizer_step
        x = torch.randn(8, HIDDEN, device="cuda")
        # Eager warm-up iteration on a side stream (as before a capture).
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            if with_optimizer_step:
                ddp.start_param_sync(force_dispatch=True)
            with torch.no_grad():
                ddp(x)
        torch.cuda.current_stream().wait_stream(s)
        torch.cuda.synchronize()
        # Next iteration: the dispatch state is reset (start_grad_sync in the backward, or
        # the distributed optimizer's reset_param_sync_dispatch_state), then, with
        # overlap_param_gather_with_optimizer_step, the optimizer step dispatches the
        # all-gather of the first chunk's parameters outside the graph
        # (ChainedOptimizer._step -> model_chunks[0].start_param_sync(force_dispatch=True)).
        ddp.reset_param_sync_dispatch_state()
        if with_optimizer_step:
            ddp.start_param_sync(force_dispatch=True)
        handles = [bg.param_gather_handle is not None for bg in ddp.bucket_groups]
    except SetupError:
        raise
    except Exception as e:  # noqa: BLE001
        raise SetupError(describe(e)) from e
    # The full-iteration graph captures the forward; its pre-hook calls finish_param_sync.
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, capture_error_mode="thread_local"):
        with torch.no_grad():
            ddp(x)
    torch.cuda.synchronize()
    g.replay()
    torch.cuda.synchronize()
    return f"DDP forward captured and replayed (handles in flight before capture: {handles})"


def cg176_ddp_overlap_with_optimizer_step():
    return _cg176_ddp(True)


def cg176_ddp_overlap_param_gather_only():
    return _cg176_ddp(False)


# ----------------------------------------------------------------------------- CG178


def _grads():
    import torch

    torch.manual_seed(0)
    params = []
    for n in (1000, 257, 64):
        p = torch.nn.Parameter(torch.randn(n, device="cuda"))
        g = torch.randn(n, device="cuda")
        g[::7] = 0
        p.grad = g
        params.append(p)
    return params


def _optimizer_graph(step_func):
    """Megatron Core's own OptimizerCudaGraphWrapper: iteration 0 eager, 1 captured."""
    import torch
    from megatron.core.optimizer.optimizer_cuda_graph import OptimizerCudaGraphWrapper

    w = OptimizerCudaGraphWrapper(step_func, cuda_graph_warmup_steps=1)
    eager = w()
    w()  # captured here
    torch.cuda.synchronize()
    return eager


def cg178_count_zeros_in_optimizer_graph():
    import torch

    setup_dist()
    from megatron.core.optimizer import clip_grads

    params = _grads()
    group = torch.distributed.group.WORLD
    eager = _optimizer_graph(
        lambda: clip_grads.count_zeros_fp32(params, grad_stats_parallel_group=group)
    )
    return f"count_zeros_fp32 captured (eager count {eager})"


def cg178_grad_norm_no_te():
    import torch

    setup_dist()
    from megatron.core.optimizer import clip_grads

    params = _grads()
    group = torch.distributed.group.WORLD
    eager = _optimizer_graph(
        lambda: clip_grads.get_grad_norm_fp32(
            [p.grad for p in params], grad_stats_parallel_group=group
        )
    )
    return f"get_grad_norm_fp32 (local fallback, no TE/Apex) captured (eager {eager})"


def cg178_grad_norm_te_like():
    """get_grad_norm_fp32 on its Transformer Engine branch. TE is not installed, so
    clip_grads' two TE hooks are stubbed with device-only equivalents: l2_norm_impl (TE's
    multi_tensor_l2norm) and multi_tensor_scale_tensor_impl, whose only use here is the
    'is not None' test that keeps the norm on the device."""
    import torch

    setup_dist()
    from megatron.core.optimizer import clip_grads

    def l2norm(_chunk, _noop, tensor_lists, _per_tensor, *a):
        norms = torch.stack([torch.linalg.vector_norm(t.float()) for t in tensor_lists[0]])
        return torch.linalg.vector_norm(norms).reshape(1), None

    clip_grads.l2_norm_impl = l2norm
    clip_grads.multi_tensor_scale_tensor_impl = object()
    params = _grads()
    group = torch.distributed.group.WORLD
    eager = _optimizer_graph(
        lambda: clip_grads.get_grad_norm_fp32(
            [p.grad for p in params], grad_stats_parallel_group=group
        )
    )
    return f"get_grad_norm_fp32 (TE branch, stubbed kernels) captured (eager {eager})"


# ----------------------------------------------------------------------------- CG103


def _cg103(check):
    import torch

    setup_dist()
    from megatron.core.rerun_state_machine import RerunMode, RerunStateMachine

    rsm = RerunStateMachine(mode=RerunMode.DISABLED)
    w = torch.randn(HIDDEN, HIDDEN, device="cuda")
    x = torch.randn(8, HIDDEN, device="cuda")

    def forward_step():
        loss = (x @ w).square().mean()
        if check:  # Bridge 0.2 losses.py: check_for_nan_in_loss
            rsm.validate_result(
                result=loss, rejection_func=torch.isnan, message="found NaN in local forward loss calculation",
                tolerance=0.0, fatal=True,
            )
        return loss

    capture(forward_step)
    return "loss step captured and replayed"


def cg103_validate_result_in_capture():
    return _cg103(True)


def cg103_no_check_in_capture():
    return _cg103(False)


# ----------------------------------------------------------------------------- CG500

# The cases are in confirm_cg500.py, which imports the helpers above from this module (so the
# import comes after them).
from confirm_cg500 import (  # noqa: E402
    Verdict,
    cg500_attn_dropout_eval,
    cg500_layer_dropout_eval,
    cg500_layer_dropout_eval_unfused,
    cg500_layer_no_dropout_eval,
)


# ----------------------------------------------------------------------------- the cases

# (rule, case function, kind, expected outcome, signature: (keywords in message, file in frame))
_CAPTURE = ("captur", "isolation")
CASES = [
    ("CG174", cg174_a2a_dropless_dispatch, "RESULT", "fail", (_CAPTURE, "transformer/moe/")),
    ("CG174", cg174_a2a_droppad_dispatch, "CONTROL", "pass", None),
    ("CG174", cg174_ag_dropless_dispatch, "RESULT", "fail", (_CAPTURE, "transformer/moe/")),
    ("CG174", cg174_ag_droppad_dispatch, "RESULT", "fail", (_CAPTURE, "transformer/moe/")),
    ("CG174", cg174_a2a_dropless_layer, "RESULT", "fail", (_CAPTURE, "transformer/moe/")),
    ("CG174", cg174_a2a_droppad_layer, "CONTROL", "pass", None),
    ("CG175", cg175_local_mlp_build, "RESULT", "fail", (("is_moe_layer",), "transformer_layer.py")),
    ("CG175", cg175_local_attn_build, "CONTROL", "pass", None),
    ("CG176", cg176_mech_wait_outside_launch, "RESULT", "fail", (_CAPTURE, None)),
    ("CG176", cg176_mech_inside, "CONTROL", "pass", None),
    ("CG176", cg176_ddp_overlap_with_optimizer_step, "RESULT", "fail", (_CAPTURE, "param_and_grad_buffer.py")),
    ("CG176", cg176_ddp_overlap_param_gather_only, "CONTROL", "pass", None),
    ("CG178", cg178_count_zeros_in_optimizer_graph, "RESULT", "fail", (_CAPTURE, "clip_grads.py")),
    ("CG178", cg178_grad_norm_no_te, "CONTROL", "info", None),
    ("CG178", cg178_grad_norm_te_like, "CONTROL", "pass", None),
    ("CG103", cg103_validate_result_in_capture, "RESULT", "fail", (_CAPTURE, "rerun_state_machine.py")),
    ("CG103", cg103_no_check_in_capture, "CONTROL", "pass", None),
    # CG500 cases compare numbers; they return a Verdict instead of waiting for an error.
    ("CG500", cg500_layer_dropout_eval, "RESULT", "verdict", None),
    ("CG500", cg500_layer_dropout_eval_unfused, "RESULT", "verdict", None),
    ("CG500", cg500_attn_dropout_eval, "RESULT", "verdict", None),
    ("CG500", cg500_layer_no_dropout_eval, "CONTROL", "verdict", None),
]


def run_one(name):
    rule, fn, kind, expect, sig = next(c for c in CASES if c[1].__name__ == name)
    label = name
    try:
        ok = fn()
        outcome, text = "passed", ok
    except SetupError as e:
        print(f"{kind} {rule} could-not-run [{label}] setup failed: {e}", flush=True)
        return
    except BaseException as e:  # noqa: BLE001
        outcome, text = "failed", describe(e)
        traceback.print_exc()
        sys.stderr.flush()
        if sig is not None:
            words, where = sig
            blob = _all_text(e).lower()
            matched = any(w in blob for w in words) and (where is None or where in blob)
            if not matched:
                text = "FAILED DIFFERENTLY (not the described mechanism): " + text
        else:
            matched = False
    if _CG174_NOTE:
        text += f" (note: {_CG174_NOTE['impl']})"
    if outcome == "passed" and isinstance(ok, Verdict):
        if kind == "RESULT":
            status = "confirmed" if ok.holds else "not-reproduced"
        else:
            status = "as-expected" if ok.holds else "UNEXPECTED"
        print(f"{kind} {rule} {status} [{label}] {ok.text}", flush=True)
        return
    if kind == "RESULT":
        if outcome == "failed":
            status = "confirmed" if matched else "not-reproduced"
        else:
            status = "not-reproduced"
            text = "no error: " + text
    else:
        if expect == "info":
            status = "info-" + outcome
        elif expect == "verdict":  # a comparing case that raised instead of returning
            status = "UNEXPECTED"
            text = f"{outcome}: {text}"
        else:
            status = "as-expected" if (outcome == "passed") == (expect == "pass") else "UNEXPECTED"
            text = f"{outcome}: {text}"
    print(f"{kind} {rule} {status} [{label}] {text}", flush=True)


def _child(name, timeout):
    t0 = time.time()
    try:
        p = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--one", name],
            capture_output=True, text=True, timeout=timeout,
        )
        out, err, rc = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = (e.stderr or b"").decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        rc = "timeout"
    return name, out, err, rc, time.time() - t0


def environment():
    import platform

    import torch

    lines = [f"python {platform.python_version()}", f"torch {torch.__version__} (CUDA {torch.version.cuda})"]
    try:
        lines.append(f"NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}")
    except Exception as e:  # noqa: BLE001
        lines.append(f"NCCL ? ({_one_line(e)})")
    if torch.cuda.is_available():
        lines.append(f"device {torch.cuda.get_device_name(0)}, capability {torch.cuda.get_device_capability(0)}")
    else:
        lines.append("CUDA not available")
    try:
        from megatron.core import package_info

        lines.append(f"megatron.core {package_info.__version__} from {os.path.dirname(package_info.__file__)}")
    except Exception as e:  # noqa: BLE001
        lines.append(f"megatron.core not importable: {describe(e)}")
    for mod in ("transformer_engine", "apex", "einops"):
        try:
            __import__(mod)
            lines.append(f"{mod}: installed")
        except Exception:  # noqa: BLE001
            lines.append(f"{mod}: not installed")
    return lines


def main(argv):
    if len(argv) >= 2 and argv[0] == "--one":
        run_one(argv[1])
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)  # skip NCCL / CUDA teardown after a broken capture
    rules = set(argv)
    cases = [c for c in CASES if not rules or c[0] in rules]
    for line in environment():
        print("ENV " + line, flush=True)
    jobs = int(os.environ.get("CONFIRM_JOBS", "4"))
    timeout = int(os.environ.get("CONFIRM_CASE_TIMEOUT", "180"))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda c: _child(c[1].__name__, timeout), cases))
    for (rule, fn, kind, _e, _s), (name, out, err, rc, dt) in zip(cases, results):
        print(f"\n=== {rule} {name} ({dt:.1f} s, exit {rc})", flush=True)
        found = [line for line in out.splitlines() if line.startswith(("RESULT ", "CONTROL "))]
        for line in out.splitlines():
            print(line)
        if not found:
            print(f"{kind} {rule} could-not-run [{name}] the case printed no result (exit {rc})")
        tail = [line for line in err.splitlines() if line.strip()][-14:]
        if tail and (not found or os.environ.get("CONFIRM_VERBOSE")):
            print("  stderr (last lines):")
            for line in tail:
                print("    " + line)
        elif tail:
            # the last line of a traceback, for the record
            last = [line for line in err.splitlines() if line.strip()]
            tb_lines = [line for line in last if line.startswith("  File ") and "/megatron/core/" in line]
            if tb_lines:
                print("  deepest megatron/core frame: " + tb_lines[-1].strip())
    print("\nSUMMARY")
    for (rule, fn, kind, _e, _s), (name, out, err, rc, dt) in zip(cases, results):
        found = [line for line in out.splitlines() if line.startswith(("RESULT ", "CONTROL "))]
        print("  " + (found[0][:200] if found else f"{kind} {rule} could-not-run [{name}]"))


if __name__ == "__main__":
    main(sys.argv[1:])

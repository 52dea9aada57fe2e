"""CG500's cases for confirm_failures.py (rules/failures.yaml: evaluation replays the local
CUDA graph captured for training). They compare numbers instead of waiting for an error, so
each returns a Verdict, which confirm_failures.run_one reports as RESULT or CONTROL.

Not run on its own: confirm_failures.py imports these cases into its CASES table (every case
runs by name there: `python3 tests/gpu/confirm_failures.py CG500`, `--one cg500_...`), and
this module takes the shared helpers from it. Import confirm_failures, not this module, first.
"""

from confirm_failures import BATCH, HIDDEN, SEQ, SetupError, describe, local_layer, setup_dist


class Verdict:
    """What a case that compares numbers (rather than waiting for an error) saw: holds is
    True when the rule's failure (RESULT) or the control's expectation (CONTROL) was seen."""

    def __init__(self, holds, text):
        self.holds = holds
        self.text = text


_CG500_TOL = 1e-4


def _cg500(dropout, modules=(), fusion=True, steps=3):
    """Local per-layer graphs captured in training, then evaluated as Megatron-LM's
    evaluate() does (model.eval(), torch.no_grad()), against an eager eval forward of the
    same weights."""
    import torch

    try:
        from megatron.core.transformer import cuda_graphs
        from megatron.core.transformer.spec_utils import build_module

        setup_dist(cudagraphable_rng=True)
        cfg, spec = local_layer(modules, hidden_dropout=dropout, attention_dropout=dropout,
                                bias_dropout_fusion=fusion, cuda_graph_warmup_steps=1)
        layer = build_module(spec, config=cfg, layer_number=1).cuda()
        # The graphed backward adds the weight gradients into main_grad, which Megatron
        # Core's DDP gives every parameter (as Megatron-LM's own CUDA-graph tests do).
        for p in layer.parameters():
            p.main_grad = torch.zeros_like(p)
        x = torch.randn(SEQ, BATCH, HIDDEN, device="cuda")

        # Eager eval forward before any graph exists: CudaGraphManager falls back to eager
        # in eval mode without gradients.
        layer.eval()
        with torch.no_grad():
            ref_before = layer(x, attention_mask=None)[0].detach().clone()
        n_runners_before = len(layer.cudagraph_manager.cudagraph_runners)
    except SetupError:
        raise
    except Exception as e:  # noqa: BLE001
        raise SetupError(describe(e)) from e

    # Training steps, as forward_backward_no_pipelining runs them: forward, backward, then
    # create_cudagraphs() at the end of each step (schedules.py). The first step records
    # the runner's forward and backward; create_cudagraphs() captures both (after
    # cuda_graph_warmup_steps eager warm-ups); later steps replay them.
    record = cuda_graphs._CudagraphGlobalRecord
    created_at = None
    try:
        layer.train()
        for it in range(steps):
            xin = x.clone().requires_grad_(True)
            out = layer(xin, attention_mask=None)[0]
            out.float().square().mean().backward()
            cuda_graphs.create_cudagraphs()
            if created_at is None and record.cudagraph_created:
                created_at = it
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001
        raise SetupError("training steps with local graphs failed: " + describe(e)) from e
    runners = layer.cudagraph_manager.cudagraph_runners
    if created_at is None or not runners or runners[0].fwd_graph is None:
        raise SetupError(
            f"no local graph was created after {steps} training steps "
            f"(cudagraph_created={record.cudagraph_created}, runners={len(runners)})"
        )
    runner = runners[0]

    # Count which path the eval forwards take: a replay of a captured runner, or the
    # layer's eager forward.
    calls = {"replay": 0, "forward": 0}
    for r in runners:
        def counted_replay(*a, _orig=r.replay_graph_capture, **k):
            calls["replay"] += 1
            return _orig(*a, **k)

        r.replay_graph_capture = counted_replay

    def counted_forward(*a, _orig=layer.forward, **k):
        calls["forward"] += 1
        return _orig(*a, **k)

    layer.forward = counted_forward

    # What evaluate() does (megatron/training/training.py: model.eval(), torch.no_grad()).
    layer.eval()
    with torch.no_grad():
        g1 = layer(x, attention_mask=None)[0].detach().clone()
        g2 = layer(x, attention_mask=None)[0].detach().clone()
    torch.cuda.synchronize()
    del layer.forward
    for r in runners:
        del r.replay_graph_capture

    # Eager references with the same weights after capture: nn.Module.__call__ goes to
    # forward() without CudaGraphManager.
    with torch.no_grad():
        layer.eval()
        ref_after = torch.nn.Module.__call__(layer, x, attention_mask=None)[0].detach().clone()
        layer.train()
        train_eager = torch.nn.Module.__call__(layer, x, attention_mask=None)[0].detach().clone()
        layer.eval()
    torch.cuda.synchronize()

    def mx(a, b):
        return float((a.float() - b.float()).abs().max())

    d_ref, d_12 = mx(g1, ref_after), mx(g1, g2)
    d_train, d_refs = mx(train_eager, ref_after), mx(ref_before, ref_after)
    # Scale: what the layer adds to its residual input, and the graphed error relative to it.
    delta = (ref_after.float() - x.float()).norm()
    scale = mx(ref_after, x)
    rel = float((g1.float() - ref_after.float()).norm() / delta) if float(delta) > 0 else float("nan")
    replayed = calls["replay"] == 2 and calls["forward"] == 0
    text = (
        f"dropout={dropout}, cuda_graph_modules={list(modules)}, bias_dropout_fusion={fusion}: "
        f"graphs created after training step {created_at + 1} of {steps} "
        f"(runners before training {n_runners_before}, after {len(runners)}; the runner's "
        f"grad_enabled={runner.grad_enabled}); 2 eval forwards under no_grad with "
        f"layer.training={layer.training}: {calls['replay']} graph replays, "
        f"{calls['forward']} eager forwards; max|graphed eval - eager eval|={d_ref:.3g}, "
        f"max|graphed eval #1 - #2|={d_12:.3g}, max|eager train-mode - eager eval|={d_train:.3g}, "
        f"eager eval before/after capture {d_refs:.3g} (tolerance {_CG500_TOL:g}); "
        f"scale: max|eager eval - input|={scale:.3g}, "
        f"||graphed eval - eager eval|| / ||eager eval - input||={rel:.3g}"
    )
    if dropout > 0:
        holds = replayed and d_ref > _CG500_TOL and d_12 > _CG500_TOL
    else:
        holds = replayed and d_ref <= _CG500_TOL and d_12 <= _CG500_TOL
    return Verdict(holds, text)


def cg500_layer_dropout_eval():
    return _cg500(0.1)


def cg500_layer_dropout_eval_unfused():
    return _cg500(0.1, fusion=False)


def cg500_attn_dropout_eval():
    return _cg500(0.1, modules=("attn",))


def cg500_layer_no_dropout_eval():
    return _cg500(0.0)

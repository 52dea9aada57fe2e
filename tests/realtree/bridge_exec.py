#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Executes Megatron-Bridge recipe functions for real and dumps what Bridge's validation sees.

usage: bridge_exec.py --bridge ROOT --mcore DIR --keys K1,K2,... --out FILE [--only FILE:FUNC ...]
                      [--per-function S] [--list]

Run by tests/realtree/bridge_truth.py under a Python that has torch (Debian's python3-torch
works on CPU). ROOT is a Megatron-Bridge checkout (holds src/megatron/bridge); DIR holds
Megatron-LM's `megatron/` package (megatron.core, megatron.training). Bridge's `megatron.bridge`
and Megatron-LM's `megatron.core` are two halves of the namespace package `megatron` (neither
ships megatron/__init__.py), so both folders go on sys.path.

For every module-level function under src/megatron/bridge/recipes and perf_recipes whose
return annotation names ConfigContainer:
  1. call it with no arguments (its defaults); a function with a required parameter is listed
     as "needs-arguments" and not called;
  2. hand the result to Bridge's own `runtime_config_update()` (training/config.py), what
     `pretrain()` runs before anything distributed: env_vars applied with os.environ.setdefault
     in a clean environment, mixed-precision finalize and setup, the data-parallel size,
     CommOverlapConfig finalize and setup, then ConfigContainer.validate() (section finalizes,
     the cuda-graph checks of utils/cuda_graph.py, model.finalize() = MCore's post-init, the
     TE-RNG sync, the distributed-optimizer sync, ...). The world size is the one thing a
     distributed run would decide: get_world_size_safe is replaced by TP*PP*CP*DP, and the whole
     thing runs twice, DP=1 and DP=2, on fresh calls of the function;
  3. records each key of --keys as Bridge holds it after a successful run; a key whose value
     differs between DP=1 and DP=2 is "unknowable" (decided by the data-parallel size, e.g.
     ddp.overlap_grad_reduce from CommOverlapConfig._get_optimizer_overlap_cfgs);
  4. runs it once more on the other kind of machine: every "machine probe" (a Bridge function a
     dataclass field takes as its default_factory, whose answer is whether a module imports
     there: a try: that imports, with an except ImportError, e.g. utils/fusions.py's
     can_enable_gradient_accumulation_fusion) made to answer the opposite; a key whose value
     changes is "unknowable" (the machine that runs the job decides it).
A function that raises (at the call or in runtime_config_update) is "rejected", with the
exception. Nothing is decided by the stand-ins below; a value that would come from one (a
Hugging Face config read through a stubbed transformers) makes the function raise instead.
Where transformers is installed it is the real one, and a Hugging Face config comes from the
hub cache the launch names (HF_HUB_CACHE, HF_HUB_OFFLINE: kept in the clean environment, as are
HF_HOME, TRANSFORMERS_OFFLINE and CUDA_VISIBLE_DEVICES), e.g. tests/realtree/hf_standin.py's.

Stand-ins (only where the real module is missing or cannot import under this torch):
  - third-party packages imported unconditionally that decide no config value (STUB_MODULES):
    a module whose every attribute is an inert class; `from_pretrained` on any of them raises;
  - transformer_engine: stubbed as installed, with __version__ = $CGLINT_TRUTH_TE_VERSION
    (default 2.13.0), as on the GPU machines Bridge runs on (decides gradient_accumulation_
    fusion's default the way a TE install does: utils/fusions.py);
  - packaging.version, if packaging is not installed: a small PEP 440 Version (PKG_VERSION);
  - transformer_engine.pytorch.optimizers.FusedAdam: a class with TE 2.x's signature, which
    MCore's OptimizerConfig inspects for use_precision_aware_optimizer (a check, no value);
  - torch.cuda.get_device_properties without a GPU: the GPU the function's name targets (h100,
    b200, gb200, ...; else H100), read only by Bridge's flex-dispatcher check, which raises or not;
  - only under torch older than 2 (off under torch 2.x, where the real ones are used):
    torch 1.13 lacks APIs MCore 0.19 touches at import time: torch.compile and torch.jit.script
    become identity decorators, torch.no_grad usable bare, missing torch attributes
    (TORCH_ATTRS) inert; megatron.core.utils' torch version is $CGLINT_TRUTH_TORCH_VERSION
    (default 2.9.0; under torch 2.x only where that variable is set) so version gates (e.g. the A2A-overlap torch>=2.6 assert) judge as on the
    GPU machines; typing.override (Python 3.12) an identity decorator.
"""

import abc
import argparse
import ast
import contextlib
import dataclasses
import enum
import faulthandler
import importlib
import importlib.abc
import importlib.machinery
import io
import json
import os
import re
import signal
import sys
import time
import traceback
import types
import warnings

FOLDERS = ["src/megatron/bridge/recipes", "src/megatron/bridge/perf_recipes"]

# Packages missing from a plain Debian python3-torch that Bridge/MCore import unconditionally
# (found by importing megatron.bridge.recipes, perf_recipes and training.config); none decides a
# config value: HF model code, checkpoint I/O, progress bars, logging, data loaders, kernels.
# A package that is installed is used as it is.
STUB_IF_MISSING = [
    "transformers", "safetensors", "datasets", "diffusers", "flash_attn", "triton", "einops",
    "omegaconf", "rich", "tqdm", "modelopt", "megatron.energon", "transformer_engine", "numpy.dtypes",
]
# torch 1.13's own sharded-tensor / checkpoint / DTensor modules (absent, or broken on 3.11),
# stubbed whenever torch is older than 2
STUB_OLD_TORCH = [
    "torch.distributed._shard", "torch.distributed.checkpoint", "torch.distributed.device_mesh",
    "torch.distributed.tensor", "torch.distributed._tensor", "torch.utils.tensorboard",
]
STUB_MODULES = []
TORCH_ATTRS = [
    ("torch.distributed", "_coalescing_manager"), ("torch.optim.optimizer", "ParamsT"),
    ("torch.cuda.memory", "CUDAPluggableAllocator"), ("torch.distributed", "DeviceMesh"),
    ("torch", "float8_e4m3fn"), ("torch", "float8_e5m2"),
]
USED = set()            # stand-ins actually imported


class StandInError(BaseException):
    """A value would come from a stand-in (e.g. a Hugging Face config): no truth. A
    BaseException, so no retry loop or fallback in Bridge swallows it."""


class _StubMeta(abc.ABCMeta):
    # ABCMeta, so a class deriving from a stub and an ABC has one metaclass
    def __new__(mcls, name, bases, ns, **kw):
        return super().__new__(mcls, name, bases, ns)

    def __init__(cls, name, bases, ns, **kw):
        super().__init__(name, bases, ns)

    def __getattr__(cls, n):
        if n.startswith("__"):
            raise AttributeError(n)
        if n in ("from_pretrained", "from_hf_pretrained"):
            def refuse(*a, **k):
                raise StandInError(f"{cls.__module__}.{cls.__name__}.{n}: reads a Hugging Face "
                                   "config or weights (a stand-in here)")
            return refuse
        return Stub

    def __getitem__(cls, k):
        return Stub

    def __iter__(cls):
        return iter(())

    def __contains__(cls, k):
        return False

    def register(cls, *a, **k):
        return a[1] if len(a) > 1 else None

    def __call__(cls, *a, **k):
        # used bare as a decorator: hand the decorated thing back
        if len(a) == 1 and not k and (isinstance(a[0], type) or hasattr(a[0], "__code__")):
            return a[0]
        return super().__call__(*a, **k)


class Stub(metaclass=_StubMeta):
    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        if len(a) == 1 and not k and callable(a[0]):
            return a[0]
        return Stub()

    def __getattr__(self, n):
        if n.startswith("__"):
            raise AttributeError(n)
        return Stub()

    def __iter__(self):
        return iter(())

    def __contains__(self, k):
        return False

    def __getitem__(self, k):
        return Stub()


GPUS = {  # name in a recipe function -> (compute capability major, device name)
    "gb300": (10, "NVIDIA GB300"), "gb200": (10, "NVIDIA GB200"), "b300": (10, "NVIDIA B300"),
    "b200": (10, "NVIDIA B200"), "h100": (9, "NVIDIA H100 80GB HBM3"), "a100": (8, "NVIDIA A100-SXM4-80GB"),
}
GPU = [types.SimpleNamespace(major=9, minor=0, name="NVIDIA H100 80GB HBM3")]


def set_gpu(fname):
    for tag, (major, name) in GPUS.items():
        if re.search(rf"(^|_){tag}(_|$)", fname):
            break
    else:
        major, name = 9, "NVIDIA H100 80GB HBM3"
    GPU[0] = types.SimpleNamespace(major=major, minor=0, name=name, total_memory=80 << 30,
                                   multi_processor_count=132)


class _TEFusedAdam:
    """transformer_engine.pytorch.optimizers.FusedAdam's signature as in TE 2.x, which MCore's
    OptimizerConfig.__post_init__ inspects (optimizer_config.py:450-462) to allow
    use_precision_aware_optimizer."""
    def __init__(self, params=None, lr=1e-3, bias_correction=True, betas=(0.9, 0.999), eps=1e-8,
                 adam_w_mode=True, weight_decay=0.0, amsgrad=False, set_grad_none=True,
                 capturable=False, master_weights=False, master_weight_dtype=None,
                 exp_avg_dtype=None, exp_avg_sq_dtype=None, use_decoupled_grad=False,
                 store_param_remainders=False):
        pass


class _StubModule(types.ModuleType):
    __version__ = "0.0.0"

    def __getattr__(self, n):
        if n.startswith("__"):
            raise AttributeError(n)
        c = _StubMeta(n, (Stub,), {"__module__": self.__name__})
        setattr(self, n, c)
        return c


PKG_VERSION = r'''
import re as _re
class InvalidVersion(ValueError):
    pass
class Version:
    _R = _re.compile(r"^\s*v?(\d+(?:\.\d+)*)(?:[.-]?(a|b|rc|alpha|beta|c|pre|preview)\.?(\d*))?"
                     r"(?:[.-]?(post|rev|r)\.?(\d*))?(?:[.-]?(dev)\.?(\d*))?(?:\+([a-z0-9.]+))?\s*$", _re.I)
    def __init__(self, v):
        m = self._R.match(str(v))
        if not m:
            raise InvalidVersion(f"Invalid version: {v!r}")
        self._s = str(v)
        self.release = tuple(int(x) for x in m.group(1).split("."))
        rel = self.release
        while len(rel) > 1 and rel[-1] == 0:
            rel = rel[:-1]
        pre = (m.group(2) or "").lower()
        pre = {"alpha": "a", "beta": "b", "c": "rc", "pre": "rc", "preview": "rc"}.get(pre, pre)
        self.pre = (pre, int(m.group(3) or 0)) if pre else None
        self.post = int(m.group(5) or 0) if m.group(4) else None
        self.dev = int(m.group(7) or 0) if m.group(6) else None
        self.local = m.group(8)
        if self.pre is None and self.post is None and self.dev is not None:
            p = (-2, "", 0)
        elif self.pre is None:
            p = (0, "", 0)
        else:
            p = (-1,) + self.pre
        self._key = (rel, p, -1 if self.post is None else self.post,
                     float("inf") if self.dev is None else self.dev)
    major = property(lambda s: s.release[0])
    minor = property(lambda s: s.release[1] if len(s.release) > 1 else 0)
    micro = property(lambda s: s.release[2] if len(s.release) > 2 else 0)
    base_version = property(lambda s: ".".join(map(str, s.release)))
    public = property(lambda s: s._s.split("+")[0])
    is_prerelease = property(lambda s: s.pre is not None or s.dev is not None)
    def __str__(self): return self._s
    def __repr__(self): return f"<Version({self._s!r})>"
    def __hash__(self): return hash(self._key)
    def _c(self, o): return o._key if isinstance(o, Version) else Version(o)._key
    def __lt__(self, o): return self._key < self._c(o)
    def __le__(self, o): return self._key <= self._c(o)
    def __gt__(self, o): return self._key > self._c(o)
    def __ge__(self, o): return self._key >= self._c(o)
    def __eq__(self, o):
        try:
            return self._key == self._c(o)
        except Exception:
            return NotImplemented
def parse(v): return Version(v)
'''


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, stub_packaging):
        self.stub_packaging = stub_packaging

    def _stubbed(self, name):
        return any(name == m or name.startswith(m + ".") for m in STUB_MODULES)

    def find_spec(self, name, path, target=None):
        if self.stub_packaging and name in ("packaging", "packaging.version"):
            return importlib.machinery.ModuleSpec(name, self, is_package=(name == "packaging"))
        if self._stubbed(name):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        USED.add(next((m for m in STUB_MODULES if spec.name == m or spec.name.startswith(m + ".")), spec.name))
        if spec.name.startswith("packaging"):
            m = types.ModuleType(spec.name)
        else:
            m = _StubModule(spec.name)
            if spec.name == "transformer_engine":
                m.__version__ = os.environ.get("CGLINT_TRUTH_TE_VERSION", "2.13.0")
            if spec.name == "transformer_engine.pytorch.optimizers":
                m.FusedAdam = _TEFusedAdam
        m.__path__ = []
        return m

    def exec_module(self, m):
        if m.__name__ == "packaging.version":
            exec(PKG_VERSION, m.__dict__)
        elif m.__name__ == "packaging":
            m.version = importlib.import_module("packaging.version")


OLD_TORCH = False       # torch older than 2 (Debian's 1.13): the shims below; off under torch 2.x


def old_torch_shims(torch):
    """torch 1.13 lacks what MCore 0.19 touches at import time."""
    torch.jit.script = lambda obj=None, *a, **k: obj
    if not hasattr(torch, "compile"):
        def _compile(f=None, **k):
            return f if f is not None else (lambda g: g)
        torch.compile = _compile
    ng = torch.no_grad

    class _no_grad(ng):
        def __new__(cls, *a):
            if a and callable(a[0]):
                return ng()(a[0])
            return super().__new__(cls)

        def __init__(self, *a):
            super().__init__()
    torch.no_grad = _no_grad
    USED.add("torch 1.x shims")


def install_stand_ins():
    global OLD_TORCH
    try:
        import packaging.version  # noqa: F401
        stub_packaging = False
    except ImportError:
        stub_packaging = True
    import importlib.util
    import torch
    for m in STUB_IF_MISSING:
        try:
            present = importlib.util.find_spec(m) is not None
        except (ImportError, ValueError):
            present = False
        if not present:
            STUB_MODULES.append(m)
    OLD_TORCH = int(torch.__version__.split(".")[0]) < 2
    if OLD_TORCH:
        STUB_MODULES.extend(STUB_OLD_TORCH)
    sys.meta_path.insert(0, _Finder(stub_packaging))
    import typing
    if not hasattr(typing, "override"):
        typing.override = lambda f: f
    if OLD_TORCH:
        old_torch_shims(torch)
    # torch.cuda.get_device_properties: read only by Bridge's flex-dispatcher check
    # (training/flex_dispatcher_backend.py validate_flex_dispatcher_backend), which raises or not
    # and writes no value; answered with the GPU the recipe's name targets (h100, b200, ...)
    if not torch.cuda.is_available():
        torch.cuda.get_device_properties = lambda *a, **k: GPU[0]
        USED.add("torch.cuda.get_device_properties")
    for mod, attr in TORCH_ATTRS:
        try:
            m = importlib.import_module(mod)
        except ImportError:
            continue
        if not hasattr(m, attr):
            setattr(m, attr, _StubMeta(attr, (Stub,), {"__module__": mod}))
            USED.add(f"{mod}.{attr}")


def recipe_functions(root):
    """(file relative to root, module name, function, line, required parameters) in file order."""
    out = []
    for folder in FOLDERS:
        top = os.path.join(root, folder)
        for d, dirs, names in os.walk(top):
            dirs.sort()
            for n in sorted(names):
                if not n.endswith(".py"):
                    continue
                p = os.path.join(d, n)
                rel = os.path.relpath(p, root)
                mod = os.path.relpath(p, os.path.join(root, "src"))[:-3].replace(os.sep, ".")
                if mod.endswith(".__init__"):
                    mod = mod[: -len(".__init__")]
                tree = ast.parse(open(p, encoding="utf-8").read(), p)
                for fn in tree.body:
                    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.returns is None:
                        continue
                    if "ConfigContainer" not in ast.unparse(fn.returns):
                        continue
                    a = fn.args
                    req = [x.arg for x in (a.posonlyargs + a.args)[: len(a.posonlyargs + a.args) - len(a.defaults)]]
                    req += [x.arg for x, dflt in zip(a.kwonlyargs, a.kw_defaults) if dflt is None]
                    out.append((rel, mod, fn.name, fn.lineno, req))
    return out


def _imports_in_try(node):
    """A try: whose body imports and whose handlers catch ImportError (or anything)."""
    if not isinstance(node, ast.Try) or not any(isinstance(b, (ast.Import, ast.ImportFrom)) for b in node.body):
        return False
    names = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}
    return any(h.type is None or any(isinstance(t, ast.Name) and t.id in names
                                     for t in (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]))
               for h in node.handlers)


def machine_probes(root):
    """(module, function) of every machine probe of Bridge (step 4 of the docstring)."""
    src = os.path.join(root, "src")
    factories, defs = set(), []
    for d, dirs, names in os.walk(os.path.join(src, "megatron/bridge")):
        dirs.sort()
        for n in sorted(names):
            if not n.endswith(".py"):
                continue
            p = os.path.join(d, n)
            try:
                tree = ast.parse(open(p, encoding="utf-8").read(), p)
            except (SyntaxError, UnicodeDecodeError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.keyword) and node.arg == "default_factory":
                    v = node.value
                    factories.add(v.attr if isinstance(v, ast.Attribute) else getattr(v, "id", None))
            mod = os.path.relpath(p, src)[:-3].replace(os.sep, ".")
            if mod.endswith(".__init__"):
                mod = mod[: -len(".__init__")]
            defs += [(mod, fn.name) for fn in tree.body
                     if isinstance(fn, ast.FunctionDef) and any(_imports_in_try(t) for t in fn.body)]
    return [(m, f) for m, f in defs if f in factories]


@contextlib.contextmanager
def other_machine(probes):
    """Every probe answers the opposite of what it answers here (its code swapped, so the
    default_factory a dataclass holds sees it too)."""
    saved = []
    try:
        for mod, name in probes:
            fn = getattr(importlib.import_module(mod), name)
            real = fn()
            saved.append((fn, fn.__code__))
            fn.__code__ = (lambda: False).__code__ if real else (lambda: True).__code__
        yield
    finally:
        for fn, code in saved:
            fn.__code__ = code


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _short(e):
    s = f"{type(e).__name__}: {e}".strip()
    s = re.sub(r"\s+", " ", s)
    return s[:400]


def _where(tb, root):
    """The innermost frame of the traceback inside Bridge or MCore: file:line."""
    best = None
    for fr in traceback.extract_tb(tb):
        if "/megatron/" in fr.filename:
            best = fr
    if not best:
        return None
    f = best.filename
    i = f.rfind("/megatron/")
    return f"{f[i + 1:]}:{best.lineno}"


def norm(v, depth=0):
    """A config value in the spelling cglint's facts use: enums by name, tuples as lists,
    dtypes as their name, sections as {…}."""
    if isinstance(v, (Stub, _StubMeta)) or (isinstance(v, type) and issubclass(v, Stub)):
        raise StandInError("value from a stand-in")
    if v is None or isinstance(v, (bool, int, float, str)):
        if isinstance(v, enum.Enum):
            return v.name
        return v
    if isinstance(v, enum.Enum):
        return v.name
    if isinstance(v, (list, tuple)):
        return [norm(x, depth + 1) for x in v]
    if isinstance(v, (set, frozenset)):
        return sorted(norm(x, depth + 1) for x in v)
    if isinstance(v, dict):
        return {str(k): norm(x, depth + 1) for k, x in v.items()}
    mod = type(v).__module__
    if mod == "torch":
        return str(v).replace("torch.", "")
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return {"__section__": type(v).__name__}
    return f"<{type(v).__name__}>"


MISSING = object()
UNSET = object()


def read_key(cfg, key, env):
    """The value of KEY in the ConfigContainer CFG after runtime_config_update; MISSING if the
    config has no such field."""
    if key.startswith("env."):
        # the process environment after env_vars went in with os.environ.setdefault, from a
        # clean environment: what the recipe sets; a variable it leaves unset is the launching
        # shell's business, not knowable from the recipe
        name = key[4:]
        return env[name] if name in env else UNSET
    if key.startswith("env_vars."):
        name = key[len("env_vars."):]
        ev = getattr(cfg, "env_vars", None) or {}
        return ev.get(name)
    obj = cfg
    for part in key.split("."):
        if obj is None:
            return MISSING
        if isinstance(obj, dict):
            if part not in obj:
                return MISSING
            obj = obj[part]
            continue
        if not hasattr(obj, part):
            return MISSING
        obj = getattr(obj, part)
    return obj


LAUNCH_ENV = {"HF_HUB_CACHE", "HF_HOME", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "CUDA_VISIBLE_DEVICES"}
LAUNCH = []   # --launch KEY=VALUE: (dotted key, value) a launch gives where the recipe leaves None


def apply_launch(cfg):
    for key, val in LAUNCH:
        *up, leaf = key.split(".")
        obj = cfg
        for part in up:
            obj = getattr(obj, part, None)
        if obj is not None and getattr(obj, leaf, None) is None:
            setattr(obj, leaf, val)


def run_one(mod, fname, keys, dp, base_env):
    """Call MOD.FNAME(), run Bridge's runtime_config_update with world size TP*PP*CP*DP; return
    {key: normalised value | MISSING | StandInError}."""
    from megatron.bridge.training import config as bcfg
    fn = getattr(importlib.import_module(mod), fname)
    os.environ.clear()
    os.environ.update(base_env)
    stage = "call"
    try:
        cfg = fn()
        if not isinstance(cfg, bcfg.ConfigContainer):
            return None, ("call", f"returned {type(cfg).__name__}, not a ConfigContainer", None)
        m = cfg.model
        size = 1
        for attr in ("tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size"):
            size *= getattr(m, attr, 1) or 1
        bcfg.get_world_size_safe = lambda: size * dp
        apply_launch(cfg)
        stage = "runtime_config_update"
        bcfg.runtime_config_update(cfg)
    except (Exception, StandInError) as e:
        return None, (stage, _short(e), _where(e.__traceback__, None))
    env = dict(os.environ)
    out = {}
    for k in keys:
        v = read_key(cfg, k, env)
        if v is MISSING:
            out[k] = {"missing": True}
            continue
        if v is UNSET:
            out[k] = {"unknowable": "not set by the recipe: the launching environment decides"}
            continue
        try:
            out[k] = {"value": norm(v)}
        except StandInError as e:
            out[k] = {"standin": str(e)}
    return out, None


def static_unknowable(mod, fname, base_env):
    """Mirror of training/comm_overlap.py _get_optimizer_overlap_cfgs (lines 569-581 in v0.6.0):
    with a CommOverlapConfig and the distributed optimizer, ddp.overlap_grad_reduce (and
    overlap_param_gather, bucket_size) follow data_parallel_size > 1 unless the recipe set them on
    the CommOverlapConfig. Used only when just one of the two DP runs passed."""
    fn = getattr(importlib.import_module(mod), fname)
    os.environ.clear()
    os.environ.update(base_env)
    cfg = fn()
    co = cfg.comm_overlap
    if co is None:
        return {}
    use_do = getattr(cfg.ddp, "use_distributed_optimizer", False) or getattr(cfg.optimizer, "use_distributed_optimizer", False)
    if not use_do:
        return {}
    out = {}
    if getattr(co, "overlap_grad_reduce", None) is None:
        out["ddp.overlap_grad_reduce"] = "CommOverlapConfig.setup(): data_parallel_size > 1 (comm_overlap.py:576-578)"
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bridge", required=True)
    ap.add_argument("--mcore", required=True)
    ap.add_argument("--keys", default="")
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--per-function", type=float, default=60)
    ap.add_argument("--shard", default="0/1", help="I/N: this process runs every N-th function from I")
    ap.add_argument("--launch", action="append", default=[], metavar="KEY=VALUE",
                    help="set KEY (a string) where the recipe leaves it None, as the launch command would "
                         "(checkpoint.pretrained_checkpoint for PEFT recipes); off by default")
    args = ap.parse_args()
    LAUNCH.extend(tuple(x.split("=", 1)) for x in args.launch)
    keys = [k for k in args.keys.split(",") if k]
    root = os.path.realpath(args.bridge)
    sys.path[:0] = [os.path.join(root, "src"), os.path.realpath(args.mcore)]
    warnings.simplefilter("ignore")
    import logging
    logging.disable(logging.CRITICAL)
    os.environ.setdefault("MEGATRON_SUPPRESS_FUSION_WARNINGS", "1")
    faulthandler.enable()
    t0 = time.time()
    doc = {"version": 1, "bridge": root, "mcore": os.path.realpath(args.mcore), "python": sys.executable,
           "keys": keys, "functions": [], "import_errors": []}
    install_stand_ins()
    quiet = io.StringIO()
    try:
        with contextlib.redirect_stdout(quiet):
            import megatron.bridge.training.config  # noqa: F401
            import megatron.core.utils as mcu
            if OLD_TORCH or os.environ.get("CGLINT_TRUTH_TORCH_VERSION"):
                mcu._torch_version = mcu.PkgVersion(os.environ.get("CGLINT_TRUTH_TORCH_VERSION", "2.9.0"))
    except Exception as e:
        doc["fatal"] = f"importing megatron.bridge.training.config: {_short(e)}\n" + traceback.format_exc()
        json.dump(doc, open(args.out, "w"), indent=1)
        return 3
    import torch
    doc["torch"] = torch.__version__
    base_env = dict(os.environ)
    for k in list(base_env):
        # names a recipe may set in env_vars must start unset, as in a clean job environment;
        # where the launch finds its models (a stand-in Hugging Face cache) and its GPUs stays
        if k in LAUNCH_ENV:
            continue
        if k.startswith(("NCCL_", "NVTE_", "PYTORCH_", "CUDA_", "TORCH_", "NVIDIA_", "UB_", "TRANSFORMERS_", "HF_")):
            del base_env[k]
    fns = recipe_functions(root)
    i, n = (int(x) for x in args.shard.split("/"))
    fns = fns[i::n]
    if args.only:
        fns = [f for f in fns if f"{f[0]}:{f[2]}" in args.only or f[2] in args.only]
    signal.signal(signal.SIGALRM, _alarm)
    probes = machine_probes(root)
    doc["machine_probes"] = [f"{m}.{f}" for m, f in probes]
    bad_modules = {}
    for rel, mod, fname, line, req in fns:
        rec = {"path": rel, "function": fname, "line": line}
        doc["functions"].append(rec)
        if req:
            rec["status"] = "needs-arguments"
            rec["error"] = "required parameter(s): " + ", ".join(req)
            continue
        if mod in bad_modules:
            rec["status"] = "rejected"
            rec["stage"] = "import"
            rec["error"] = bad_modules[mod]
            continue
        try:
            with contextlib.redirect_stdout(quiet):
                importlib.import_module(mod)
        except Exception as e:
            bad_modules[mod] = _short(e)
            doc["import_errors"].append({"module": mod, "error": bad_modules[mod]})
            rec["status"] = "rejected"
            rec["stage"] = "import"
            rec["error"] = bad_modules[mod]
            continue
        runs = {}
        errors = {}
        set_gpu(fname)
        signal.alarm(int(args.per_function))
        try:
            for dp in (1, 2):
                with contextlib.redirect_stdout(quiet):
                    vals, err = run_one(mod, fname, keys, dp, base_env)
                if err:
                    errors[dp] = err
                else:
                    runs[dp] = vals
            if runs and probes:
                with other_machine(probes), contextlib.redirect_stdout(quiet):
                    runs["machine"], errors["machine"] = run_one(mod, fname, keys, min(k for k in runs), base_env)
        except _Timeout:
            errors[0] = ("timeout", f"over {args.per_function:.0f} s", None)
        finally:
            signal.alarm(0)
        quiet.seek(0)
        quiet.truncate()
        if not runs:
            stage, msg, where = errors.get(1) or errors.get(0) or next(iter(errors.values()))
            rec["status"] = "rejected"
            rec["stage"] = stage
            rec["error"] = msg
            rec["at"] = where
            continue
        rec["status"] = "accepted"
        other = runs.pop("machine", None)
        first = runs.get(1) or runs.get(2)
        rec["dp"] = sorted(runs)
        if probes and other is None:
            rec["note"] = f"on the other machine (machine probes flipped): {errors.get('machine')}"
        if len(runs) < 2:
            dpbad = 2 if 1 in runs else 1
            rec["note"] = f"DP={dpbad} rejected: {errors[dpbad][1]}"
        truth = {}
        for k in keys:
            r = first[k]
            if len(runs) == 2 and runs[1][k] != runs[2][k]:
                truth[k] = {"unknowable": "data-parallel size", "values": {"dp1": runs[1][k].get("value"),
                                                                         "dp2": runs[2][k].get("value")}}
            elif other is not None and other[k] != r:
                truth[k] = {"unknowable": "the machine that runs the job: " + " or ".join(
                    f"{p[1]}()" for p in probes) + " (whether a module imports there)",
                    "values": {"here": r.get("value"), "other machine": other[k].get("value")}}
            else:
                truth[k] = r
        if len(runs) < 2:
            try:
                with contextlib.redirect_stdout(quiet):
                    for k, why in static_unknowable(mod, fname, base_env).items():
                        if k in truth and "value" in truth[k]:
                            truth[k] = {"unknowable": why, "values": {"dp1": truth[k]["value"]}}
            except Exception:
                pass
        rec["truth"] = truth
    doc["stand_ins"] = sorted(USED)
    doc["seconds"] = round(time.time() - t0, 1)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())

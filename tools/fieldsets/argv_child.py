# SPDX-License-Identifier: MIT
"""Run by flags.py in a Python with torch, in a Megatron-LM tree: prints the option strings of
its real argument parser as JSON.

megatron.training.arguments.parse_args builds the parser and parses sys.argv; parse_args is
stopped there and the parser read. Third-party packages that decide no flag are stand-ins
(tests/realtree/bridge_exec.py). The training entry points add flags of their own through
extra_args_provider: pretrain_gpt.py and pretrain_mamba.py / pretrain_hybrid.py add Model
Optimizer's (megatron/post_training/arguments.py add_modelopt_args) when it is installed; those
are read from a parser of their own.

usage: argv_child.py TREE STAND_INS_DIR
"""
import argparse
import importlib
import json
import sys


class _Stop(BaseException):
    pass


def options_of(build):
    """The option strings a parser has after 'build' ran on it (or parse_args stopped)."""
    seen = {}
    real = argparse.ArgumentParser.parse_args

    def grab(self, *a, **k):
        seen["p"] = self
        raise _Stop

    argparse.ArgumentParser.parse_args = grab
    argparse.ArgumentParser.parse_known_args = grab
    try:
        build()
    except _Stop:
        pass
    finally:
        argparse.ArgumentParser.parse_args = real
    p = seen.get("p")
    return sorted({o for a in p._actions for o in a.option_strings if o.startswith("--")}) if p else None


def main():
    tree, stand_ins = sys.argv[1], sys.argv[2]
    sys.path[:0] = [tree, stand_ins]
    sys.argv = ["pretrain_gpt.py"]
    import bridge_exec
    import main_exec
    # the stand-ins of the truth harnesses, and the tokenizer's regex and RL's
    # pydantic, which decide no flag
    bridge_exec.STUB_OLD_TORCH.extend(main_exec.EXTRA_MODULES)
    bridge_exec.TORCH_ATTRS.extend(main_exec.EXTRA_ATTRS)
    bridge_exec.STUB_IF_MISSING.extend(main_exec.EXTRA_IF_MISSING + ["regex", "pydantic"])
    bridge_exec.install_stand_ins()
    import torch.utils.cpp_extension as ext

    def no_compiler(*a, **k):       # older trees build a CUDA allocator at import
        raise RuntimeError("no extension is built while the flags are read")
    ext.load_inline = no_compiler
    args = importlib.import_module("megatron.training.arguments")
    out = {"base": options_of(lambda: args.parse_args())}
    try:
        post = importlib.import_module("megatron.post_training.arguments")

        def modelopt():
            p = argparse.ArgumentParser(allow_abbrev=False)
            post.add_modelopt_args(p)
            p.parse_args()
        out["modelopt"] = options_of(modelopt)
    except (ImportError, AttributeError):
        out["modelopt"] = []
    print(json.dumps(out))


if __name__ == "__main__":
    main()

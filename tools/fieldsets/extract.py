# SPDX-License-Identifier: MIT
"""What each release's loaders accept, extracted from its code.

Bridge: the fields of each section of ConfigContainer (the classes its annotation names and
every class of the tree derived from one, with their Megatron Core bases at the commit the
release pins), by syntax tree (classes.py). Megatron-LM: the option strings of its argument
parser, by running it (argv_child.py, in a Python with torch).
"""
import json
import os
import subprocess
import sys
import io
import tarfile
import tempfile

from cites.packs import MAIN, RELEASES, SUBMODULE
from .classes import Tree, read_tree

HERE = os.path.dirname(os.path.abspath(__file__))
STAND_INS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "realtree")
CONTAINER = "megatron.bridge.training.config.ConfigContainer"
PIN = "main@2a75ac12"

# The versions, oldest first, and the ref each stands for: a series' first release (as the
# citations read them), the development branch Bridge 0.2 ships, the two "mains".
MCORE = list(RELEASES["mcore"]) + [(PIN, "2a75ac12c54ba6a42b34024756820bf819a2e25f"), ("main", MAIN["mcore"])]
BRIDGE = list(RELEASES["bridge"]) + [("main", MAIN["bridge"])]


def _pin(bridge_git, ref):
    out = subprocess.run(["git", "--git-dir", bridge_git, "ls-tree", ref, SUBMODULE], capture_output=True, text=True, check=True)
    return out.stdout.split()[2]


def bridge_sections(bridge_git, mcore_git, ref):
    """{section: set of field names} of Bridge at 'ref', with the Megatron Core it pins; the
    whole container's own fields under ''."""
    tree = Tree().add(read_tree(mcore_git, _pin(bridge_git, ref), ["megatron"]))
    tree.add(read_tree(bridge_git, ref, ["src/megatron/bridge"]), "src/")
    out = {"": tree.names(CONTAINER)}
    for section, classes in tree.field_classes(CONTAINER).items():
        # what a section may hold: the classes its annotation names, the classes they derive
        # from (a DistillationProvider is a TransformerConfig, not a GPTModelProvider; a vision
        # encoder's config is Megatron Core's), and every class derived from one; of each, what
        # hasattr() finds (Bridge's loader skips a key only where that fails)
        roots = set(classes).union(*(tree.ancestors(c) for c in classes))
        names = set()
        for c in tree.subclasses(roots):
            names.update(tree.names(c))
        if names:
            out[section] = names
    return out


def _materialize(mcore_git, ref, into):
    data = subprocess.run(["git", "--git-dir", mcore_git, "archive", ref, "megatron"], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        t.extractall(into, filter="data")


def mlm_options(mcore_git, ref, python):
    """{"base": [...], "modelopt": [...]} of Megatron-LM's parser at 'ref'."""
    with tempfile.TemporaryDirectory(prefix="cglint-fields-") as d:
        _materialize(mcore_git, ref, d)
        r = subprocess.run([python, os.path.join(HERE, "argv_child.py"), d, STAND_INS], capture_output=True, text=True,
                           cwd=d, timeout=600)
        if r.returncode != 0:
            raise RuntimeError(f"Megatron-LM {ref}: the parser did not run:\n{r.stderr[-2000:]}")
        return json.loads(r.stdout.strip().splitlines()[-1])


def find_python():
    """A Python that imports torch (Debian's python3-torch): /usr/bin/python3, else python3."""
    for p in ("/usr/bin/python3", sys.executable, "python3"):
        try:
            if subprocess.run([p, "-c", "import torch"], capture_output=True, timeout=120).returncode == 0:
                return p
        except (OSError, subprocess.TimeoutExpired):
            pass
    return None

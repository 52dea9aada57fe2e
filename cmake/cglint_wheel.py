# SPDX-License-Identifier: MIT
"""cglint's PEP 517 build backend: CMake builds and installs cglint, this packs what it installed.

It is in the tree and uses the standard library only (pyproject.toml: requires = [],
backend-path = ["cmake"]), so `pip install .` needs nothing from a package index. It does what
scikit-build-core, the intended backend (docs/install.md), does with this CMakeLists.txt:
configure (Release, no tests, Ninja where it is installed, plus $CMAKE_ARGS), build,
`cmake --install --strip` into a staging prefix, then bin/ becomes the wheel's scripts and the
rest of the prefix (man page, completions, docs) its data, installed under the environment's
prefix. The wheel holds no Python code, so its tag is py3-none-PLATFORM. The version is
CMakeLists.txt's project(VERSION).
"""
import base64
import hashlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "cglint"
SUMMARY = ("Catches CUDA-graph mistakes in Megatron-Bridge / Megatron-LM configs, launch scripts "
           "and CUDA sources before a job gets its GPUs")
# Not in an sdist: the grammar's npm tarball (the unpacked grammar is), Python's byte code.
SDIST_SKIP = re.compile(r"^third_party/.*\.tgz$|(^|/)__pycache__/")


def _version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"^project\(cglint VERSION ([0-9.]+)", f.read(), re.M).group(1)


def _metadata():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    # libclang is only loaded to analyse sources, from the system or from this extra (docs/sources.md,
    # "Finding libclang"); 17 is the first with every function cglint calls.
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\nSummary: {SUMMARY}\n"
            "License: MIT\nProvides-Extra: libclang\nRequires-Dist: libclang>=17; extra == \"libclang\"\n"
            f"Description-Content-Type: text/markdown\n\n{readme}")


def _tag():
    return "py3-none-" + re.sub(r"[-.]", "_", sysconfig.get_platform())


def _dist_info():
    with open(os.path.join(ROOT, "LICENSE"), encoding="utf-8") as f:
        license_text = f.read()
    wheel = f"Wheel-Version: 1.0\nGenerator: cglint_wheel\nRoot-Is-Purelib: false\nTag: {_tag()}\n"
    return {"METADATA": _metadata(), "WHEEL": wheel, "LICENSE": license_text}


def _run(cmd, **kw):
    print("cglint_wheel: " + shlex.join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, **kw)


def _fetch_grammar():
    _run(["bash", os.path.join(ROOT, "cmake", "fetch-tree-sitter-python.sh")])


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = f"{NAME}-{_version()}.dist-info"
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    for name, text in _dist_info().items():
        with open(os.path.join(metadata_directory, info, name), "w", encoding="utf-8") as f:
            f.write(text)
    return info


def _generator(cmake_args):
    """Ninja where it is installed and no generator was asked for, as scikit-build-core does: a
    build of few changed files then takes a second or two where Make takes several."""
    if os.environ.get("CMAKE_GENERATOR") or any(a.startswith("-G") for a in cmake_args):
        return []
    return ["-G", "Ninja"] if shutil.which("ninja") else []


def _build_dir():
    """A temporary folder inside the sources where they are writable, else in the system's temp
    folder. Inside, the path from the build to every source is the same for any copy of the
    sources, so a compiler cache (CMAKE_ARGS=-DCMAKE_C_COMPILER_LAUNCHER=ccache, with CCACHE_BASEDIR
    above the copies) sees the same command lines and reuses what another copy compiled."""
    try:
        return tempfile.TemporaryDirectory(prefix=".cglint-wheel-", dir=ROOT)
    except OSError:
        return tempfile.TemporaryDirectory(prefix="cglint-wheel-")


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    cmake_args = shlex.split(os.environ.get("CMAKE_ARGS", ""))
    if not any(a.startswith("-DCGLINT_TS_PYTHON_DIR") for a in cmake_args):
        _fetch_grammar()
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    with _build_dir() as tmp:
        build, stage = os.path.join(tmp, "build"), os.path.join(tmp, "stage")
        # -Werror is for the project's own builds: a user's compiler may warn where ours does not.
        _run(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DCGLINT_TESTS=OFF",
              "-DCGLINT_WERROR=OFF"] + _generator(cmake_args) + cmake_args)
        _run(["cmake", "--build", build, "--parallel", jobs])
        _run(["cmake", "--install", build, "--prefix", stage, "--strip"])
        return _pack(wheel_directory, stage)


def _pack(wheel_directory, stage):
    dist = f"{NAME}-{_version()}"
    name = f"{dist}-{_tag()}.whl"
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        def add(arcname, data, mode=0o644):
            zi = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
            zi.external_attr = (0o100000 | mode) << 16    # a regular file, with its permissions
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{arcname},sha256={digest},{len(data)}")

        for dirpath, dirnames, filenames in os.walk(stage):
            dirnames.sort()
            for fn in sorted(filenames):
                path = os.path.join(dirpath, fn)
                rel = os.path.relpath(path, stage).replace(os.sep, "/")
                top, _, rest = rel.partition("/")
                arcname = f"{dist}.data/scripts/{rest}" if top == "bin" else f"{dist}.data/data/{rel}"
                with open(path, "rb") as f:
                    add(arcname, f.read(), os.stat(path).st_mode & 0o777)
        for fn, text in _dist_info().items():
            add(f"{dist}.dist-info/{fn}", text.encode())
        record.append(f"{dist}.dist-info/RECORD,,")
        z.writestr(zipfile.ZipInfo(f"{dist}.dist-info/RECORD", date_time=(1980, 1, 1, 0, 0, 0)),
                   "\n".join(record) + "\n")
    return name


def _source_files():
    """The work tree's files git does not ignore, and third_party/; all files outside git."""
    if os.path.exists(os.path.join(ROOT, ".git")):
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             cwd=ROOT, check=True, stdout=subprocess.PIPE).stdout
        files = {p for p in out.decode().split("\0") if p}
        walk = os.path.join(ROOT, "third_party")
    else:
        files, walk = set(), ROOT
    for dirpath, _, filenames in os.walk(walk):
        files.update(os.path.relpath(os.path.join(dirpath, fn), ROOT).replace(os.sep, "/") for fn in filenames)
    return sorted(p for p in files if os.path.isfile(os.path.join(ROOT, p)) and not SDIST_SKIP.search(p)
                  and p != "PKG-INFO")


def build_sdist(sdist_directory, config_settings=None):
    """The sources with the grammar unpacked, so a wheel builds from it without npm."""
    _fetch_grammar()
    dist = f"{NAME}-{_version()}"
    name = f"{dist}.tar.gz"

    def normalize(ti):
        ti.uid = ti.gid = 0
        ti.uname = ti.gname = ""
        return ti

    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for rel in _source_files():
            tar.add(os.path.join(ROOT, rel), f"{dist}/{rel}", recursive=False, filter=normalize)
        pkg_info = _metadata().encode()
        ti = normalize(tarfile.TarInfo(f"{dist}/PKG-INFO"))
        ti.size, ti.mode = len(pkg_info), 0o644
        tar.addfile(ti, io.BytesIO(pkg_info))
    return name

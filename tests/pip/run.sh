#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The pip package (pyproject.toml, cmake/cglint_wheel.py) as a user gets it, with pip kept away
# from every package index and wheel cache, which proves the build needs nothing from one:
#  1. `pip install DIR` of a copy of the sources (tests/tree-copy.sh: no unpacked grammar, so the
#     build unpacks the tarball) into a fresh venv, then the installed cglint on a config and a CUDA
#     source, and its man page.
#  2. an sdist of the sources, then `pip wheel` of it (without the GPU probe, to save time): a
#     well-formed wheel (name, tag, every file in RECORD with its sha256), installed with pip into
#     a second fresh venv.
#  3. libclang from the venv: the wheel of 2 is built against a copy of the system's libclang
#     (CGLINT_LLVM_DIR, through CMAKE_ARGS), which is then removed, so its cglint reports CG918 on a
#     source until the venv holds lib/python3.X/site-packages/clang/native/libclang.so, where
#     the `libclang` package puts its library (here the system's, copied: that package is not
#     reachable from the test machines).
# usage: tests/pip/run.sh REPO_ROOT LLVM_DIR (CMake's CGLINT_LLVM_DIR)
# Fails (never skips) when python3 cannot make a venv with pip (python3-venv: tests/setup.sh).
set -u
if [ $# -ne 2 ]; then
	echo "usage: $0 REPO_ROOT LLVM_DIR" >&2
	exit 2
fi
root=$(realpath "$1") || exit 1
llvm=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cglint-pip.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

out=""
fail()
{
	echo "pip: FAIL: $*" >&2
	[ -z "$out" ] || printf -- '---- output of the last command ----\n%s\n------------------------------------\n' "$out" >&2
	exit 1
}
export PIP_CONFIG_FILE=/dev/null PIP_NO_INDEX=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL CMAKE_ARGS
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} CGLINT_CUDA_PATH=none
unset CGLINT_LIBCLANG
. "$root/tests/ccache.sh"
want=$(sed -n 's/^project(cglint VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[ -n "$want" ] || fail "no project(cglint VERSION ...) in CMakeLists.txt"
cfg=$root/fixtures/examples/nemotron_full_recompute.yaml
clean=$root/fixtures/examples/llama3_8b_te_scoped.yaml
src=$root/fixtures/examples/capture.cu

venv()
{
	{ out=$(python3 -m venv "$1" 2>&1) && [ -x "$1/bin/pip" ]; } ||
		fail "python3 -m venv cannot make a venv with pip (Debian: python3-venv; tests/setup.sh installs it)"
}
# A venv without pip of its own (ensurepip takes seconds), for venv1's pip to install into (--python).
venv_bare()
{
	{ out=$(python3 -m venv --without-pip "$1" 2>&1) && [ -x "$1/bin/python" ]; } || fail "python3 -m venv --without-pip"
}
# check_cglint BIN: the installed program on a config with an error, a clean one and a CUDA source.
check_cglint()
{
	local rc
	[ -x "$1" ] || fail "no executable $1"
	"$1" --version | head -1 | grep -qx "cglint $want" || fail "$1 --version does not say cglint $want"
	out=$("$1" --isolated --format concise "$cfg" 2>&1)
	rc=$?
	[ $rc -eq 1 ] || fail "$1 exits $rc on $cfg, which has an error"
	grep -q "^$cfg:7:3: error: .*\[CG111 full-recompute-needs-full-iteration\]\$" <<<"$out" || fail "$1: no CG111 in $cfg"
	out=$("$1" --isolated "$clean" 2>&1) || fail "$1 exits $? on the clean $clean"
	out=$("$1" --isolated --format concise "$src" 2>&1)
	rc=$?
	[ $rc -eq 1 ] || fail "$1 exits $rc on $src (libclang not found?)"
	grep -q "^$src:27:2: error: .*\[CG301 sync-in-capture\]\$" <<<"$out" || fail "$1: no CG301 in $src"
}

# ---- 1. pip install DIR ----------------------------------------------------------------------
out=$(bash "$root/tests/tree-copy.sh" "$root" "$tmp/src" 2>&1) || fail "copying the sources"
! compgen -G "$tmp/src/third_party/tree-sitter-python/*/src/parser.c" >/dev/null ||
	fail "the copy already holds the unpacked grammar"
venv "$tmp/venv1"
out=$(CMAKE_ARGS=$ccache_args "$tmp/venv1/bin/pip" install "$tmp/src" 2>&1) || fail "pip install of the sources"
compgen -G "$tmp/src/third_party/tree-sitter-python/*/src/parser.c" >/dev/null ||
	fail "the build did not unpack the grammar into the sources"
check_cglint "$tmp/venv1/bin/cglint"
# the GPU probe, built where CMake finds a CUDA compiler (nvcc on PATH or in /usr/local/cuda)
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
	[ -x "$tmp/venv1/bin/cglint-probe" ] || fail "nvcc is here, but no cglint-probe was installed beside cglint"
fi
out=$(PATH="$tmp/venv1/bin:/usr/bin:/bin" MANPATH="$tmp/venv1/share/man" man -w cglint 2>&1) ||
	fail "no man page for cglint in the venv"
out=$("$tmp/venv1/bin/pip" uninstall -y cglint 2>&1) || fail "pip uninstall"
{ [ ! -e "$tmp/venv1/bin/cglint" ] && [ ! -e "$tmp/venv1/share/man/man1/cglint.1" ]; } ||
	fail "pip uninstall left cglint's files"

# ---- 2. sdist, then pip wheel of it ----------------------------------------------------------
mkdir -p "$tmp/sdist" "$tmp/dist" "$tmp/llvm/lib"
out=$(cd "$tmp/src" && python3 -c 'import sys; sys.path[:0] = ["cmake"]; import cglint_wheel as b
print(b.build_sdist(sys.argv[1]))' "$tmp/sdist" 2>&1) || fail "build_sdist"
sdist=$tmp/sdist/cglint-$want.tar.gz
[ -f "$sdist" ] || fail "no $sdist"
list=$(tar -tzf "$sdist")
for f in PKG-INFO pyproject.toml cmake/cglint_wheel.py CMakeLists.txt lint/cli/main.c LICENSE; do
	grep -qx "cglint-$want/$f" <<<"$list" || fail "the sdist lacks $f"
done
grep -q "^cglint-$want/third_party/tree-sitter-python/[^/]*/src/parser\.c\$" <<<"$list" || fail "the sdist lacks the grammar"
! grep -q '\.tgz$' <<<"$list" || fail "the sdist holds the grammar's tarball"

# 3. built against a copy of the system's libclang, to be removed below
cp -L "$llvm/lib/libclang.so" "$tmp/llvm/lib/libclang.so" || fail "no libclang.so in $llvm/lib"
{ ln -s "$llvm/include" "$tmp/llvm/include" && ln -s "$llvm/lib/clang" "$tmp/llvm/lib/clang"; } || fail "ln -s"
out=$(cd "$tmp" && CMAKE_ARGS="-DCGLINT_LLVM_DIR=$tmp/llvm -DCGLINT_PROBE=OFF $ccache_args" "$tmp/venv1/bin/pip" wheel --no-deps -w "$tmp/dist" "$sdist" 2>&1) ||
	fail "pip wheel of the sdist"
plat=$(python3 -c 'import re, sysconfig; print(re.sub(r"[-.]", "_", sysconfig.get_platform()))')
whl=$tmp/dist/cglint-$want-py3-none-$plat.whl
[ -f "$whl" ] || fail "no $whl (the wheel directory holds: $(ls "$tmp/dist"))"
out=$(python3 - "$whl" "cglint-$want" <<'EOF' 2>&1
import base64, hashlib, sys, zipfile
z, dist = zipfile.ZipFile(sys.argv[1]), sys.argv[2]
names = z.namelist()
record = [line.split(",") for line in z.read(f"{dist}.dist-info/RECORD").decode().splitlines()]
assert sorted(r[0] for r in record) == sorted(names), "RECORD does not list exactly the wheel's files"
for name, digest, size in record:
    if name.endswith("/RECORD"):
        continue
    data = z.read(name)
    want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    assert digest == want and int(size) == len(data), f"RECORD is wrong for {name}"
for f in ["data/scripts/cglint", "data/data/share/man/man1/cglint.1", "dist-info/METADATA", "dist-info/WHEEL"]:
    assert f"{dist}.{f}" in names, f"no {f}"
assert z.getinfo(f"{dist}.data/scripts/cglint").external_attr >> 16 & 0o111, "cglint is not executable"
meta = z.read(f"{dist}.dist-info/METADATA").decode()
assert f"\nVersion: {dist.split('-')[1]}\n" in meta and "\nName: cglint\n" in meta, meta[:300]
assert "Root-Is-Purelib: false" in z.read(f"{dist}.dist-info/WHEEL").decode()
EOF
) || fail "the wheel is not well formed"
venv_bare "$tmp/venv2"
out=$("$tmp/venv1/bin/pip" --python "$tmp/venv2/bin/python" install "$whl" 2>&1) || fail "pip install of the wheel"
[ ! -e "$tmp/venv2/bin/pip" ] || fail "venv2 was to have no pip of its own"
check_cglint "$tmp/venv2/bin/cglint"

# ---- 3. libclang from the venv's libclang package --------------------------------------------
rm "$tmp/llvm/lib/libclang.so"
out=$("$tmp/venv2/bin/cglint" --isolated --format concise "$src" 2>&1)
grep -q "^$src:1:1: error: .*libclang not found.*\[CG918 libclang-not-found\]\$" <<<"$out" ||
	fail "with the libclang it was built against gone, cglint should report CG918"
site=$("$tmp/venv2/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
{ mkdir -p "$site/clang/native" && cp -L "$llvm/lib/libclang.so" "$site/clang/native/libclang.so"; } || fail "cp"
check_cglint "$tmp/venv2/bin/cglint"
echo "pip: ok (pip install DIR, sdist, pip wheel, install of the wheel, libclang from the venv; $("$tmp/venv1/bin/pip" --version | cut -d' ' -f1-2))"

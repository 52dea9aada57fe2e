#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what cglint needs on Debian bookworm (as root, or through sudo), then configures
# and builds into ./build. Safe to run again: it installs only what is missing. The GPU probe
# (cglint-probe) is built too where the CUDA toolkit is (nvcc on PATH or in /usr/local/cuda).
set -eu
cd "$(dirname "$0")/.."

pkgs="build-essential cmake pkg-config git help2man zsh fish libyaml-dev libjansson-dev libgit2-dev libxxhash-dev libcriterion-dev libclang-19-dev clang-19 libtree-sitter-dev yamllint shellcheck python3 python3-jsonschema python3-yaml pre-commit neovim emacs-nox elpa-eglot"
# npm installs the SARIF validator; NodeSource's nodejs brings its own npm, Debian's npm would pull Debian's nodejs
command -v npm >/dev/null || pkgs="$pkgs npm"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

bash tests/sarif/install-multitool.sh >/dev/null

# The Python grammar for tree-sitter (lint/front/fe_py.c): not in Debian, so the npm client fetches
# the pinned release (0.23.6, the last with ABI 14, which bookworm's runtime 0.20.7 accepts) and
# CMake compiles its generated parser (CGLINT_TS_PYTHON_DIR). Nothing generated is committed.
ts_py_version=0.23.6
ts_py_sha256=aab5b860d93dbf84b37fed532f7dacc0468ede5387d0c74911d68f964287662a
ts_py_cache=third_party/tree-sitter-python
if [ ! -f "$ts_py_cache/$ts_py_version/src/parser.c" ]; then
  mkdir -p "$ts_py_cache"
  tgz="$ts_py_cache/tree-sitter-python-$ts_py_version.tgz"
  if [ ! -f "$tgz" ]; then
    (cd "$ts_py_cache" && npm pack --silent "tree-sitter-python@$ts_py_version" >/dev/null)
  fi
  if ! echo "$ts_py_sha256  $tgz" | sha256sum -c --quiet -; then
    echo "setup.sh: $tgz does not match its pinned sha256; removed" >&2
    rm -f "$tgz"
    exit 1
  fi
  rm -rf "${ts_py_cache:?}/$ts_py_version" "${ts_py_cache:?}/package"
  tar -xzf "$tgz" -C "$ts_py_cache" package/src package/LICENSE
  mv "$ts_py_cache/package" "$ts_py_cache/$ts_py_version"
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
echo "cglint built: ./build/cglint"

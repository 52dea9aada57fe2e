#!/bin/bash
# SPDX-License-Identifier: MIT
# `cglint lsp` end to end in headless Neovim (nvim-e2e.lua). Usage: nvim-e2e.sh CGLINT_BIN
# Fails, rather than skips, when nvim is missing: the test is the only proof an editor works.
set -u
bin=${1:?usage: nvim-e2e.sh CGLINT_BIN}
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v nvim >/dev/null; then
	echo "lsp-nvim: FAIL: nvim is not installed (apt-get install neovim)" >&2
	exit 1
fi
tmp=$(mktemp -d /tmp/cglint-nvim-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/recipe.yaml" <<'YAML'
model:
  cuda_graph_impl: local
  use_te_rng_tracker: false
rng:
  te_rng_tracker: false
YAML
# A project config with a rule id mistyped (CG1O1), over a copy of the recipe.
mkdir "$tmp/cfg"
cp "$tmp/recipe.yaml" "$tmp/cfg/recipe.yaml"
printf 'select: [CG1O1]\n' >"$tmp/cfg/.cglint.yaml"
# Neovim's own files (the LSP log among them) stay in the temporary folder.
out=$(cd "$tmp" && HOME="$tmp" XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" XDG_STATE_HOME="$tmp/state" \
	XDG_CACHE_HOME="$tmp/cache" CGLINT_E2E_BIN="$bin" CGLINT_E2E_FILE="$tmp/recipe.yaml" \
	timeout 45 nvim --headless --clean -u NONE -c "luafile $here/nvim-e2e.lua" 2>&1 </dev/null)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 0 ]; then
	echo "lsp-nvim: FAIL: nvim exited $rc" >&2
	exit 1
fi
if ! grep -qx 'lsp-nvim: ok' <<<"$out"; then
	echo "lsp-nvim: FAIL: the script did not report success" >&2
	exit 1
fi

# The documented set-up itself (docs/editors.md's init.lua), with Neovim's own filetype detection,
# on a YAML config, a launch script, a Python recipe and a CUDA source (issue 30 item 10).
# shellcheck source=tests/lsp/setup-files.sh
. "$here/setup-files.sh"
setup_files nvim-e2e.sh init.lua || { echo "lsp-nvim: FAIL: no documented set-up" >&2; exit 1; }
out=$(cd "$tmp/kinds" && PATH="$tmp/path:$PATH" HOME="$tmp" XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" \
	XDG_STATE_HOME="$tmp/state" XDG_CACHE_HOME="$tmp/cache" CGLINT_E2E_KINDS="$tmp/kinds" \
	timeout 45 nvim --headless -u "$tmp/setup/init.lua" -i NONE -c "luafile $here/nvim-setup.lua" 2>&1 </dev/null)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 0 ] || ! grep -qx 'lsp-nvim: setup ok' <<<"$out"; then
	echo "lsp-nvim: FAIL: the documented set-up (docs/editors.md) exited $rc" >&2
	exit 1
fi
echo "lsp-nvim: PASS ($(nvim --version | head -1))"

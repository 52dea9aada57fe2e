#!/bin/bash
# SPDX-License-Identifier: MIT
# `cglint lsp` end to end in Emacs eglot, batch mode (eglot-e2e.el). Usage: eglot-e2e.sh CGLINT_BIN
# Debian bookworm's Emacs 28 has no built-in eglot: elpa-eglot (1.9) brings it. Fails, rather
# than skips, when either is missing: the test is the only proof this editor works.
set -u
bin=${1:?usage: eglot-e2e.sh CGLINT_BIN}
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v emacs >/dev/null || ! compgen -G '/usr/share/emacs/site-lisp/elpa/eglot-*' >/dev/null; then
	echo "lsp-eglot: FAIL: emacs or eglot is not installed (apt-get install emacs-nox elpa-eglot)" >&2
	exit 1
fi
tmp=$(mktemp -d /tmp/cglint-eglot-XXXXXX)
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
# Emacs's own files stay in the temporary folder.
out=$(cd "$tmp" && HOME="$tmp" CGLINT_E2E_BIN="$bin" CGLINT_E2E_FILE="$tmp/recipe.yaml" \
	timeout 45 emacs --batch -Q -l "$here/eglot-e2e.el" 2>&1 </dev/null)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 0 ]; then
	echo "lsp-eglot: FAIL: emacs exited $rc" >&2
	exit 1
fi
if ! grep -qx 'lsp-eglot: ok' <<<"$out"; then
	echo "lsp-eglot: FAIL: the script did not report success" >&2
	exit 1
fi

# The documented set-up itself (docs/editors.md's init.el), started as Emacs starts: Debian's
# site-start, the packages it activates (elpa-eglot), then the init file; on a YAML config, a
# launch script, a Python recipe and a CUDA source (issue 30 item 10).
# shellcheck source=tests/lsp/setup-files.sh
. "$here/setup-files.sh"
setup_files eglot-e2e.sh init.el || { echo "lsp-eglot: FAIL: no documented set-up" >&2; exit 1; }
out=$(cd "$tmp/kinds" && PATH="$tmp/path:$PATH" HOME="$tmp" CGLINT_E2E_KINDS="$tmp/kinds" \
	timeout 90 emacs --batch --eval '(package-initialize)' -l "$tmp/setup/init.el" -l "$here/eglot-setup.el" 2>&1 </dev/null)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 0 ] || ! grep -qx 'lsp-eglot: setup ok' <<<"$out"; then
	echo "lsp-eglot: FAIL: the documented set-up (docs/editors.md) exited $rc" >&2
	exit 1
fi
echo "lsp-eglot: PASS ($(emacs --version | head -1), $(basename /usr/share/emacs/site-lisp/elpa/eglot-*))"

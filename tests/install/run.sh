#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `cmake --install` into a fresh prefix, then use what it laid out as a user would: the program
# on a config and a CUDA source, its man page, and the bash, zsh and fish completions.
# usage: tests/install/run.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1 src=$2
prefix=$(mktemp -d "${TMPDIR:-/tmp}/cglint-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
fail() { echo "install: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
bin=$prefix/bin/cglint
for f in bin/cglint share/man/man1/cglint.1 share/bash-completion/completions/cglint \
	share/zsh/site-functions/_cglint share/fish/vendor_completions.d/cglint.fish \
	share/doc/cglint/LICENSE share/doc/cglint/CHANGELOG.md share/doc/cglint/README.md; do
	[ -e "$prefix/$f" ] || fail "missing $f"
done

# the release number, kept in one place (CMakeLists.txt project VERSION)
want=$(sed -n 's/^project(cglint VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
"$bin" --version | head -1 | grep -qx "cglint $want" || fail "--version does not say cglint $want"
"$bin" --version | grep -q "^Megatron Core: .*0\.19" || fail "--version does not list Megatron Core releases"

# the installed program works on a config (findings: exit 1) and on a CUDA source
set +e
"$bin" --isolated "$src/fixtures/examples/nemotron_full_recompute.yaml" >/dev/null 2>&1
rc=$?
out=$("$bin" --isolated --format json "$src/fixtures/examples/capture.cu" 2>/dev/null)
crc=$?
set -e
[ "$rc" -eq 1 ] || fail "the installed cglint exits $rc on a bundled config with findings"
[ "$crc" -eq 1 ] || fail "the installed cglint exits $crc on a CUDA source (libclang not found?)"
echo "$out" | grep -q '"rule": *"CG3' || fail "no capture hazard found in capture.cu"

# a finding links what the user has (issue 30 item 13): `cglint explain ID` and the page installed
# beside the program, never an address the build was not given
see=$("$bin" --isolated --color never "$src/fixtures/examples/nemotron_full_recompute.yaml" 2>/dev/null | grep -m1 '^    see: ')
page="$(cd "$prefix" && pwd -P)/share/doc/cglint/rules/CG142.md"
[ "$see" = "    see: cglint explain CG142 or $page" ] || fail "the see: line is '$see', not the installed page $page"
[ -f "$page" ] || fail "$page is not installed"
url=$("$bin" --isolated --format json "$src/fixtures/examples/nemotron_full_recompute.yaml" 2>/dev/null |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["diagnostics"][0]["url"])')
[ "$url" = "file://$page" ] || fail "the JSON url is '$url', not file://$page"
if "$bin" --isolated --format sarif "$src/fixtures/examples" 2>/dev/null | grep -q 'github.com/cglint'; then
	fail "the SARIF links github.com/cglint"
fi

# the man page renders without warnings and lists every option of --help
man_txt=$(MANWIDTH=100 man -l "$prefix/share/man/man1/cglint.1" 2>&1) || fail "man cannot render cglint.1"
for opt in $("$bin" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	grep -q -- "$opt" <<<"$man_txt" || fail "the man page lacks $opt"
done

# bash: complete an option, a format name and a subcommand (as bash runs it: without set -e)
set +e
# shellcheck disable=SC1091
source "$prefix/share/bash-completion/completions/cglint"
COMP_WORDS=(cglint --for); COMP_CWORD=1; _cglint
[[ " ${COMPREPLY[*]} " == *" --format "* ]] || fail "bash: --for does not complete to --format"
COMP_WORDS=(cglint --format sa); COMP_CWORD=2; _cglint
[[ " ${COMPREPLY[*]} " == *" sarif "* ]] || fail "bash: --format sa does not complete to sarif"
COMP_WORDS=(cglint exp); COMP_CWORD=1; _cglint
[[ " ${COMPREPLY[*]} " == *" explain "* ]] || fail "bash: exp does not complete to explain"

set -e

# zsh and fish: the scripts parse, and fish completes an option from them
if command -v zsh >/dev/null; then zsh -n "$prefix/share/zsh/site-functions/_cglint" || fail "zsh: the script does not parse"; fi
if command -v fish >/dev/null; then
	fish -n "$prefix/share/fish/vendor_completions.d/cglint.fish" || fail "fish: the script does not parse"
	fish -c "source $prefix/share/fish/vendor_completions.d/cglint.fish; complete -C 'cglint --fail'" |
		grep -q -- '--fail-on' || fail "fish: --fail does not complete to --fail-on"
fi
echo "install: 1 passed, 0 failed"

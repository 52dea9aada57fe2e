#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs one libFuzzer target (tests/fuzz/fuzz_NAME.c, built with -DCGLINT_FUZZ=ON) from seeds made
# now out of the fixtures, the rule packs and a few written here, with the libFuzzer options
# given after it (-runs=N, -max_total_time=S, ...). Exit status: libFuzzer's, non-zero on a crash,
# a leak, a sanitizer report or a timeout; what failed is kept under the target's folder, in
# fuzz-artifacts/. Run from the source tree's root:
#   bash tests/fuzz/one.sh build-fuzz/fuzz_lint -runs=20000
# CGLINT_FUZZ_CORPUS=DIR keeps the corpus in DIR (seeded when empty) instead of a temporary one.
set -eu
exe=$1
shift
name=$(basename "$exe")
name=${name#fuzz_}
# the targets write a file an input (fuzz.h): in memory where there is /dev/shm, not on a disk
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	export TMPDIR=/dev/shm
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
corpus=${CGLINT_FUZZ_CORPUS:-$tmp/corpus}
mkdir -p "$corpus"

# seed FILE...: each file into the corpus, named by its content (the same file twice is one seed).
# For the targets whose first byte picks a variant (fuzz_pick in fuzz.h), each seed gets the next
# byte in turn, so the seeds spread over the variants.
picks=0
case $name in lint | py) prefix=true ;; *) prefix=false ;; esac
seed() {
	local f
	for f in "$@"; do
		if $prefix; then
			{ printf "\\$(printf %03o $((picks % 256)))"; cat "$f"; } >"$tmp/seed"
			picks=$((picks + 1))
			f=$tmp/seed
		fi
		cp "$f" "$corpus/$(sha1sum <"$f" | cut -c1-40)"
	done
}
# seed_found FIND-ARGS...: every file find names
seed_found() {
	local f
	while IFS= read -r -d '' f; do
		seed "$f"
	done < <(find "$@" -type f -print0)
}
# say NAME TEXT: a seed written here (TEXT's backslash escapes as printf %b reads them)
say() {
	printf '%b' "$2" >"$tmp/$1"
	seed "$tmp/$1"
}
# frame FILE...: the messages (one JSON object a line) as a client sends them, Content-Length framed
frame() {
	python3 - "$@" <<'EOF'
import sys
for path in sys.argv[1:]:
    msgs = open(path, encoding="utf-8").read().splitlines()
    out = b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(m.encode()), m.encode()) for m in msgs if m)
    open(path, "wb").write(out)
EOF
}

if [ -z "$(ls -A "$corpus")" ]; then
	case $name in
	lint)
		seed_found fixtures \( -name '*.yaml' -o -name '*.yml' -o -name '*.sh' -o -name '*.env' \) ;;
	py)
		seed_found fixtures -name '*.py' ;;
	src)
		# not CG920's macro bombs: they exist to run past the worker's limits, which the
		# in-process target has not (libFuzzer's -timeout and -rss_limit_mb would call them hangs)
		seed_found fixtures/source \( -name '*.cu' -o -name '*.cuh' -o -name '*.c' -o -name '*.cpp' -o -name '*.h' \) \
			! -name 'CG920-*' ;;
	proj)
		seed_found fixtures \( -name '.cglint.yaml' -o -name '.cglint.yml' \)
		say inherit 'inherit: true\nselect: [CG1, team-no-local-graphs]\nignore: [CG104]\nrules: [policy.yaml]\n'
		say perpath 'target:\n  mcore: "0.18"\n  gpu: sm_100\nper-path:\n  - paths: ["legacy/**", "*.py"]\n    severity: {CG101: note}\n    target: {bridge: none}\n  - paths: ["deep/*/y.yaml"]\n    select: [ALL]\nexclude: ["vendor/**", "src"]\n'
		say outside 'rules: [/etc/hostname, ../proj/policy.yaml]\nseverity: {TEAM001: error, CG201: warning}\n' ;;
	baseline)
		say empty '{"version": 1, "tool": "cglint", "findings": []}\n'
		say some '{"version": 1, "tool": "cglint", "findings": [\n  {"path": "a.yaml", "rule": "CG101", "fingerprint": "0123456789abcdef", "message": "m"},\n  {"path": "a.yaml", "rule": "CG101", "fingerprint": "0123456789abcdef", "message": "m"},\n  {"path": "sub/b.sh", "rule": "CG104", "fingerprint": "fedcba9876543210", "message": ""},\n  {"path": "../outside.yaml", "rule": "CG201", "fingerprint": "00000000deadbeef", "message": "x"}]}\n'
		say bad '{"version": 2, "findings": [{"path": 1}]}' ;;
	pack)
		seed rules/*.yaml
		seed_found fixtures -name '*.yaml' -exec grep -q '^pack:' {} \; ;;
	expr)
		python3 - "$corpus" rules/*.yaml <<'EOF'
import hashlib, sys, yaml
def walk(n):
    if isinstance(n, dict):
        for k, v in n.items():
            if k == "when" and isinstance(v, str):
                yield v
            yield from walk(v)
    elif isinstance(n, list):
        for v in n:
            yield from walk(v)
for path in sys.argv[2:]:
    for w in walk(yaml.safe_load(open(path, encoding="utf-8"))):
        open("%s/%s" % (sys.argv[1], hashlib.sha1(w.encode()).hexdigest()), "w").write(w)
EOF
		say funcs 'len(split(env.NCCL_ALGO, ",")) >= 2 and type(model.num_layers) == "int" and not is_list(model.x) or default(model.y) in [1, 2.5, "a", null, true]\n'
		say more 'given(model.a) and known(model.b) and enum_form(model.c) or pylist(model.cuda_graph_scope) != raw(model.cuda_graph_scope) and with(model.d, 3) < 0x10\n' ;;
	lsp)
		python3 - "$tmp" fixtures/config/*.yaml fixtures/python/*.py <<'EOF'
import json, sys
tmp, files = sys.argv[1], sys.argv[2:]
def m(method, params=None, id=None):
    d = {"jsonrpc": "2.0", "method": method}
    if id is not None:
        d["id"] = id
    if params is not None:
        d["params"] = params
    return json.dumps(d)
for n, path in enumerate(files[::6]):
    uri = "file:///fuzz/" + path.split("/")[-1]
    text = open(path, encoding="utf-8", errors="replace").read()
    lines = [
        m("initialize", {"processId": None, "rootUri": None, "capabilities": {}}, 1),
        m("initialized", {}),
        m("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}),
        m("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 4}}, 2),
        m("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0},
          "end": {"line": 3, "character": 0}}, "context": {"diagnostics": []}}, 3),
        m("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
          "contentChanges": [{"text": text[: len(text) // 2]}]}),
        m("textDocument/didClose", {"textDocument": {"uri": uri}}),
        m("shutdown", None, 4),
        m("exit"),
    ]
    open("%s/lsp%d" % (tmp, n), "w").write("\n".join(lines) + "\n")
EOF
		frame "$tmp"/lsp*
		seed "$tmp"/lsp*
		say headers 'Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}Content-Length: x\r\n\r\nContent-Length: 99999999999\r\n\r\nContent-Length: 5\r\n\r\n[1,2]' ;;
	cdb)
		seed fixtures/source/*/compile_commands.json
		say arguments '[{"directory": ".", "arguments": ["nvcc", "-DX=1", "-I", "inc", "--options-file", "flags.rsp", "-c", "a.cu"], "file": "a.cu"},\n {"directory": "src", "command": "g++ -std=gnu++20 -include pre.h -Xcompiler=-DH,-fPIC @../flags.rsp -c k.cpp", "file": "k.cpp", "output": "k.o"}]\n'
		say command '[{"directory": "/", "command": "clang++ \\"-DQ=a b\\" -isystem /opt -optf flags.rsp,flags.rsp k.cu", "file": "/nonexistent/k.cu"}]\n' ;;
	*)
		echo "one.sh: no seeds for a target named '$name'" >&2
		exit 2 ;;
	esac
fi

limits="-rss_limit_mb=2048 -timeout=60"
[ "$name" = src ] && limits="-rss_limit_mb=4096 -timeout=120 -max_len=16384"
art=${CGLINT_FUZZ_ARTIFACTS:-$(dirname "$exe")/fuzz-artifacts/$name}
mkdir -p "$art"
# stderr of the code under test is closed (-close_fd_mask=2: the server's and the scanner's
# warnings); libFuzzer and the sanitizers still report there
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && command -v llvm-symbolizer >/dev/null; then
	ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer)
	export ASAN_SYMBOLIZER_PATH
fi
# shellcheck disable=SC2086
"$exe" $limits -detect_leaks=1 -close_fd_mask=2 -print_final_stats=1 -artifact_prefix="$art/" "$@" "$corpus" </dev/null

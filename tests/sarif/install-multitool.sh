#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs Microsoft's SARIF validator, Sarif.Multitool (npm @microsoft/sarif-multitool-linux, a
# self-contained .NET program), into tests/sarif/node_modules for the sarif-validate test. Safe to
# run again: it does nothing when that version is already there. Needs npm and the network.
set -eu
cd "$(dirname "$0")"
version=5.7.0
pkg=node_modules/@microsoft/sarif-multitool-linux
tool=$pkg/Sarif.Multitool
if [ -x "$tool" ] && grep -q "\"version\": \"$version\"" "$pkg/package.json" 2>/dev/null; then
	exit 0
fi
if ! command -v npm >/dev/null; then
	echo "install-multitool.sh: npm is missing (Debian: apt-get install npm)" >&2
	exit 1
fi
# --ignore-scripts: the package's one script is the chmod below
npm install --prefix . --no-save --no-package-lock --no-audit --no-fund --ignore-scripts --loglevel=error \
	"@microsoft/sarif-multitool-linux@$version"
chmod u+x "$tool"
DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 "$tool" --version

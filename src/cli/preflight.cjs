"use strict";
/**
 * The first thing `npm start`, `npm run load` and `npm run keys` run (package.json): is this the
 * Node.js that package.json "engines" asks for, and does the native module (better-sqlite3) load
 * in it? Either failing ends here, in one line that says what to do, before anything fails with a
 * stack: the ESM loader, tsx, the bundle, or the native module built for the Node.js that ran
 * `npm install` (after a switch of versions).
 *
 * Plain CommonJS in the syntax of old Node.js releases, and no dependency: it must run on the
 * Node.js it refuses. test/cli/preflight.test.ts runs it with a faked version and a faked failure.
 */
// Bare names: require("node:fs") needs Node.js 14.18 or 16, and this must run on older ones too.
// biome-ignore lint/style/useNodejsImportProtocol: see above
const fs = require("fs");
// biome-ignore lint/style/useNodejsImportProtocol: see above
const path = require("path");

/** A version's numbers: "v20.19.0" → [20, 19, 0], "22.15" → [22, 15, 0]. */
function numbers(version) {
  const parts = String(version).replace(/^v/, "").split(".");
  return [0, 1, 2].map((i) => Number.parseInt(parts[i] || "0", 10) || 0);
}

function atLeast(version, minimum) {
  const a = numbers(version);
  const b = numbers(minimum);
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return true;
}

/**
 * What is wrong with running on Node.js `version` when package.json's engines.node is `engines`
 * (">=22.15"): one line naming the version needed and how to get it, or null.
 */
function versionProblem(version, engines) {
  const m = /^>=\s*v?(\d+(?:\.\d+){0,2})$/.exec(String(engines).trim());
  if (!m) throw new Error(`package.json engines.node must read ">=<version>"; it reads "${engines}"`);
  if (atLeast(version, m[1])) return null;
  const major = numbers(m[1])[0];
  return `storegraph needs Node.js ${m[1]} or newer, and this is Node.js ${String(version).replace(/^v/, "")}: install Node.js ${major} (nvm install ${major}, or without a version manager as README.md "Requirements" shows), then run this again`;
}

/**
 * What a failure to load better-sqlite3 means, in one line, or null for a failure of another kind
 * (thrown on: a stack is then the most useful answer).
 */
function nativeProblem(error) {
  // Object(): whatever was thrown (no ?.: Node.js 14 has it, older ones do not).
  const code = Object(error).code;
  const message = String(Object(error).message || "");
  if (code === "MODULE_NOT_FOUND" && message.includes("better-sqlite3")) {
    return "better-sqlite3 is not installed: run npm install";
  }
  const versions = /NODE_MODULE_VERSION (\d+)[\s\S]*NODE_MODULE_VERSION (\d+)/.exec(message);
  if (versions) {
    return `better-sqlite3 was built for another Node.js (module version ${versions[1]}; this Node.js ${process.versions.node} needs ${versions[2]}): run npm rebuild better-sqlite3`;
  }
  if (code === "ERR_DLOPEN_FAILED") {
    const first = message.split("\n")[0];
    return `better-sqlite3's native module does not load in this Node.js (${first}): run npm rebuild better-sqlite3`;
  }
  return null;
}

/** Opens an in-memory database: the native module loads, or this says why not. */
function sqliteProblem() {
  try {
    const Database = require("better-sqlite3");
    new Database(":memory:").close();
    return null;
  } catch (error) {
    const problem = nativeProblem(error);
    if (problem === null) throw error;
    return problem;
  }
}

function main() {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
  const problem = versionProblem(process.versions.node, pkg.engines.node) || sqliteProblem();
  if (problem !== null) {
    console.error(problem);
    process.exit(1);
  }
}

module.exports = { versionProblem, nativeProblem };

if (require.main === module) main();

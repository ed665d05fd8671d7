import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/api.ts";

/**
 * The preflight (src/cli/preflight.cjs) that `npm start`, `npm run load` and `npm run keys` run
 * first: on a Node.js older than package.json "engines", or with a better-sqlite3 built for
 * another Node.js, each ends in one line that says what to do, never a stack. The suite runs on a
 * supported Node.js, so the old one is faked: its version set before the script runs (`--import`
 * of a data: URL), and the native module's failure thrown where Node.js throws it (process.dlopen).
 */
const ROOT = join(import.meta.dirname, "../..");
const PREFLIGHT = join(ROOT, "src/cli/preflight.cjs");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  engines: { node: string };
  scripts: Record<string, string>;
};
const MINIMUM = pkg.engines.node.replace(/^>=\s*/, "");
const MAJOR = MINIMUM.split(".")[0];

const { versionProblem, nativeProblem } = createRequire(import.meta.url)(PREFLIGHT) as {
  versionProblem: (version: string, engines: string) => string | null;
  nativeProblem: (error: unknown) => string | null;
};

/** Code run before the script (node --import), as a data: URL. */
const before = (code: string) => `--import=data:text/javascript,${encodeURIComponent(code)}`;
const nodeVersion = (version: string) =>
  before(`Object.defineProperty(process.versions, "node", { value: ${JSON.stringify(version)} });`);

/** What Node.js throws on loading an addon built for another Node.js (ERR_DLOPEN_FAILED). */
const ABI_MISMATCH = [
  `The module '${join(ROOT, "node_modules/better-sqlite3/build/Release/better_sqlite3.node")}'`,
  "was compiled against a different Node.js version using",
  `NODE_MODULE_VERSION 115. This version of Node.js requires`,
  `NODE_MODULE_VERSION ${process.versions.modules}. Please try re-compiling or re-installing`,
  "the module (for instance, using `npm rebuild` or `npm install`).",
].join("\n");
const dlopenFails = (message: string) =>
  before(
    `process.dlopen = () => { const e = new Error(${JSON.stringify(message)}); e.code = "ERR_DLOPEN_FAILED"; throw e; };`,
  );

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve) =>
    execFile(file, args, { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
    ),
  );
}

/** The one line a refusal prints: nothing else on stderr, and no stack. */
function oneLine(r: Run): string {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr.trimEnd().split("\n"), r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return r.stderr.trimEnd();
}

describe("the Node.js version", () => {
  it.each([
    "20.19.0",
    "18.20.8",
    "v16.0.0",
    `${MAJOR}.0.0`,
    `${MAJOR}.${Number(MINIMUM.split(".")[1]) - 1}.9`,
  ])("%s is refused, naming the version needed and how to get it", (version) => {
    const problem = versionProblem(version, pkg.engines.node);
    expect(problem).toBe(
      `storegraph needs Node.js ${MINIMUM} or newer, and this is Node.js ${version.replace(/^v/, "")}: install Node.js ${MAJOR} (nvm install ${MAJOR}, or without a version manager as README.md "Requirements" shows), then run this again`,
    );
  });

  it.each([
    MINIMUM,
    `${MINIMUM}.0`,
    `${MAJOR}.99.0`,
    `${Number(MAJOR) + 1}.0.0`,
    "100.0.0",
    process.versions.node,
  ])("%s passes", (version) => {
    expect(versionProblem(version, pkg.engines.node)).toBeNull();
  });

  it("engines.node must be a minimum the preflight reads", () => {
    expect(() => versionProblem("22.15.0", "^22")).toThrow(/engines.node must read ">=<version>"/);
  });

  it("the script passes silently on this Node.js, with its better-sqlite3", async () => {
    expect(await run(process.execPath, [PREFLIGHT])).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("the script refuses an older Node.js in one line, before loading anything", async () => {
    const line = oneLine(await run(process.execPath, [nodeVersion("20.19.0"), PREFLIGHT]));
    expect(line).toBe(versionProblem("20.19.0", pkg.engines.node));
  });
});

describe("better-sqlite3 built for another Node.js", () => {
  it("is explained in one line with the command that fixes it", async () => {
    const line = oneLine(await run(process.execPath, [dlopenFails(ABI_MISMATCH), PREFLIGHT]));
    expect(line).toBe(
      `better-sqlite3 was built for another Node.js (module version 115; this Node.js ${process.versions.node} needs ${process.versions.modules}): run npm rebuild better-sqlite3`,
    );
  });

  it("another failure to load it says so in one line, with Node.js's first line", async () => {
    const line = oneLine(
      await run(process.execPath, [dlopenFails("/x/better_sqlite3.node: invalid ELF header"), PREFLIGHT]),
    );
    expect(line).toBe(
      "better-sqlite3's native module does not load in this Node.js (/x/better_sqlite3.node: invalid ELF header): run npm rebuild better-sqlite3",
    );
  });

  it("a missing install says to install; an error of another kind is not explained away", () => {
    const missing = Object.assign(new Error("Cannot find module 'better-sqlite3'\nRequire stack: …"), {
      code: "MODULE_NOT_FOUND",
    });
    expect(nativeProblem(missing)).toBe("better-sqlite3 is not installed: run npm install");
    const other = Object.assign(new Error("Cannot find module 'bindings'"), { code: "MODULE_NOT_FOUND" });
    expect(nativeProblem(other)).toBeNull();
    expect(nativeProblem(new Error("SQLITE_CANTOPEN"))).toBeNull();
    expect(nativeProblem(undefined)).toBeNull();
  });
});

describe("npm start, npm run load and npm run keys run it first", () => {
  const tmp = tempDir("storegraph-preflight-");
  afterAll(() => tmp.remove());

  it.each(["prestart", "load", "keys"])("the %s script begins with it", (script) => {
    expect(pkg.scripts[script]).toMatch(/^node src\/cli\/preflight\.cjs && /);
  });

  it.each([
    ["start", ["start"]],
    ["load", ["run", "load", "--", "/nowhere"]],
    ["keys", ["run", "keys", "--", "list"]],
  ])("npm %s on an older Node.js ends in the one line, and nothing else runs", async (name, args) => {
    const dataDir = join(tmp.dir, `data-${name}`);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // Every node npm runs, npm's own included, sees the old version.
      NODE_OPTIONS: nodeVersion("20.19.0"),
      DATA_DIR: dataDir,
    };
    delete env.DATABASE_URL;
    const r = await run(process.platform === "win32" ? "npm.cmd" : "npm", args, env);
    expect(r.code).not.toBe(0);
    // The line, first; npm may add lines of its own (npm error …) after it, but no stack.
    expect(r.stderr.split("\n")[0]).toBe(versionProblem("20.19.0", pkg.engines.node));
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // npm start's build never ran, nor did anything touch the data directory.
    expect(r.stdout).not.toMatch(/> storegraph@\S+ build/);
    expect(existsSync(dataDir)).toBe(false);
  });
});

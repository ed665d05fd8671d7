import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * npm run mcp's first step (src/cli/build-if-stale.mjs): with the bundle as current as its
 * sources (the tests' global setup built it), it builds nothing and writes nothing, so that an MCP
 * client's start costs the server's own start alone, and a read-only checkout serves.
 */
const ROOT = join(import.meta.dirname, "../..");
const BUNDLES = ["dist/mcp-stdio.js", "dist/export-worker.js", "dist/sqlite-read-thread.js"];

describe("npm run mcp's build step", () => {
  it("builds nothing when the bundle is newer than every source", () => {
    const before = BUNDLES.map((f) => statSync(join(ROOT, f)).mtimeMs);
    const run = spawnSync(process.execPath, ["src/cli/build-if-stale.mjs"], { cwd: ROOT, encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe("");
    expect(BUNDLES.map((f) => statSync(join(ROOT, f)).mtimeMs)).toEqual(before);
  });
});

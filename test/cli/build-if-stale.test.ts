import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/api.ts";

/**
 * npm run mcp's first step (src/cli/build-if-stale.mjs): with the bundle as current as its
 * sources, it builds nothing and writes nothing, so that an MCP client's start costs the server's
 * own start alone and a read-only checkout serves; with a source newer than the bundle, it builds,
 * its output kept off stdout (which carries the protocol afterwards).
 */
const ROOT = join(import.meta.dirname, "../..");
const BUNDLES = ["dist/mcp-stdio.js", "dist/export-worker.js", "dist/sqlite-read-thread.js"];
const run = (cwd: string) =>
  spawnSync(process.execPath, ["src/cli/build-if-stale.mjs"], { cwd, encoding: "utf8" });

describe("npm run mcp's build step", () => {
  it("builds nothing when the bundle is newer than every source", () => {
    const before = BUNDLES.map((f) => statSync(join(ROOT, f)).mtimeMs);
    const r = run(ROOT);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    expect(BUNDLES.map((f) => statSync(join(ROOT, f)).mtimeMs)).toEqual(before);
  });

  it("builds when a source is newer than the bundle, writing only to stderr", () => {
    // A checkout of its own: the script, a source, and a build that says it ran (on stdout too).
    const tmp = tempDir("storegraph-build-if-stale-");
    try {
      const dir = tmp.dir;
      mkdirSync(join(dir, "src/cli"), { recursive: true });
      mkdirSync(join(dir, "dist"));
      copyFileSync(join(ROOT, "src/cli/build-if-stale.mjs"), join(dir, "src/cli/build-if-stale.mjs"));
      writeFileSync(
        join(dir, "package.json"),
        JSON.stringify({
          scripts: { build: `node -e "require('fs').writeFileSync('dist/built','1');console.log('built')"` },
        }),
      );
      for (const f of BUNDLES) writeFileSync(join(dir, f), "");
      writeFileSync(join(dir, "src/app.ts"), "");
      const old = new Date(Date.now() - 60_000);
      for (const f of BUNDLES) utimesSync(join(dir, f), old, old);
      const r = run(dir);
      expect(r.status, r.stderr).toBe(0);
      expect(existsSync(join(dir, "dist/built"))).toBe(true);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("built");
      expect(readFileSync(join(dir, "dist/built"), "utf8")).toBe("1");
    } finally {
      tmp.remove();
    }
  });
});

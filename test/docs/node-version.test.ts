import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { expect, it } from "vitest";

/**
 * The Node.js the docs name is the one package.json "engines" asks for: a version the README and
 * docs/ name (`Node.js 22.15`, `Node 22.23.3`) is never older than its minimum, and each example's
 * own package.json asks for the same. The minimum is compared as the preflight compares it
 * (src/cli/preflight.cjs), which `npm start` runs first.
 */
const ROOT = join(import.meta.dirname, "../..");
const engines = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { engines?: { node?: string } }).engines
    ?.node;
const REQUIRED = engines(ROOT) ?? "";
const { versionProblem } = createRequire(import.meta.url)(join(ROOT, "src/cli/preflight.cjs")) as {
  versionProblem: (version: string, engines: string) => string | null;
};

/** Files under `dir` (relative to the root) whose name passes `keep`, node_modules left out. */
function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return (readdirSync(join(ROOT, dir), { recursive: true }) as string[])
    .filter((f) => !f.split("/").includes("node_modules") && keep(f))
    .map((f) => join(dir, f));
}

it("every Node.js version the docs name is one package.json engines allows", () => {
  expect(REQUIRED).toMatch(/^>=/);
  const docs = ["README.md", ...filesUnder("docs", (f) => f.endsWith(".md"))];
  const older = docs.flatMap((doc) =>
    [...readFileSync(join(ROOT, doc), "utf8").matchAll(/\bNode(?:\.js)? v?(\d+\.\d+(?:\.\d+)?)\b/g)]
      .filter((m) => versionProblem(m[1], REQUIRED) !== null)
      .map((m) => `${doc}: ${m[0]}`),
  );
  expect(older).toEqual([]);
});

it("each example asks for the repository's Node.js", () => {
  const examples = filesUnder("docs/examples", (f) => f.endsWith("package.json")).map((f) =>
    relative(ROOT, join(ROOT, f, "..")),
  );
  expect(examples.length).toBeGreaterThan(0);
  for (const dir of examples) expect(engines(join(ROOT, dir)), dir).toBe(REQUIRED);
});

import { execFile } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";

/**
 * `npm run lint` (biome check) fails on errors only: a warning or an info passes it and is then
 * printed by every later run, where nobody reads it any more. The lint is clean when Biome reports
 * nothing at all, and this holds it so.
 */
const ROOT = join(import.meta.dirname, "..");

interface BiomeReport {
  summary: { errors: number; warnings: number; infos: number };
  diagnostics: {
    severity: string;
    category: string;
    location?: { path?: string; start?: { line: number } };
  }[];
}

it("Biome reports nothing on the repository: no error, no warning, no info", async () => {
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(
      join(ROOT, "node_modules/.bin/biome"),
      ["check", "--reporter=json", "--max-diagnostics=none", "."],
      { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
      // It exits 1 on errors; the report is on stdout either way.
      (error, out) => (out ? resolve(out) : reject(error ?? new Error("biome printed nothing"))),
    ),
  );
  const report = JSON.parse(stdout) as BiomeReport;
  const found = report.diagnostics.map(
    (d) => `${d.location?.path ?? "?"}:${d.location?.start?.line ?? "?"} ${d.severity} ${d.category}`,
  );
  expect(found).toEqual([]);
  expect(report.summary).toMatchObject({ errors: 0, warnings: 0, infos: 0 });
});

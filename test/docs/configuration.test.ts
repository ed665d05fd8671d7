import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SERVER_USAGE } from "../../src/server-args.ts";

/**
 * docs/configuration.md names every variable src/config.ts reads, and each row of its tables says
 * what the setting does and why an operator would set it; the flags of the server are its usage's.
 */
const ROOT = join(import.meta.dirname, "../..");
const doc = readFileSync(join(ROOT, "docs/configuration.md"), "utf8");
const section = (heading: string) => {
  const from = doc.indexOf(`\n## ${heading}\n`);
  expect(from, heading).toBeGreaterThan(0);
  const to = doc.indexOf("\n## ", from + 1);
  return doc.slice(from, to < 0 ? undefined : to);
};

/** The variables of the environment that loadConfig parses (the keys of its zod object). */
const read = [
  ...readFileSync(join(ROOT, "src/config.ts"), "utf8")
    .split("\nconst Env = z.object({")[1]
    .split("\n});")[0]
    .matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm),
].map((m) => m[1]);

/** Table rows of a section: their cells. */
const rows = (text: string) =>
  text
    .split("\n")
    .filter((l) => /^\| `/.test(l))
    .map((l) =>
      l
        .slice(1, -1)
        .split(" | ")
        .map((c) => c.trim()),
    );

describe("docs/configuration.md", () => {
  it("names every variable the gateway reads, in at most 30 rows, each saying why one would set it", () => {
    expect(read.length).toBeGreaterThan(25);
    const settings = section("Environment variables");
    const table = rows(settings);
    const named = table.flatMap(([first]) => [...first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));
    // NODE_ENV is named where it acts (REQUIRE_HTTPS's default), STOREGRAPH_API_KEY beside the table
    // (npm run mcp's, not the gateway's).
    expect([...named, "NODE_ENV", "STOREGRAPH_API_KEY"].sort()).toEqual([...read].sort());
    for (const v of ["NODE_ENV", "STOREGRAPH_API_KEY"]) expect(settings).toContain(`\`${v}`);
    expect(table.length).toBeLessThanOrEqual(30);
    for (const cells of table) {
      expect(cells, cells[0]).toHaveLength(4);
      for (const c of cells) expect(c.length, cells[0]).toBeGreaterThan(0);
    }
  });

  it("lists the server's flags as its --help does", () => {
    const flags = rows(section("The server's flags")).flatMap(([first]) =>
      [...first.matchAll(/`(--[a-z-]+)/g)].map((m) => m[1]),
    );
    const usage = [...SERVER_USAGE.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]);
    expect(flags.sort()).toEqual(usage.sort());
  });
});

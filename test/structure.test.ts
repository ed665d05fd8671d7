import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The layout of src/ as docs/structure.md describes it, held by its imports: layers only point
 * down (export and feed → rest → schema → webhooks → query → db → codec, the dataset loader
 * beside them, over db), the export and feed layers are imported by top-level files only
 * (src/app.ts), no file imports itself back through others, and no file of src/ (but bench/ and
 * generated/, and those listed in LONG) grows past 400 lines.
 */
const SRC = resolve(import.meta.dirname, "..", "src");

const files = (readdirSync(SRC, { recursive: true }) as string[])
  .filter((f) => f.endsWith(".ts") && !f.startsWith("generated") && !f.split("/").includes("node_modules"))
  .map((f) => join(SRC, f));

/** The src/ files a file imports (static and dynamic imports, and re-exports). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((m) => m[1]);
  return specifiers
    .map((s) => resolve(dirname(file), s))
    .filter((target) => target.startsWith(SRC) && !relative(SRC, target).startsWith("generated"));
}

const graph = new Map(files.map((f) => [f, importsOf(f)]));
const name = (f: string) => relative(SRC, f);

/** Each layer, and the layers it may import. */
const LAYERS: Record<string, readonly string[]> = {
  export: ["rest", "schema", "webhooks", "query", "db", "dataset", "codec"],
  mcp: ["rest", "schema", "webhooks", "query", "db", "dataset", "codec"],
  feed: ["rest", "schema", "webhooks", "query", "db", "dataset", "codec"],
  rest: ["schema", "webhooks", "query", "db", "dataset", "codec"],
  schema: ["webhooks", "query", "db", "dataset", "codec"],
  webhooks: ["query", "db", "codec"],
  query: ["db", "dataset", "codec"],
  dataset: ["db", "codec"],
  db: ["codec"],
  codec: [],
};
/**
 * Files of src/ known to be over 400 lines, each to be split by concept (issue 71, item 4) and
 * then taken off this list.
 */
const LONG = new Set<string>([]);

const layerOf = (f: string) => {
  const top = name(f).split("/")[0];
  return top in LAYERS ? top : null;
};

describe("structure of src/", () => {
  it("every import resolves to a file", () => {
    const missing = [...graph].flatMap(([f, targets]) =>
      targets.filter((t) => !graph.has(t)).map((t) => `${name(f)} → ${name(t)}`),
    );
    expect(missing).toEqual([]);
  });

  it("layers only point down", () => {
    const up = [...graph].flatMap(([f, targets]) => {
      const from = layerOf(f);
      if (!from) return [];
      return targets
        .filter((t) => {
          const to = layerOf(t);
          return to !== null && to !== from && !LAYERS[from].includes(to);
        })
        .map((t) => `${name(f)} → ${name(t)}`);
    });
    expect(up).toEqual([]);
  });

  it("only top-level files import src/export and src/feed (src/app.ts wires them in)", () => {
    const top = (f: string) => name(f).split("/")[0];
    const importers = [...graph].flatMap(([f, targets]) => {
      const from = name(f);
      if (!from.includes("/")) return [];
      return targets
        .filter((t) => (top(t) === "export" || top(t) === "feed") && top(t) !== top(f))
        .map((t) => `${from} → ${name(t)}`);
    });
    expect(importers).toEqual([]);
  });

  it("no import circles", () => {
    const state = new Map<string, "open" | "done">();
    const circles: string[] = [];
    const visit = (f: string, path: string[]) => {
      if (state.get(f) === "done") return;
      if (state.get(f) === "open") {
        circles.push([...path.slice(path.indexOf(f)), f].map(name).join(" → "));
        return;
      }
      state.set(f, "open");
      for (const t of graph.get(f) ?? []) visit(t, [...path, f]);
      state.set(f, "done");
    };
    for (const f of files) visit(f, []);
    expect(circles).toEqual([]);
  });

  it("no file of src/ is over 400 lines (src/bench/ and src/generated/ aside)", () => {
    const long = files
      .filter((f) => !["bench", "generated"].includes(name(f).split("/")[0]))
      .filter((f) => !LONG.has(name(f)))
      .map((f) => [name(f), readFileSync(f, "utf8").split("\n").length - 1] as const)
      .filter(([, lines]) => lines > 400);
    expect(long).toEqual([]);
  });

  it("each known long file is still over 400 lines (split, it leaves LONG)", () => {
    const split = [...LONG].filter((f) => readFileSync(join(SRC, f), "utf8").split("\n").length - 1 <= 400);
    expect(split).toEqual([]);
  });

  it("one module answers index or SQL: only the sets of Domains and Apps ask whether an index answers", () => {
    // What a reader's indexes are, and what a `where` is over them (src/db/), is asked by the set of
    // Domains (src/query/domain-set.ts) and the set of Apps (src/query/app-set.ts) alone: every other
    // consumer of a list asks its set. src/db/ itself builds, loads and warms them.
    const asks =
      /\b(countIndexOf|whereBitmapOf|localWhereBitmapOf|appIndexed|appCountIndexOf|appWhereBitmapOf|appCountOf|appValuesOf|unindexed)\b/;
    const askers = files
      .filter((f) => !["db", "bench"].includes(name(f).split("/")[0]))
      .filter((f) => !["query/domain-set.ts", "query/app-set.ts"].includes(name(f)))
      .filter((f) => asks.test(readFileSync(f, "utf8")))
      .map(name);
    expect(askers).toEqual([]);
  });

  it("one way into execution: only src/schema/execute.ts compiles or executes an operation", () => {
    const doors = files
      .filter((f) => name(f) !== "schema/execute.ts")
      .filter((f) => {
        const text = readFileSync(f, "utf8");
        return (
          /from\s+"(graphql-jit|@envelop\/graphql-jit|@envelop\/core)"/.test(text) ||
          /import\s*\{[^}]*\b(execute|executeSync|subscribe)\b[^}]*\}\s*from\s*"graphql"/.test(text)
        );
      })
      .map(name);
    expect(doors).toEqual([]);
  });
});

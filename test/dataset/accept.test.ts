import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { generateDataset } from "../../src/dataset/generate.ts";
import { compileAccept } from "../../src/dataset/load/accept.ts";
import { prepareLine, SCHEMAS } from "../../src/dataset/load/validate.ts";

// The loader accepts a line by a compiled check (src/dataset/load/accept.ts) and asks zod only of
// the lines it does not accept. That is right only if the check never accepts what zod refuses,
// and an accepted record is what zod would have returned: both are checked here on generated
// records and on records broken at random places in random ways. The check should also accept
// what zod accepts (or every line would cost both), which is checked too.

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Kind = keyof typeof SCHEMAS;

let dir: string;
const records: Record<Kind, Json[]> = { apps: [], domains: [], reviews: [] };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "accept-"));
  await generateDataset({ domains: 300, apps: 30, seed: 7, outDir: dir });
  for (const kind of Object.keys(records) as Kind[]) {
    records[kind] = readFileSync(join(dir, `${kind}.jsonl`), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every place in a value: the path to each key and item. */
function placesOf(value: Json, path: (string | number)[] = [], out: (string | number)[][] = []) {
  if (Array.isArray(value))
    value.forEach((v, i) => {
      out.push([...path, i]);
      placesOf(v, [...path, i], out);
    });
  else if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      out.push([...path, k]);
      placesOf(v, [...path, k], out);
    }
  return out;
}

/** Values that break a field in the ways lines do break: types, blanks, bounds, forms. */
const REPLACEMENTS: Json[] = [
  null,
  true,
  0,
  -1,
  1.5,
  101,
  6,
  1e300,
  -9007199254740992,
  2 ** 53,
  "",
  " ",
  "x",
  "X Y",
  "a/b",
  "HTTP://EXAMPLE.COM/x",
  "http://example",
  "Shop.Example.com",
  "shop.example.com",
  "2024-02-30",
  "2024-02-30T10:00:00",
  "2024-01-01T10:00:00Z",
  "2024-13-01T10:00:00+01:00",
  "1999-01-01",
  "DE",
  "de",
  "EUR",
  "shopify",
  "wix",
  "Inactive",
  "Redirect",
  "Active",
  "168h0m0s",
  "4.7",
  "5.5",
  "a@b.co",
  [],
  [""],
  ["a", "a"],
  {},
  { extra: 1 },
];

function edit(
  value: Json,
  path: (string | number)[],
  change: (parent: Json[] | Record<string, Json>, key: string | number) => void,
): Json {
  const copy = structuredClone(value);
  let parent = copy as Json[] | Record<string, Json>;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string, Json>)[key] as Record<string, Json>;
  change(parent, path[path.length - 1]);
  return copy;
}

/** A generated record broken at one to three random places. */
const broken = (kind: Kind) =>
  fc
    .tuple(
      fc.nat(),
      fc.array(fc.tuple(fc.nat(), fc.nat({ max: REPLACEMENTS.length + 2 })), { minLength: 1, maxLength: 3 }),
    )
    .map(([which, edits]) => {
      let record = records[kind][which % records[kind].length];
      for (const [at, how] of edits) {
        const places = placesOf(record);
        const path = places[at % places.length] ?? ["extra_field"];
        record = edit(record, path, (parent, key) => {
          // What JSON can say: an item is taken out of a list or repeated in it, a key is dropped or added.
          if (Array.isArray(parent) && how === REPLACEMENTS.length) parent.splice(Number(key), 1);
          else if (Array.isArray(parent) && how === REPLACEMENTS.length + 1)
            parent.push(structuredClone(parent[Number(key)]));
          else if (how === REPLACEMENTS.length) delete (parent as Record<string, Json>)[key];
          else if (how === REPLACEMENTS.length + 1) (parent as Record<string, Json>).unknown_key = 1;
          else if (how === REPLACEMENTS.length + 2)
            (parent as Record<string, Json>)[key] = structuredClone(record);
          else (parent as Record<string, Json>)[key] = REPLACEMENTS[how];
        });
      }
      return record;
    });

const compiled = new Map<Kind, ReturnType<typeof compileAccept>>();

/** Both checks give the same answer on `record` (an accepted one is zod's output): zod's answer. */
function agree(kind: Kind, record: Json): boolean {
  if (!compiled.has(kind)) compiled.set(kind, compileAccept(SCHEMAS[kind]));
  const accept = compiled.get(kind);
  const parsed = SCHEMAS[kind].safeParse(record);
  expect(accept).not.toBeNull();
  expect({ accepted: accept?.(record), zod: parsed.success }).toEqual({
    accepted: parsed.success,
    zod: parsed.success,
  });
  if (parsed.success) expect(record).toStrictEqual(parsed.data);
  return parsed.success;
}

describe("the compiled check of a record and zod's", () => {
  for (const kind of Object.keys(records) as Kind[]) {
    it(`agree on every generated ${kind} record, and the record is zod's output`, () => {
      expect(records[kind].length).toBeGreaterThan(10);
      for (const record of records[kind]) agree(kind, record);
    });

    it(`agree on ${kind} records broken at random places`, () => {
      let refused = 0;
      fc.assert(
        fc.property(broken(kind), (record) => {
          if (!agree(kind, record)) refused++;
        }),
        {
          numRuns: Number(process.env.RUNS ?? 600),
          ...(process.env.SEED ? { seed: Number(process.env.SEED) } : {}),
        },
      );
      // The breaks break: most edited records are refused, so the check is asked real questions.
      expect(refused).toBeGreaterThan(200);
    });
  }

  it("leaves zod to say what is wrong with a line it does not accept", () => {
    const record = structuredClone(records.domains[0]) as Record<string, Json>;
    record.rank = 0;
    const prepared = prepareLine("domains", { line: 7, text: JSON.stringify(record) });
    expect(prepared).toMatchObject({ line: 7, problems: ["rank: must be an integer ≥ 1"] });
  });

  it("is not made where zod's JSON Schema cannot say the record (zod then checks every line)", () => {
    expect(compileAccept(z.strictObject({ at: z.string().transform((s) => s.length) }))).toBeNull();
    expect(compileAccept(z.strictObject({ at: z.date() }))).toBeNull();
  });
});

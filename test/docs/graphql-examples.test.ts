import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type DefinitionNode, type DocumentNode, Kind, parse, validate } from "graphql";
import { expect, it } from "vitest";
import { schema } from "../../src/schema/index.ts";

/**
 * Each ```graphql block of docs/graphql.md is one or more complete operations, as a client sends
 * them: it parses as a document, and each of its operations (with the block's fragments) is valid
 * against the schema, its variables declared. A field selection alone (`domains(...) { ... }`) or
 * a variable no operation declares is neither.
 */
const ROOT = join(import.meta.dirname, "../..");
const FILE = "docs/graphql.md";

function blocks(): { line: number; text: string }[] {
  const lines = readFileSync(join(ROOT, FILE), "utf8").split("\n");
  const out: { line: number; text: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== "```graphql") continue;
    const start = i + 1;
    while (++i < lines.length && !lines[i].startsWith("```"));
    out.push({ line: start + 1, text: lines.slice(start, i).join("\n") });
  }
  return out;
}

it(`every graphql block of ${FILE} is complete operations, valid against the schema`, () => {
  const all = blocks();
  expect(all.length).toBeGreaterThanOrEqual(5);
  const problems: string[] = [];
  for (const { line, text } of all) {
    let document: DocumentNode;
    try {
      document = parse(text);
    } catch (e) {
      problems.push(`${FILE}:${line}: ${(e as Error).message}`);
      continue;
    }
    const fragments = document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
    const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    if (operations.length === 0) problems.push(`${FILE}:${line}: no operation`);
    for (const operation of operations) {
      const one: DocumentNode = {
        kind: Kind.DOCUMENT,
        definitions: [operation, ...fragments] as DefinitionNode[],
      };
      for (const error of validate(schema, one)) problems.push(`${FILE}:${line}: ${error.message}`);
    }
  }
  expect(problems).toEqual([]);
});

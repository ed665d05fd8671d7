import { readFileSync, writeFileSync } from "node:fs";
import { printSchemaWithDirectives } from "@graphql-tools/utils";
import {
  buildSchema,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  isInputObjectType,
  lexicographicSortSchema,
} from "graphql";
import { expect, it } from "vitest";
import { schema } from "../src/schema/index.ts";

const file = new URL("../schema.graphql", import.meta.url);

// schema.graphql is committed for clients and reviewers. Locally a stale file is rewritten (and the
// diff shows up in git); in CI it only compares, so a forgotten update fails. Printed with the
// directives applied, so that clients see which fields are rate-limited (@rateLimit).
it("schema.graphql matches the schema built from code", () => {
  const printed = `${printSchemaWithDirectives(lexicographicSortSchema(schema))}\n`;
  if (!process.env.CI && readFileSync(file, "utf8") !== printed) writeFileSync(file, printed);
  expect(readFileSync(file, "utf8")).toBe(printed);
});

/** The input object types that hold themselves, at any depth. */
function recursiveInputTypes(s: GraphQLSchema): string[] {
  const reaches = (type: GraphQLInputType, onPath: Set<string>): boolean => {
    const named = getNamedType(type);
    if (!isInputObjectType(named)) return false;
    if (onPath.has(named.name)) return true;
    onPath.add(named.name);
    const found = Object.values(named.getFields()).some((f) => reaches(f.type, onPath));
    onPath.delete(named.name);
    return found;
  };
  return Object.values(s.getTypeMap())
    .filter(isInputObjectType)
    .filter((t) => reaches(t, new Set()))
    .map((t) => t.name);
}

// graphql-jit unfolds a variable's input type when it compiles an operation, and a recursive one
// without end (the process runs out of memory; zalando-incubator/graphql-jit#81): src/schema/execute.ts
// compiles every operation, so no input type may hold itself.
it("no input type holds itself, so every operation's variables compile", () => {
  const nested = buildSchema(`
    input A { b: B, x: Int }
    input B { a: [A!] }
    input C { x: Int }
    type Query { q(a: A, c: C): Int }
  `);
  expect(recursiveInputTypes(nested).sort()).toEqual(["A", "B"]);
  expect(recursiveInputTypes(schema)).toEqual([]);
});

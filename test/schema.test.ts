import { readFileSync, writeFileSync } from "node:fs";
import { printSchemaWithDirectives } from "@graphql-tools/utils";
import { lexicographicSortSchema } from "graphql";
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

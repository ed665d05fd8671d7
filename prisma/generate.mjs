// Generates both Prisma clients from the one model in prisma/schema.prisma:
// src/generated/sqlite (as written) and src/generated/postgresql (provider and output swapped),
// and src/generated/model.ts (the models' columns and the schema's hash, as data the code reads).
// `npm run generate` runs it after installing the Prisma CLI into prisma/tools (src/cli/tools.ts):
// the CLI is not part of the project's npm install, and what it generates is committed, so a
// clone runs and tests without it. test/db/generated.test.ts fails when schema.prisma changed
// and this was not run; CI runs it and fails on any difference from what is committed.
// The CLI cannot download its schema engine on machines without internet access, and generate
// does not need it, so PRISMA_SCHEMA_ENGINE_BINARY points at a harmless executable.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const tools = join(here, "tools");
if (!existsSync(join(tools, "node_modules", "prisma"))) {
  console.error("prisma/generate.mjs: the Prisma CLI is not installed; run `npm run generate`");
  process.exit(1);
}
const source = readFileSync(join(here, "schema.prisma"), "utf8");
const pgDir = join(here, ".generated");
mkdirSync(pgDir, { recursive: true });
const pg = source
  .replace('provider = "sqlite"', 'provider = "postgresql"')
  .replace('output       = "../src/generated/sqlite"', 'output       = "../../src/generated/postgresql"');
if (pg === source || !pg.includes("postgresql"))
  throw new Error("prisma/generate.mjs: could not derive the PostgreSQL schema");
// A Json field whose `///` comment says `@db.Json` is JSON on PostgreSQL, not JSONB (which stores
// an object's keys sorted): SQLite has no native types, so the attribute goes in the derived schema.
let jsonText = false;
const pgSchema = pg
  .split("\n")
  .map((line) => {
    if (/^\s*\/\/\//.test(line)) {
      jsonText ||= /@db\.Json\b/.test(line);
      return line;
    }
    if (!jsonText) return line;
    jsonText = false;
    if (!/^\s+\w+\s+Json\??\s*$/.test(line))
      throw new Error(
        `prisma/generate.mjs: @db.Json is documented above a line that is not a bare Json field: ${line}`,
      );
    return `${line.trimEnd()} @db.Json`;
  })
  .join("\n");
writeFileSync(
  join(pgDir, "postgresql.prisma"),
  `// GENERATED from prisma/schema.prisma by prisma/generate.mjs; do not edit.\n${pgSchema}`,
);

const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? "/bin/true",
  PRISMA_HIDE_UPDATE_MESSAGE: "1",
};
const prisma = join(tools, "node_modules", ".bin", "prisma");
const config = join(tools, "prisma.config.ts");
for (const schema of [join(here, "schema.prisma"), join(pgDir, "postgresql.prisma")]) {
  execFileSync(prisma, ["generate", "--config", config, "--schema", schema], {
    stdio: ["ignore", "inherit", "inherit"],
    env,
  });
}

// The scalar fields of each model, in model order, as data the code reads: the snapshot tables'
// columns (src/db/tables.ts) and the test that holds every column to the GraphQL schema. A field
// whose `///` comment says `@internal` is one the API does not serve.
const internals = createRequire(join(tools, "package.json"))("@prisma/internals");
const { datamodel } = await internals.getDMMF({ datamodel: source });
const models = Object.fromEntries(
  datamodel.models.map((m) => [
    m.name,
    {
      table: m.dbName ?? m.name,
      fields: m.fields
        .filter((f) => f.kind === "scalar")
        .map((f) => ({
          field: f.name,
          column: f.dbName ?? f.name,
          type: f.type,
          optional: !f.isRequired,
          internal: /@internal\b/.test(f.documentation ?? ""),
        })),
    },
  ]),
);
// What the drift test (test/db/drift.ts) compares the SQL migrations with: the DMMF's models and
// indexes, as much of them as it reads.
const drift = {
  models: datamodel.models.map((m) => ({
    name: m.name,
    dbName: m.dbName ?? null,
    fields: m.fields.map((f) => ({
      name: f.name,
      dbName: f.dbName ?? null,
      ...(f.documentation ? { documentation: f.documentation } : {}),
      kind: f.kind,
      type: f.type,
      isRequired: f.isRequired,
      ...(f.relationFromFields ? { relationFromFields: f.relationFromFields } : {}),
      ...(f.relationToFields ? { relationToFields: f.relationToFields } : {}),
      ...(f.relationOnDelete ? { relationOnDelete: f.relationOnDelete } : {}),
    })),
  })),
  indexes: datamodel.indexes.map((i) => ({
    model: i.model,
    type: i.type,
    fields: i.fields.map((f) => ({ name: f.name })),
  })),
};
const sha256 = createHash("sha256").update(source).digest("hex");
writeFileSync(
  join(here, "..", "src", "generated", "model.ts"),
  `// GENERATED from prisma/schema.prisma by prisma/generate.mjs; do not edit.
/** The SHA-256 of the prisma/schema.prisma this was generated from (test/db/generated.test.ts). */
export const SCHEMA_SHA256 = ${JSON.stringify(sha256)};
export const MODEL = ${JSON.stringify(models, null, 2)} as const;
/** The models and indexes as Prisma's DMMF gives them, as far as test/db/drift.ts reads them. */
export const DATAMODEL = ${JSON.stringify(drift, null, 2)};
`,
);

// Generates both Prisma clients from the one model in prisma/schema.prisma:
// src/generated/sqlite (as written) and src/generated/postgresql (provider and output swapped).
// The CLI cannot download its schema engine on machines without internet access, and generate
// does not need it, so PRISMA_SCHEMA_ENGINE_BINARY points at a harmless executable.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
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
const prisma = join(here, "..", "node_modules", ".bin", "prisma");
for (const schema of [join(here, "schema.prisma"), join(pgDir, "postgresql.prisma")]) {
  execFileSync(prisma, ["generate", "--schema", schema], { stdio: ["ignore", "inherit", "inherit"], env });
}

// The scalar fields of each model, in model order, as data the code reads: the snapshot tables'
// columns (src/db/tables.ts) and the test that holds every column to the GraphQL schema. A field
// whose `///` comment says `@internal` is one the API does not serve.
const { default: internals } = await import("@prisma/internals");
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
writeFileSync(
  join(here, "..", "src", "generated", "model.ts"),
  `// GENERATED from prisma/schema.prisma by prisma/generate.mjs; do not edit.\nexport const MODEL = ${JSON.stringify(models, null, 2)} as const;\n`,
);

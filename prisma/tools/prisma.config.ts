import { defineConfig } from "prisma/config";

// The Prisma CLI is used only for `prisma generate` (prisma/generate.mjs): migrations are plain SQL
// under prisma/migrations/<provider>/ applied by src/db/migrate.ts.
export default defineConfig({
  schema: "../schema.prisma",
});

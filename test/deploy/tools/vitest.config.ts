import { defineConfig } from "vitest/config";

// `npm run check:deploy`: the deployment files against their specifications, with this folder's tools.
export default defineConfig({
  test: { root: import.meta.dirname, include: ["*.check.ts"], testTimeout: 60_000 },
});

import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS and ESM builds; Pothos and yoga load one, tests importing "graphql"
    // would otherwise get the other ("Cannot use GraphQLScalarType from another module or realm").
    // The bare name only: a deep import (graphql/jsutils/suggestionList.js) resolves as it is.
    alias: [{ find: /^graphql$/, replacement: require.resolve("graphql") }],
  },
  test: {
    include: ["test/**/*.test.ts"],
    // Builds dist/server.js, which the tests that start a server process run (test/support); gives
    // the run a temporary directory of its own, and fails it on what a test leaves there.
    globalSetup: ["test/support/build.ts", "test/support/temp-dirs.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Suites create their own databases; two cores, so keep parallelism modest.
    maxWorkers: 2,
    // Not UTC, and not the machine's zone: a time read or written in the process's local zone
    // (a TIMESTAMP without zone taken as local time) fails here rather than only on other hosts.
    env: { TZ: "America/New_York" },
  },
});

import type { CodegenConfig } from "@graphql-codegen/cli";

// GraphQL Code Generator: types for the operations written with graphql(...) in src/, from the
// committed schema of the repository. `npm run generate` runs it (with openapi-typescript).
const config: CodegenConfig = {
  schema: "../../../schema.graphql",
  documents: ["src/**/*.ts", "!src/generated/**"],
  ignoreNoDocuments: false,
  // Imports between the generated files name them as src/ does (NodeNext, .ts).
  importExtension: ".ts",
  generates: {
    "src/generated/graphql/": {
      preset: "client",
      presetConfig: { fragmentMasking: false },
      config: {
        // Operations are sent as strings with fetch: no GraphQL client library at run time.
        documentMode: "string",
        useTypeImports: true,
        enumsAsTypes: true,
        // Every custom scalar of the schema, as JSON carries it; a new scalar fails generation.
        strictScalars: true,
        scalars: {
          Date: "string",
          DateTime: "string",
          LocalDateTime: "string",
          SafeInt: "number",
          Keywords: "string | string[]",
          StringMap: "Record<string, string>",
          JSON: "unknown",
        },
      },
    },
  },
};

export default config;

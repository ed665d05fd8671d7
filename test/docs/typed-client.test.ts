import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * docs/examples/typed-client calls the API through types generated from docs/openapi.json and
 * schema.graphql, and commits them. Here, with nothing installed: the committed types were made
 * from today's documents (the sha-256 that its `npm run generate` records). Once the example is
 * installed (its own node_modules: CI's .ci/typed-client installs it, regenerates and runs it), it
 * also compiles, type-checks.ts' refused mistakes included.
 */
const ROOT = resolve(import.meta.dirname, "../..");
const EXAMPLE = join(ROOT, "docs/examples/typed-client");
const REGENERATE =
  "npm ci --prefix docs/examples/typed-client && npm run --prefix docs/examples/typed-client generate";

/** As the example's stamp.mjs computes it: of the text with LF line ends. */
const sha256 = (path: string) =>
  createHash("sha256").update(readFileSync(path, "utf8").replaceAll("\r\n", "\n")).digest("hex");

describe("docs/examples/typed-client", () => {
  it("its committed types were generated from today's docs/openapi.json and schema.graphql", () => {
    const stamp = JSON.parse(readFileSync(join(EXAMPLE, "src/generated/sources.json"), "utf8")) as Record<
      string,
      string
    >;
    const sources = Object.keys(stamp).map((p) => relative(ROOT, resolve(EXAMPLE, p)));
    expect(sources.sort()).toEqual(["docs/openapi.json", "schema.graphql"]);
    // The generators read those same files.
    expect(JSON.parse(readFileSync(join(EXAMPLE, "package.json"), "utf8")).scripts.generate).toContain(
      "openapi-typescript ../../openapi.json",
    );
    expect(readFileSync(join(EXAMPLE, "codegen.ts"), "utf8")).toContain('schema: "../../../schema.graphql"');

    const now = Object.fromEntries(Object.keys(stamp).map((p) => [p, sha256(resolve(EXAMPLE, p))]));
    expect(now, `the API changed since the example's types were generated: run ${REGENERATE}`).toEqual(stamp);
  });

  it.skipIf(!existsSync(join(EXAMPLE, "node_modules")))(
    "compiles against its generated types (runs once the example is installed)",
    () => {
      const config = ts.readConfigFile(join(EXAMPLE, "tsconfig.json"), ts.sys.readFile);
      expect(config.error).toBeUndefined();
      const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, EXAMPLE);
      const names = parsed.fileNames.map((f) => relative(EXAMPLE, f));
      expect(names).toEqual(
        expect.arrayContaining([
          "src/example.ts",
          "src/type-checks.ts",
          "src/generated/openapi.ts",
          "src/generated/graphql/graphql.ts",
        ]),
      );
      const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
      const diagnostics = [...parsed.errors, ...ts.getPreEmitDiagnostics(program)];
      const text = ts.formatDiagnostics(diagnostics, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => EXAMPLE,
        getNewLine: () => "\n",
      });
      expect(text).toBe("");
    },
  );
});

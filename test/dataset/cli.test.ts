import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STEP_TITLES, STEPS } from "../../src/load-pipeline.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const COMMANDS = {
  load: "src/cli/load.ts",
  "generate-data": "src/cli/generate-data.ts",
  keys: "src/cli/keys.ts",
};

/** `npm run <command> -- <args>` against the test database. */
function cli(db: TestDatabase, command: keyof typeof COMMANDS, ...args: string[]): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: db.config.dataDir, LOG_LEVEL: "silent" };
  if (db.config.database.kind === "postgresql") env.DATABASE_URL = db.config.database.url;
  else delete env.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", COMMANDS[command], ...args],
      { cwd: join(import.meta.dirname, "../.."), env, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

const STACK = /\n\s+at /;

/** A test database of `kind` and a scratch directory, for the describe block that asks (dropped after it). */
function databaseAndScratch(kind: Parameters<typeof createTestDatabase>[0]) {
  const t = {
    db: undefined as unknown as TestDatabase,
    scratch: mkdtempSync(join(tmpdir(), "storegraph-cli-")),
  };
  beforeAll(async () => {
    t.db = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await t.db?.drop();
    rmSync(t.scratch, { recursive: true, force: true });
  });
  return t;
}

describe.each(databaseKinds())("the commands' usage on %s", (kind) => {
  const t = databaseAndScratch(kind);

  it.each([
    ["load", "--help"],
    ["load", "-h"],
    ["generate-data", "--help"],
    ["generate-data", "-h"],
    ["keys", "--help"],
    ["keys", "-h"],
  ] as const)("npm run %s -- %s prints the usage on stdout and exits 0", async (command, flag) => {
    // Arguments beside the flag are not acted on: help is all that is asked for.
    const out = join(t.scratch, `${command}${flag}`);
    const args =
      command === "generate-data" ? ["--out", out, flag] : command === "load" ? [flag, out] : [flag];
    const r = await cli(t.db, command, ...args);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toMatch(new RegExp(`^usage:\\n?\\s*npm run ${command} -- `));
    expect(r.stdout).toMatch(/-h, --help/);
    expect(existsSync(out)).toBe(false);
  });

  it.each([
    ["load", ["--bogus", "data/x"]],
    ["load", []],
    ["load", ["a", "b"]],
    ["generate-data", ["--bogus"]],
    ["keys", ["list", "--bogus"]],
  ] as const)(
    "npm run %s -- %j is bad usage: the usage on stderr, exit 2, no stack",
    async (command, args) => {
      const r = await cli(t.db, command, ...args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(new RegExp(`usage:\\n?\\s*npm run ${command} -- `));
      expect(r.stderr).not.toMatch(STACK);
    },
  );
});

describe.each(databaseKinds())("npm run load's steps and --upgrade on %s", (kind) => {
  const t = databaseAndScratch(kind);

  it("a load prints each step of its pipeline as it ends, in order, with its time and peak memory", async () => {
    const r = await cli(t.db, "load", writeSnapshotDir(join(t.scratch, "a"), validFixture()));
    expect(r.code, r.stderr).toBe(0);
    const steps = r.stderr
      .split("\n")
      .filter((l) => /^load: [^:]+: \d+\.\d s, peak RSS \d+ MB$/.test(l))
      .map((l) => l.slice("load: ".length, l.indexOf(":", "load: ".length)));
    expect(steps).toEqual(STEPS.map((s) => STEP_TITLES[s]));
    expect(r.stdout).toMatch(/^loaded snapshot version 1: .* \(\w+; peak RSS \d+ MB;/);
  });

  it("--upgrade builds nothing on a snapshot of this code's format; --rebuild builds the parts named, each told", async () => {
    const none = await cli(t.db, "load", "--upgrade");
    expect(none).toMatchObject({
      code: 0,
      stdout: "snapshot version 1 is of this code's format: nothing to build\n",
    });
    const again = await cli(t.db, "load", "--upgrade", "--rebuild", "facets,count_index");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^upgraded snapshot version 1: built facets, count_index in \d+\.\d s\n$/);
    expect(again.stderr).toMatch(/^load: building facets again: \d+\.\d s, peak RSS \d+ MB$/m);
    expect(again.stderr).toMatch(/^load: building count_index again: \d+\.\d s, peak RSS \d+ MB$/m);
  });

  it("--report writes what the load did as JSON: its counts and each step's seconds and peak RSS", async () => {
    const file = join(t.scratch, "report.json");
    const r = await cli(
      t.db,
      "load",
      "--report",
      file,
      writeSnapshotDir(join(t.scratch, "r"), validFixture()),
    );
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(file, "utf8"));
    expect(report).toMatchObject({ database: kind, domains: validFixture().domains.length });
    expect(report.steps.map((s: { step: string }) => s.step)).toEqual([...STEPS]);
    for (const s of report.steps) {
      expect(s.seconds).toBeGreaterThanOrEqual(0);
      expect(s.peakRssMb).toBeGreaterThan(0);
    }
    expect(report.seconds).toBeGreaterThanOrEqual(
      report.steps.reduce((a: number, s: { seconds: number }) => a + s.seconds, 0) - 0.5,
    );
  });

  it.each([
    [["--rebuild", "facets"], /--rebuild goes with --upgrade/],
    [["--upgrade", "--rebuild", "facet"], /--rebuild takes a comma list of .*; got "facet"/],
    [["--upgrade", "data/x"], /--upgrade takes no snapshot directory/],
    [["--render"], /--render is no more: npm run load -- --upgrade/],
    [["--upgrade", "--report", "r.json"], /--report goes with a snapshot directory, not --upgrade/],
  ] as const)("npm run load -- %j is bad usage naming what is wrong: exit 2", async (args, says) => {
    const r = await cli(t.db, "load", ...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(says);
    expect(r.stderr).not.toMatch(STACK);
  });
});

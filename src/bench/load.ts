import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { loadConfig } from "../config.ts";
import { openSnapshotStore } from "../db/open-store.ts";
import type { LoadResult } from "../load-pipeline.ts";
import { bulkFloor } from "./load-floor.ts";
import { LOAD_FLAGS, runMeasured } from "./measure.ts";
import { loadSteps } from "./report.ts";

/**
 * Generation and load benchmark (issue: 1M Domains + 20k Apps under 5 min on SQLite, 10 on
 * PostgreSQL, under 1 GiB). `npm run bench:load -- --domains 1000000 --apps 20000 --db both`.
 * The dataset is generated once into bench/out and reused by later runs.
 */
const { values } = parseArgs({
  options: {
    domains: { type: "string", default: "1000000" },
    apps: { type: "string", default: "20000" },
    seed: { type: "string", default: "1" },
    /** Segments saved after a first load; a second load (the week after) then compares them. */
    segments: { type: "string" },
    /** Their spread (seed-segments' --spread: facet dimensions' GraphQL names, comma-separated). */
    "segment-spread": { type: "string" },
    db: { type: "string", default: "both" },
    "pg-url": {
      type: "string",
      default: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    },
  },
});
const domains = Number(values.domains);
const apps = Number(values.apps);
if (!Number.isInteger(domains) || domains < 1) throw new Error("--domains must be a positive integer");
if (!Number.isInteger(apps) || apps < 1) throw new Error("--apps must be a positive integer");
if (!["sqlite", "postgresql", "both"].includes(values.db))
  throw new Error("--db must be sqlite, postgresql or both");

const root = resolve(import.meta.dirname, "../..");
const dataDir = join(root, "bench", "out", `data-${domains}-${apps}-${values.seed}`);
const results: string[] = [];
/** The Load section of each database (src/bench/report.ts: loadSteps). */
const sections: string[] = [];
const mb = (n: number) => `${n} MB`;

if (!existsSync(join(dataDir, "reviews.jsonl"))) {
  const g = await runMeasured(
    join(root, "src/cli/generate-data.ts"),
    ["--domains", String(domains), "--apps", String(apps), "--seed", values.seed, "--out", dataDir],
    process.env,
  );
  if (g.code !== 0) throw new Error(`generate-data failed with exit code ${g.code}`);
  results.push(`| generate | ${g.seconds.toFixed(1)} s | ${mb(g.peakRssMb)} |`);
} else {
  results.push(`| generate | (reused ${dataDir}) | |`);
}

for (const kind of values.db === "both" ? ["sqlite", "postgresql"] : [values.db]) {
  const scratch = mkdtempSync(join(tmpdir(), "storegraph-bench-"));
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: scratch, LOG_LEVEL: "warn" };
  let dropDb: (() => Promise<void>) | undefined;
  if (kind === "postgresql") {
    const name = `storegraph_bench_${process.pid}`;
    const admin = new pg.Client({ connectionString: values["pg-url"] });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(values["pg-url"]);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    dropDb = async () => {
      const a = new pg.Client({ connectionString: values["pg-url"] });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    };
  } else {
    delete env.DATABASE_URL;
  }
  try {
    // As `npm run load` runs it; its own report of each step (--report).
    const report = join(scratch, "load-report.json");
    const l = await runMeasured(
      join(root, "src/cli/load.ts"),
      ["--report", report, dataDir],
      env,
      LOAD_FLAGS,
    );
    if (l.code !== 0) throw new Error(`load on ${kind} failed with exit code ${l.code}`);
    results.push(`| load (${kind}) | ${l.seconds.toFixed(1)} s | ${mb(l.peakRssMb)} |`);
    const done = JSON.parse(readFileSync(report, "utf8")) as LoadResult;
    const config = loadConfig(env);
    const store = await openSnapshotStore(config);
    const served = await store.current().finally(() => store.close());
    if (!served) throw new Error(`the load on ${kind} serves no snapshot`);
    const floor = await bulkFloor(config, served);
    sections.push(
      `### ${kind}`,
      ...loadSteps(
        { seconds: l.seconds, changes: done.timings.changes, events: 0, churn: 0, steps: done.steps, floor },
        domains,
        "a first load",
        "npm run load's process",
      ),
      "",
    );
    if (values.segments !== undefined) {
      // The week after, loaded with the segments saved: the load prints its "comparing segments" time.
      const next = `${dataDir}-week-1`;
      if (!existsSync(join(next, "reviews.jsonl"))) {
        const g = await runMeasured(
          join(root, "src/cli/generate-data.ts"),
          ["--from", dataDir, "--seed", values.seed, "--out", next],
          process.env,
        );
        if (g.code !== 0) throw new Error(`generate-data --from failed with exit code ${g.code}`);
      }
      const s = await runMeasured(
        join(root, "src/bench/seed-segments.ts"),
        [
          "--count",
          values.segments,
          ...(values["segment-spread"] ? ["--spread", values["segment-spread"]] : []),
        ],
        env,
      );
      if (s.code !== 0) throw new Error(`seeding segments failed with exit code ${s.code}`);
      const w = await runMeasured(join(root, "src/cli/load.ts"), [next], env, LOAD_FLAGS);
      if (w.code !== 0) throw new Error(`the second load on ${kind} failed with exit code ${w.code}`);
      results.push(
        `| load of the week after, ${values.segments} segments${values["segment-spread"] ? ` spread over ${values["segment-spread"]}` : ""} (${kind}) | ${w.seconds.toFixed(1)} s | ${mb(w.peakRssMb)} |`,
      );
    }
  } finally {
    await dropDb?.();
    rmSync(scratch, { recursive: true, force: true });
  }
}

console.log(
  `\n${domains} Domains, ${apps} Apps, seed ${values.seed}\n\n| step | wall time | peak RSS |\n|---|---|---|\n${results.join("\n")}\n\n${sections.join("\n")}`,
);

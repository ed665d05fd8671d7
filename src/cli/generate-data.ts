import { statSync } from "node:fs";
import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import { type Churn, DEFAULT_CHURN, evolveDataset } from "../dataset/evolve.ts";
import { generateDataset } from "../dataset/generate.ts";

const USAGE = `usage: npm run generate-data -- [--domains N] [--apps M] [--seed S] [--out DIR] [--gzip]
       npm run generate-data -- --from DIR [--seed S] [--churn X] --out DIR [--gzip]

Writes a synthetic snapshot (apps.jsonl, domains.jsonl, reviews.jsonl; docs/dataset.md) that is
byte-identical for the same options. With --from, writes the week after the dataset in DIR
instead: the same stores, with a week's seeded churn (docs/dataset.md, "Weeks").

  --domains N   number of Domains, 1..100000000 (default 20000)
  --apps M      number of Apps, 0..10000000 (default 1000)
  --seed S      integer seed (default 42)
  --out DIR     output directory (default ./data/generated/<domains>-<apps>-<seed>)
  --gzip        write .jsonl.gz files
  --from DIR    the week before (a dataset directory): write the week after it
  --churn X     with --from: scale every rate of change by X, 0..50 (default 1: about 2% of the
                Domains change in some way)
  -h, --help    show this help`;

class UsageError extends Error {}

interface Args {
  domains: number;
  apps: number;
  seed: number;
  outDir: string;
  gzip: boolean;
  from?: string;
  churn: number;
}

function integerFlag(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  const value = /^[+-]?\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function parse(argv: string[]): Args | undefined {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values } = parsed;
  if (values.help) return undefined;
  const domains = integerFlag("domains", values.domains, 20_000, 1, 100_000_000);
  const apps = integerFlag("apps", values.apps, 1_000, 0, 10_000_000);
  const seed = integerFlag("seed", values.seed, 42, -(2 ** 31), 2 ** 53 - 1);
  if (values.out !== undefined && values.out.trim() === "") throw new UsageError("--out must not be empty");
  if (values.from !== undefined && values.out === undefined) throw new UsageError("--from needs --out");
  if (values.from !== undefined && (values.domains !== undefined || values.apps !== undefined))
    throw new UsageError("--from takes the sizes of the week before: leave out --domains and --apps");
  if (values.churn !== undefined && values.from === undefined) throw new UsageError("--churn needs --from");
  const churn = values.churn === undefined ? 1 : Number(values.churn);
  if (!(churn >= 0 && churn <= 50))
    throw new UsageError(`--churn must be a number from 0 to 50, got "${values.churn}"`);
  const outDir = values.out ?? `./data/generated/${domains}-${apps}-${seed}`;
  return { domains, apps, seed, outDir, gzip: values.gzip ?? false, from: values.from, churn };
}

const OPTIONS = {
  domains: { type: "string" },
  apps: { type: "string" },
  seed: { type: "string" },
  out: { type: "string" },
  gzip: { type: "boolean" },
  from: { type: "string" },
  churn: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** A bar on a terminal; otherwise a line every 5%, which reads well in logs and CI. */
function progressReporter(): { update(done: number, total: number): void; stop(): void } {
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: "generating [{bar}] {percentage}% | {eta_formatted} left", etaBuffer: 50 },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(done, total) {
        if (!started) bar.start(total, 0);
        started = true;
        bar.update(done);
      },
      stop: () => bar.stop(),
    };
  }
  let lastStep = -1;
  return {
    update(done, total) {
      const step = Math.floor((done / total) * 20);
      if (step === lastStep) return;
      lastStep = step;
      process.stderr.write(`generate-data: ${step * 5}% (${done}/${total})\n`);
    },
    stop: () => undefined,
  };
}

export async function main(argv: string[]): Promise<number> {
  let args: Args | undefined;
  try {
    args = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`generate-data: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (!args) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const started = performance.now();
  if (args.from !== undefined) return evolve(args, args.from, started);
  const progress = progressReporter();
  process.stderr.write(
    `generate-data: writing ${args.domains} domains and ${args.apps} apps to ${args.outDir}\n`,
  );
  try {
    const result = await generateDataset({
      ...args,
      onProgress: (done, total) => progress.update(done, total),
    });
    progress.stop();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const lines = result.files.map((f) => `  ${f} (${(statSync(f).size / 1e6).toFixed(1)} MB)`);
    process.stdout.write(
      `Generated ${result.domains} domains, ${result.apps} apps and ${result.reviews} reviews (seed ${args.seed}) in ${seconds} s:\n${lines.join("\n")}\n`,
    );
    return 0;
  } catch (error) {
    progress.stop();
    process.stderr.write(`generate-data: failed: ${(error as Error).message}\n`);
    return 1;
  }
}

async function evolve(args: Args, from: string, started: number): Promise<number> {
  process.stderr.write(`generate-data: writing the week after ${from} to ${args.outDir}\n`);
  try {
    const scale = args.churn;
    const churn = Object.fromEntries(
      Object.entries(DEFAULT_CHURN).map(([k, v]) => [k, Math.min(1, v * scale)]),
    ) as unknown as Churn;
    const result = await evolveDataset({
      from,
      outDir: args.outDir,
      seed: args.seed,
      churn,
      gzip: args.gzip,
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const lines = result.files.map((f) => `  ${f} (${(statSync(f).size / 1e6).toFixed(1)} MB)`);
    process.stdout.write(
      `Generated week ${result.week}: ${result.domains} domains, ${result.apps} apps and ${result.reviews} reviews (seed ${args.seed}) in ${seconds} s:\n${lines.join("\n")}\n`,
    );
    return 0;
  } catch (error) {
    process.stderr.write(`generate-data: failed: ${(error as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));

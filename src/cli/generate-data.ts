import { statSync } from "node:fs";
import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import { generateDataset } from "../dataset/generate.ts";

const USAGE = `usage: npm run generate-data -- [--domains N] [--apps M] [--seed S] [--out DIR] [--gzip]

Writes a synthetic snapshot (apps.jsonl, domains.jsonl, reviews.jsonl; docs/dataset.md) that is
byte-identical for the same options.

  --domains N   number of Domains, 1..100000000 (default 20000)
  --apps M      number of Apps, 0..10000000 (default 1000)
  --seed S      integer seed (default 42)
  --out DIR     output directory (default ./data/generated/<domains>-<apps>-<seed>)
  --gzip        write .jsonl.gz files
  -h, --help    show this help`;

class UsageError extends Error {}

interface Args {
  domains: number;
  apps: number;
  seed: number;
  outDir: string;
  gzip: boolean;
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
  const outDir = values.out ?? `./data/generated/${domains}-${apps}-${seed}`;
  return { domains, apps, seed, outDir, gzip: values.gzip ?? false };
}

const OPTIONS = {
  domains: { type: "string" },
  apps: { type: "string" },
  seed: { type: "string" },
  out: { type: "string" },
  gzip: { type: "boolean" },
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

process.exitCode = await main(process.argv.slice(2));

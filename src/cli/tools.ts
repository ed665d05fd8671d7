import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Tools that only a maintainer's command uses are not part of the project's `npm install`, which
 * holds what `npm start` and `npm test` need. Each such command has a folder of its own with a
 * package.json and a lockfile, installed on first use and again whenever its lockfile changes:
 *
 * - prisma/tools: the Prisma CLI, for `npm run generate` (the generated clients are committed);
 * - src/bench/peer: PostGraphile, the benchmark's peer (`npm run bench`);
 * - test/deploy/tools: dclint and kubernetes-models (`npm run check:deploy`).
 *
 * `npm ci --prefix <folder>` installs exactly its lockfile; a stamp in its node_modules records
 * which lockfile that was, so an unchanged folder costs one file read.
 */
const STAMP = ".storegraph-lockfile-sha256";

const lockHash = (dir: string) =>
  createHash("sha256")
    .update(readFileSync(join(dir, "package-lock.json")))
    .digest("hex");

/** Whether `dir`'s tools are installed from its current lockfile. */
export function toolsInstalled(dir: string): boolean {
  const stamp = join(dir, "node_modules", STAMP);
  return existsSync(stamp) && readFileSync(stamp, "utf8").trim() === lockHash(dir);
}

/** Installs `dir`'s tools from its lockfile unless they already are; progress goes to stderr. */
export function ensureTools(dir: string): void {
  if (toolsInstalled(dir)) return;
  if (!existsSync(join(dir, "package-lock.json"))) throw new Error(`${dir}: no package-lock.json`);
  process.stderr.write(`installing the tools of ${dir} (npm ci, once per lockfile)\n`);
  execFileSync("npm", ["ci", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error"], {
    stdio: ["ignore", process.stderr, "inherit"],
  });
  writeFileSync(join(dir, "node_modules", STAMP), `${lockHash(dir)}\n`);
}

// `node --import tsx src/cli/tools.ts <folder>…`: installs each folder's tools (package.json scripts).
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dirs = process.argv.slice(2);
  if (!dirs.length || dirs.includes("-h") || dirs.includes("--help")) {
    console.log("usage: node --import tsx src/cli/tools.ts <folder with package-lock.json>...");
    process.exit(dirs.length ? 0 : 2);
  }
  try {
    for (const dir of dirs) ensureTools(resolve(dir));
  } catch (e) {
    console.error(`tools: ${(e as Error).message}`);
    process.exit(1);
  }
}

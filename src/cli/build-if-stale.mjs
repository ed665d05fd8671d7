// npm run mcp's step before it starts dist/mcp-stdio.js: builds the bundle (npm run build) only
// when it is missing or older than a source it is built from (src/, package.json, the lockfile),
// as make would. An MCP client starts the server often, and a checkout may be read-only: a start
// with the bundle current builds nothing and writes nothing. Plain JavaScript, run by node alone
// (no tsx, which would cost its own start). stdout carries the protocol afterwards: the build
// writes to stderr only.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const BUNDLES = ["dist/mcp-stdio.js", "dist/export-worker.js", "dist/sqlite-read-thread.js"];

/** The newest modification time of a file under `dir` (0 when there is none). */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const mtime = (path) => {
  try {
    return statSync(join(root, path)).mtimeMs;
  } catch {
    return 0;
  }
};

const sources = Math.max(
  newest(join(root, "src")),
  ...["package.json", "package-lock.json", "tsconfig.json"].map(mtime),
);
const built = Math.min(...BUNDLES.map(mtime));
if (built < sources) {
  // npm run sets npm_execpath (npm's own script): run it with this node, as npm did (no shell, on
  // any platform); run directly, the npm on PATH.
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm]] : ["npm", []];
  const run = spawnSync(command, [...args, "run", "--silent", "build"], {
    cwd: root,
    stdio: ["ignore", 2, 2],
    shell: !npm && process.platform === "win32",
  });
  if (run.status !== 0) {
    console.error(
      `npm run mcp: building dist/ failed (npm run build)${run.error ? `: ${run.error.message}` : ""}`,
    );
    process.exit(run.status ?? 1);
  }
}

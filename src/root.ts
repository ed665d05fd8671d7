import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * The project's directory (the one holding package.json), found from this module's location, so
 * that files read at run time (migrations, platforms.txt, worker entry points) are found whether the
 * code runs from its source under src/ (tsx, vitest) or bundled into dist/server.js (`npm start`).
 */
function findRoot(from: string): string {
  for (let dir = from; ; ) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "prisma"))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no project directory (package.json and prisma/) above ${from}`);
    dir = up;
  }
}

export const ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

/** A file URL of `path`, relative to the project's directory (a trailing slash is kept). */
export const fromRoot = (path: string): URL => pathToFileURL(join(ROOT, path));

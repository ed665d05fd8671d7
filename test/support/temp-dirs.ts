import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Vitest global setup: the run's temporary files go to a directory of its own (TMPDIR, which
 * os.tmpdir() reads in the workers and in every process they start: servers, the loader, the keys
 * command), so that a test that leaves its directories behind is found by name, even while other
 * runs share the machine's /tmp. At the end the directory is removed whole, and what a test left in
 * it under the project's own prefix fails the run, named: tests remove what they make.
 */
export const PREFIX = "storegraph-";

/** What is left under the project's prefix in `dir` (tools' caches, tsx's, are not the tests'). */
export function leftovers(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.startsWith(PREFIX))
    .sort();
}

export default function setup(): () => void {
  const outer = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), `${PREFIX}test-run-`));
  // PostgreSQL clusters of the tests' own (support/pg-cluster.ts) run as the postgres user, in
  // directories of theirs under this one: it must be traversable by that user.
  chmodSync(dir, 0o755);
  process.env.TMPDIR = dir;
  return () => {
    const left = leftovers(dir);
    rmSync(dir, { recursive: true, force: true });
    if (outer === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outer;
    if (left.length > 0) {
      // A teardown's error is printed but does not fail the run by itself.
      process.exitCode = 1;
      throw new Error(
        `the tests left ${left.length} temporary director${left.length === 1 ? "y" : "ies"} behind (now removed): ${left.join(", ")}; the test that makes each must remove it`,
      );
    }
  };
}

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./server.ts";

/**
 * PostgreSQL clusters of a test's own, in temporary directories: a primary (initdb) and hot
 * standbys streaming from it (pg_basebackup -R), each a postmaster on a free port started and
 * stopped by the test, by its PID. The shared server on 5432 is never touched.
 *
 * PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user (spawn's
 * uid/gid), and the directories are given to that user.
 */
const BIN = (() => {
  if (process.env.PG_BINDIR) return process.env.PG_BINDIR;
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  return versions.length ? join(root, versions[0], "bin") : "";
})();

/** As root: the `postgres` user's ids, or undefined when there is no such user. */
const owner = (() => {
  if (process.getuid?.() !== 0) return null;
  try {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { stdio: "pipe" }).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { stdio: "pipe" }).toString().trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
})();

/** Whether this machine can run clusters of a test's own. */
export const canRunClusters = BIN !== "" && existsSync(join(BIN, "initdb")) && owner !== undefined;

function run(program: string, args: string[]): void {
  execFileSync(join(BIN, program), args, { stdio: "pipe", ...(owner ?? {}) });
}

/** run(), in a new cluster's directory: removed when the program fails (the test never gets it). */
function runIn(dir: string, program: string, args: string[]): void {
  try {
    run(program, args);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

function ownDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  return dir;
}

export class Cluster {
  private child: ChildProcess | null = null;
  private log = "";

  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly settings: string[],
  ) {}

  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url(database = "postgres"): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** A new primary that standbys can stream from. */
  static async primary(): Promise<Cluster> {
    const dir = ownDir("storegraph-pg-primary-");
    const data = join(dir, "data");
    runIn(dir, "initdb", [
      "-D",
      data,
      "-U",
      "postgres",
      "--auth=trust",
      "--no-sync",
      "-E",
      "UTF8",
      "--locale=C",
    ]);
    const cluster = new Cluster(dir, await freePort(), [
      "wal_level=replica",
      "max_wal_senders=5",
      "fsync=off",
      "synchronous_commit=off",
      "full_page_writes=off",
      "shared_buffers=32MB",
    ]);
    await cluster.startOrDestroy();
    return cluster;
  }

  /**
   * A hot standby of `primary`, copied by pg_basebackup and streaming from it. `settings`: more
   * of its settings (recovery_min_apply_delay=2s makes it lag on purpose).
   */
  static async standby(primary: Cluster, settings: string[] = []): Promise<Cluster> {
    const dir = ownDir("storegraph-pg-standby-");
    runIn(dir, "pg_basebackup", [
      "-h",
      "127.0.0.1",
      "-p",
      String(primary.port),
      "-U",
      "postgres",
      "-D",
      join(dir, "data"),
      "-R",
      "-X",
      "stream",
      "-c",
      "fast",
    ]);
    const cluster = new Cluster(dir, await freePort(), ["hot_standby=on", "fsync=off", ...settings]);
    await cluster.startOrDestroy();
    return cluster;
  }

  /** start(), for a new cluster: one that does not start is stopped and its directory removed. */
  private async startOrDestroy(): Promise<void> {
    try {
      await this.start();
    } catch (e) {
      await this.destroy();
      throw e;
    }
  }

  /** Starts its postmaster and waits until it accepts connections. */
  async start(): Promise<void> {
    if (this.child) return;
    const args = ["-D", join(this.dir, "data"), "-p", String(this.port), "-k", this.dir];
    args.push("-c", "listen_addresses=127.0.0.1");
    for (const s of this.settings) args.push("-c", s);
    const child = spawn(join(BIN, "postgres"), args, { stdio: ["ignore", "pipe", "pipe"], ...(owner ?? {}) });
    child.stdout?.on("data", (d) => {
      this.log += d;
    });
    child.stderr?.on("data", (d) => {
      this.log += d;
    });
    this.child = child;
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`postgres exited at start:\n${this.log}`);
      const client = new pg.Client({ connectionString: this.url() });
      try {
        await client.connect();
        await client.query("SELECT 1");
        return;
      } catch (e) {
        if (Date.now() > deadline)
          throw new Error(`postgres did not start: ${(e as Error).message}\n${this.log}`);
      } finally {
        await client.end().catch(() => {});
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Fast shutdown (SIGINT to its postmaster): sessions are ended, and it exits. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGINT");
    await exited;
  }

  /** Its server log so far (for a failing test's message). */
  output(): string {
    return this.log;
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

import { mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultReadThreads, loadConfig } from "../../src/config.ts";
import { openSnapshotReader } from "../../src/db/reader.ts";
import { SqliteReadThreads } from "../../src/db/sqlite-threads.ts";

/** Two snapshot-like files of a table each, and the reads of both: on threads, and in process. */
let dir: string;
const files = ["a.db", "b.db"];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "storegraph-sqlite-threads-"));
  for (const [i, f] of files.entries()) {
    const db = new Database(join(dir, f));
    db.exec("CREATE TABLE t (pk INTEGER PRIMARY KEY, name TEXT, score REAL, note TEXT)");
    const insert = db.prepare("INSERT INTO t VALUES (?, ?, ?, ?)");
    for (let k = 1; k <= 300; k++) insert.run(k, `${f}-${k}`, k / (i + 3), k % 7 ? null : `note ${k}`);
    db.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Descriptors of this process open on `file` (its threads' included). */
const openOn = (file: string) =>
  readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  }).length;

const reader = (threads: number, file: string) =>
  openSnapshotReader(
    { database: { kind: "sqlite", dataDir: dir, readThreads: threads }, timeouts: loadConfig({}).timeouts },
    {
      location: file,
    },
  );

describe("SQLite reads on read threads", () => {
  it("give what the same reads give in process, for many reads of two files at once", async () => {
    const on = files.map((f) => reader(1, f));
    const off = files.map((f) => reader(0, f));
    try {
      const asks = Array.from({ length: 120 }, (_, i) => ({
        file: i % 2,
        sql:
          i % 3
            ? "SELECT pk, name, score, note FROM t WHERE pk = $1"
            : `SELECT pk, name FROM t WHERE ${on[0].anyOf("pk", 1)} ORDER BY pk`,
        params: i % 3 ? [i + 1] : [on[0].keysParam([i + 1, i + 2, 999])],
      }));
      const threaded = await Promise.all(asks.map((a) => on[a.file].all(a.sql, a.params)));
      const inProcess = await Promise.all(asks.map((a) => off[a.file].all(a.sql, a.params)));
      expect(threaded).toEqual(inProcess);
      expect(threaded[1]).toEqual([[2, "b.db-2", 2 / 4, null]]);
      expect(threaded[7]).toEqual([[8, "b.db-8", 8 / 4, null]]);
    } finally {
      await Promise.all([...on, ...off].map((r) => r.close()));
    }
  });

  it("send the reads of one turn as one message per thread", async () => {
    const threads = new SqliteReadThreads(2);
    const file = join(dir, "a.db");
    threads.acquire(file);
    try {
      const reads = await Promise.all(
        Array.from({ length: 100 }, (_, i) => threads.all(file, "SELECT name FROM t WHERE pk = $1", [i + 1])),
      );
      expect(reads.map((r) => r[0][0])).toEqual(Array.from({ length: 100 }, (_, i) => `a.db-${i + 1}`));
      expect(threads.sent).toEqual({ messages: 2, reads: 100 });
    } finally {
      await threads.release(file);
      await threads.close();
    }
  });

  it("fail a read for its own statement alone, with SQLite's message and code", async () => {
    const r = reader(1, "a.db");
    try {
      const [good, bad, alsoGood] = await Promise.allSettled([
        r.all("SELECT count(*) FROM t", []),
        r.all("SELECT nope FROM t", []),
        r.all("SELECT name FROM t WHERE pk = $1", [3]),
      ]);
      expect(good).toEqual({ status: "fulfilled", value: [[300]] });
      expect(alsoGood).toEqual({ status: "fulfilled", value: [["a.db-3"]] });
      expect(bad.status).toBe("rejected");
      const e = (bad as PromiseRejectedResult).reason as Error & { code?: string };
      expect(e).toBeInstanceOf(Error);
      expect(e.message).toBe("no such column: nope");
      expect(e.code).toBe("SQLITE_ERROR");
    } finally {
      await r.close();
    }
  });

  it("close a file on every thread once its last reader closes, and refuse reads after", async () => {
    const file = join(dir, "b.db");
    const first = reader(2, "b.db");
    const second = reader(2, "b.db");
    // Enough reads at once that both threads open the file.
    await Promise.all(Array.from({ length: 50 }, () => first.all("SELECT count(*) FROM t", [])));
    expect(openOn(file)).toBeGreaterThan(0);
    await first.close();
    await expect(first.all("SELECT 1", [])).rejects.toThrow("not open");
    expect(await second.all("SELECT count(*) FROM t", [])).toEqual([[300]]);
    expect(openOn(file)).toBeGreaterThan(0);
    await second.close();
    expect(openOn(file)).toBe(0);
  });

  it("refuse a file that does not exist when the reader opens, as a connection would", () => {
    expect(() => reader(1, "missing.db")).toThrow(/missing\.db/);
  });

  it("fail the reads of a thread that is lost, and read on a new thread after", async () => {
    const threads = new SqliteReadThreads(1);
    const file = join(dir, "a.db");
    threads.acquire(file);
    try {
      expect(await threads.all(file, "SELECT count(*) FROM t", [])).toEqual([[300]]);
      // A read that takes long enough (about a second) for the thread to be stopped under it; the
      // thread stops once the statement returns to JavaScript.
      const slow = threads.all(
        file,
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000000) SELECT count(*) FROM n",
        [],
      );
      await new Promise((r) => setTimeout(r, 100));
      await threads.stopThreads();
      await expect(slow).rejects.toThrow(/SQLite read thread exited/);
      expect(await threads.all(file, "SELECT count(*) FROM t", [])).toEqual([[300]]);
    } finally {
      await threads.release(file);
      await threads.close();
    }
  });
});

describe("SQLITE_READ_THREADS", () => {
  const db = (env: Record<string, string>) => loadConfig(env).database as { readThreads?: number };
  it("sets the read threads, 0 for none", () => {
    expect(db({ SQLITE_READ_THREADS: "3" }).readThreads).toBe(3);
    expect(db({ SQLITE_READ_THREADS: "0" }).readThreads).toBe(0);
  });
  it("defaults to two where there is a second core, and none on one core", async () => {
    expect([1, 2, 3, 4, 64].map(defaultReadThreads)).toEqual([0, 2, 2, 2, 2]);
    const { availableParallelism } = await import("node:os");
    expect(db({}).readThreads).toBe(defaultReadThreads(availableParallelism()));
  });
  it("refuses what is not a count of threads, naming the variable", () => {
    expect(() => loadConfig({ SQLITE_READ_THREADS: "many" })).toThrow(/SQLITE_READ_THREADS/);
    expect(() => loadConfig({ SQLITE_READ_THREADS: "-1" })).toThrow(/SQLITE_READ_THREADS/);
  });
});

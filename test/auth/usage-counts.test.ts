import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import type { ApiKey } from "../../src/auth/keys.ts";
import { MonthlyCounts, monthOf } from "../../src/auth/usage-counts.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";

/**
 * The month's exports and cursor=all jobs per key (src/auth/usage-counts.ts): by calendar month in
 * UTC, in memory without Redis, shared through Redis with it, and kept by a gateway while Redis
 * does not answer, until it does.
 */
const REDIS_URL = process.env.TEST_REDIS_URL;
const logger = createLogger(loadConfig({ LOG_LEVEL: "silent" }));

const keyOf = (id: string): ApiKey => ({
  id,
  name: id,
  plan: "pro",
  prefix: "sg_x",
  account: id,
  createdAt: new Date(),
  lastUsedAt: null,
  revokedAt: null,
});

describe("monthOf", () => {
  it("is the UTC month, and the instant the next one starts", () => {
    expect(monthOf(Date.UTC(2026, 0, 31, 23, 59, 59, 999))).toEqual({
      month: "2026-01",
      endsAt: Date.UTC(2026, 1, 1),
    });
    expect(monthOf(Date.UTC(2026, 11, 1))).toEqual({ month: "2026-12", endsAt: Date.UTC(2027, 0, 1) });
  });
});

describe("in memory", () => {
  it("counts per key and kind, and starts afresh with a new month", async () => {
    let now = Date.UTC(2026, 10, 30, 23, 59, 59);
    const counts = new MonthlyCounts(null, "t", logger, () => now);
    const a = keyOf("a");
    await counts.add(a, "exports");
    await counts.add(a, "exports");
    await counts.add(a, "cursorAllJobs");
    await counts.add(keyOf("b"), "cursorAllJobs");
    expect(await counts.read(a)).toEqual({ month: "2026-11", exports: 2, cursorAllJobs: 1 });
    expect(await counts.read(keyOf("c"))).toEqual({ month: "2026-11", exports: 0, cursorAllJobs: 0 });
    now += 1000;
    expect(await counts.read(a)).toEqual({ month: "2026-12", exports: 0, cursorAllJobs: 0 });
    await counts.add(a, "exports");
    expect(await counts.read(a)).toEqual({ month: "2026-12", exports: 1, cursorAllJobs: 0 });
  });
});

describe.skipIf(!REDIS_URL)("in Redis", () => {
  const prefix = `storegraph:test:${randomUUID()}`;
  const redises: Redis[] = [];
  const connect = async (lazy = false) => {
    const r = new Redis(REDIS_URL ?? "", {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
    });
    redises.push(r);
    if (!lazy) await r.connect();
    return r;
  };
  afterAll(async () => {
    const admin = await connect();
    const keys = await admin.keys(`${prefix}:*`);
    if (keys.length) await admin.del(...keys);
    for (const r of redises) r.disconnect();
  });

  it("is shared by every gateway, and expires a day after its month", async () => {
    const [one, two] = [
      new MonthlyCounts(await connect(), prefix, logger),
      new MonthlyCounts(await connect(), prefix, logger),
    ];
    const key = keyOf(randomUUID());
    await one.add(key, "exports");
    await two.add(key, "exports");
    await two.add(key, "cursorAllJobs");
    const { month, endsAt } = monthOf(Date.now());
    for (const counts of [one, two])
      expect(await counts.read(key)).toEqual({ month, exports: 2, cursorAllJobs: 1 });
    const admin = await connect();
    const bucket = `${prefix}:month:${key.id}:${month}`;
    expect(await admin.hgetall(bucket)).toEqual({ exports: "2", cursor_all_jobs: "1" });
    expect(await admin.pexpiretime(bucket)).toBe(endsAt + 86_400_000);
  });

  it("while Redis does not answer, a gateway keeps its counts, adds them to Redis's, and hands them over later", async () => {
    const down = await connect(true); // never connected yet: commands would fail
    const counts = new MonthlyCounts(down, prefix, logger);
    const other = new MonthlyCounts(await connect(), prefix, logger);
    const key = keyOf(randomUUID());
    await other.add(key, "exports");
    await counts.add(key, "exports");
    await counts.add(key, "cursorAllJobs");
    const { month } = monthOf(Date.now());
    // Its own, without Redis; the other gateway sees only its own.
    expect(await counts.read(key)).toEqual({ month, exports: 1, cursorAllJobs: 1 });
    expect(await other.read(key)).toEqual({ month, exports: 1, cursorAllJobs: 0 });
    await down.connect();
    expect(await counts.read(key)).toEqual({ month, exports: 2, cursorAllJobs: 1 });
    // Its next count hands what it kept over.
    await counts.add(key, "exports");
    expect(await other.read(key)).toEqual({ month, exports: 3, cursorAllJobs: 1 });
    expect(await counts.read(key)).toEqual({ month, exports: 3, cursorAllJobs: 1 });
  });
});

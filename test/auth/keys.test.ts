import { execFile } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeys, type Plan } from "../../src/auth/keys.ts";
import { loadConfig } from "../../src/config.ts";
import { openSnapshotStore } from "../../src/db/store.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/**
 * API keys (api.md section 5, decisions.md "Authentication and plans"): created, listed and
 * revoked by a command of the project, shown once, stored only as a sha-256 hash, with a plan.
 */

/** sg_ + 32 base32 characters: 32 × 5 = 160 bits. */
const KEY_SHAPE = /^sg_[a-z2-7]{32}$/;
const KEY_ANYWHERE = /sg_[a-z2-7]{32}/g;
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
/** A key of the right shape that was never created. */
const unknownKey = () =>
  `sg_${Array.from(randomBytes(32), (b) => "abcdefghijklmnopqrstuvwxyz234567"[b & 31]).join("")}`;

describe.each(databaseKinds())("ApiKeys on %s", (kind) => {
  let api: TestApi;
  let keys: ApiKeys;
  const tmp = tempDir("storegraph-keys-");

  beforeAll(async () => {
    api = await startApi(kind, writeSnapshotDir(join(tmp.dir, "s"), validFixture()));
    keys = new ApiKeys(api.snapshots.store);
  });
  afterAll(async () => {
    await api?.close();
    tmp.remove();
  });

  const rows = () => api.snapshots.store.metaQuery("SELECT * FROM {meta}.api_key");

  it("create returns a key of the right shape, with its record", async () => {
    const before = Date.now();
    const { key, apiKey } = await keys.create("  Acme  ", "pro");
    expect(key).toMatch(KEY_SHAPE);
    expect(apiKey).toMatchObject({
      name: "Acme",
      plan: "pro",
      prefix: key.slice(0, 7),
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(apiKey.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(apiKey.createdAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(apiKey.createdAt.getTime()).toBeLessThanOrEqual(Date.now());
    // The record handed back never carries the secret.
    expect(JSON.stringify(apiKey)).not.toContain(key);
  });

  it("keys are distinct and carry at least 128 random bits", async () => {
    const made = await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        keys.create(`entropy ${i}`, (["pro", "elite", "enterprise"] as const)[i % 3]),
      ),
    );
    const secrets = made.map((m) => m.key);
    expect(new Set(secrets).size).toBe(secrets.length);
    expect(new Set(made.map((m) => m.apiKey.id)).size).toBe(made.length);
    for (const k of secrets) expect(k).toMatch(KEY_SHAPE);
    // 32 base32 characters are 160 bits only if every position varies: none is fixed or padding
    // (64 random keys agreeing on one position by chance: probability 32 × 32^-63).
    const body = secrets.map((k) => k.slice(3));
    const bitsPerChar = Math.log2("abcdefghijklmnopqrstuvwxyz234567".length);
    expect(body[0].length * bitsPerChar).toBeGreaterThanOrEqual(128);
    for (let i = 0; i < body[0].length; i++) {
      expect(new Set(body.map((b) => b[i])).size, `position ${i} of the key`).toBeGreaterThan(1);
    }
    // And the characters as a whole use the alphabet broadly (64 × 32 draws from 32 symbols).
    expect(new Set(body.join("")).size).toBeGreaterThan(28);
  });

  it("the api_key table holds only the sha-256 of a key, never the key", async () => {
    const { key, apiKey } = await keys.create("stored", "elite");
    const all = await rows();
    const text = JSON.stringify(all, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(3));
    const row = all.find((r) => r.id === apiKey.id);
    expect(row).toBeDefined();
    expect(row?.hash).toBe(sha256(key));
    // Only the 7-character prefix (sg_ + 4 characters, 20 bits) is kept in the clear, for listing.
    expect(row?.prefix).toBe(key.slice(0, 7));
    for (const value of Object.values(row ?? {})) {
      if (typeof value === "string" && value !== row?.prefix) expect(key).not.toContain(value);
    }
  });

  it("list shows name, plan, created and last used (set by a verify), never the key", async () => {
    const { key, apiKey } = await keys.create("Listed Co", "enterprise");
    let listed = (await keys.list()).find((k) => k.id === apiKey.id);
    expect(listed).toMatchObject({
      name: "Listed Co",
      plan: "enterprise",
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(listed?.createdAt).toBeInstanceOf(Date);
    expect(listed?.createdAt.getTime()).toBe(apiKey.createdAt.getTime());

    const before = Date.now();
    const verified = await keys.verify(key);
    expect(verified?.id).toBe(apiKey.id);
    listed = (await keys.list()).find((k) => k.id === apiKey.id);
    expect(listed?.lastUsedAt).toBeInstanceOf(Date);
    expect(listed?.lastUsedAt?.getTime()).toBeGreaterThanOrEqual(before);
    expect(listed?.lastUsedAt?.getTime()).toBeLessThanOrEqual(Date.now());

    const text = JSON.stringify(await keys.list());
    expect(text).not.toContain(key);
    expect(text).not.toContain(sha256(key));
    expect(text.match(KEY_ANYWHERE)).toBeNull();
  });

  it("verify returns the key's record for a valid key", async () => {
    const { key, apiKey } = await keys.create("valid", "pro");
    expect(await keys.verify(key)).toMatchObject({
      id: apiKey.id,
      name: "valid",
      plan: "pro",
      revokedAt: null,
    });
    // Verifying again (within the last-used throttle) still works.
    expect((await keys.verify(key))?.id).toBe(apiKey.id);
  });

  it("verify refuses malformed keys", async () => {
    const { key } = await keys.create("shape", "pro");
    const malformed = [
      "",
      "sg_",
      key.slice(0, -1),
      `${key}a`,
      key.toUpperCase(),
      ` ${key}`,
      `${key} `,
      `Bearer ${key}`,
      key.slice(3),
      `xx_${key.slice(3)}`,
      `${key.slice(0, -1)}1`, // 1 is not a base32 digit
      `${key.slice(0, -1)}=`,
    ];
    for (const m of malformed) expect(await keys.verify(m), JSON.stringify(m)).toBeNull();
  });

  it("verify refuses unknown keys, and keys that match only by prefix", async () => {
    expect(await keys.verify(unknownKey())).toBeNull();
    const { key } = await keys.create("prefix twin", "pro");
    const twin = key.slice(0, 7) + unknownKey().slice(7);
    expect(twin).not.toBe(key);
    expect(await keys.verify(twin)).toBeNull();
    // The hash itself is not a key either.
    expect(await keys.verify(sha256(key))).toBeNull();
  });

  it("revoke by id: the key stops verifying and is listed as revoked", async () => {
    const { key, apiKey } = await keys.create("by id", "pro");
    expect(await keys.verify(key)).not.toBeNull();
    const revoked = await keys.revoke(apiKey.id);
    expect(revoked.map((k) => k.id)).toEqual([apiKey.id]);
    expect(await keys.verify(key)).toBeNull();
    const listed = (await keys.list()).find((k) => k.id === apiKey.id);
    expect(listed?.revokedAt).toBeInstanceOf(Date);
    // Revoking again matches nothing: the key is no longer active.
    expect(await keys.revoke(apiKey.id)).toEqual([]);
  });

  it("revoke by prefix", async () => {
    const { key, apiKey } = await keys.create("by prefix", "elite");
    const other = await keys.create("bystander", "elite");
    const revoked = await keys.revoke(key.slice(0, 7));
    expect(revoked.map((k) => k.id)).toEqual([apiKey.id]);
    expect(await keys.verify(key)).toBeNull();
    expect((await keys.verify(other.key))?.id).toBe(other.apiKey.id);
  });

  it("revoke of an unknown id or prefix revokes nothing", async () => {
    const { key } = await keys.create("untouched", "pro");
    expect(await keys.revoke(randomUUID())).toEqual([]);
    expect(await keys.revoke("sg_zzzz")).toEqual([]);
    expect(await keys.verify(key)).not.toBeNull();
  });

  it("an ambiguous prefix is refused and revokes nothing; the id still works", async () => {
    const { key, apiKey } = await keys.create("twin one", "pro");
    // Two live keys sharing a 20-bit prefix are rare (birthday bound ~1,200 keys), so the second
    // one is written directly: a row with the same prefix and a different hash.
    const otherId = randomUUID();
    await api.snapshots.store.metaQuery(
      "INSERT INTO {meta}.api_key (id, name, plan, hash, prefix, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      [otherId, "twin two", "pro", sha256(unknownKey()), key.slice(0, 7), Date.now()],
    );
    await expect(keys.revoke(key.slice(0, 7))).rejects.toThrow(/matches 2 keys/);
    expect(await keys.verify(key)).not.toBeNull();
    const listed = await keys.list();
    expect(listed.find((k) => k.id === otherId)?.revokedAt).toBeNull();

    expect((await keys.revoke(apiKey.id)).map((k) => k.id)).toEqual([apiKey.id]);
    expect(await keys.verify(key)).toBeNull();
    // Now only one active key has the prefix: the prefix is no longer ambiguous.
    expect((await keys.revoke(key.slice(0, 7))).map((k) => k.id)).toEqual([otherId]);
  });

  it("an unknown plan or a blank name is refused and stores nothing", async () => {
    const count = (await rows()).length;
    await expect(keys.create("Acme", "gold" as Plan)).rejects.toThrow(
      /unknown plan "gold".*pro, elite, enterprise/,
    );
    await expect(keys.create("Acme", "" as Plan)).rejects.toThrow(/unknown plan/);
    await expect(keys.create("Acme", "PRO" as Plan)).rejects.toThrow(/unknown plan/);
    await expect(keys.create("", "pro")).rejects.toThrow(/name/);
    await expect(keys.create(" \t\n", "pro")).rejects.toThrow(/name/);
    expect((await rows()).length).toBe(count);
  });
});

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run keys -- <args>` on a SQLite database in `dataDir`. */
function keysCli(dataDir: string, ...args: string[]): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "silent" };
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "src/cli/keys.ts", ...args],
      { cwd: join(import.meta.dirname, "../.."), env, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

describe("the keys command (npm run keys) on sqlite", () => {
  const tmp = tempDir("storegraph-keys-cli-");
  const dataDir = join(tmp.dir, "data");
  let created: { key: string; id: string };

  afterAll(() => tmp.remove());

  /** ApiKeys over the command's database, opened only while the command is not running. */
  async function withKeys<T>(f: (keys: ApiKeys) => Promise<T>): Promise<T> {
    const store = await openSnapshotStore(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent" }));
    try {
      return await f(new ApiKeys(store));
    } finally {
      await store.close();
    }
  }

  beforeAll(async () => {
    const r = await keysCli(dataDir, "create", "--plan", "pro", "--name", "Acme");
    expect(r, r.stderr).toMatchObject({ code: 0 });
    const found = r.stdout.match(KEY_ANYWHERE) ?? [];
    expect(found).toHaveLength(1);
    const id = /Created key (\S+) \(pro\) for "Acme"/.exec(r.stdout)?.[1];
    expect(id).toBeDefined();
    created = { key: String(found[0]), id: String(id) };
  }, 60_000);

  it("create prints the key once, and it is a working pro key", async () => {
    expect(created.key).toMatch(KEY_SHAPE);
    const key = await withKeys((k) => k.verify(created.key));
    expect(key).toMatchObject({ id: created.id, name: "Acme", plan: "pro" });
  });

  it("list shows name and plan, never the key", async () => {
    const r = await keysCli(dataDir, "list");
    expect(r.code).toBe(0);
    const line = r.stdout.split("\n").find((l) => l.includes(created.id));
    expect(line).toBeDefined();
    expect(line).toContain("Acme");
    expect(line).toMatch(/\bpro\b/);
    expect(line).toMatch(/created \d{4}-\d\d-\d\dT/);
    expect(line).toMatch(/last used (never|\d{4}-)/);
    expect(line).toContain("active");
    expect(r.stdout + r.stderr).not.toContain(created.key);
    expect(r.stdout + r.stderr).not.toContain(created.key.slice(7));
    expect((r.stdout + r.stderr).match(KEY_ANYWHERE)).toBeNull();
  });

  it("revoke <prefix> revokes the key", async () => {
    const r = await keysCli(dataDir, "revoke", created.key.slice(0, 7));
    expect(r, r.stderr).toMatchObject({ code: 0 });
    expect(r.stdout).toContain(`revoked ${created.id}`);
    expect(await withKeys((k) => k.verify(created.key))).toBeNull();
    const list = await keysCli(dataDir, "list");
    expect(list.stdout.split("\n").find((l) => l.includes(created.id))).toMatch(/revoked \d{4}-/);
    // Nothing is left to revoke under that prefix.
    const again = await keysCli(dataDir, "revoke", created.key.slice(0, 7));
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no active key/);
  });

  it("revoke <id> revokes the key", async () => {
    const r = await keysCli(dataDir, "create", "--plan", "enterprise", "--name", "By Id");
    expect(r.code).toBe(0);
    const key = String(r.stdout.match(KEY_ANYWHERE)?.[0]);
    expect(key).toMatch(KEY_SHAPE);
    const id = String(/Created key (\S+)/.exec(r.stdout)?.[1]);
    const revoked = await keysCli(dataDir, "revoke", id);
    expect(revoked.code).toBe(0);
    expect(await withKeys((k) => k.verify(key))).toBeNull();
  });

  it.each([
    ["no command", []],
    ["an unknown command", ["frobnicate"]],
    ["create without --name", ["create", "--plan", "pro"]],
    ["create without --plan", ["create", "--name", "Acme"]],
    ["create with a blank --name", ["create", "--plan", "pro", "--name", "  "]],
    ["create with an extra argument", ["create", "extra", "--plan", "pro", "--name", "Acme"]],
    ["list with an argument", ["list", "extra"]],
    ["revoke without an id", ["revoke"]],
    ["revoke with two ids", ["revoke", "a", "b"]],
    ["an unknown option", ["list", "--bogus"]],
    ["an option without its value", ["create", "--name", "Acme", "--plan"]],
  ])("bad usage (%s) exits 2 with the usage text", async (_what, args) => {
    const r = await keysCli(dataDir, ...(args as string[]));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("usage:");
    expect(r.stderr).toContain("npm run keys -- create --plan pro|elite|enterprise");
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.stdout.match(KEY_ANYWHERE)).toBeNull();
  });

  it("an unknown plan is refused, names the plans and creates nothing", async () => {
    const before = await withKeys((k) => k.list());
    const r = await keysCli(dataDir, "create", "--plan", "gold", "--name", "Acme");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("pro, elite, enterprise");
    expect(r.stdout.match(KEY_ANYWHERE)).toBeNull();
    expect(await withKeys((k) => k.list())).toHaveLength(before.length);
  });
});

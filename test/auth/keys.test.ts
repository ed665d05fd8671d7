import { execFile } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeys, KeySelectorError, type Plan } from "../../src/auth/keys.ts";
import { loadConfig } from "../../src/config.ts";
import { openSnapshotStore } from "../../src/db/open-store.ts";
import type { SnapshotStore } from "../../src/db/store.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/**
 * API keys (docs/api.md section 5, docs/decisions.md "Authentication and plans"): created, listed and
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

  it("a key belongs to an account: a new one of its own, or one another key holds; never an unknown one", async () => {
    const { key: first, apiKey: owner } = await keys.create("Owner", "pro");
    expect(owner.account).toBe(owner.id);
    const { key: second, apiKey: colleague } = await keys.create("Colleague", "elite", owner.account);
    expect(colleague.account).toBe(owner.account);
    expect((await keys.verify(first))?.account).toBe(owner.account);
    expect((await keys.verify(second))?.account).toBe(owner.account);
    expect((await keys.list()).find((k) => k.id === colleague.id)?.account).toBe(owner.account);
    await expect(keys.create("Stray", "pro", "no-such-account")).rejects.toThrow(
      /no key belongs to the account "no-such-account"/,
    );
    expect((await keys.list()).some((k) => k.name === "Stray")).toBe(false);
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

  it("revoke by the key itself (one that leaked): found by its hash, pasted with spaces too", async () => {
    const { key, apiKey } = await keys.create("leaked", "pro");
    const other = await keys.create("bystander of a leak", "pro");
    expect((await keys.revoke(` ${key}\n`)).map((k) => k.id)).toEqual([apiKey.id]);
    expect(await keys.verify(key)).toBeNull();
    expect((await keys.verify(other.key))?.id).toBe(other.apiKey.id);
    // Revoked already: nothing more to revoke, and match names it, revoked.
    expect(await keys.revoke(key)).toEqual([]);
    expect((await keys.match(key)).map((k) => [k.id, k.revokedAt instanceof Date])).toEqual([
      [apiKey.id, true],
    ]);
    // A key of the right shape that was never made names nothing; nor does one of the same prefix.
    expect(await keys.match(unknownKey())).toEqual([]);
    expect(await keys.revoke(other.key.slice(0, 7) + unknownKey().slice(7))).toEqual([]);
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

/** A key whose secret starts with `start` (after sg_), written directly so that ids and prefixes are chosen. */
async function insertKey(
  keys: ApiKeys,
  store: SnapshotStore,
  { id, name, plan, start }: { id: string; name: string; plan: Plan; start: string },
): Promise<{ key: string; id: string }> {
  const key = `sg_${start}${unknownKey().slice(3 + start.length)}`;
  await store.metaQuery(
    "INSERT INTO {meta}.api_key (id, name, plan, hash, prefix, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    [id, name, plan, sha256(key), key.slice(0, 7), Date.now()],
  );
  expect((await keys.verify(key))?.id).toBe(id);
  return { key, id };
}

/**
 * Revoking by a shortened id (issue 17): any prefix of 6 or more characters of the id, or of the
 * key's shown prefix, that names one active key. A fresh database, so that the prefixes chosen
 * here are the only ones.
 */
describe.each(databaseKinds())("revoking by a shortened id or key prefix on %s", (kind) => {
  let db: TestDatabase;
  let store: SnapshotStore;
  let keys: ApiKeys;
  const add = (id: string, name: string, plan: Plan, start: string) =>
    insertKey(keys, store, { id, name, plan, start });

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    store = await openSnapshotStore(db.config);
    keys = new ApiKeys(store);
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it("takes the first 8 characters of the id, and any unique prefix of 6 or more", async () => {
    const a = await add("3f2a9c1b-0000-4000-8000-000000000001", "Eight", "pro", "aaaa");
    const b = await add("3f2a9c77-0000-4000-8000-000000000002", "Bystander", "elite", "aaab");
    const c = await add("5e5e5e5e-0000-4000-8000-000000000003", "Six", "enterprise", "aaac");
    expect((await keys.revoke("3f2a9c1b")).map((k) => k.id)).toEqual([a.id]);
    expect(await keys.verify(a.key)).toBeNull();
    expect((await keys.verify(b.key))?.id).toBe(b.id);
    expect((await keys.revoke("5e5e5e")).map((k) => k.id)).toEqual([c.id]);
    expect(await keys.verify(c.key)).toBeNull();
    // The bystander shares 3f2a9c with the revoked key, which is no longer a candidate.
    expect((await keys.revoke("3f2a9c")).map((k) => k.id)).toEqual([b.id]);
  });

  it("an ambiguous id prefix is refused, lists each match's id, name and plan, and revokes nothing", async () => {
    const a = await add("7b7b7b11-0000-4000-8000-000000000004", "Twin One", "pro", "aaad");
    const b = await add("7b7b7b22-0000-4000-8000-000000000005", "Twin Two", "enterprise", "aaae");
    const err = await keys.revoke("7b7b7b").catch((e) => e);
    expect(err).toBeInstanceOf(KeySelectorError);
    expect((err as KeySelectorError).matches.map((k) => k.id).sort()).toEqual([a.id, b.id]);
    const message = (err as Error).message;
    expect(message).toMatch(/"7b7b7b" matches 2 keys/);
    for (const [id, name, plan] of [
      [a.id, "Twin One", "pro"],
      [b.id, "Twin Two", "enterprise"],
    ]) {
      const line = message.split("\n").find((l) => l.includes(id));
      expect(line, message).toContain(name);
      expect(line, message).toMatch(new RegExp(`\\b${plan}\\b`));
    }
    expect(await keys.verify(a.key)).not.toBeNull();
    expect(await keys.verify(b.key)).not.toBeNull();
    // One more character tells them apart.
    expect((await keys.revoke("7b7b7b2")).map((k) => k.id)).toEqual([b.id]);
    expect(await keys.verify(a.key)).not.toBeNull();
  });

  it("takes 6 or 7 characters of the key's shown prefix, and refuses an ambiguous one", async () => {
    const a = await add("c0c0c0c0-0000-4000-8000-000000000006", "Prefix Six", "pro", "zzz2");
    const b = await add("c1c1c1c1-0000-4000-8000-000000000007", "Shared A", "elite", "qqqa");
    const c = await add("c2c2c2c2-0000-4000-8000-000000000008", "Shared B", "pro", "qqqb");
    expect((await keys.revoke("sg_zzz")).map((k) => k.id)).toEqual([a.id]);
    expect(await keys.verify(a.key)).toBeNull();
    const err = await keys.revoke("sg_qqq").catch((e) => e);
    expect(err).toBeInstanceOf(KeySelectorError);
    expect((err as Error).message).toContain(b.id);
    expect((err as Error).message).toContain(c.id);
    expect(await keys.verify(b.key)).not.toBeNull();
    expect((await keys.revoke("sg_qqqa")).map((k) => k.id)).toEqual([b.id]);
    expect(await keys.verify(c.key)).not.toBeNull();
  });

  it("refuses a prefix under 6 characters, even one that names a single key, and says so", async () => {
    const a = await add("d4d4d4d4-0000-4000-8000-000000000009", "Short", "pro", "xyzw");
    for (const short of ["d4d4d", "d4", "sg_xy", "sg_", "", "  "]) {
      const err = await keys.revoke(short).catch((e) => e);
      expect(err, JSON.stringify(short)).toBeInstanceOf(KeySelectorError);
      expect((err as Error).message).toMatch(/at least 6 characters/);
    }
    expect(await keys.verify(a.key)).not.toBeNull();
  });

  it("takes the key's prefix as keys list shows it (with …), and an id in upper case", async () => {
    const a = await add("e5e5e5e5-0000-4000-8000-00000000000a", "Pasted", "pro", "pppp");
    const b = await add("f6f6f6f6-0000-4000-8000-00000000000b", "Shouted", "pro", "ppp2");
    expect((await keys.revoke("sg_pppp…")).map((k) => k.id)).toEqual([a.id]);
    expect((await keys.revoke("F6F6F6F6")).map((k) => k.id)).toEqual([b.id]);
    expect(await keys.verify(b.key)).toBeNull();
  });

  it("a prefix of revoked keys only revokes nothing, and match names the revoked key", async () => {
    const a = await add("0a0a0a0a-0000-4000-8000-00000000000c", "Gone", "pro", "gggg");
    expect((await keys.revoke("0a0a0a0a")).map((k) => k.id)).toEqual([a.id]);
    expect(await keys.revoke("0a0a0a0a")).toEqual([]);
    const matched = await keys.match("0a0a0a");
    expect(matched.map((k) => [k.id, k.revokedAt instanceof Date])).toEqual([[a.id, true]]);
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
  async function withKeys<T>(f: (keys: ApiKeys, store: SnapshotStore) => Promise<T>): Promise<T> {
    const store = await openSnapshotStore(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent" }));
    try {
      return await f(new ApiKeys(store), store);
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

  it("names an unknown command, with the one meant, and a wrong count of arguments", async () => {
    const typo = await keysCli(dataDir, "crete", "--plan", "pro", "--name", "Acme");
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(
      /^keys: unknown command "crete" \(did you mean "create"\?\); commands: create, list, revoke\n/,
    );
    expect(typo.stderr).toContain("usage:");
    const extra = await keysCli(dataDir, "list", "all");
    expect([extra.code, extra.stderr.split("\n")[0]]).toEqual([
      2,
      'keys: list takes no argument besides its options; got "all"',
    ]);
    // A key given as a command is named by its shown prefix only.
    const key = await keysCli(dataDir, created.key);
    expect(key.stderr.split("\n")[0]).toBe(
      `keys: unknown command the key ${created.key.slice(0, 7)}…; commands: create, list, revoke`,
    );
    expect(key.stderr).not.toContain(created.key.slice(7));
    // No command at all: the usage alone.
    const bare = await keysCli(dataDir);
    expect([bare.code, bare.stderr.startsWith("usage:")]).toEqual([2, true]);
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

  it("revoke <the whole key> revokes it, and never prints the key back", async () => {
    const r = await keysCli(dataDir, "create", "--plan", "pro", "--name", "Leaked");
    expect(r.code).toBe(0);
    const key = String(r.stdout.match(KEY_ANYWHERE)?.[0]);
    const id = String(/Created key (\S+)/.exec(r.stdout)?.[1]);
    const revoked = await keysCli(dataDir, "revoke", key);
    expect(revoked, revoked.stderr).toMatchObject({ code: 0 });
    expect(revoked.stdout).toContain(`revoked ${id} (Leaked)`);
    expect(await withKeys((k) => k.verify(key))).toBeNull();
    // Again: it says which key was revoked and when, by its shown prefix only.
    const again = await keysCli(dataDir, "revoke", key);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      new RegExp(
        `^no active key matches the key ${key.slice(0, 7)}…: ${id} \\(Leaked\\) was revoked \\d{4}-`,
      ),
    );
    for (const out of [revoked, again]) {
      expect(out.stdout + out.stderr).not.toContain(key.slice(7));
      expect((out.stdout + out.stderr).match(KEY_ANYWHERE)).toBeNull();
    }
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

  it("revoke <the first 8 characters of the id that list shows> revokes the key", async () => {
    const r = await keysCli(dataDir, "create", "--plan", "elite", "--name", "Short Id");
    expect(r.code).toBe(0);
    const key = String(r.stdout.match(KEY_ANYWHERE)?.[0]);
    const id = String(/Created key (\S+)/.exec(r.stdout)?.[1]);
    const line = (await keysCli(dataDir, "list")).stdout.split("\n").find((l) => l.includes("Short Id"));
    expect(line?.startsWith(id)).toBe(true);
    const revoked = await keysCli(dataDir, "revoke", id.slice(0, 8));
    expect(revoked, revoked.stderr).toMatchObject({ code: 0 });
    expect(revoked.stdout).toContain(`revoked ${id}`);
    expect(await withKeys((k) => k.verify(key))).toBeNull();
  });

  it("revoke <the key's prefix as list shows it, with …> revokes the key", async () => {
    const r = await keysCli(dataDir, "create", "--plan", "pro", "--name", "Pasted Prefix");
    const key = String(r.stdout.match(KEY_ANYWHERE)?.[0]);
    const line = (await keysCli(dataDir, "list")).stdout.split("\n").find((l) => l.includes("Pasted Prefix"));
    const shown = line?.split(/\s+/).find((w) => w.startsWith("sg_"));
    expect(shown).toBe(`${key.slice(0, 7)}…`);
    const revoked = await keysCli(dataDir, "revoke", String(shown));
    expect(revoked, revoked.stderr).toMatchObject({ code: 0 });
    expect(await withKeys((k) => k.verify(key))).toBeNull();
  });

  it("revoke of an ambiguous prefix lists the matches (id, name, plan) and exits 1", async () => {
    const twins = await withKeys(async (keys, store) => {
      return [
        await insertKey(keys, store, {
          id: "abcdef01-0000-4000-8000-000000000001",
          name: "Left",
          plan: "pro",
          start: "mmma",
        }),
        await insertKey(keys, store, {
          id: "abcdef02-0000-4000-8000-000000000002",
          name: "Right",
          plan: "enterprise",
          start: "mmmb",
        }),
      ];
    });
    const r = await keysCli(dataDir, "revoke", "abcdef");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/"abcdef" matches 2 keys/);
    expect(r.stderr.split("\n").find((l) => l.includes(twins[0].id))).toMatch(/\bpro\b.*Left/);
    expect(r.stderr.split("\n").find((l) => l.includes(twins[1].id))).toMatch(/\benterprise\b.*Right/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    for (const t of twins) expect(await withKeys((k) => k.verify(t.key))).not.toBeNull();
  });

  it("revoke of a prefix under 6 characters exits 1 and says so", async () => {
    const r = await keysCli(dataDir, "revoke", created.id.slice(0, 5));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/at least 6 characters/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
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

import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { SnapshotStore } from "../db/store.ts";

/**
 * API keys (docs/api.md section 5): 160 random bits, shown once at creation, stored only as a
 * sha-256 hash (a fast hash is enough for keys of this entropy: there is nothing to brute-force).
 */
export const PLANS = ["pro", "elite", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

const KEY_PREFIX = "sg_";
/** sg_ + 32 base32 characters (160 bits). */
const KEY_SHAPE = /^sg_[a-z2-7]{32}$/;

export interface ApiKey {
  id: string;
  name: string;
  plan: Plan;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** The account it belongs to (its lists are the account's); an account may hold several keys. */
  account: string;
}

const hashOf = (key: string) => createHash("sha256").update(key).digest("hex");

function base32(bytes: Buffer): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  let bits = 0;
  let value = 0;
  let out = "";
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

const toDate = (v: unknown) => (v === null || v === undefined ? null : new Date(Number(v)));

function toKey(r: Record<string, unknown>): ApiKey {
  return {
    id: String(r.id),
    name: String(r.name),
    plan: r.plan as Plan,
    prefix: String(r.prefix),
    createdAt: new Date(Number(r.created_at)),
    lastUsedAt: toDate(r.last_used_at),
    revokedAt: toDate(r.revoked_at),
    // Keys made before accounts stand for an account of their own (migration 0007 says so too).
    account: String(r.account ?? r.id),
  };
}

/** The fewest characters of an id or key prefix that revoke takes (24 bits of an id). */
export const MIN_SELECTOR = 6;

/** A selector that is too short, or names more than one active key (`matches`). */
export class KeySelectorError extends Error {
  override name = "KeySelectorError";
  constructor(
    message: string,
    readonly matches: ApiKey[] = [],
  ) {
    super(message);
  }
}

function normalizeSelector(selector: string): string {
  const wanted = selector
    .trim()
    .replace(/(…|\.\.\.)$/, "")
    .toLowerCase();
  if (wanted.length < MIN_SELECTOR) {
    throw new KeySelectorError(
      `"${selector}" is too short: give at least ${MIN_SELECTOR} characters of the key's id or of its prefix (sg_…), as npm run keys -- list shows them`,
    );
  }
  return wanted;
}

/** Whether a selector is a whole key (its secret), rather than a start of an id or prefix. */
const isSecret = (selector: string) => KEY_SHAPE.test(selector.trim());

/**
 * A selector as a message may quote it: a whole key only by its shown prefix, so that a key that
 * leaked is not printed once more (into a terminal's scrollback, a CI log).
 *
 * @example selectorText("sg_ab3k…") // → '"sg_ab3k…"'; selectorText(<a whole key>) // → 'the key sg_ab3k…'
 */
export function selectorText(selector: string): string {
  return isSecret(selector) ? `the key ${selector.trim().slice(0, 7)}…` : `"${selector}"`;
}

/** One key as `keys list` prints it: id, shown prefix, plan, name, dates and state. */
export function formatKey(k: ApiKey): string {
  const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : "active";
  const used = k.lastUsedAt ? k.lastUsedAt.toISOString() : "never";
  return `${k.id}  ${k.prefix}…  ${k.plan.padEnd(10)}  ${k.name}  account ${k.account}  created ${k.createdAt.toISOString()}  last used ${used}  ${state}`;
}

export class ApiKeys {
  /** last_used_at is written at most this often per key, not on every request. */
  private readonly touched = new LRUCache<string, true>({ max: 10_000, ttl: 60_000 });

  constructor(private readonly store: SnapshotStore) {}

  /**
   * Creates a key; the returned `key` is the only time it is ever shown. It belongs to `account`
   * (an account some key already belongs to: its lists are shared by its keys), or to a new
   * account of its own, named by the key's id.
   */
  async create(name: string, plan: Plan, account?: string): Promise<{ key: string; apiKey: ApiKey }> {
    if (!name.trim()) throw new Error("a key needs a name");
    if (!PLANS.includes(plan)) throw new Error(`unknown plan "${plan}"; plans: ${PLANS.join(", ")}`);
    if (account !== undefined) {
      const [held] = await this.store.metaQuery("SELECT 1 AS one FROM {meta}.api_key WHERE account = ?", [
        account,
      ]);
      if (!held)
        throw new Error(`no key belongs to the account "${account}" (npm run keys -- list shows them)`);
    }
    const key = KEY_PREFIX + base32(randomBytes(20));
    const id = randomUUID();
    const now = Date.now();
    await this.store.metaQuery(
      "INSERT INTO {meta}.api_key (id, name, plan, hash, prefix, created_at, account) VALUES (?, ?, ?, ?, ?, ?, ?)",
      [id, name.trim(), plan, hashOf(key), key.slice(0, 7), now, account ?? id],
    );
    return {
      key,
      apiKey: {
        id,
        name: name.trim(),
        plan,
        prefix: key.slice(0, 7),
        createdAt: new Date(now),
        lastUsedAt: null,
        revokedAt: null,
        account: account ?? id,
      },
    };
  }

  async list(): Promise<ApiKey[]> {
    return (await this.store.metaQuery("SELECT * FROM {meta}.api_key ORDER BY created_at, id")).map(toKey);
  }

  /**
   * Every key, active or revoked, that `selector` names: the key itself (its secret, compared by
   * hash), or a start of its id or of its shown prefix (sg_ and four characters). A start is taken
   * as `keys list` prints it (a trailing …, either case), and needs MIN_SELECTOR characters so that
   * a slip cannot name a key by chance.
   */
  async match(selector: string): Promise<ApiKey[]> {
    if (isSecret(selector)) {
      // The key itself, as a person pastes one that leaked: found by its hash, as verify finds it.
      const rows = await this.store.metaQuery("SELECT * FROM {meta}.api_key WHERE hash = ?", [
        hashOf(selector.trim()),
      ]);
      return rows.map(toKey);
    }
    const wanted = normalizeSelector(selector);
    return (await this.list()).filter((k) => k.id.startsWith(wanted) || k.prefix.startsWith(wanted));
  }

  /**
   * Revokes the one active key `selector` names (see match); returns it, or nothing when no active
   * key matches. More than one active match is a KeySelectorError listing them: revoked keys are
   * not candidates, so a prefix stays usable once its twin is revoked.
   */
  async revoke(selector: string): Promise<ApiKey[]> {
    const matches = (await this.match(selector)).filter((k) => k.revokedAt === null);
    if (matches.length > 1) {
      throw new KeySelectorError(
        `${selectorText(selector)} matches ${matches.length} keys; give more of the id:\n${matches.map((k) => `  ${formatKey(k)}`).join("\n")}`,
        matches,
      );
    }
    for (const k of matches) {
      await this.store.metaQuery("UPDATE {meta}.api_key SET revoked_at = ? WHERE id = ?", [Date.now(), k.id]);
    }
    return matches;
  }

  /** The active key a presented secret belongs to, or null (malformed, unknown or revoked). */
  async verify(secret: string): Promise<ApiKey | null> {
    if (!KEY_SHAPE.test(secret)) return null;
    const hash = hashOf(secret);
    const [row] = await this.store.metaQuery("SELECT * FROM {meta}.api_key WHERE hash = ?", [hash]);
    // The lookup is by hash; compare again in constant time so no timing tells how much matched.
    if (!row || !timingSafeEqual(Buffer.from(String(row.hash), "hex"), Buffer.from(hash, "hex"))) return null;
    const key = toKey(row);
    if (key.revokedAt !== null) return null;
    const now = Date.now();
    if (!this.touched.has(key.id)) {
      this.touched.set(key.id, true);
      await this.store.metaQuery("UPDATE {meta}.api_key SET last_used_at = ? WHERE id = ?", [now, key.id]);
    }
    return key;
  }
}

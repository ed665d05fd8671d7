import { randomUUID } from "node:crypto";
import { nameRefusal, notFound } from "./account-names.ts";
import type { MetaQuery, SnapshotStore } from "./store.ts";

/**
 * An account's lists of Domains (docs/decisions.md, "Lists"), in the meta database: they survive
 * snapshot loads. A list keeps Domain names; which names a snapshot recognizes is the caller's
 * to check before adding (src/query/lists.ts), so that an unknown name is reported, never stored.
 * Each change is one transaction: a list is made, filled, emptied or deleted whole, or not at all.
 */
export type ListStore = Pick<SnapshotStore, "metaQuery" | "metaTransaction">;

/** Limits of an account's lists (docs/decisions.md, "Lists"). */
export const LIST_LIMITS = {
  /** Lists an account holds. */
  lists: 100,
  /** Domains a list holds. */
  domains: 10_000,
  /** Domain names one request adds or removes. */
  perRequest: 1_000,
} as const;

export interface DomainListRow {
  name: string;
  /** The Domains it holds. */
  count: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A request a list cannot take: `argument` names what was wrong (name, domains). */
export class ListError extends Error {
  override name = "ListError";
  constructor(
    readonly argument: "name" | "domains",
    message: string,
  ) {
    super(message);
  }
}

/** What a request naming a list the account does not have is told. */
export const noList = (name: string) => notFound("list", name);

/** The list does not exist (for this account). */
export class ListNotFoundError extends Error {
  override name = "ListNotFoundError";
  constructor(readonly list: string) {
    super(noList(list));
  }
}

export function checkListName(name: string): string {
  const refused = nameRefusal("list", name);
  if (refused) throw new ListError("name", refused);
  return name;
}

const SELECT_LIST = `SELECT l.id, l.name, l.created_at, l.updated_at,
  (SELECT count(*) FROM {meta}.domain_list_item i WHERE i.list_id = l.id) AS count
  FROM {meta}.domain_list l`;

const rowOf = (r: Record<string, unknown>): DomainListRow & { id: string } => ({
  id: String(r.id),
  name: String(r.name),
  count: Number(r.count),
  createdAt: new Date(Number(r.created_at)),
  updatedAt: new Date(Number(r.updated_at)),
});

const listOnly = ({ id: _id, ...list }: DomainListRow & { id: string }): DomainListRow => list;

/** `?, ?, …` for n values. */
const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");

export class DomainLists {
  constructor(private readonly store: ListStore) {}

  /** The account's lists, by name. */
  async all(account: string): Promise<DomainListRow[]> {
    const rows = await this.store.metaQuery(`${SELECT_LIST} WHERE l.account = ? ORDER BY l.name`, [account]);
    return rows.map((r) => listOnly(rowOf(r)));
  }

  async get(account: string, name: string): Promise<DomainListRow | null> {
    const row = await find(this.store.metaQuery.bind(this.store), account, name);
    return row ? listOnly(row) : null;
  }

  /** The names a list holds, sorted; null when the account has no list of that name. */
  async domains(account: string, name: string): Promise<string[] | null> {
    const rows = await this.store.metaQuery(
      `SELECT i.domain FROM {meta}.domain_list_item i JOIN {meta}.domain_list l ON l.id = i.list_id
       WHERE l.account = ? AND l.name = ? ORDER BY i.domain`,
      [account, name],
    );
    if (rows.length) return rows.map((r) => String(r.domain));
    return (await this.get(account, name)) ? [] : null;
  }

  /**
   * Adds `names` (recognized Domain names, deduplicated by the caller) to the list, making it when
   * the account has none of that name. Names it holds already are not added again. Over a limit,
   * nothing is made or added.
   */
  async add(
    account: string,
    name: string,
    names: readonly string[],
  ): Promise<{ list: DomainListRow; added: number }> {
    checkListName(name);
    return this.store.metaTransaction(
      async (q) => {
        const now = Date.now();
        let list = await find(q, account, name);
        if (!list) {
          const [held] = await q("SELECT count(*) AS n FROM {meta}.domain_list WHERE account = ?", [account]);
          if (Number(held?.n ?? 0) >= LIST_LIMITS.lists) {
            throw new ListError(
              "name",
              `the account holds ${LIST_LIMITS.lists} lists, the most it may: delete one (DELETE /list/{name}) before making "${name}"`,
            );
          }
          await q(
            "INSERT INTO {meta}.domain_list (id, account, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
            [randomUUID(), account, name, now, now],
          );
          list = (await find(q, account, name)) as DomainListRow & { id: string };
        }
        const held = new Set<string>();
        for (let i = 0; i < names.length; i += 500) {
          const batch = names.slice(i, i + 500);
          const rows = await q(
            `SELECT domain FROM {meta}.domain_list_item WHERE list_id = ? AND domain IN (${marks(batch.length)})`,
            [list.id, ...batch],
          );
          for (const r of rows) held.add(String(r.domain));
        }
        const fresh = names.filter((n) => !held.has(n));
        if (list.count + fresh.length > LIST_LIMITS.domains) {
          throw new ListError(
            "domains",
            `the list "${name}" holds ${list.count} Domains and this would add ${fresh.length}: a list holds at most ${LIST_LIMITS.domains}`,
          );
        }
        for (let i = 0; i < fresh.length; i += 300) {
          const batch = fresh.slice(i, i + 300);
          await q(
            `INSERT INTO {meta}.domain_list_item (list_id, domain, added_at) VALUES ${batch.map(() => "(?, ?, ?)").join(", ")}`,
            batch.flatMap((d) => [list.id, d, now]),
          );
        }
        if (fresh.length)
          await q("UPDATE {meta}.domain_list SET updated_at = ? WHERE id = ?", [now, list.id]);
        const after = (await find(q, account, name)) as DomainListRow & { id: string };
        return { list: listOnly(after), added: fresh.length };
      },
      { lock: `lists:${account}` },
    );
  }

  /** Removes `names` from the list; throws ListNotFoundError when the account has none of that name. */
  async remove(
    account: string,
    name: string,
    names: readonly string[],
  ): Promise<{ list: DomainListRow; removed: number }> {
    checkListName(name);
    return this.store.metaTransaction(
      async (q) => {
        const list = await find(q, account, name);
        if (!list) throw new ListNotFoundError(name);
        let removed = 0;
        for (let i = 0; i < names.length; i += 500) {
          const batch = names.slice(i, i + 500);
          const [r] = await q(
            `SELECT count(*) AS n FROM {meta}.domain_list_item WHERE list_id = ? AND domain IN (${marks(batch.length)})`,
            [list.id, ...batch],
          );
          removed += Number(r?.n ?? 0);
          await q(
            `DELETE FROM {meta}.domain_list_item WHERE list_id = ? AND domain IN (${marks(batch.length)})`,
            [list.id, ...batch],
          );
        }
        if (removed)
          await q("UPDATE {meta}.domain_list SET updated_at = ? WHERE id = ?", [Date.now(), list.id]);
        const after = (await find(q, account, name)) as DomainListRow & { id: string };
        return { list: listOnly(after), removed };
      },
      { lock: `lists:${account}` },
    );
  }

  /** Deletes the list and its Domains; the list as it was, or null when the account had none of that name. */
  async delete(account: string, name: string): Promise<DomainListRow | null> {
    checkListName(name);
    return this.store.metaTransaction(
      async (q) => {
        const list = await find(q, account, name);
        if (!list) return null;
        await q("DELETE FROM {meta}.domain_list_item WHERE list_id = ?", [list.id]);
        await q("DELETE FROM {meta}.domain_list WHERE id = ?", [list.id]);
        return listOnly(list);
      },
      { lock: `lists:${account}` },
    );
  }
}

async function find(q: MetaQuery, account: string, name: string) {
  const [row] = await q(`${SELECT_LIST} WHERE l.account = ? AND l.name = ?`, [account, name]);
  return row ? rowOf(row) : null;
}

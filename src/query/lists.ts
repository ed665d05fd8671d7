import { type ReadContext, servedOf } from "../context.ts";
import { DomainLists, LIST_LIMITS, ListError, ListNotFoundError } from "../db/lists.ts";
import { apiError, InputError } from "../errors.ts";
import { canonicalDomainName } from "./domain-name.ts";

/**
 * The lists of the request's account (docs/decisions.md, "Lists"), as GraphQL and REST read and
 * change them: the names a request gives are checked against the served snapshot first, and a
 * name it does not have (or that is no domain name) is reported back, never stored.
 */
const lists = new WeakMap<object, DomainLists>();

export function listsOf(ctx: ReadContext): { lists: DomainLists; account: string } {
  // A client's request has its key's account; the server's own reads have none.
  if (!ctx.account) throw new Error("lists are read without an account (a request's API key)");
  const { lists: store, account } = ctx.account;
  let l = lists.get(store);
  if (!l) {
    l = new DomainLists(store);
    lists.set(store, l);
  }
  return { lists: l, account };
}

/** The request's names: 1 to LIST_LIMITS.perRequest of them. */
export function checkNames(names: readonly string[], argument = "domains"): void {
  if (names.length === 0) throw new InputError(argument, "must name at least one Domain");
  if (names.length > LIST_LIMITS.perRequest)
    throw new InputError(
      argument,
      `takes at most ${LIST_LIMITS.perRequest} names a request; got ${names.length}`,
    );
}

/**
 * The names the served snapshot has (normalized, each once, in the order given), and the others
 * as they were given.
 */
export async function recognize(
  ctx: ReadContext,
  names: readonly string[],
): Promise<{ known: string[]; unrecognized: string[] }> {
  const sql = servedOf(ctx).sql;
  const wanted = new Map<string, string>();
  const unrecognized: string[] = [];
  for (const raw of names) {
    const n = canonicalDomainName(raw);
    if (n === null) unrecognized.push(raw);
    else if (!wanted.has(n)) wanted.set(n, raw);
  }
  const all = [...wanted.keys()];
  const found = new Set<string>();
  if (all.length) {
    const rows = await sql.all(
      `SELECT r."name" FROM ${sql.table("domain")} r WHERE ${sql.anyOf('r."name"', 1)}`,
      [sql.keysParam(all)],
    );
    for (const r of rows) found.add(r[0] as string);
  }
  for (const [n, raw] of wanted) if (!found.has(n)) unrecognized.push(raw);
  return { known: all.filter((n) => found.has(n)), unrecognized };
}

/** A list error as the API answers it: 400 naming the argument, or 404 for a list the account lacks. */
export function listFailure(e: unknown, argument: { name: string; domains: string }): unknown {
  if (e instanceof ListError) return new InputError(argument[e.argument], e.message);
  if (e instanceof ListNotFoundError) return apiError("NOT_FOUND", e.message);
  return e;
}

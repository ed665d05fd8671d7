import { type ReadContext, servedOf } from "../context.ts";
import type { DomainKeys } from "../db/domain-keys.ts";
import type { SqlReader } from "../db/reader.ts";
import { Segments } from "../db/segments.ts";
import { whereKey } from "../db/where-bitmap.ts";
import { InputError } from "../errors.ts";
import { type DomainFilter, TERM_GROUPS, toDomainWhere } from "./domain-filter.ts";
import { DomainSet } from "./domain-set.ts";
import { allOf } from "./filter.ts";
import type { SortKey, Where } from "./keyset.ts";
import { listsOf } from "./lists.ts";
import { appByIdentifier, technologyKeys } from "./loaders.ts";
import { resolveKeys } from "./named-keys.ts";
import { searchCondition } from "./search.ts";
import { domainFilterType, segmentArgsOf } from "./segment-members.ts";
import { DOMAIN_SORTS, type Order, toSortKeys } from "./sort.ts";
import { meant, nearValues } from "./suggest.ts";
import { vocabularyOf } from "./vocabularies.ts";

/**
 * Which Domains a list of Domains holds, and in which order: the `where` and sort keys of List
 * Domains' arguments (coerced, as a resolver receives them). The one statement of them, for a
 * page of the `domains` connection (src/schema/domain-queries.ts) and for an export's stream of every
 * match (src/export/export-page.ts).
 */
export interface DomainListArgs {
  filter?: DomainFilter | null;
  orderBy?: readonly Order<keyof typeof DOMAIN_SORTS>[] | null;
  search?: string | null;
}

const DEFAULT_DOMAIN_ORDER: Order<keyof typeof DOMAIN_SORTS>[] = [{ field: "RANK", direction: "asc" }];

export const domainSortKeys = (args: DomainListArgs): SortKey[] =>
  toSortKeys(DOMAIN_SORTS, args.orderBy, DEFAULT_DOMAIN_ORDER);

/**
 * The `where` of the filter and search of `args`, within `base` (a parent's condition). A
 * segment's own filter (`ofSegment`: when it is saved, counted, evaluated at a load, or read for
 * `f:segment`) names no segment, at any depth of `and`, `or` and `not`: one that does is refused
 * rather than read, so that two segments naming each other cannot be followed round for ever.
 *
 * `argument`: the filter's argument, as its errors name it. `rows`: the Domain tables the `where` is for (the served snapshot's by default; the change feed
 * also reads those of the Domains gone from it): what it holds by key (a segment's members, a
 * search's matches) is of those rows, whose keys are their own.
 */
export async function domainListWhere(
  ctx: ReadContext,
  args: DomainListArgs,
  base: Where | null,
  ofSegment = false,
  { rows, argument = "filter" }: { rows?: SqlReader; argument?: string } = {},
): Promise<Where> {
  const reader = () => rows ?? servedOf(ctx).sql;
  return resolveKeys(
    allOf([base, toDomainWhere(args.filter, argument), await searchCondition("domain", args.search, reader)]),
    {
      app: async (ids) =>
        (await appByIdentifier(ctx).loadMany(ids)).map((app) => {
          if (app instanceof Error) throw app;
          return app?.pk ?? null;
        }),
      technology: (names) => technologyKeys(servedOf(ctx).sql, names),
      list: async (names) => {
        const { lists, account } = listsOf(ctx);
        return Promise.all(names.map((n) => lists.domains(account, n)));
      },
      segment: async (names) => {
        if (ofSegment)
          throw new InputError(
            "filter.segment",
            `a segment's filter cannot name a segment (it names "${names[0]}"), in any term of and, or and not`,
          );
        return Promise.all(names.map((n) => segmentMembers(ctx, n, reader())));
      },
      segmentNames: () => segmentNamesOf(ctx),
    },
  );
}

/**
 * The set of Domains (src/query/domain-set.ts) that List Domains' filter and search of `args`
 * match within `base`, on the snapshot `rows` reads (the context's by default): its `where`
 * resolved once per operation and arguments (domainListWhere), so that a page, its totalCount,
 * facets and histograms, and an export started by the operation (src/export/export-query.ts) ask
 * the one set.
 */
export function domainSetOf(
  ctx: ReadContext,
  args: DomainListArgs,
  base: Where | null,
  options: { rows?: SqlReader; argument?: string } = {},
): Promise<DomainSet> {
  const rows = options.rows ?? servedOf(ctx).sql;
  let sets = resolved.get(ctx);
  if (!sets) {
    sets = new Map();
    resolved.set(ctx, sets);
  }
  const key = whereKey([rows.table("domain"), options.argument, base, args.filter, args.search]);
  let set = sets.get(key);
  if (!set) {
    set = domainListWhere(ctx, args, base, false, options).then((where) => new DomainSet(rows, where));
    sets.set(key, set);
  }
  return set;
}

/** The sets an operation resolved, by its arguments (domainSetOf). */
const resolved = new WeakMap<ReadContext, Map<string, Promise<DomainSet>>>();

/**
 * A client's filter names plans the served snapshot has, as it spells them (`Shopify Plus`): an
 * unknown one, or one in another letter case, is refused naming it and the plans near it, rather
 * than answered with no Domain. Plans are a vocabulary of the data, not of the API (the snapshot's
 * own, vocabularyOf), so they are not canonicalized as the API's closed vocabularies are: every
 * reader of a filter (the page, its facets from the count index, its cursors) sees it as given.
 * Checked where a client asks (a page of Domains, which an export's options go through first), not
 * where a saved filter is read again at a later load (a segment, a webhook), whose snapshot may
 * have lost a plan since.
 *
 * @example checkPlans(ctx, { plan: { values: ["Shopify Pluss"] } }) // throws: filter.plan.values: unknown plan "Shopify Pluss" (did you mean "Shopify Plus" or "Shopify"?); the snapshot's plans: …
 */
export async function checkPlans(ctx: ReadContext, filter: DomainFilter | null | undefined): Promise<void> {
  if (!filter) return;
  const given = [{ at: "filter", filter }];
  for (const group of TERM_GROUPS)
    for (const [i, term] of (filter[group] ?? []).entries())
      given.push({ at: `filter.${group}[${i}]`, filter: term });
  const named = given.filter((g) => g.filter.plan?.values.length);
  if (named.length === 0) return;
  const plans = (await vocabularyOf(servedOf(ctx).sql, "plans")).map((e) => e.value);
  const known = new Set(plans);
  for (const { at, filter: f } of named) {
    for (const value of f.plan?.values ?? []) {
      if (known.has(value.trim()) || value.trim() === "") continue;
      const listed =
        plans.length > 30 ? `${plans.slice(0, 30).join(", ")}, … (${plans.length} in all)` : plans.join(", ");
      throw new InputError(
        `${at}.plan.values`,
        `unknown plan "${value}"${meant(nearValues(value, plans))}; the snapshot's plans (as spelled): ${listed}`,
      );
    }
  }
}

/**
 * The members of the account's segment `name` (`f:segment`) among the Domains `rows` reads (the
 * snapshot of `ctx` by default), under its filter as saved now (read as List Domains reads it,
 * naming no segment), evaluated on those rows: their keys, never another table's. Null when the
 * account has no such segment (the caller answers for it). A filter read again is the same set of
 * members (DomainSet.members), until it is replaced or a list it names changes.
 */
export async function segmentMembers(
  ctx: ReadContext,
  name: string,
  rows: SqlReader = servedOf(ctx).sql,
): Promise<DomainKeys | null> {
  if (!ctx.account) throw new Error("segments are read without an account (a request's API key)");
  const { account, lists: store } = ctx.account;
  const row = await new Segments(store).get(account, name);
  if (!row) return null;
  const where = await domainListWhere(ctx, segmentArgsOf(row, domainFilterType()), null, true, { rows });
  return new DomainSet(rows, where).members();
}

/** The names of the account's segments (for a "did you mean" when a request names one it lacks). */
export async function segmentNamesOf(ctx: ReadContext): Promise<string[]> {
  if (!ctx.account) return [];
  const { account, lists: store } = ctx.account;
  return (await new Segments(store).all(account)).map((s) => s.name);
}

import { type Context, servedOf } from "../context.ts";
import { perReader, type SqlReader } from "../db/reader.ts";
import { type DomainFilter, resolveAppKeys, toDomainWhere } from "./domain-filter.ts";
import { allOf } from "./filter.ts";
import type { SortKey, Where } from "./keyset.ts";
import { appByIdentifier } from "./loaders.ts";
import { searchCondition } from "./search.ts";
import { DOMAIN_SORTS, type Order, toSortKeys } from "./sort.ts";

/**
 * Which Domains a list of Domains holds, and in which order: the `where` and sort keys of List
 * Domains' arguments (coerced, as a resolver receives them). The one statement of them, for a
 * page of the `domains` connection (src/schema/domain.ts) and for an export's stream of every
 * match (src/rest/export-page.ts).
 */
export interface DomainListArgs {
  filter?: DomainFilter | null;
  orderBy?: readonly Order<keyof typeof DOMAIN_SORTS>[] | null;
  search?: string | null;
}

const DEFAULT_DOMAIN_ORDER: Order<keyof typeof DOMAIN_SORTS>[] = [{ field: "RANK", direction: "asc" }];

export const domainSortKeys = (args: DomainListArgs): SortKey[] =>
  toSortKeys(DOMAIN_SORTS, args.orderBy, DEFAULT_DOMAIN_ORDER);

/** The `where` of the filter and search of `args`, within `base` (a parent's condition). */
export async function domainListWhere(
  ctx: Context,
  args: DomainListArgs,
  base: Where | null,
): Promise<Where> {
  const where = await resolveAppKeys(
    allOf([
      base,
      toDomainWhere(args.filter),
      await searchCondition("domain", args.search, () => servedOf(ctx).sql),
    ]),
    async (ids) =>
      (await appByIdentifier(ctx).loadMany(ids)).map((app) => {
        if (app instanceof Error) throw app;
        return app?.pk ?? null;
      }),
  );
  return resolveTechnologyNames(where, servedOf(ctx).sql);
}

/**
 * `where` with each technology named (`technology: { name }`, under `technologies`) replaced by
 * the technologies' keys (`technologyPk`; -1 for an unknown name, which matches nothing). The
 * same condition, but one the database can estimate: through the join, PostgreSQL took Google
 * Analytics (on three Domains of four) for an average technology, and sorted by
 * -last_plan_change_at gathered its 756,000 Domains to sort them (192 ms a page at a million
 * Domains, 23× the same list by rank).
 */
async function resolveTechnologyNames(where: Where, sql: SqlReader): Promise<Where> {
  let named = false;
  const find = (v: unknown): void => {
    if (!v || typeof v !== "object" || v instanceof Date) return;
    if (Array.isArray(v)) {
      for (const x of v) find(x);
      return;
    }
    for (const [k, x] of Object.entries(v)) {
      if (k === "technology") named = true;
      else find(x);
    }
  };
  find(where);
  if (!named) return where;
  const keys = await technologyKeys(sql);
  const pks = (name: unknown) => keys.get(name as string) ?? [-1];
  const replace = (v: unknown): unknown => {
    if (!v || typeof v !== "object" || v instanceof Date) return v;
    if (Array.isArray(v)) return v.map(replace);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k !== "technology") {
        out[k] = replace(x);
        continue;
      }
      const name = (x as { name: unknown }).name;
      const names = typeof name === "object" && name !== null ? (name as { in: string[] }).in : [name];
      if (Object.keys(x as object).length !== 1 || !Array.isArray(names))
        throw new Error(`a technology filter of another form: ${JSON.stringify(x)}`);
      out.technologyPk = { in: names.flatMap(pks) };
    }
    return out;
  };
  return replace(where) as Where;
}

/** Technologies' keys by name, read once per snapshot (a few hundred rows; read again after a failure). */
const technologyNames = perReader((): { keys: Promise<Map<string, number[]>> | null } => ({ keys: null }));
function technologyKeys(sql: SqlReader): Promise<Map<string, number[]>> {
  const slot = technologyNames(sql, 0);
  slot.keys ??= sql
    .all(`SELECT "name", "pk" FROM ${sql.table("technology")}`, [])
    .then((rows) => {
      const keys = new Map<string, number[]>();
      for (const [name, pk] of rows)
        keys.set(name as string, [...(keys.get(name as string) ?? []), Number(pk)]);
      return keys;
    })
    .catch((e: unknown) => {
      slot.keys = null;
      throw e;
    });
  return slot.keys;
}

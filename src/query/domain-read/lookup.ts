import type { ReadContext } from "../../context.ts";
import { InputError, notFound } from "../../errors.ts";
import { checkPlans, type DomainListArgs, domainSetOf, domainSortKeys } from "../domain-list.ts";
import { canonicalDomainName } from "../domain-name.ts";
import { removedHint } from "../history.ts";
import type { Where } from "../keyset.ts";
import type { DomainRow } from "../loaders.ts";
import { type Connection, connectionPage, type PageArgs } from "../page.ts";
import { meant } from "../suggest.ts";
import { type DomainRead, withFields } from "./plan.ts";
import { plannedDomainByName, plannedDomainByPk } from "./read.ts";

/**
 * The Domains that the API's Domain answers read, by name or as a page of a list, each read as a
 * plan says (./plan.ts): one function each, which the GraphQL resolvers call with the plan of
 * their selection (src/schema/domain-queries.ts) and the REST routes with the plan of their `fields`
 * (src/rest/records.ts). Their arguments' errors name the GraphQL arguments, which REST renames
 * to its options.
 */

/** The Domain fields a lookup by name reads besides the selection (redirects are followed by them). */
export const DOMAIN_LOOKUP = ["pk", "name", "platformDomain", "state", "redirectsTo"];

const MAX_REDIRECT_HOPS = 5;
/** domainsByName's limit (POST /domain/bulk). */
export const MAX_NAMES = 100;

/** A name as clients write it: case-insensitive, without a trailing dot. */
function normalizeName(name: string, argument: string): string {
  const n = canonicalDomainName(name);
  if (n === null) throw new InputError(argument, `"${name}" is not a domain name such as shop.example.com`);
  return n;
}

type ByName = ReturnType<typeof plannedDomainByName>;

/** The Domain, or with `follow` the end of its redirect chain within the dataset. */
async function resolveDomain(byName: ByName, name: string, follow: boolean): Promise<DomainRow | null> {
  let d = await byName.load(name);
  const seen = new Set<string>();
  for (let hop = 0; follow && d && d.state === "Redirect" && hop < MAX_REDIRECT_HOPS; hop++) {
    seen.add(d.name);
    const target = ((d.redirectsTo as string[] | null) ?? [])[0];
    if (!target || seen.has(target)) break;
    const next = await byName.load(target);
    if (!next) break;
    d = next;
  }
  return d;
}

/** One Domain by its name or platform domain (`domain`, GET /domain/<name>); NOT_FOUND when unknown. */
export async function findDomain(
  ctx: ReadContext,
  read: DomainRead,
  args: { name: string; followRedirects?: boolean | null },
): Promise<DomainRow> {
  const byName = plannedDomainByName(ctx, withFields(read, DOMAIN_LOOKUP));
  const name = normalizeName(args.name, "name");
  const d = await resolveDomain(byName, name, args.followRedirects ?? false);
  if (!d)
    throw notFound(
      `Domain ${args.name}`,
      { argument: "name" },
      (await bareNameMeant(byName, name)) || (await removedHint(ctx, name)),
    );
  return d;
}

/**
 * For a www. name the dataset lacks, the bare name when the dataset has it: the 404 names it
 * (" (did you mean ...?)"). It is not answered in its place: the two may be different sites.
 */
async function bareNameMeant(byName: ByName, name: string): Promise<string> {
  const bare = name.startsWith("www.") ? name.slice("www.".length) : null;
  return bare && (await byName.load(bare)) ? meant([bare]) : "";
}

/**
 * Up to `max` Domains by name (`domainsByName`, POST /domain/bulk: MAX_NAMES; a lookalikes' seeds),
 * in request order, and the names not found.
 */
export async function findDomains(
  ctx: ReadContext,
  read: DomainRead,
  args: { names: readonly string[]; followRedirects?: boolean | null },
  max = MAX_NAMES,
): Promise<{ domains: DomainRow[]; notFound: string[] }> {
  if (args.names.length === 0) throw new InputError("names", "must name at least one Domain");
  if (args.names.length > max)
    throw new InputError("names", `takes at most ${max} names; got ${args.names.length}`);
  const names = args.names.map((n, i) => normalizeName(n, `names[${i}]`));
  const byName = plannedDomainByName(ctx, withFields(read, DOMAIN_LOOKUP));
  const found = await Promise.all(names.map((n) => resolveDomain(byName, n, args.followRedirects ?? false)));
  return {
    domains: found.filter((d): d is DomainRow => d !== null),
    notFound: args.names.filter((_n, i) => found[i] === null),
  };
}

/**
 * A page of a list of Domains (`domains`, GET /domain; a list's or an App's Domains, within
 * `base`): the rows read as `read` plans, with the key and the sort keys its cursors need.
 * `scope` is what its cursors belong to besides the filter and sort; `page: false` reads no row
 * (a totalCount or facets alone).
 */
export async function domainListPage(
  ctx: ReadContext,
  read: DomainRead,
  args: DomainListArgs & PageArgs,
  base: Where | null,
  scope: unknown,
  page = true,
): Promise<Connection<DomainRow>> {
  await checkPlans(ctx, args.filter);
  const keys = domainSortKeys(args);
  const rows = plannedDomainByPk(ctx, withFields(read, ["pk", "name", ...keys.map((k) => k.field)]));
  return connectionPage(ctx, {
    args,
    max: 1000,
    keys,
    of: await domainSetOf(ctx, args, base),
    scope: [scope, args.filter, args.search],
    rows,
    page,
  });
}

import type { SqlReader } from "../db/reader.ts";
import { RELATED_TABLE } from "../db/related-sql.ts";
import { InputError } from "../errors.ts";

/**
 * Related stores (GET /domain/{name}/related, GraphQL Domain.related, the MCP tool similar_domains with name):
 * the Domains that share with one Domain a value that says one merchant runs both (an email, a
 * phone, a social profile, a merchant name, a cluster, a redirect: src/db/related-sql.ts writes
 * them), each with the values shared. docs/decisions.md, "Related stores", gives the rules;
 * test/query/related.test.ts holds every answer to a brute force of them over every Domain.
 *
 * A value more than MAX_SHARED Domains hold is no evidence (a platform's support address, a
 * marketplace's phone): it is named with how many hold it, and its Domains are not read. Ranked by
 * how many values a Domain shares (its score), then rank (unranked last), then name.
 */

/** A value held by more Domains than this is too common to tell. */
export const MAX_SHARED = 100;
export const MAX_RELATED = 1000;
export const DEFAULT_RELATED = 50;

export interface SharedValue {
  type: string;
  value: string;
}

export interface RelatedDomain {
  pk: number;
  name: string;
  rank: number | null;
  /** How many of the Domain's values it shares. */
  score: number;
  /** The values shared, by type then value. */
  shared: SharedValue[];
}

export interface Related {
  /** The best `first` Domains related. */
  related: RelatedDomain[];
  /** Every Domain related. */
  total: number;
  /** The Domain's values too common to tell, with how many Domains hold each. */
  tooCommon: (SharedValue & { domains: number })[];
}

const byValue = (a: SharedValue, b: SharedValue) =>
  a.type < b.type ? -1 : a.type > b.type ? 1 : a.value < b.value ? -1 : a.value > b.value ? 1 : 0;

/** The Domains related to the Domain `pk`, the best `first` of them. */
export async function relatedDomains(sql: SqlReader, pk: number, first: number): Promise<Related> {
  if (!Number.isInteger(first) || first < 1 || first > MAX_RELATED)
    throw new InputError("first", `must be 1 to ${MAX_RELATED}; got ${first}`);
  const t = sql.table(RELATED_TABLE);
  // One statement: the Domain's values, and for those few enough to tell, the others holding them.
  const rows = await sql.all(
    `SELECT v."kind", v."value", v."shared_by", d."pk", d."name", d."rank" FROM ${t} v
       LEFT JOIN ${t} r ON v."shared_by" <= ${MAX_SHARED} AND r."kind" = v."kind" AND r."value" = v."value" AND r."domain_pk" <> v."domain_pk"
       LEFT JOIN ${sql.table("domain")} d ON d."pk" = r."domain_pk"
     WHERE v."domain_pk" = $1`,
    [pk],
  );
  const found = new Map<number, RelatedDomain>();
  const tooCommon: Related["tooCommon"] = [];
  for (const [kind, value, sharedBy, otherPk, name, rank] of rows) {
    const shared = { type: String(kind), value: String(value) };
    if (Number(sharedBy) > MAX_SHARED) {
      tooCommon.push({ ...shared, domains: Number(sharedBy) });
      continue;
    }
    if (otherPk === null || otherPk === undefined) continue;
    const key = Number(otherPk);
    let domain = found.get(key);
    if (!domain) {
      domain = {
        pk: key,
        name: String(name),
        rank: rank == null ? null : Number(rank),
        score: 0,
        shared: [],
      };
      found.set(key, domain);
    }
    domain.shared.push(shared);
    domain.score++;
  }
  const all = [...found.values()].sort(
    (a, b) =>
      b.score - a.score ||
      (a.rank ?? Number.POSITIVE_INFINITY) - (b.rank ?? Number.POSITIVE_INFINITY) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const related = all.slice(0, first);
  for (const d of related) d.shared.sort(byValue);
  tooCommon.sort(byValue);
  return { related, total: all.length, tooCommon };
}

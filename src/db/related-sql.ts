import { PART_TABLE, recordPartStatements } from "./snapshot-format.ts";

/**
 * Related stores (GET /domain/{name}/related; src/query/related.ts reads them): each Domain's
 * values that another Domain may share as evidence that one merchant runs both, one row a value,
 * built once per snapshot (the derived part `related`) with how many Domains share it. Kinds, and
 * how a value is written so that the same value written two ways is one (docs/decisions.md,
 * "Related stores"):
 *
 * - a contact, by its type (`email`, `phone`, each social or review network's type): an email
 *   lower-cased (ASCII letters: on both databases); a phone without spaces, dashes, dots, slashes, parentheses and `+`;
 *   any other value lower-cased, without `http://` or `https://`, a leading `www.` and trailing `/`;
 * - `merchant_name`: the merchant's name lower-cased, trimmed;
 * - `cluster`: the best-ranked Domain of its cluster (every member has the same);
 * - `redirect`: the Domain a redirect leads to, for the Domain that redirects and for that Domain.
 *
 * The table holds each (kind, value, Domain) once, with `shared_by`, the Domains holding the value:
 * a reader takes the others of a value shared by few, and names a value shared by many as too
 * common to tell (a platform's support address, a marketplace's phone) without reading them.
 */

export const RELATED_TABLE = "related_value";

export function relatedStatements(dialect: "sqlite" | "postgresql", n: (table: string) => string): string[] {
  const pg = dialect === "postgresql";
  // ASCII letters alone, on both databases: SQLite's lower() knows no others, PostgreSQL's every one.
  const lower = (v: string) => (pg ? `lower(${v} COLLATE "C")` : `lower(${v})`);
  const strip = (v: string, prefixes: string[]) =>
    prefixes.reduceRight(
      (inner, p) =>
        `CASE WHEN ${inner} LIKE '${p}%' THEN substr(${inner}, ${p.length + 1}) ELSE ${inner} END`,
      v,
    );
  const phone = ["' '", "'-'", "'.'", "'/'", "'('", "')'", "'+'"].reduce(
    (inner, c) => `replace(${inner}, ${c}, '')`,
    "c.value",
  );
  // A link's scheme, then its www.: each prefix taken off the value the one before left.
  const link = `rtrim(${strip(strip(lower("trim(c.value)"), ["https://", "http://"]), ["www."])}, '/')`;
  const targets = pg
    ? `FROM ${n("domain")} d CROSS JOIN LATERAL jsonb_array_elements_text(d."redirects_to") AS t(value) WHERE d."redirects_to" IS NOT NULL`
    : `FROM ${n("domain")} d, json_each(d."redirects_to") t WHERE d."redirects_to" IS NOT NULL`;
  // Every (kind, value, Domain) once, with how many Domains hold the value: one statement. Made
  // distinct by GROUP BY: on SQLite 1.6 s against DISTINCT's 3.0 s for 846,754 rows at 200k.
  const values = [
    `SELECT c."type" AS "kind", CASE c."type" WHEN 'email' THEN ${lower("trim(c.value)")} WHEN 'phone' THEN ${phone} ELSE ${link} END AS "value", c."domain_pk" FROM ${n("domain_contact")} c`,
    `SELECT 'merchant_name', ${lower('trim(d."merchant_name")')}, d."pk" FROM ${n("domain")} d WHERE d."merchant_name" IS NOT NULL`,
    `SELECT 'cluster', d."cluster_best_ranked", d."pk" FROM ${n("domain")} d WHERE d."cluster_best_ranked" IS NOT NULL`,
    `SELECT 'redirect', t.value, d."pk" ${targets}`,
    `SELECT 'redirect', d."name", d."pk" FROM ${n("domain")} d WHERE d."name" IN (SELECT t.value ${targets})`,
  ];
  return [
    `DROP TABLE IF EXISTS ${n(RELATED_TABLE)}`,
    `CREATE TABLE ${n(RELATED_TABLE)} AS SELECT "kind", "value", "domain_pk", count(*) OVER (PARTITION BY "kind", "value") AS "shared_by" FROM (SELECT "kind", "value", "domain_pk" FROM (${values.join(" UNION ALL ")}) v WHERE "value" <> '' GROUP BY 1, 2, 3) s`,
    `CREATE INDEX related_value_domain ON ${n(RELATED_TABLE)} ("domain_pk")`,
    `CREATE INDEX related_value_value ON ${n(RELATED_TABLE)} ("kind", "value", "domain_pk")`,
    ...(pg ? [`ANALYZE ${n(RELATED_TABLE)}`] : []),
    ...recordPartStatements(n(PART_TABLE), "related"),
  ];
}

import { FILES } from "./columns.ts";

/**
 * The Domains' rows of domains.parquet are their export records (GET /domain/export with every
 * field a column holds), read from the snapshot's copy by the export's own reader: a row equals
 * the record the API answers, in its forms and orders (a set's values sorted, technologies and Apps
 * by when they were installed), by construction rather than by a second statement of those rules
 * (src/snapshot-files.ts reads them).
 * An installed App carries the fields the file keeps of it; the rest of the App is in apps.parquet.
 */
export const INSTALLED_APP_FIELDS = ["id", "platform", "token", "name", "installed_at", "removed_at"];

/** The `fields` of the export records domains.parquet is made of. */
export const DOMAIN_RECORD_FIELDS = FILES.domains.columns
  .filter((c) => !c.select || c.read)
  .flatMap((c) => (c.name === "apps" ? INSTALLED_APP_FIELDS.map((f) => `apps.${f}`) : [c.name]))
  .join(",");

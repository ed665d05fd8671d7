import { readFileSync } from "node:fs";
import { fromRoot } from "../root.ts";

/** P1, the platform that many fields are specific to (docs/decisions.md). */
export const P1 = "shopify";

/** The allowed platform identifiers, in file order (sorted), read from platforms.txt beside this module. */
export const PLATFORM_LIST: readonly string[] = readFileSync(fromRoot("src/dataset/platforms.txt"), "utf8")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line !== "");

/** The allowed platform identifiers (`f:p` values and every record's `platform`). */
export const PLATFORMS: ReadonlySet<string> = new Set(PLATFORM_LIST);

/**
 * The platforms most stores run on, commonest first (their order in the generator's profile,
 * src/dataset/generate/platform-profile.ts): an unknown platform's refusal always names them, after
 * the platforms near what was given.
 */
export const COMMON_PLATFORMS: readonly string[] = [
  P1,
  "woocommerce",
  "wix",
  "squarespace",
  "bigcommerce",
  "magento",
  "custom",
  "ecwid",
  "prestashop",
  "webflow",
];
for (const p of COMMON_PLATFORMS)
  if (!PLATFORMS.has(p)) throw new Error(`COMMON_PLATFORMS: "${p}" is not in src/dataset/platforms.txt`);

/**
 * Numeric platform ids, as the dashboard's boolean query may name a platform (`bq`,
 * docs/decisions.md "List Domains"): `1` is shopify, as the dashboard numbers it; the others are
 * this project's, for well-known platforms, and never renumbered (a new id is added at the end of
 * platform-ids.txt, one `<id> <platform>` a line). A platform without an id is named by name.
 */
export const PLATFORM_IDS: ReadonlyMap<string, string> = readPlatformIds();

function readPlatformIds(): Map<string, string> {
  const file = "src/dataset/platform-ids.txt";
  const entries = readFileSync(fromRoot(file), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const m = /^\s*([1-9]\d*)\s+(\S+)\s*$/.exec(line);
      if (!m || !PLATFORMS.has(m[2]))
        throw new Error(`${file}: "${line}" is not "<id> <platform of platforms.txt>"`);
      return [m[1], m[2]] as const;
    });
  const ids = new Map(entries);
  if (ids.size !== entries.length || new Set(ids.values()).size !== entries.length)
    throw new Error(`${file}: an id or a platform is given twice`);
  if (ids.get("1") !== P1) throw new Error(`${file}: 1 must be ${P1}`);
  return ids;
}

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

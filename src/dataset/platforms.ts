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

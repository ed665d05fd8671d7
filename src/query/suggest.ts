import { didYouMean } from "graphql/jsutils/didYouMean.js";
import { suggestionList } from "graphql/jsutils/suggestionList.js";

/**
 * "Did you mean" for the API's refusals: the names near a client's, found and worded as GraphQL's
 * own validation errors find and word theirs (graphql-js's suggestionList: edit distance, a change
 * of letter case counted as one edit; its didYouMean: quoted, at most 5, joined with "or").
 */

/** At most this many names are suggested (didYouMean shows no more). */
export const MAX_SUGGESTIONS = 5;

/**
 * The names of `names` near `input`, nearest first.
 *
 * @example nearNames("shopfy", ["shopify", "wix"]) // → ["shopify"]
 */
export function nearNames(input: string, names: readonly string[]): string[] {
  return suggestionList(input, names);
}

/**
 * The values of a vocabulary a client most likely meant, best first: the near ones (a typo, a
 * letter case), then those that contain what was given (`bigcom`: bigcommerce), spaces and
 * underscores read as the vocabulary's hyphens (`salesforce commerce cloud`).
 *
 * @example nearValues("bigcom", ["bigcartel", "bigcommerce", "wix"]) // → ["bigcommerce"]
 */
export function nearValues(input: string, values: readonly string[]): string[] {
  const hyphenated = input.trim().replace(/[\s_]+/g, "-");
  const lower = hyphenated.toLowerCase();
  const containing = lower.length >= 3 ? values.filter((v) => v.toLowerCase().includes(lower)) : [];
  return unique([...nearNames(hyphenated, values), ...containing]).slice(0, MAX_SUGGESTIONS);
}

/**
 * The parenthesis a refusal adds after the name it refuses, or "" when nothing is near.
 *
 * @example meant(["f:cc"]) // → ' (did you mean "f:cc"?)'
 */
export function meant(suggestions: readonly string[]): string {
  if (suggestions.length === 0) return "";
  return ` (${didYouMean(suggestions).trim().replace(/^Did/, "did")})`;
}

export function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

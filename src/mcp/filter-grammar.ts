import type { OptionDoc } from "../rest/inputs.ts";
import { argumentName, type FilterSubject } from "./tool-spec.ts";

/**
 * List Domains' filters as the MCP tool list says them: once, in a compact grammar in
 * search_domains' description, rather than as some 70 properties (each with its description)
 * repeated by every tool that takes them, which made tools/list 82 KB, about 20,000 tokens an agent
 * pays before its first question. The tools take them as arguments all the same (`f.cc`, `f.ermin`:
 * their input schemas let through what they do not list, and the API checks it, naming the option
 * and what it meant); every option with its whole description is a resource (FILTERS_URI).
 */

/** Where every filter option of Domains (or of Apps) is described, as JSON. */
export const filtersUri = (of: FilterSubject) => `storegraph://filters/${of}`;
export const FILTERS_URI = filtersUri("domains");

/** Whether an option is a filter (f:…), which the tool list does not list one by one. */
export const isFilter = (doc: OptionDoc) => doc.name.startsWith("f:");

/** The words of a description before its first detail: "Country code", "Installed App (<platform>.<token>)". */
const label = (description: string) => {
  const head = description.split(/[;:]/)[0].trim().replace(/\.$/, "");
  return head.charAt(0).toLowerCase() + head.slice(1);
};

/** The grammar of the filters among `options` (a Domain list operation's), in a few lines. */
export function filterGrammar(options: readonly OptionDoc[], of: FilterSubject): string {
  const filters = options.filter(isFilter);
  const names = new Set(filters.map((o) => o.name));
  const lists: string[] = [];
  const ranges: string[] = [];
  const events: string[] = [];
  const own: string[] = [];
  const kept: string[] = [];
  for (const o of filters) {
    const arg = argumentName(o.name);
    if (o.name.endsWith(":op")) continue;
    if (names.has(`${o.name}:op`)) lists.push(`${arg} ${label(o.description)}`);
    else if (names.has(o.name.replace(/:(min|max)$/, "")) && /:(min|max)$/.test(o.name)) continue;
    else if (/min$/.test(o.name) && names.has(o.name.replace(/min$/, "max"))) {
      const base = argumentName(o.name.replace(/:?min$/, ""));
      const sep = o.name.endsWith(":min") ? ".min/.max" : "min/max";
      ranges.push(`${base}${sep} ${label(o.description)}`);
    } else if (/max$/.test(o.name)) continue;
    else if (names.has(`${o.name}:min`)) {
      // "The app of f:app_installed_at:min / :max (exactly one)": what it names, then its times.
      const what = /^The (\w+) of /.exec(o.description)?.[1] ?? "value";
      events.push(`${arg} (one ${what === "app" ? "App" : what}) with .min/.max`);
    } else {
      // f.list: one of the account's lists, which the tool lists shows.
      own.push(`${arg} one of its ${o.name.slice(2)}s`);
      kept.push(`${o.name.slice(2)}s`);
    }
  }
  return [
    // The grammar in full once, in search_domains' description; search_apps' refers to it.
    of === "domains"
      ? `Filters. Lists of values (comma-separated; f.<x>.op and|or|not, default and): ${lists.join("; ")}.`
      : `Filters, as search_domains' are. Lists: ${lists.join("; ")}.`,
    `Ranges${of === "domains" ? " (inclusive)" : ""}: ${ranges.join("; ")}.`,
    ...(events.length ? [`When an App or technology came or went: ${events.join("; ")}.`] : []),
    ...(own.length
      ? [`The account's own: ${own.join("; ")} (the tools ${kept.join(" and ")} show them).`]
      : []),
    `Each in full: the resource ${filtersUri(of)}.`,
  ].join(" ");
}

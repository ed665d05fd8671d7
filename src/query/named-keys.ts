import { DomainKeys } from "../db/domain-keys.ts";
import { noList } from "../db/lists.ts";
import { noSegment } from "../db/segments.ts";
import { apiError, InputError } from "../errors.ts";
import type { Where } from "./keyset.ts";
import { meant, nearNames } from "./suggest.ts";

/**
 * What a filter names by a name of its own (an App, a technology, a list or a segment of the
 * account), standing in a `where` for its key until resolveKeys replaces it; and the answer to a
 * segment the account lacks. src/query/domain-filter.ts puts them in the `where` it makes.
 */

/**
 * A row a filter names by a name of its own, standing for its key until resolveKeys replaces it.
 * Domains are matched on the key itself (`domain_app.app_pk`, `domain_technology.technology_pk`):
 * joined to the named table instead, PostgreSQL cannot know at planning time which row it is and
 * estimates an average one. A popular App's 5,000 installs were walked rather than the rank
 * index (the benchmark's 3-filter page: 26 ms; with the key, 2.2 ms); Google Analytics, on three
 * Domains of four, was taken for an average technology, and its page by -last_plan_change_at
 * gathered 756,000 Domains to sort them (192 ms at a million Domains; with the key, 4.3 ms).
 */
export abstract class NamedKey {
  constructor(readonly identifier: string) {}
}
/** An App, by `<platform>.<token>`. */
export class AppKey extends NamedKey {}
/** A technology, by its name. */
export class TechnologyKey extends NamedKey {}
/** A list of the account, by its name: resolveKeys puts the names it holds in its place. */
export class ListKey extends NamedKey {
  constructor(
    identifier: string,
    /** The argument that named it, for the error of a list the account lacks. */
    readonly argument: string,
  ) {
    super(identifier);
  }
}

/**
 * What a request naming a segment its account lacks (`argument`: f:segment, a change filter's
 * `segment`, a webhook's) is answered, on every face: 404 NOT_FOUND naming the argument, with the
 * account's segments (`known`) near the name (docs/decisions.md, "Segments").
 */
export function unknownSegment(argument: string, name: string, known: readonly string[]) {
  return apiError("NOT_FOUND", `${argument}: ${noSegment(name)}${meant(nearNames(name, known))}`, {
    argument,
  });
}

/** A segment of the account, by its name: resolveKeys puts its members (DomainKeys) in its place. */
export class SegmentKey extends NamedKey {
  constructor(
    identifier: string,
    readonly argument: string,
  ) {
    super(identifier);
  }
}

/** How the keys of named rows are found: one result per identifier, null for an unknown one. */
export interface KeyLookups {
  app?: (identifiers: string[]) => Promise<(number | null)[]>;
  technology?: (identifiers: string[]) => Promise<(number | null)[]>;
  /** The names each list holds, null for a list the account does not have. */
  list?: (names: string[]) => Promise<(readonly string[] | null)[]>;
  /** Each segment's members, null for a segment the account does not have. */
  segment?: (names: string[]) => Promise<(DomainKeys | null)[]>;
  /** The names of the account's segments (what a name it lacks is near). */
  segmentNames?: () => Promise<string[]>;
}

/**
 * `where` with each AppKey and TechnologyKey replaced by the row's key (-1, which matches nothing,
 * for an unknown one), each ListKey by the names its list holds and each SegmentKey by its members
 * (a list or segment the account lacks is the client's error, naming the argument): one lookup per
 * kind, of each identifier once.
 */
export async function resolveKeys(where: Where, lookups: KeyLookups): Promise<Where> {
  const found = { app: new Set<string>(), technology: new Set<string>() };
  const lists = new Map<string, ListKey>();
  const segments = new Map<string, SegmentKey>();
  const kindOf = (k: NamedKey) => (k instanceof AppKey ? "app" : "technology");
  const collect = (v: unknown): void => {
    if (v instanceof ListKey) lists.set(v.identifier, v);
    else if (v instanceof SegmentKey) segments.set(v.identifier, v);
    else if (v instanceof DomainKeys) return;
    else if (v instanceof NamedKey) found[kindOf(v)].add(v.identifier);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === "object" && !(v instanceof Date)) Object.values(v).forEach(collect);
  };
  collect(where);
  if (!found.app.size && !found.technology.size && !lists.size && !segments.size) return where;
  const keyOf = { app: new Map<string, number>(), technology: new Map<string, number>() };
  for (const kind of ["app", "technology"] as const) {
    const identifiers = [...found[kind]];
    if (!identifiers.length) continue;
    const lookup = lookups[kind];
    if (!lookup) throw new Error(`a filter names a ${kind}, and nothing looks its key up`);
    const keys = await lookup(identifiers);
    identifiers.forEach((id, i) => {
      keyOf[kind].set(id, keys[i] ?? -1);
    });
  }
  const namesOf = new Map<string, readonly string[]>();
  if (lists.size) {
    if (!lookups.list) throw new Error("a filter names a list, and nothing looks it up");
    const names = [...lists.keys()];
    const held = await lookups.list(names);
    names.forEach((name, i) => {
      const listed = held[i];
      if (!listed) {
        throw new InputError((lists.get(name) as ListKey).argument, noList(name));
      }
      namesOf.set(name, listed);
    });
  }
  const membersOf = new Map<string, DomainKeys>();
  if (segments.size) {
    if (!lookups.segment) throw new Error("a filter names a segment, and nothing looks it up");
    const names = [...segments.keys()];
    const held = await lookups.segment(names);
    for (const [i, name] of names.entries()) {
      const members = held[i];
      if (!members)
        throw unknownSegment(
          (segments.get(name) as SegmentKey).argument,
          name,
          (await lookups.segmentNames?.()) ?? [],
        );
      membersOf.set(name, members);
    }
  }
  const replace = (v: unknown): unknown => {
    if (v instanceof ListKey) return [...(namesOf.get(v.identifier) ?? [])];
    if (v instanceof SegmentKey) return membersOf.get(v.identifier);
    if (v instanceof NamedKey) return keyOf[kindOf(v)].get(v.identifier);
    if (Array.isArray(v)) return v.map(replace);
    if (!v || typeof v !== "object" || v instanceof Date || v instanceof DomainKeys) return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, replace(x)]));
  };
  return replace(where) as Where;
}

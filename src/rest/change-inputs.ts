import { FEED_KINDS } from "../db/change-sql.ts";
import { parseFeedCursor } from "../db/feed-cursor.ts";
import { apiError } from "../errors.ts";
import { meant, nearNames } from "../query/suggest.ts";
import { optionOfArgument, readFilter } from "./filter-options.ts";
import { DOMAIN_TABLES, filterOptions, type Input } from "./inputs.ts";

/**
 * The change feed's options (docs/decisions.md, "Change feed") → ChangeFilter: `kinds`, `since`,
 * `until`, `app`, `technology`, and List Domains' `f:` options, matched against the Domains of the
 * served snapshot.
 */
export const CHANGE_QUERY: Input = {
  options: [
    {
      name: "kinds",
      type: "string",
      description: `Comma-separated kinds of change: ${FEED_KINDS.join(", ")} (default: all).`,
    },
    {
      name: "since",
      type: "string",
      description:
        "Changes after this point: a snapshot version (the changes of later loads), or an RFC 3339 time or a date (loads published then or later).",
    },
    {
      name: "until",
      type: "string",
      description:
        "Changes up to this point: a snapshot version (included), or a time or a date (loads published before it).",
    },
    { name: "app", type: "string", description: "Changes of this App, as <platform>.<token>." },
    {
      name: "technology",
      type: "string",
      description: "Changes of this technology (technology_added, technology_removed).",
    },
    {
      name: "segment",
      type: "string",
      description:
        "The events of this segment of the API key's account (segment_entered, segment_left); a segment's events are seen by its account alone.",
    },
    ...filterOptions(DOMAIN_TABLES),
  ],
  variables: { filter: "ChangeFilter" },
  read(o) {
    const filter: Record<string, unknown> = {};
    const kinds = o.string("kinds");
    if (kinds) {
      filter.kinds = kinds.split(",").map(changeKind);
    }
    for (const key of ["since", "until", "app", "technology", "segment"]) {
      const value = o.string(key);
      if (value) filter[key] = value;
    }
    const domain = readFilter(o, DOMAIN_TABLES);
    if (Object.keys(domain).length) filter.domain = domain;
    return { filter };
  },
};

/** One of `kinds`: a change kind, trimmed; a 400 naming `kinds` (and the kind meant) otherwise. */
export function changeKind(text: string): string {
  const kind = text.trim();
  if (!(FEED_KINDS as readonly string[]).includes(kind))
    throw apiError(
      "BAD_USER_INPUT",
      `kinds: unknown kind "${kind}"${meant(nearNames(kind, FEED_KINDS))}; valid: ${FEED_KINDS.join(", ")}`,
    );
  return kind;
}

/** `page_size` and `cursor` of the change feed → `first` and `after`. */
export const CHANGE_PAGE: Input = {
  options: [
    { name: "page_size", type: "integer", description: "Page size, 1 to 1000 (default 100)." },
    {
      name: "cursor",
      type: "string",
      description:
        "next_cursor of the previous page: it survives data refreshes (a later load's changes follow it); 410 once the changes after it were pruned.",
    },
  ],
  variables: { first: "Int", after: "String" },
  read: (o) => ({
    first: o.int("page_size", { min: 1, max: 1000 }) ?? 100,
    after: o.string("cursor") || null,
  }),
};

/**
 * GET /changes/stream's own options: where it starts (`cursor`, else the Last-Event-ID header the
 * browser's EventSource sends when it reconnects), and for how long it stays open.
 */
export const STREAM_OPTIONS: Input = {
  options: [
    {
      name: "cursor",
      type: "string",
      description:
        "Stream the changes after this one (a change's id, a next_cursor); without it, nor a Last-Event-ID header, the changes from now on.",
    },
    {
      name: "max_seconds",
      type: "integer",
      description:
        "Close the stream after this many seconds, 1 to 86400 (default: open until the client closes it).",
    },
  ],
  variables: {},
  read(o) {
    const cursor = o.string("cursor");
    if (cursor !== undefined && !parseFeedCursor(cursor))
      throw apiError("BAD_USER_INPUT", "cursor: is not a cursor of the change feed");
    o.int("max_seconds", { min: 1, max: 86_400 });
    return {};
  },
};

/** A GraphQL argument of the change feed → the option it came from (undefined: as other routes). */
export function changeOption(argument: string): string | undefined {
  const own = /^filter\.(since|until|kinds|app|technology|segment)\b/.exec(argument);
  if (own) return own[1];
  if (argument.startsWith("filter.domain"))
    return optionOfArgument(DOMAIN_TABLES, `filter${argument.slice("filter.domain".length)}`);
  return undefined;
}

import { describe, expect, it } from "vitest";
import { FEED_KINDS, SEGMENT_KINDS } from "../../src/db/change-sql.ts";
import { byAccount } from "../../src/query/feed.ts";

// Live readers of the feed (streams, webhooks, the subscription) share the pages one load wakes them
// to (src/query/feed.ts). An account owns only its segments' events, and a list's or a segment's
// name is its account's: a page is kept per account only where it can differ by account.

describe("which feed pages are shared across accounts", () => {
  const others = FEED_KINDS.filter((k) => !(SEGMENT_KINDS as readonly string[]).includes(k));

  it("keeps per account a page that can hold the reader's own segment events", () => {
    expect(byAccount(null)).toBe(true);
    expect(byAccount({})).toBe(true);
    expect(byAccount({ kinds: [] })).toBe(true);
    for (const k of SEGMENT_KINDS) expect(byAccount({ kinds: [others[0], k] }), k).toBe(true);
    expect(byAccount({ kinds: others, segment: "mine" })).toBe(true);
  });

  it("keeps per account a page whose Domains are a list's or a segment's, names of the account", () => {
    expect(byAccount({ kinds: others, domain: { list: "watched" } })).toBe(true);
    expect(byAccount({ kinds: others, domain: { and: [{ segment: "mine" }] } as never })).toBe(true);
  });

  it("shares across accounts a page whose kinds leave the accounts' events out", () => {
    expect(byAccount({ kinds: others })).toBe(false);
    expect(byAccount({ kinds: ["app_added"], domain: { countryCode: { values: ["US"] } } as never })).toBe(
      false,
    );
  });
});

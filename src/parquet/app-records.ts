import { once } from "node:events";
import { createWriteStream } from "node:fs";
import type { GraphQLObjectType } from "graphql";
import { readContext } from "../context.ts";
import type { ServedSnapshot } from "../db/snapshots.ts";
import { call, field, operation, selection } from "../rest/document.ts";
import { parseFields, toSelectionSet } from "../rest/fields.ts";
import { type LegacyWriter, legacyWriter } from "../rest/legacy-writer.ts";
import { withSharedTexts } from "../rest/shared-text.ts";
import { execute } from "../schema/execute.ts";
import { schema } from "../schema/index.ts";
import { FILES } from "./columns.ts";

/**
 * The rows of apps.parquet and reviews.parquet: each App's record as the API answers it
 * (`GET /app/<platform>.<token>` with every field a column holds), and each review as its App's
 * review list answers it, with its App as a Domain's review list gives it (docs/api.md 2.2), read
 * from the copy through the schema that answers the API, as the Domains' rows are (records.ts).
 * So the files hold what the API holds, in its forms and orders (an App's categories sorted), not
 * the lines the load read.
 */

const APP = schema.getType("App") as GraphQLObjectType;
const REVIEW = schema.getType("AppReview") as GraphQLObjectType;

/** The fields of each file's record: every column's (a split column's once). */
const fieldsOf = (kind: "apps" | "reviews") =>
  [...new Set(FILES[kind].columns.map((c) => c.read?.name ?? c.name))].join(",");

/** Apps a page, and reviews: the API's most (each App comes with the first page of its reviews). */
const PAGE = 50;

const pageInfo = field("pageInfo", [], selection(field("hasNextPage"), field("endCursor")));
const connection = (set: ReturnType<typeof toSelectionSet>) =>
  selection(field("edges", [], selection(field("node", [], set))), pageInfo);

interface Page<T> {
  edges: { node: T }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}
type Node = Record<string, unknown>;

let compiled: ReturnType<typeof compile> | undefined;

function compile() {
  const app = parseFields(fieldsOf("apps"), APP, { single: true });
  const review = parseFields(fieldsOf("reviews"), REVIEW);
  const reviewSet = connection(toSelectionSet(review));
  const appSet = toSelectionSet(app);
  return {
    writeApp: legacyWriter(app),
    writeReview: legacyWriter(review),
    // Each App with its platform and token, which the next pages of its reviews are asked by.
    apps: operation(
      "AppRecords",
      { first: "Int!", after: "String" },
      field(
        "apps",
        ["first", "after"],
        // The first page of each App's reviews (`after` is the Apps' cursor, not theirs).
        connection(
          selection(
            ...(appSet.selections as never[]),
            field("platform"),
            field("token"),
            call("reviews", { first: "first" }, reviewSet),
          ),
        ),
      ),
    ),
    reviews: operation(
      "AppReviewRecords",
      { platform: "String!", token: "String!", first: "Int!", after: "String" },
      field("app", ["platform", "token"], selection(field("reviews", ["first", "after"], reviewSet))),
    ),
  };
}

async function run<T>(
  served: ServedSnapshot,
  document: ReturnType<typeof operation>,
  variables: Record<string, unknown>,
): Promise<T> {
  const result = await execute(document, variables, readContext(served));
  if (result.errors?.length) throw result.errors[0].originalError ?? result.errors[0];
  return result.data as T;
}

/**
 * Writes every App's record to `appsPath` and every review's to `reviewsPath`, a line each, `size`
 * Apps and reviews a page; returns how many of each. A write that fails (the disk full) or a read that fails ends it.
 */
export async function writeAppRecords(
  served: ServedSnapshot,
  appsPath: string,
  reviewsPath: string,
  signal?: AbortSignal,
  size = PAGE,
): Promise<{ apps: number; reviews: number }> {
  compiled ??= compile();
  const c = compiled;
  const apps = createWriteStream(appsPath);
  const reviews = createWriteStream(reviewsPath);
  const counts = { apps: 0, reviews: 0 };
  /** Writes `nodes` with `write` to `out`, a line each. */
  const put = async (out: typeof apps, write: LegacyWriter, nodes: Node[]) => {
    const text = await withSharedTexts(served, (shared) =>
      nodes.map((n) => `${write(n, shared)}\n`).join(""),
    );
    if (text && !out.write(text)) await once(out, "drain");
    return nodes.length;
  };
  const writeReviews = async (of: Node, first: Page<Node>) => {
    let page = first;
    counts.reviews += await put(
      reviews,
      c.writeReview,
      page.edges.map((e) => e.node),
    );
    // An App with more reviews than a page: the rest by its own cursor.
    while (page.pageInfo.hasNextPage) {
      signal?.throwIfAborted();
      const { app } = await run<{ app: { reviews: Page<Node> } }>(served, c.reviews, {
        platform: of.platform,
        token: of.token,
        first: size,
        after: page.pageInfo.endCursor,
      });
      page = app.reviews;
      counts.reviews += await put(
        reviews,
        c.writeReview,
        page.edges.map((e) => e.node),
      );
    }
  };
  try {
    let after: string | null = null;
    for (;;) {
      signal?.throwIfAborted();
      const data: { apps: Page<Node & { reviews: Page<Node> }> } = await run(served, c.apps, {
        first: size,
        after,
      });
      const nodes = data.apps.edges.map((e) => e.node);
      counts.apps += await put(apps, c.writeApp, nodes);
      for (const n of nodes) await writeReviews(n, n.reviews);
      if (!data.apps.pageInfo.hasNextPage) break;
      after = data.apps.pageInfo.endCursor;
    }
    apps.end();
    reviews.end();
    await Promise.all([once(apps, "finish"), once(reviews, "finish")]);
    return counts;
  } finally {
    apps.destroy();
    reviews.destroy();
  }
}

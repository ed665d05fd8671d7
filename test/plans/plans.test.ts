import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readContext } from "../../src/context.ts";
import { evolveDataset } from "../../src/dataset/evolve.ts";
import { generateDataset } from "../../src/dataset/generate.ts";
import { openSnapshotReader } from "../../src/db/reader.ts";
import { domainStream, exportQueryOf } from "../../src/export/export-page.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";

// What a few canonical operations make the database do, recorded as file snapshots beside this
// file (__plans__/<database>/<operation>.sql), in the style of Grafast's fixture tests: a change
// of a plan (a statement more, a column less, another join) shows in review as a change of these
// files. Each operation runs once warm (the snapshot's checks and the shared Apps and
// technologies already read), so what is recorded is what every later request of its kind does.
// `npx vitest run test/plans -u` records them anew after a change that means to change a plan.

const scratch = tempDir("storegraph-plans-");
const weeks = [0, 1].map((w) => join(scratch.dir, `w${w}`));

beforeAll(async () => {
  await generateDataset({ domains: 300, apps: 30, seed: 53, outDir: weeks[0] });
  await evolveDataset({ from: weeks[0], outDir: weeks[1], seed: 53 });
}, 60_000);
afterAll(() => scratch.remove());

/** A statement as recorded: its whitespace folded, the snapshot's schema (PostgreSQL) named plainly. */
const normalize = (sql: string) =>
  sql
    .replace(/\s+/g, " ")
    .replace(/"storegraph_snapshot_\d+"/g, '"snapshot"')
    .replace(/"storegraph_gone_\d+"/g, '"gone"')
    .trim();

describe.each(databaseKinds())("the plans of canonical operations on %s", (kind) => {
  let api: TestApi;
  let name = "";
  beforeAll(async () => {
    api = await startApi(kind, weeks[0]);
    await api.load(weeks[1]);
    const res = await api.app.fetch(
      "http://localhost/json/api/v1/all/domain?f:cc=US&page_size=1&fields=name",
    );
    name = ((await res.json()) as { domains: { name: string }[] }).domains[0].name;
  }, 120_000);
  afterAll(async () => api?.close());

  /** The statements `run` makes, once warm (it runs twice; the second is recorded). */
  async function recorded(run: () => Promise<void>): Promise<string> {
    await run();
    api.resetQueries();
    await run();
    return `${api.queries.map(normalize).join(";\n")};\n`;
  }
  const rest = (path: string, init?: RequestInit) => async () => {
    const res = await api.app.fetch(`http://localhost/json/api/v1/all${path}`, init as never);
    expect(res.status, await res.clone().text()).toBe(200);
    await res.arrayBuffer();
  };
  const file = (operation: string) => join(import.meta.dirname, "__plans__", kind, `${operation}.sql`);

  it("one Domain by REST, the default fields", async () => {
    await expect(await recorded(rest(`/domain/${name}`))).toMatchFileSnapshot(file("rest-one-domain"));
  });

  it("a filtered page of List Domains, sorted, the default fields", async () => {
    await expect(
      await recorded(rest("/domain?f:cc=US&f:p=shopify&sort=-er&page_size=20")),
    ).toMatchFileSnapshot(file("rest-domain-page"));
  });

  it("a GraphQL page of Domains with their Apps", async () => {
    const query =
      '{ domains(first: 10, filter: { countryCode: { values: ["US"] } }) { edges { node { name rank apps { installedAt app { name } } } } } }';
    await expect(
      await recorded(async () => {
        const r = await api.gql(query);
        expect(r.errors).toBeUndefined();
      }),
    ).toMatchFileSnapshot(file("graphql-domain-page-apps"));
  });

  it("an export batch (the export thread's statements)", async () => {
    const served = await api.snapshots.current();
    if (!served) throw new Error("no snapshot");
    const seen: string[] = [];
    const sql = openSnapshotReader(api.db.config, served.snapshot, { onQuery: (text) => seen.push(text) });
    const query = await exportQueryOf(readContext(served), { filter: { countryCode: { values: ["US"] } } });
    const batch = async () => {
      for await (const _ of domainStream({ ...served, sql }, "", query, 50));
    };
    try {
      await batch();
      seen.length = 0;
      await batch();
    } finally {
      await sql.close();
    }
    await expect(`${seen.map(normalize).join(";\n")};\n`).toMatchFileSnapshot(file("export-default-fields"));
  });

  it("a page of the change feed, filtered by a Domain filter (the feed's statements too)", async () => {
    // The feed is in the meta store, which has no query hook of its own: its statements are
    // recorded here, for this operation only.
    const store = api.snapshots.store;
    const metaQuery = store.metaQuery.bind(store);
    store.metaQuery = (text, ...more) => {
      if (/change_event/.test(text)) api.queries.push(text);
      return metaQuery(text, ...more);
    };
    try {
      const path = "/changes?kinds=plan_changed,app_installed&f:cc=US&page_size=50";
      await expect(await recorded(rest(path))).toMatchFileSnapshot(file("changes-page"));
    } finally {
      store.metaQuery = metaQuery;
    }
  });

  it("the facets of a filtered list", async () => {
    // Counted from the snapshot's count index (src/db/count-index.ts), loaded by the warm-up: no
    // statement at all, afresh each time a new size.
    let size = 3;
    await expect(
      await recorded(async () => rest(`/domain/facets?f:cc=US&facets=p,plan,tech&facet_size=${size++}`)()),
    ).toMatchFileSnapshot(file("facets"));
  });
});

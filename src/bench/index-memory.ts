/**
 * What reading the served snapshot's count index adds to a process's RSS, in MB, printed as JSON
 * ({"rssMb": …, "domains": …}; rssMb null without an index): run by src/bench/facets.ts in a
 * process of its own (node --expose-gc, with the image's malloc settings, src/bench/measure.ts),
 * so that nothing else the bench holds is counted. Full collections before and after, settled.
 */
import { loadConfig } from "../config.ts";
import { countIndexOf } from "../db/count-index.ts";
import { Snapshots } from "../db/snapshots.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");
const collect = gc;

async function settled(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    collect();
    await new Promise((r) => setTimeout(r, 100));
  }
  return process.memoryUsage().rss;
}

const snapshots = await Snapshots.open(loadConfig(process.env), { refreshMs: 0, graceMs: 0 });
try {
  const served = await snapshots.current();
  if (!served) throw new Error("no snapshot is served");
  // The reader's own first costs (its connection, statements) are not the index's.
  await served.sql.all("SELECT 1", []);
  const before = await settled();
  const index = await countIndexOf(served.sql);
  const rssMb = index ? ((await settled()) - before) / 1e6 : null;
  console.log(JSON.stringify({ rssMb, domains: index?.n ?? null }));
} finally {
  await snapshots.close();
}

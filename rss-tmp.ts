// RSS a count index adds to a process: after the snapshot is opened and read once, then after the
// index (and the App index) are loaded; GC'd, settled, each measured 3 times.
import { loadConfig } from "./src/config.ts";
import { Snapshots } from "./src/db/snapshots.ts";
import { countIndexOf } from "./src/db/count-index.ts";
import { appCountIndexOf } from "./src/db/app-count-index.ts";
const mb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: +(m.rss / 2 ** 20).toFixed(1), heap: +(m.heapUsed / 2 ** 20).toFixed(1), external: +(m.external / 2 ** 20).toFixed(1), arrayBuffers: +(m.arrayBuffers / 2 ** 20).toFixed(1) };
};
const settle = () => new Promise((r) => setTimeout(r, 2000));
const snapshots = await Snapshots.open(loadConfig(), {});
const served = await snapshots.current();
if (!served) throw new Error("nothing served");
await served.sql.all(`SELECT count(*) FROM ${served.sql.table("domain")}`, []);
await settle();
const before = mb();
console.log("opened", before);
let t = performance.now();
const index = await countIndexOf(served.sql);
console.log("index loaded in", (performance.now() - t).toFixed(0), "ms, bytes", index?.bytes);
await settle();
const after = mb();
console.log("with index", after, "added rss", (after.rss - before.rss).toFixed(1));
t = performance.now();
const apps = await appCountIndexOf(served.sql);
console.log("app index built in", (performance.now() - t).toFixed(0), "ms", apps.n, "apps");
await settle();
const after2 = mb();
console.log("with app index", after2, "added rss", (after2.rss - after.rss).toFixed(1));
process.exit(0);

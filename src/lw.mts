import { rmSync } from "node:fs";
import { loadConfig } from "/work/main/src/config.ts";
import { loadSnapshot } from "/work/main/src/dataset/load/load.ts";
import { openSnapshotStore } from "/work/main/src/db/store.ts";

for (const workers of [2]) {
  rmSync("/tmp/lw", { recursive: true, force: true });
  const store = await openSnapshotStore(loadConfig({ DATA_DIR: "/tmp/lw" }));
  const t = performance.now();

  const r = await loadSnapshot(store, process.argv[2], { keep: 1, workers }).catch((e) => {
    throw e;
  });
  console.log(`workers=${workers}: ${((performance.now() - t) / 1000).toFixed(2)} s`, r.timings);
  await store.close();
}

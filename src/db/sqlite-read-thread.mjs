// Worker entry for sqlite-threads.ts when run from source (tsx, vitest): it registers tsx itself,
// then runs the TypeScript thread. The bundle (npm run build) has its own, dist/sqlite-read-thread.js.
import { register } from "tsx/esm/api";

register();
await import("./sqlite-read-thread.ts");

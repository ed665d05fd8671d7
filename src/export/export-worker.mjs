// Worker entry for export-reader.ts when run from source (tsx, vitest): it registers tsx itself,
// then runs the TypeScript worker. The bundle (npm run build) has its own, dist/export-worker.js.
import { register } from "tsx/esm/api";

register();
await import("./export-worker.ts");

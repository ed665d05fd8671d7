// Worker entry for validate.ts. Plain JavaScript so that it starts whatever loaded its parent
// (tsx, vitest): it registers tsx itself, then runs the TypeScript worker.
import { register } from "tsx/esm/api";

register();
await import("./validate-worker.ts");

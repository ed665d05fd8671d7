// The process duckdb-writer.ts runs in (files.ts starts it). Plain JavaScript so that it starts
// whatever started its parent (tsx, vitest, the bundled server): it registers tsx itself.
import { register } from "tsx/esm/api";

register();
const { main } = await import("./duckdb-writer.ts");
await main(process.argv.slice(2));

import { execFileSync } from "node:child_process";
import { join } from "node:path";

/**
 * Vitest global setup: builds dist/server.js (`npm run build`, as `npm start` does first), so the
 * tests that start the server as a process (support/server.ts) run the bundle that is served.
 */
export default function setup(): void {
  execFileSync(process.platform === "win32" ? "npm.cmd" : "npm", ["run", "--silent", "build"], {
    cwd: join(import.meta.dirname, "../.."),
    stdio: "inherit",
  });
}

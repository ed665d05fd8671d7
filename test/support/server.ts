import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import type { TestDatabase } from "./databases.ts";

/** A port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      const port = typeof address === "object" && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface Server {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the output once it matches, rejects if the process exits or time runs out. */
  waitFor: (re: RegExp, ms: number) => Promise<string>;
  stop: () => Promise<number | null>;
}

/**
 * The bundle npm start runs, as npm start runs it (--demo: an empty database gets a demo of 300
 * Domains), on `db`'s database and at `port`, with `extraEnv` and then the server flags `args`
 * (the later of two flags wins: ["--demo-domains", "1000"], ["--no-demo"]).
 */
export function startServer(
  db: TestDatabase,
  port: number,
  extraEnv: Record<string, string> = {},
  args: string[] = [],
): Server {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: db.config.dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    ...extraEnv,
  };
  delete env.DATABASE_URL;
  delete env.REQUIRE_HTTPS;
  delete env.TLS_CERT_FILE;
  delete env.TLS_KEY_FILE;
  delete env.NODE_ENV;
  if (db.config.database.kind === "postgresql") env.DATABASE_URL = db.config.database.url;
  // The bundle npm start runs (built by the global setup, test/support/build.ts).
  const child = spawn(
    process.execPath,
    ["dist/server.js", "--demo", "--demo-domains", "300", "--demo-apps", "30", ...args],
    {
      cwd: join(import.meta.dirname, "../.."),
      env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  let exited = false;
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const l of listeners) l();
  };
  child.stdout?.on("data", (d) => {
    out += d;
    changed();
  });
  child.stderr?.on("data", (d) => {
    out += d;
    changed();
  });
  const exit = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      exited = true;
      changed();
      resolve(code);
    }),
  );
  return {
    child,
    output: () => out,
    waitFor: (re, ms) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (re.test(out)) {
            done();
            resolve(out);
          } else if (exited) {
            done();
            reject(new Error(`the server exited before printing ${re}:\n${out}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no ${re} within ${ms} ms:\n${out}`));
        }, ms);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      }),
    stop: async () => {
      if (!exited) child.kill("SIGTERM");
      return exit;
    },
  };
}

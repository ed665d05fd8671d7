import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { DEMO_DEFAULT, parseServerArgs } from "../../src/server-args.ts";

/**
 * The demo and the switches of tests are the server's flags (src/server-args.ts), not settings of
 * the environment: npm start gives --demo, the image's command gives nothing.
 */
const ROOT = join(import.meta.dirname, "../..");

/** The flags `npm start -- <extra>` gives the server (package.json's start script). */
function npmStart(...extra: string[]): string[] {
  const start = (
    JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } }
  ).scripts.start;
  const words = start.split(" ");
  return [...words.slice(words.indexOf("dist/server.js") + 1), ...extra];
}

/** dist/server.js (built by the tests' global setup) run with `args`, on an empty environment. */
function server(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ["dist/server.js", ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", DATA_DIR: "/nonexistent/storegraph", ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe("the server's flags", () => {
  it("npm start loads the demo into an empty database; its flags size it, and --no-demo turns it off", () => {
    expect(parseServerArgs(npmStart())).toEqual({
      demo: DEMO_DEFAULT,
      rateLimits: true,
      allowPrivateWebhookTargets: false,
    });
    expect(DEMO_DEFAULT).toEqual({ domains: 20_000, apps: 1_000, seed: 42 });
    expect(
      parseServerArgs(npmStart("--demo-domains", "500", "--demo-apps=50", "--demo-seed=-7")),
    ).toMatchObject({
      demo: { domains: 500, apps: 50, seed: -7 },
    });
    expect(parseServerArgs(npmStart("--no-demo"))).toMatchObject({ demo: null });
  });

  it("without flags (the image's command): no demo, the rate limits on, private webhook targets refused", () => {
    expect(parseServerArgs([])).toEqual({ demo: null, rateLimits: true, allowPrivateWebhookTargets: false });
    expect(parseServerArgs(["--no-rate-limits", "--allow-private-webhook-targets"])).toEqual({
      demo: null,
      rateLimits: false,
      allowPrivateWebhookTargets: true,
    });
    expect(parseServerArgs(["-h"])).toBe("help");
  });

  it("refuses what it cannot take, naming the flag", () => {
    expect(() => parseServerArgs(["--demo-domains", "500"])).toThrow("--demo-domains needs --demo");
    expect(() => parseServerArgs(["--demo", "--demo-domains", "0"])).toThrow(
      '--demo-domains must be an integer from 1 to 10000000, got "0"',
    );
    expect(() => parseServerArgs(["--demo", "--demo-apps", "many"])).toThrow(
      /--demo-apps must be an integer/,
    );
    expect(() => parseServerArgs(["--rate-limits=off"])).toThrow(/rate-limits/);
    expect(() => parseServerArgs(["--demos"])).toThrow(/--demos/);
    expect(() => parseServerArgs(["serve"])).toThrow(/serve/);
  });

  it("become the config's demo, rate limits and webhook policy; the environment's variables of old stop the start", () => {
    const config = loadConfig({}, { demo: { domains: 5, apps: 1, seed: 3 }, rateLimits: false });
    expect([config.demo, config.rateLimits.enabled, config.webhooks.allowPrivateTargets]).toEqual([
      { domains: 5, apps: 1, seed: 3 },
      false,
      false,
    ]);
    expect(loadConfig({}).demo).toBeNull();
    for (const [name, flag] of [
      ["DEMO", "--demo"],
      ["DEMO_DOMAINS", "--demo-domains"],
      ["DEMO_APPS", "--demo-apps"],
      ["DEMO_SEED", "--demo-seed"],
      ["RATE_LIMITS", "--no-rate-limits"],
      ["WEBHOOK_ALLOW_PRIVATE_TARGETS", "--allow-private-webhook-targets"],
    ]) {
      expect(() => loadConfig({ [name]: "off" }), name).toThrow(`${name}: no longer read; `);
      expect(() => loadConfig({ [name]: "" }), name).toThrow(flag);
    }
  });

  it("dist/server.js: a bad flag exits 2 with its usage, a variable of old exits 1 naming its flag, --help 0", () => {
    const bad = server(["--demo-domains", "9"]);
    expect(bad.status).toBe(2);
    expect(bad.out).toContain("storegraph: --demo-domains needs --demo");
    expect(bad.out).toContain("usage: npm start");
    const old = server([], { DEMO: "off" });
    expect(old.status).toBe(1);
    expect(old.out).toContain("DEMO: no longer read; the demo is a flag");
    const help = server(["--help"]);
    expect(help.status).toBe(0);
    expect(help.out).toContain("--allow-private-webhook-targets");
  });
});

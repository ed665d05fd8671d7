import { parseArgs } from "node:util";
import type { DemoSize, Switches } from "./config.ts";

/** The demo `npm start` loads into an empty database unless its flags say otherwise. */
export const DEMO_DEFAULT: DemoSize = { domains: 20_000, apps: 1_000, seed: 42 };

export const SERVER_USAGE = `usage: npm start [-- flags]   (npm start is node dist/server.js --demo; the image runs it without)

Serves the API on the database DATABASE_URL names. Every setting of a deployment is an environment
variable (docs/configuration.md); these flags are what no deployment sets: the demo, and switches
for tests and load tests.

  --demo            on an empty database, generate and load a demo dataset (and the week after
                    it) and make a demo API key of the enterprise plan, printed once; without it
                    an empty database waits for npm run load
  --no-demo         no demo (npm start -- --no-demo: npm start gives --demo)
  --demo-domains N  the demo's Domains, 1..10000000 (default 20000)
  --demo-apps N     the demo's Apps, 1..1000000 (default 1000)
  --demo-seed S     the demo's seed, an integer (default 42): the same seed, the same dataset
  --no-rate-limits  no per-plan rate limits (local load tests only: npm run bench)
  --allow-private-webhook-targets
                    webhooks may target private, loopback and link-local addresses (a receiver
                    on this machine; never in production)
  -h, --help        show this help`;

export class UsageError extends Error {
  override name = "UsageError";
}

const OPTIONS = {
  demo: { type: "boolean" },
  "demo-domains": { type: "string" },
  "demo-apps": { type: "string" },
  "demo-seed": { type: "string" },
  "rate-limits": { type: "boolean" },
  "allow-private-webhook-targets": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function integerFlag(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  const value = /^[+-]?\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

/** The server's flags as loadConfig's switches; "help" for -h. Throws UsageError. */
export function parseServerArgs(argv: string[]): Switches | "help" {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>["values"];
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowNegative: true }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return "help";
  const sized = (["demo-domains", "demo-apps", "demo-seed"] as const).filter((f) => values[f] !== undefined);
  if (!values.demo && sized.length) throw new UsageError(`--${sized[0]} needs --demo (npm start gives it)`);
  return {
    demo: values.demo
      ? {
          domains: integerFlag("demo-domains", values["demo-domains"], DEMO_DEFAULT.domains, 1, 10_000_000),
          apps: integerFlag("demo-apps", values["demo-apps"], DEMO_DEFAULT.apps, 1, 1_000_000),
          seed: integerFlag("demo-seed", values["demo-seed"], DEMO_DEFAULT.seed, -(2 ** 53 - 1), 2 ** 53 - 1),
        }
      : null,
    rateLimits: values["rate-limits"] ?? true,
    allowPrivateWebhookTargets: values["allow-private-webhook-targets"] ?? false,
  };
}

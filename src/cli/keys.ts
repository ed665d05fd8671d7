import { parseArgs } from "node:util";
import { ApiKeys, formatKey, MIN_SELECTOR, PLANS, type Plan, selectorText } from "../auth/keys.ts";
import { ConfigError, loadConfig } from "../config.ts";
import { openSnapshotStore } from "../db/open-store.ts";
import { meant, nearNames } from "../query/suggest.ts";

const USAGE = `usage:
  npm run keys -- create --plan ${PLANS.join("|")} --name "Acme"   prints a new key, once, of a new account
      [--account <account>]                                        or of an account some key has (its lists)
  npm run keys -- list                                             id, key prefix, plan, name, account, dates
  npm run keys -- revoke <id or key prefix>                        ${MIN_SELECTOR} or more characters of either,
                                                                   or the whole key (one that leaked)
  npm run keys -- -h, --help                                       this help`;

const parse = () =>
  parseArgs({
    allowPositionals: true,
    options: {
      plan: { type: "string" },
      name: { type: "string" },
      account: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });

/** The arguments each command takes besides its options. */
const ARGUMENTS = { create: 0, list: 0, revoke: 1 } as const;
const COMMANDS = Object.keys(ARGUMENTS);

/**
 * What is wrong with a command line's command and its arguments, "" when there is no command (the
 * usage alone answers), null when nothing is. A key given where it does not belong is named by its
 * shown prefix only (selectorText), as revoke names it.
 */
function commandProblem(command: string | undefined, rest: string[]): string | null {
  if (command === undefined) return "";
  if (!Object.hasOwn(ARGUMENTS, command))
    return `unknown command ${selectorText(command)}${meant(nearNames(command, COMMANDS))}; commands: ${COMMANDS.join(", ")}`;
  const wanted = ARGUMENTS[command as keyof typeof ARGUMENTS];
  if (rest.length === wanted) return null;
  if (wanted === 0)
    return `${command} takes no argument besides its options; got ${rest.map(selectorText).join(", ")}`;
  return `${command} takes ${wanted} argument (an id or key prefix); got ${rest.length}`;
}

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (e) {
    console.error(`keys: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { positionals, values } = parsed;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const [command, ...rest] = positionals;
  const problem = commandProblem(command, rest);
  if (problem !== null) {
    console.error(problem ? `keys: ${problem}\n\n${USAGE}` : USAGE);
    return 2;
  }
  const store = await openSnapshotStore(loadConfig());
  const keys = new ApiKeys(store);
  try {
    if (command === "create" && rest.length === 0) {
      if (!values.plan || !PLANS.includes(values.plan as Plan) || !values.name?.trim()) {
        console.error(`create needs --plan (${PLANS.join(", ")}) and --name\n${USAGE}`);
        return 2;
      }
      const { key, apiKey } = await keys.create(values.name, values.plan as Plan, values.account);
      console.log(
        `Created key ${apiKey.id} (${apiKey.plan}) for "${apiKey.name}", account ${apiKey.account}.`,
      );
      console.log("This is the only time the key is shown; store it safely:\n");
      console.log(`  ${key}\n`);
      return 0;
    }
    if (command === "list" && rest.length === 0) {
      const all = await keys.list();
      if (all.length === 0) console.log("no keys yet: npm run keys -- create --plan pro --name <name>");
      for (const k of all) console.log(formatKey(k));
      return 0;
    }
    if (command === "revoke" && rest.length === 1) {
      const revoked = await keys.revoke(rest[0]);
      if (revoked.length === 0) {
        // Revoked keys are listed too, so say when the selector names only those.
        const gone = await keys.match(rest[0]);
        const why = gone.length
          ? `: ${gone.map((k) => `${k.id} (${k.name}) was revoked ${k.revokedAt?.toISOString()}`).join("; ")}`
          : " (npm run keys -- list)";
        console.error(`no active key matches ${selectorText(rest[0])}${why}`);
        return 1;
      }
      console.log(`revoked ${revoked[0].id} (${revoked[0].name})`);
      return 0;
    }
    console.error(USAGE);
    return 2;
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    return 1;
  } finally {
    await store.close();
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e instanceof ConfigError ? e.message : e);
    process.exit(1);
  },
);

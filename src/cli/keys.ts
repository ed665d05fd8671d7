import { parseArgs } from "node:util";
import { ApiKeys, PLANS, type Plan } from "../auth/keys.ts";
import { ConfigError, loadConfig } from "../config.ts";
import { openSnapshotStore } from "../db/store.ts";

const USAGE = `usage:
  npm run keys -- create --plan ${PLANS.join("|")} --name "Acme"   prints a new key, once
  npm run keys -- list                                             name, plan, created, last used
  npm run keys -- revoke <id or prefix>`;

const parse = () =>
  parseArgs({ allowPositionals: true, options: { plan: { type: "string" }, name: { type: "string" } } });

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (e) {
    console.error(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const { positionals, values } = parsed;
  const [command, ...rest] = positionals;
  if (!["create", "list", "revoke"].includes(command ?? "")) {
    console.error(USAGE);
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
      const { key, apiKey } = await keys.create(values.name, values.plan as Plan);
      console.log(`Created key ${apiKey.id} (${apiKey.plan}) for "${apiKey.name}".`);
      console.log("This is the only time the key is shown; store it safely:\n");
      console.log(`  ${key}\n`);
      return 0;
    }
    if (command === "list" && rest.length === 0) {
      const all = await keys.list();
      if (all.length === 0) console.log("no keys yet: npm run keys -- create --plan pro --name <name>");
      for (const k of all) {
        const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : "active";
        const used = k.lastUsedAt ? k.lastUsedAt.toISOString() : "never";
        console.log(
          `${k.id}  ${k.prefix}…  ${k.plan.padEnd(10)}  ${k.name}  created ${k.createdAt.toISOString()}  last used ${used}  ${state}`,
        );
      }
      return 0;
    }
    if (command === "revoke" && rest.length === 1) {
      const revoked = await keys.revoke(rest[0]);
      if (revoked.length === 0) {
        console.error(`no active key with id or prefix "${rest[0]}" (npm run keys -- list)`);
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

import { createYoga, type YogaServerInstance } from "graphql-yoga";
import type { Config } from "./config.ts";
import type { Context } from "./context.ts";
import type { Snapshots } from "./db/snapshots.ts";
import { useHealth } from "./health.ts";
import { schema } from "./schema/index.ts";

export type App = YogaServerInstance<Record<string, never>, Context>;

/** Builds the whole HTTP application; server.ts only listens. Tests call app.fetch(). */
export function createApp(config: Config, snapshots: Snapshots): App {
  return createYoga<Record<string, never>, Context>({
    schema,
    graphqlEndpoint: "/graphql",
    landingPage: false,
    logging:
      config.logLevel === "silent"
        ? false
        : config.logLevel === "trace"
          ? "debug"
          : config.logLevel === "fatal"
            ? "error"
            : config.logLevel,
    context: () => ({ snapshots }),
    plugins: [useHealth(snapshots)],
  });
}

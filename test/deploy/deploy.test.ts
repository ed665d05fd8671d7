import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { loadConfig } from "../../src/config.ts";
import { parseServerArgs } from "../../src/server-args.ts";

/**
 * docs/deploy/: the compose file and the Kubernetes manifest give the gateway settings that
 * src/config.ts accepts. That each file is valid (the Compose Specification's schema and rules,
 * checked by dclint; each Kubernetes object against the Kubernetes OpenAPI schema, checked by
 * kubernetes-models) is checked by `npm run check:deploy` (test/deploy/tools), whose tools are
 * installed on first use rather than by the project's npm install; CI runs it.
 */
const root = join(import.meta.dirname, "../..");
const COMPOSE = join(root, "docs/deploy/compose.yaml");
const K8S = join(root, "docs/deploy/kubernetes.yaml");

const k8sObjects = () =>
  parseAllDocuments(readFileSync(K8S, "utf8")).map((d) => {
    if (d.errors.length) throw d.errors[0];
    return d.toJS() as Record<string, unknown>;
  });

/** The gateway's settings, with the compose file's ${…} filled in. */
function gatewayEnvOfCompose(): Record<string, string> {
  const text = readFileSync(COMPOSE, "utf8").replace(/\$\{POSTGRES_PASSWORD[^}]*\}/g, "secret");
  const compose = parse(text, { merge: true }) as {
    services: Record<string, { environment: Record<string, string> }>;
  };
  return compose.services.gateway.environment;
}

describe("deployment files (docs/deploy)", () => {
  it("the image runs node with the malloc settings the bench's gateways run with", async () => {
    const { MALLOC_ENV } = await import("../../src/bench/measure.ts");
    const image = readFileSync(join(root, "docs/deploy/Dockerfile"), "utf8");
    const entries = Object.entries(MALLOC_ENV);
    expect(entries.length).toBeGreaterThan(0);
    for (const [name, value] of entries) expect(image).toMatch(new RegExp(`^ENV ${name}=${value}$`, "m"));
  });

  it("both files give the gateway settings that src/config.ts accepts, with replicas and the demo off", () => {
    const compose = gatewayEnvOfCompose();
    const objects = k8sObjects();
    const data = (kind: string) =>
      (
        objects.find((o) => o.kind === kind) as {
          data?: Record<string, string>;
          stringData?: Record<string, string>;
        }
      )?.[kind === "Secret" ? "stringData" : "data"] ?? {};
    const k8s = { ...data("ConfigMap"), ...data("Secret"), DATA_DIR: "/data" };
    // Every variable the files set is one the gateway reads (a typo would be silently ignored).
    const known = readFileSync(join(root, "src/config.ts"), "utf8");
    for (const env of [compose, k8s]) {
      for (const name of Object.keys(env)) expect(known, name).toMatch(new RegExp(`\\b${name}: `));
      const config = loadConfig(env);
      expect(config.database.kind).toBe("postgresql");
      expect(config.database.kind === "postgresql" && config.database.replicaUrls).toHaveLength(2);
      expect(config.rateLimits.redisUrl).toMatch(/^redis:\/\//);
    }
    // The gateways run the image's command: the server without --demo (an empty database waits for
    // a load, and no demo key is made), with the rate limits on.
    const { gateway } = (
      parse(readFileSync(COMPOSE, "utf8"), { merge: true }) as {
        services: { gateway: { command?: unknown; entrypoint?: unknown } };
      }
    ).services;
    expect([gateway.command, gateway.entrypoint]).toEqual([undefined, undefined]);
    const container = (
      objects.find((o) => o.kind === "Deployment") as {
        spec: { template: { spec: { containers: { name: string; command?: unknown; args?: unknown }[] } } };
      }
    ).spec.template.spec.containers.find((c) => c.name === "gateway");
    expect([container?.command, container?.args]).toEqual([undefined, undefined]);
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(join(root, "docs/deploy/Dockerfile"), "utf8"))?.[1];
    const argv = JSON.parse(cmd ?? "[]") as string[];
    expect(argv.slice(0, 3)).toEqual(["node", "--max-semi-space-size=16", "dist/server.js"]);
    expect(parseServerArgs(argv.slice(3))).toMatchObject({
      demo: null,
      rateLimits: true,
      allowPrivateWebhookTargets: false,
    });
    // Kubernetes waits longer than the gateway's own shutdown before it kills it.
    const deployment = objects.find((o) => o.kind === "Deployment") as {
      spec: { template: { spec: { terminationGracePeriodSeconds: number } } };
    };
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(
      loadConfig(k8s).shutdownTimeoutMs,
    );
  });
});

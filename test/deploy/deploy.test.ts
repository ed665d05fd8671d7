import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { Deployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { CronJob } from "kubernetes-models/batch/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Namespace, PersistentVolumeClaim, Secret, Service } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { loadConfig } from "../../src/config.ts";

/**
 * docs/deploy/: the compose file, checked by dclint (the Compose Specification's JSON schema, and
 * its rules), and the Kubernetes manifest, each object checked by kubernetes-models against the
 * Kubernetes OpenAPI schema. Both files' gateway settings must be ones src/config.ts accepts.
 */
const root = join(import.meta.dirname, "../..");
const COMPOSE = join(root, "docs/deploy/compose.yaml");
const K8S = join(root, "docs/deploy/kubernetes.yaml");
const run = promisify(execFile);

const KINDS: Record<string, new (data: never) => { validate(): void }> = {
  "v1/Namespace": Namespace,
  "v1/Secret": Secret,
  "v1/ConfigMap": ConfigMap,
  "v1/Service": Service,
  "v1/PersistentVolumeClaim": PersistentVolumeClaim,
  "apps/v1/Deployment": Deployment,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "batch/v1/CronJob": CronJob,
};

function validateK8s(objects: Record<string, unknown>[]): void {
  for (const o of objects) {
    const Kind = KINDS[`${o.apiVersion}/${o.kind}`];
    if (!Kind) throw new Error(`no validator for ${o.apiVersion} ${o.kind}`);
    new Kind(o as never).validate();
  }
}

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
  it("the compose file passes dclint", async () => {
    const bin = join(root, "node_modules/.bin/dclint");
    const { stdout } = await run(bin, [COMPOSE, "-f", "json", "--max-warnings", "0"]);
    const report = JSON.parse(stdout) as { messages: unknown[] }[];
    expect(report.flatMap((f) => f.messages)).toEqual([]);
  });

  it("dclint refuses a compose file the Compose Specification does not allow", async () => {
    // The validator is not a formality: an unknown key and a wrong type fail it.
    const bin = join(root, "node_modules/.bin/dclint");
    const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "storegraph-dclint-"));
    try {
      const bad = join(dir, "compose.yaml");
      writeFileSync(bad, "services:\n  web:\n    image: nginx:1.27\n    replicas_count: 3\n");
      await expect(run(bin, [bad, "-f", "json"])).rejects.toMatchObject({
        stdout: expect.stringContaining("invalid-schema"),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("every object of the Kubernetes manifest validates against its schema", () => {
    const objects = k8sObjects();
    expect(objects.map((o) => o.kind)).toEqual([
      "Namespace",
      "Secret",
      "ConfigMap",
      "Deployment",
      "Service",
      "HorizontalPodAutoscaler",
      "PodDisruptionBudget",
      "PersistentVolumeClaim",
      "CronJob",
    ]);
    validateK8s(objects);
    // kubernetes-models catches a mistake: a probe's port given as an object.
    const broken = structuredClone(objects);
    const deployment = broken.find((o) => o.kind === "Deployment") as {
      spec: { template: { spec: { containers: { readinessProbe: { httpGet: { port: unknown } } }[] } } };
    };
    deployment.spec.template.spec.containers[0].readinessProbe.httpGet.port = { name: "http" };
    expect(() => validateK8s(broken)).toThrow();
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
      expect(config.demo.enabled).toBe(false);
      expect(config.rateLimits.redisUrl).toMatch(/^redis:\/\//);
    }
    // Kubernetes waits longer than the gateway's own shutdown before it kills it.
    const deployment = objects.find((o) => o.kind === "Deployment") as {
      spec: { template: { spec: { terminationGracePeriodSeconds: number } } };
    };
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(
      loadConfig(k8s).shutdownTimeoutMs,
    );
  });
});

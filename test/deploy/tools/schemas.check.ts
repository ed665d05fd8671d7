import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Deployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { CronJob } from "kubernetes-models/batch/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Namespace, PersistentVolumeClaim, Secret, Service } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";

/**
 * `npm run check:deploy`: docs/deploy/'s compose file, checked by dclint (the Compose
 * Specification's JSON schema, and its rules), and its Kubernetes manifest, each object checked by
 * kubernetes-models against the Kubernetes OpenAPI schema. The tools are this folder's own
 * (installed on first use by src/cli/tools.ts); that both files give settings src/config.ts
 * accepts is checked by the project's own suite (test/deploy/deploy.test.ts).
 */
const here = import.meta.dirname;
const root = join(here, "../../..");
const COMPOSE = join(root, "docs/deploy/compose.yaml");
const K8S = join(root, "docs/deploy/kubernetes.yaml");
const DCLINT = join(here, "node_modules/.bin/dclint");
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

describe("deployment files (docs/deploy) against their specifications", () => {
  it("the compose file passes dclint", async () => {
    const { stdout } = await run(DCLINT, [COMPOSE, "-f", "json", "--max-warnings", "0"]);
    const report = JSON.parse(stdout) as { messages: unknown[] }[];
    expect(report.flatMap((f) => f.messages)).toEqual([]);
  });

  it("dclint refuses a compose file the Compose Specification does not allow", async () => {
    // The validator is not a formality: an unknown key and a wrong type fail it.
    const dir = mkdtempSync(join(tmpdir(), "storegraph-dclint-"));
    try {
      const bad = join(dir, "compose.yaml");
      writeFileSync(bad, "services:\n  web:\n    image: nginx:1.27\n    replicas_count: 3\n");
      await expect(run(DCLINT, [bad, "-f", "json"])).rejects.toMatchObject({
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
});

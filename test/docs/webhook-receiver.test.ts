import { type ChildProcess, spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REST_BASE } from "../../src/rest/routes.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { databaseKinds } from "../support/databases.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { freePort } from "../support/server.ts";

/**
 * The README's webhook receiver (docs/examples/webhook-receiver/receiver.mjs), run as the README
 * says, against real deliveries: it verifies their signatures with the Standard Webhooks library,
 * takes a delivery sent twice once, prints a load's changes, and refuses a forged one with 400.
 */
const RECEIVER = resolve(import.meta.dirname, "../../docs/examples/webhook-receiver/receiver.mjs");

describe.each(databaseKinds())("the README's webhook receiver on %s", (kind) => {
  let api: TestApi;
  let receiver: ChildProcess;
  let out = "";
  let port = 0;
  let webhook = { id: "", secret: "" };
  const tmp = tempDir("storegraph-receiver-");

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await api.app.fetch(`http://localhost${REST_BASE}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, Record<string, unknown>> };
  };
  const printed = async (pattern: RegExp) => {
    for (let i = 0; i < 300 && !pattern.test(out); i++) await new Promise((r) => setTimeout(r, 20));
    expect(out).toMatch(pattern);
  };

  beforeAll(async () => {
    api = await startApi(
      kind,
      writeSnapshotDir(join(tmp.dir, "w0"), validFixture()),
      {},
      { webhooks: { pollMs: 50 } },
    );
    port = await freePort();
    const made = await call("POST", "/webhooks", { url: `http://127.0.0.1:${port}/storegraph` });
    expect(made.status).toBe(200);
    webhook = { id: String(made.json.id), secret: String(made.json.secret) };
    receiver = spawn(process.execPath, [RECEIVER], {
      env: { ...process.env, WEBHOOK_SECRET: webhook.secret, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    receiver.stdout?.on("data", (d) => {
      out += d;
    });
    receiver.stderr?.on("data", (d) => {
      out += d;
    });
    await printed(/listening on/);
  }, 60_000);
  afterAll(async () => {
    receiver?.kill();
    await api?.close();
    tmp.remove();
  });

  it("takes a test delivery, and a delivery sent again once", async () => {
    const test = await call("POST", `/webhooks/${webhook.id}/test`);
    expect(test.json.delivery).toMatchObject({ status: "succeeded", response_status: 204 });
    const id = String(test.json.delivery?.id);
    await printed(new RegExp(`${id} webhook.test`));
    const again = await call("POST", `/webhooks/${webhook.id}/deliveries/${id}/retry`);
    expect(again.json.delivery).toMatchObject({ status: "succeeded", response_status: 204 });
    await new Promise((r) => setTimeout(r, 200));
    expect(out.split(`${id} webhook.test`).length - 1).toBe(1);
  });

  it("prints the changes of a load, delivered after it", async () => {
    api.app.deliverer?.start();
    const next = validFixture();
    next.domains = next.domains.filter((d) => d.name !== "old-shop.example.com");
    await api.load(writeSnapshotDir(join(tmp.dir, "w1"), next));
    await printed(/changes of snapshot 2, up to cursor \d+\n(.*\n)*\s+domain_removed old-shop\.example\.com/);
  });

  it("refuses a delivery whose signature does not verify", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/storegraph`, {
      method: "POST",
      headers: {
        "webhook-id": "msg_forged",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
      },
      body: JSON.stringify({ type: "changes.published", data: { changes: [] } }),
    });
    expect(res.status).toBe(400);
    await printed(/refused: /);
    expect(out).not.toContain("msg_forged");
  });
});

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { type Server as HttpsServer, request as httpsRequest } from "node:https";
import type { AddressInfo, Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import { createHttpServer } from "../../src/http.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";
import { rawRequest } from "../support/raw-http.ts";

/**
 * TLS served by the server itself (a self-signed certificate made here with openssl), and
 * REQUIRE_HTTPS with and without a trusted proxy, over real sockets.
 */
interface Reply {
  status: number;
  body: Record<string, unknown>;
}

async function get(base: string, path: string, headers: Record<string, string>): Promise<Reply> {
  const { status, text } = await getText(base, path, headers);
  return { status, body: JSON.parse(text) };
}

function getText(
  base: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; type: string; text: string }> {
  const url = new URL(path, base);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { headers, rejectUnauthorized: false }, (res) => {
      let text = "";
      res.on("data", (c) => {
        text += c;
      });
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), text }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

function postText(
  base: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; text: string }> {
  const url = new URL(path, base);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: "POST", headers, rejectUnauthorized: false }, (res) => {
      let text = "";
      res.on("data", (c) => {
        text += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("HTTPS", () => {
  const tmp = tempDir("storegraph-https-");
  let api: TestApi;
  const servers: (Server | HttpsServer)[] = [];
  const cert = join(tmp.dir, "cert.pem");
  const key = join(tmp.dir, "key.pem");

  /** The app with extra configuration, listening on a free port (TLS when `tls`). */
  async function serve(env: Record<string, string>, tls: boolean): Promise<string> {
    const base = loadConfig({ DATA_DIR: api.db.config.dataDir, LOG_LEVEL: "silent", ...env });
    const config: Config = {
      ...api.db.config,
      requireHttps: base.requireHttps,
      trustedProxies: base.trustedProxies,
    };
    const app = createApp(config, api.snapshots);
    const server = createHttpServer(
      app.listener,
      tls ? { cert: readFileSync(cert), key: readFileSync(key) } : undefined,
    );
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `${tls ? "https" : "http"}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  beforeAll(async () => {
    execFileSync("openssl", [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-subj",
      "/CN=localhost",
      "-days",
      "1",
      "-keyout",
      key,
      "-out",
      cert,
    ]);
    api = await startApi("sqlite", writeSnapshotDir(join(tmp.dir, "s"), validFixture()));
  }, 60_000);

  afterAll(async () => {
    for (const s of servers) await new Promise((resolve) => s.close(resolve));
    await api?.close();
    tmp.remove();
  });

  const auth = () => ({ authorization: `Bearer ${api.key}` });
  const DOMAIN = "/json/api/v1/all/domain/shop.example.com?fields=name";

  it("serves TLS itself, and REQUIRE_HTTPS lets TLS requests through", async () => {
    const base = await serve({ REQUIRE_HTTPS: "true" }, true);
    const res = await get(base, DOMAIN, auth());
    expect(res).toEqual({ status: 200, body: { domain: { name: "shop.example.com" } } });
  });

  it("refuses plain HTTP with 403 JSON, but not the health checks", async () => {
    const base = await serve({ REQUIRE_HTTPS: "true" }, false);
    const res = await get(base, DOMAIN, auth());
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      code: "HTTPS_REQUIRED",
      error: expect.stringMatching(/HTTPS is required/),
    });
    expect((await get(base, "/graphql", auth())).status).toBe(403);
    expect((await get(base, "/healthz", {})).status).toBe(200);
  });

  it("refuses the GraphiQL page, which carries the key, over plain HTTP", async () => {
    const page = `/graphql?key=${api.key}`;
    const html = { accept: "text/html" };
    const plain = await getText(await serve({ REQUIRE_HTTPS: "true" }, false), page, html);
    expect(plain.status).toBe(403);
    expect(plain.type).toMatch(/^application\/json/);
    expect(JSON.parse(plain.text)).toMatchObject({ code: "HTTPS_REQUIRED" });
    expect(plain.text).not.toContain(api.key);

    const tls = await getText(await serve({ REQUIRE_HTTPS: "true" }, true), page, html);
    expect(tls.status).toBe(200);
    expect(tls.type).toMatch(/^text\/html/);
    expect(tls.text).toContain(api.key);
  });

  it("takes an absolute-form https:// target's path, not its word that the request is secure", async () => {
    const base = await serve({ REQUIRE_HTTPS: "true" }, false);
    const port = new URL(base).port;
    const res = await rawRequest(
      Number(port),
      `GET https://evil${DOMAIN} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${api.key}\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ code: "HTTPS_REQUIRED" });
  });

  it("believes X-Forwarded-Proto only from a trusted proxy", async () => {
    const trusting = await serve({ REQUIRE_HTTPS: "true", TRUSTED_PROXIES: "10.0.0.0/8, 127.0.0.1" }, false);
    expect((await get(trusting, DOMAIN, { ...auth(), "x-forwarded-proto": "https" })).status).toBe(200);
    expect((await get(trusting, DOMAIN, { ...auth(), "x-forwarded-proto": "http" })).status).toBe(403);
    expect((await get(trusting, DOMAIN, auth())).status).toBe(403);

    const distrusting = await serve({ REQUIRE_HTTPS: "true", TRUSTED_PROXIES: "10.0.0.1" }, false);
    expect((await get(distrusting, DOMAIN, { ...auth(), "x-forwarded-proto": "https" })).status).toBe(403);
  });

  it("answers export_segment's URL with https behind a trusted TLS-terminating proxy", async () => {
    // A URL of its own per call (a job each): the fields differ.
    let n = 0;
    const urlOf = async (base: string, headers: Record<string, string> = {}) => {
      const fields = ["name", "name,plan", "name,rank", "name,state", "name,platform"][n++];
      const { status, text } = await postText(
        base,
        "/mcp",
        {
          ...auth(),
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
          ...headers,
        },
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "export_segment", arguments: { "f.p": "shopify", fields } },
        }),
      );
      expect(status, text).toBe(200);
      const result = JSON.parse(text).result;
      expect(result.isError, text).toBeFalsy();
      return String(result.structuredContent.url);
    };
    const trusting = await serve({ TRUSTED_PROXIES: "127.0.0.1" }, false);
    const host = new URL(trusting).host;
    expect(await urlOf(trusting, { "x-forwarded-proto": "https" })).toMatch(
      new RegExp(`^https://${host}/json/api/v1/all/domain\\?`),
    );
    expect(await urlOf(trusting)).toMatch(new RegExp(`^http://${host}/`));
    const distrusting = await serve({ TRUSTED_PROXIES: "10.0.0.1" }, false);
    expect(await urlOf(distrusting, { "x-forwarded-proto": "https" })).toMatch(/^http:\/\//);
    expect(await urlOf(await serve({}, true))).toMatch(/^https:\/\//);
  });

  it("accepts plain HTTP when HTTPS is not required (the development default)", async () => {
    const base = await serve({ REQUIRE_HTTPS: "false" }, false);
    expect((await get(base, DOMAIN, auth())).status).toBe(200);
    expect(loadConfig({ NODE_ENV: "production" }).requireHttps).toBe(true);
    expect(loadConfig({}).requireHttps).toBe(false);
  });

  it("refuses a half TLS configuration and a bad proxy at start-up", () => {
    expect(() => loadConfig({ TLS_CERT_FILE: cert })).toThrow(/TLS_CERT_FILE and TLS_KEY_FILE go together/);
    expect(() => loadConfig({ TRUSTED_PROXIES: "10.0.0.0/99" })).toThrow(/not an IP address or CIDR/);
  });
});

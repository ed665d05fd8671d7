import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { startApi, type TestApi, tempDir } from "../support/api.ts";
import { validFixture, writeSnapshotDir } from "../support/fixture.ts";

/**
 * GraphiQL in a real browser (Debian's chromium, driven by playwright-core): the page is served
 * from the bundled assets (no CDN), opens with the example operations, and runs a query.
 */
/** The text of a Monaco editor's visible lines (Monaco writes spaces as no-break spaces). */
const text = async (page: Page, selector: string) =>
  (await page.locator(selector).first().innerText()).replace(/\u00a0/g, " ");

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

describe.skipIf(!existsSync(CHROMIUM))("GraphiQL in a browser", () => {
  let api: TestApi;
  let server: Server;
  let browser: Browser;
  let base: string;
  const tmp = tempDir("storegraph-graphiql-");

  beforeAll(async () => {
    api = await startApi("sqlite", writeSnapshotDir(join(tmp.dir, "s"), validFixture()));
    // The app as a browser meets it: no key added for it (api.app adds the test key to fetch).
    server = createServer(createApp(api.db.config, api.snapshots).listener);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await api?.close();
    tmp.remove();
  });

  it("opens with the example operations and runs a query, without any request leaving the machine", async () => {
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on("request", (r) => {
      const url = r.url();
      if (!url.startsWith(base) && !url.startsWith("data:") && !url.startsWith("blob:")) outside.push(url);
    });
    // A browser cannot send the header when opening the page: the key rides on ?key=, and the page
    // then sends it as Authorization itself.
    expect((await page.goto(`${base}/graphql`))?.status()).toBe(401);
    await page.goto(`${base}/graphql?key=${api.key}`);
    await expect
      .poll(() => text(page, ".graphiql-query-editor .view-lines"), { timeout: 20_000 })
      .toContain("query TopStoresInGermany");

    const query = "{ domains(first: 2) { totalCount edges { node { name } } } }";
    await page.goto(`${base}/graphql?key=${api.key}&query=${encodeURIComponent(query)}`);
    await expect
      .poll(() => text(page, ".graphiql-query-editor .view-lines"), { timeout: 20_000 })
      .toContain("domains(first: 2)");
    await page.locator(".graphiql-execute-button").click();
    await expect
      .poll(() => text(page, ".graphiql-response .view-lines"), { timeout: 20_000 })
      .toContain('"totalCount": 4');
    expect(await text(page, ".graphiql-response .view-lines")).toContain("shop.example.com");
    expect(outside).toEqual([]);
  }, 90_000);
});

import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POLL_INTERVAL_SECONDS } from "../../src/auth/limits.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "../support/databases.ts";
import { freePort, type Server, startServer } from "../support/server.ts";

/**
 * Every `curl` example of the README and of docs/rest.md (DOCS), run as it is written — by bash and
 * the real curl — against a server (the bundle `npm start` runs) on the demo dataset it generates
 * on its first start. Only what a reader fills in is filled in: the port, `$KEY` (the demo key the
 * server prints), `<next_cursor of the previous page>` and `<the ETag of the previous answer>` from
 * the answer before. The `B=` and `alias curl=...` lines run too, so the alias adds the key as it
 * does for a reader; each file's examples run in order, with that file's own setting lines. Each
 * example must answer the status it names (200 unless its comment says otherwise), with something
 * in it: a list the example asks for is never empty.
 *
 * The demo is smaller than `npm start`'s (--demo-domains), but large enough for the App list that
 * asks for at least 100 installs; the names the examples use are the generator's showcase records,
 * which every dataset holds.
 */

/** The files whose examples run, each with the fewest `curl` lines it must hold (a lost block fails). */
const DOCS = [
  { path: "README.md", curls: 3 },
  { path: "docs/rest.md", curls: 24, alias: true },
] as const;

interface Example {
  /** 1-based line of its file where it starts. */
  line: number;
  /** Which sh block of its file it is in (a reader pastes a block at a time). */
  block: number;
  /** The command, continuation lines joined. */
  text: string;
}

/** A file's sh code blocks: curl commands, and the lines that set what they use (B=, alias). */
function examplesOf(path: string): { curls: Example[]; all: Example[] } {
  const lines = readFileSync(new URL(`../../${path}`, import.meta.url), "utf8").split("\n");
  const all: Example[] = [];
  let inSh = false;
  let block = 0;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (/^```/.test(l)) {
      inSh = !inSh && l.trim() === "```sh";
      if (inSh) block++;
      continue;
    }
    if (!inSh) continue;
    const start = i;
    let text = l;
    // One command as the shell reads it: on over a trailing backslash or an open quote.
    while ((text.endsWith("\\") || openQuote(text)) && i + 1 < lines.length) {
      text = `${text}\n${lines[++i]}`; // verbatim: bash reads the continuation itself
    }
    if (/^(curl\s|B=|alias curl=)/.test(text.trim())) all.push({ line: start + 1, block, text: text.trim() });
  }
  return { curls: all.filter((e) => e.text.startsWith("curl")), all };
}

/** How a file tells its reader to start a gateway that takes webhooks to a private address. */
const ALLOW_PRIVATE = "npm start -- --allow-private-webhook-targets";

/**
 * Whether a file that makes a webhook to this machine (localhost, 127.x) says, before its first
 * such example, to start the gateway with ALLOW_PRIVATE: without it, such a webhook is refused.
 */
function saysToAllowPrivateTargets(path: string): boolean {
  const text = readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
  const first = examplesOf(path).curls.find(
    (e) => /\/webhooks["?\s]/.test(e.text) && /"url":"https?:\/\/(localhost|127\.)/.test(e.text),
  );
  if (!first) return true;
  const before = text
    .split("\n")
    .slice(0, first.line - 1)
    .join("\n");
  return before.includes(ALLOW_PRIVATE);
}

/** Whether sh text ends inside a quoted string. */
function openQuote(text: string): boolean {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = null;
    } else if (c === "\\") {
      i++;
    } else if (quote === '"') {
      if (c === '"') quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === "#" && (i === 0 || /\s/.test(text[i - 1]))) {
      return false;
    }
  }
  return quote !== null;
}

interface Answer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Runs `command` in bash after its file's own setting lines, with curl writing to files. */
function runInBash(command: string, settings: string[], env: Record<string, string>): Promise<Answer> {
  const dir = mkdtempSync(join(tmpdir(), "storegraph-readme-"));
  const head = join(dir, "head");
  const body = join(dir, "body");
  // The function is defined before the alias, so the file's alias (`curl` → `curl -H ...`)
  // expands into it: the request is the file's, only where curl writes its answer is ours.
  const script = [
    "set -e",
    "shopt -s expand_aliases",
    `curl() { command curl -sS -D "$README_HEAD" -o "$README_BODY" -w '%{http_code}' "$@"; }`,
    ...settings,
    command,
  ].join("\n");
  return new Promise((resolve, reject) => {
    execFile(
      "bash",
      ["-c", script],
      { env: { ...process.env, ...env, README_HEAD: head, README_BODY: body }, timeout: 60_000 },
      (error, stdout, stderr) => {
        try {
          if (error) throw new Error(`${command}\n${stderr || error.message}`);
          const headText = readFileSync(head, "latin1");
          let text = readFileSync(body, "utf8");
          // -i writes the headers into the output as well.
          if (/(^|\s)-i(\s|$)/.test(command) && text.startsWith(headText.split("\r\n\r\n")[0]))
            text = text.slice(headText.length);
          const headers = new Map<string, string>();
          for (const h of headText.split("\r\n").slice(1)) {
            const at = h.indexOf(":");
            if (at > 0) headers.set(h.slice(0, at).toLowerCase(), h.slice(at + 1).trim());
          }
          resolve({ status: Number(stdout.trim()), headers, body: text });
        } catch (e) {
          reject(e);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  });
}

/** The lists an answer holds (REST envelopes, GraphQL connections, JSON Lines): all must have items. */
function listsOf(answer: Answer): [string, number][] {
  const type = answer.headers.get("content-type") ?? "";
  if (type.startsWith("text/event-stream")) {
    // A live stream: its opening line, and each event's data a change (none may come meanwhile).
    expect(answer.body.startsWith("retry: ")).toBe(true);
    for (const block of answer.body.split("\n\n").filter((b) => b.includes("\nevent: change\n")))
      JSON.parse(block.split("\n")[2].slice("data: ".length));
    return [];
  }
  if (type.includes("jsonl") || type.includes("ndjson")) {
    const lines = answer.body.split("\n").filter((l) => l !== "");
    for (const l of lines) JSON.parse(l);
    return [["lines", lines.length]];
  }
  const json = JSON.parse(answer.body) as Record<string, unknown>;
  const out: [string, number][] = [];
  const walk = (v: unknown, path: string) => {
    if (!v || typeof v !== "object") return;
    for (const [k, x] of Object.entries(v)) {
      if (Array.isArray(x) && ["apps", "domains", "reviews", "edges"].includes(k))
        out.push([path + k, x.length]);
      else if (!Array.isArray(x)) walk(x, `${path}${k}.`);
    }
  };
  walk(json, "");
  expect((json as { errors?: unknown }).errors, "GraphQL errors").toBeUndefined();
  return out;
}

describe.each(databaseKinds())("the examples of the README and docs/rest.md on %s", (kind) => {
  let db: TestDatabase;
  let server: Server;
  let port = 0;
  let demoKey = "";

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    port = await freePort();
    // 1,000 Domains: the most installed App (shopify.klaviyo) then has over 100 installs.
    // Webhooks to a receiver on this machine are taken only if each file that makes one says,
    // before it, to start the gateway so, as a reader would.
    server = startServer(db, port, {}, [
      "--demo-domains",
      "1000",
      "--demo-apps",
      "60",
      ...(DOCS.every((doc) => saysToAllowPrivateTargets(doc.path))
        ? ["--allow-private-webhook-targets"]
        : []),
    ]);
    const out = await server.waitFor(/More keys:|Every request needs Authorization/, 150_000);
    demoKey = /^ {2}(sg_\S+)$/m.exec(out)?.[1] ?? "";
  }, 200_000);
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it.each(DOCS)("finds the examples of $path", (doc) => {
    const { curls, all } = examplesOf(doc.path);
    expect(curls.length).toBeGreaterThanOrEqual(doc.curls);
    if ("alias" in doc) expect(all.some((e) => e.text.startsWith("alias curl="))).toBe(true);
    expect(demoKey).toMatch(/^sg_/);
  });

  it.each(DOCS)(
    "runs every curl example of $path as written, each answering what it says",
    async (doc) => {
      const { all } = examplesOf(doc.path);
      // A reader pastes a block at a time, the next a second or more later: each block starts on
      // budgets of its own (the demo key's plan allows 6 List Domains a second), and its lines run
      // back to back. A line past a budget answers 429, which fails unless the example says so.
      const settings: string[] = [];
      let previous: Answer | undefined;
      let block = 0;
      const local = (text: string) => text.replaceAll("localhost:8080", `127.0.0.1:${port}`);
      for (const example of all) {
        const where = `${doc.path}:${example.line}: ${example.text}`;
        if (example.block !== block) {
          block = example.block;
          await new Promise((r) => setTimeout(r, 1100));
        }
        if (!example.text.startsWith("curl")) {
          settings.push(local(example.text));
          continue;
        }
        let command = local(example.text);
        if (command.includes("<next_cursor of the previous page>")) {
          const cursor = (JSON.parse(previous?.body ?? "{}") as { next_cursor?: string }).next_cursor;
          expect(cursor, `${where}: the previous page has a next_cursor`).toBeTruthy();
          command = command.replaceAll("<next_cursor of the previous page>", cursor ?? "");
        }
        if (command.includes("<the ETag of the previous answer>")) {
          const etag = previous?.headers.get("etag");
          expect(etag, `${where}: the previous answer has an ETag`).toMatch(/^W\/"\d+-[\w-]+"$/);
          command = command.replaceAll("<the ETag of the previous answer>", etag ?? "");
        }
        expect(
          /<[a-z][^<>]*>/i.exec(command.replace(/\s#.*$/, ""))?.[0],
          `${where}: a placeholder left`,
        ).toBe(undefined);
        // One key for every line, as a reader has: cursor=all and Export Domains have a budget each.
        const run = () => runInBash(command, settings, { KEY: demoKey });
        let answer = await run();
        if (/cursor=all/.test(command)) {
          expect(answer.status, where).toBe(202);
          expect(JSON.parse(answer.body)).toMatchObject({
            progress: expect.any(Number),
            total: expect.any(Number),
          });
          // "poll the same URL until 200", no closer than the polling interval.
          for (let polls = 0; answer.status === 202 && polls < 20; polls++) {
            await new Promise((r) => setTimeout(r, POLL_INTERVAL_SECONDS * 1000 + 200));
            answer = await run();
          }
        }
        const expected = Number(/\s#\s*(\d{3})\b/.exec(example.text)?.[1] ?? 200);
        expect(answer.status, `${where}\n${answer.body}`).toBe(expected);
        if (expected === 304) {
          expect(answer.body, where).toBe("");
        } else {
          expect(answer.body.trim(), where).not.toBe("");
          for (const [list, length] of listsOf(answer))
            expect(length, `${where}: ${list}`).toBeGreaterThan(0);
        }
        previous = answer;
      }
    },
    240_000,
  );

  it.each(DOCS)(
    "each sh block of $path, pasted whole, stays within the demo key's budgets",
    async (doc) => {
      const { all } = examplesOf(doc.path);
      const local = (text: string) => text.replaceAll("localhost:8080", `127.0.0.1:${port}`);
      const settings = all.filter((e) => !e.text.startsWith("curl")).map((e) => local(e.text));
      const blocks = [...new Set(all.map((e) => e.block))];
      for (const block of blocks) {
        // What a paste runs again as it is: not a line that needs the answer before it (a
        // placeholder), nor one of the per-minute budgets (cursor=all, the exports), which the
        // examples above have drawn on this minute.
        const lines = all.filter(
          (e) =>
            e.block === block &&
            e.text.startsWith("curl") &&
            !/<[a-z][^<>]*>/i.test(e.text.replace(/\s#.*$/, "")) &&
            !/cursor=all|\/export\b/.test(e.text),
        );
        if (lines.length === 0) continue;
        await new Promise((r) => setTimeout(r, 1100));
        const dir = mkdtempSync(join(tmpdir(), "storegraph-readme-paste-"));
        const statuses = join(dir, "statuses");
        const script = [
          "shopt -s expand_aliases",
          `curl() { command curl -sS -o /dev/null -w '%{http_code}\\n' "$@" >> "${statuses}"; }`,
          ...settings,
          ...lines.map((e) => local(e.text)),
        ].join("\n");
        try {
          await new Promise<void>((resolve, reject) =>
            execFile(
              "bash",
              ["-c", script],
              { env: { ...process.env, KEY: demoKey }, timeout: 60_000 },
              (error) => (error ? reject(error) : resolve()),
            ),
          );
          const got = readFileSync(statuses, "utf8").trim().split("\n");
          const refused = lines.filter((e, i) => got[i] === "429" && !/\s#\s*429\b/.test(e.text));
          expect(
            refused.map((e) => `${doc.path}:${e.line}`),
            `block ${block}: lines past a budget`,
          ).toEqual([]);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    },
    240_000,
  );
});

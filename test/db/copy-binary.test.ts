import pg from "pg";
import { to } from "pg-copy-streams";
import { describe, expect, it } from "vitest";
import { copyRows, int8Of } from "../../src/db/copy-binary.ts";

// PostgreSQL's binary COPY rows (src/db/copy-binary.ts), which rendered pieces are read by on
// PostgreSQL: the values a real server sends (bytea of any bytes, empty and NULL; int8 beyond 32
// bits; no rows at all), in chunks cut anywhere, and a truncated or foreign input refused.

const url = process.env.TEST_DATABASE_URL;

async function copyOf(statement: string): Promise<Buffer[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const chunks: Buffer[] = [];
    for await (const c of client.query(to(`COPY (${statement}) TO STDOUT (FORMAT binary)`))) chunks.push(c);
    return chunks;
  } finally {
    await client.end();
  }
}

describe.runIf(url)("a binary COPY's rows", () => {
  it("are the values the server sent, however the output is cut", async () => {
    const chunks = await copyOf(
      `SELECT * FROM (VALUES (1::bigint, '\\x00ff0a0d'::bytea, 'é'::text), (4294967301::bigint, ''::bytea, NULL), (-7::bigint, NULL::bytea, 'x')) v ORDER BY 1`,
    );
    const whole = Buffer.concat(chunks);
    for (const cut of [
      [whole],
      [whole.subarray(0, 5), whole.subarray(5)],
      // an empty chunk among them
      [whole.subarray(0, 30), Buffer.alloc(0), whole.subarray(30)],
      [...whole].map((b) => Buffer.of(b)),
    ]) {
      const rows = copyRows(cut);
      expect(rows.map((r) => int8Of(r[0]))).toEqual([-7, 1, 4294967301]);
      expect(rows.map((r) => r[1] && [...r[1]])).toEqual([null, [0, 255, 10, 13], []]);
      expect(rows.map((r) => r[2]?.toString("utf8") ?? null)).toEqual(["x", "é", null]);
    }
  });

  it("are the same wherever one cut falls, even within a length or the signature", async () => {
    const whole = Buffer.concat(
      await copyOf(`SELECT g::bigint, decode(repeat('ab', g), 'hex') FROM generate_series(0, 40) g`),
    );
    const expected = copyRows([whole]).map((r) => [int8Of(r[0]), r[1]?.toString("hex")]);
    expect(expected).toHaveLength(41);
    for (let cut = 1; cut < whole.length; cut++) {
      const rows = copyRows([whole.subarray(0, cut), whole.subarray(cut)]);
      expect(rows.map((r) => [int8Of(r[0]), r[1]?.toString("hex")])).toEqual(expected);
    }
  });

  it("are none for an empty result", async () => {
    expect(copyRows(await copyOf("SELECT 1::bigint WHERE false"))).toEqual([]);
  });

  it("refuse a truncated output and one not of the binary format", async () => {
    const whole = Buffer.concat(await copyOf(`SELECT '\\x0102030405'::bytea`));
    expect(() => copyRows([whole.subarray(0, whole.length - 5)])).toThrow(/ends within a row/);
    expect(() => copyRows([Buffer.from("1\tabc\n")])).toThrow(/no signature/);
    expect(() => int8Of(Buffer.of(1, 2))).toThrow(/8 bytes/);
  });
});

import { get as httpGet } from "node:http";

/**
 * The live streams of the push bench (src/bench/push.ts), in a process of their own, so that the
 * bench's load (which runs in the bench's process) does not hold their reads back: opens N
 * `GET /changes/stream` connections, says "open", and on "report" sends each stream's log (the time
 * of each chunk that carried changes, with the count so far).
 *
 *   process.send messages: { open: true } | { logs: [time, count][][] }
 */
const [base, key, n] = [
  new URL(process.argv[2] as string),
  process.argv[3] as string,
  Number(process.argv[4]),
];
/** The line that opens each change event of a stream. */
const MARK = Buffer.from("\nevent: change\n");
const logs: [number, number][][] = [];
let opened = 0;
for (let i = 0; i < n; i++) {
  const req = httpGet(
    {
      host: base.hostname,
      port: base.port,
      path: "/json/api/v1/all/changes/stream?max_seconds=600",
      headers: { authorization: `Bearer ${key}` },
      agent: false,
    },
    (res) => {
      if (res.statusCode !== 200) throw new Error(`a stream answered ${res.statusCode}`);
      // Counted on the bytes as they come: each event's "event: change" line, one found across two
      // chunks too.
      const log: [number, number][] = [];
      logs.push(log);
      let changes = 0;
      let carry: Buffer = Buffer.alloc(0);
      res.on("data", (chunk: Buffer) => {
        const text = carry.length ? Buffer.concat([carry, chunk]) : chunk;
        const before = changes;
        for (let at = text.indexOf(MARK); at !== -1; at = text.indexOf(MARK, at + MARK.length)) changes++;
        carry = text.subarray(Math.max(0, text.length - MARK.length + 1));
        if (changes > before) log.push([Date.now(), changes]);
      });
      res.on("error", () => {});
      if (++opened === n) process.send?.({ open: true });
    },
  );
  req.on("error", (e) => {
    throw e;
  });
}
process.on("message", (m: { report?: boolean }) => {
  if (m.report) process.send?.({ logs }, () => process.exit(0));
});

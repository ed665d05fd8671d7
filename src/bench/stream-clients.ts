import { connect } from "node:net";

/**
 * The live streams of the push bench (src/bench/push.ts), in a process of their own, so that the
 * bench's load (which runs in the bench's process) does not hold their reads back: opens N
 * `GET /changes/stream` connections, says "open", and on "report" sends each stream's log: the time
 * of each read that brought a change event's `id:` line, with the largest such id so far.
 *
 * It is the bench's instrument, on the same two cores as the gateway it measures, so it does as
 * little as a client can: plain sockets reading into one buffer that every socket shares (no HTTP
 * parser, no stream objects, no allocation a read), looking only at the end of each read for its
 * last `id:` line (the feed's cursor of that event; events come in feed order, so an id means every
 * event before it came too). Counting every event on the bytes, as it did with `http.get`, cost it
 * more CPU than the gateway spent writing them (1.07 s of user CPU for a load of 1,481 changes on
 * 1,000 streams), and the gateway shares those cores: push.ts checks the ids against the load's.
 *
 *   process.send messages: { open: true } | { logs: [time, id][][] }
 */
const [base, key, n] = [
  new URL(process.argv[2] as string),
  process.argv[3] as string,
  Number(process.argv[4]),
];
const request = Buffer.from(
  `GET /json/api/v1/all/changes/stream?max_seconds=600 HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
);
/** Every socket reads into this buffer; each read is looked at before the next one is made. */
const shared = Buffer.allocUnsafe(1 << 18);
const ID = Buffer.from("\nid: ");
const LF = 0x0a;
/** The longest `\nid: <cursor>\n` line (a cursor has at most 15 digits). */
const ID_LINE = ID.length + 16;

/**
 * The last complete `id:` line in `b` before `end`: its id, or -1. A line cut by the read's end is
 * skipped (the next read brings it; `carry` joins the two).
 */
function lastId(b: Buffer, end: number): number {
  let at = b.lastIndexOf(ID, end - 1);
  while (at !== -1) {
    let id = 0;
    let i = at + ID.length;
    for (; i < end && b[i] !== LF; i++) id = id * 10 + ((b[i] as number) - 48);
    if (i < end) return id;
    at = at === 0 ? -1 : b.lastIndexOf(ID, at - 1);
  }
  return -1;
}

const logs: [number, number][][] = [];
let opened = 0;
for (let i = 0; i < n; i++) {
  const log: [number, number][] = [];
  logs.push(log);
  let head = true;
  let best = -1;
  /** The end of the previous read, for an id line cut in two. */
  let carry = Buffer.alloc(0);
  const socket = connect({
    host: base.hostname,
    port: Number(base.port),
    onread: {
      buffer: shared,
      callback(read: number, b: Uint8Array) {
        const buf = b as Buffer;
        if (head) {
          head = false;
          if (!buf.subarray(0, 12).toString("latin1").startsWith("HTTP/1.1 200")) {
            process.stderr.write(`a stream answered ${buf.subarray(0, read).toString("utf8")}\n`);
            process.exit(1);
          }
          if (++opened === n) process.send?.({ open: true });
        }
        let id = lastId(buf, read);
        if (carry.length) {
          const joined = Buffer.concat([carry, buf.subarray(0, Math.min(read, ID_LINE))]);
          id = Math.max(id, lastId(joined, joined.length));
        }
        carry = Buffer.from(buf.subarray(Math.max(0, read - ID_LINE), read));
        if (id > best) {
          best = id;
          log.push([Date.now(), id]);
        }
        return true;
      },
    },
  });
  socket.on("connect", () => socket.write(request));
  socket.on("error", (e) => {
    process.stderr.write(`a stream failed: ${e.message}\n`);
    process.exit(1);
  });
}
process.on("message", (m: { report?: boolean }) => {
  if (m.report) process.send?.({ logs }, () => process.exit(0));
});

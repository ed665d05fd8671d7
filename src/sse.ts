/**
 * Server-Sent Events, framed as the HTML standard's event stream says (text/event-stream): the
 * REST API's live stream (GET /changes/stream) frames its events here, and only here. (GraphQL's
 * `changes` subscription goes out through yoga's own SSE transport, from the same feed reader:
 * src/query/feed.ts.)
 */

/** One message: an event (`data`, with its `event` type and `id`), a lone `id` or `retry`, or a comment. */
export interface SseMessage {
  /** Sets the client's Last-Event-ID: where it resumes after a reconnection. */
  id?: string;
  event?: string;
  /** One line of JSON: a data field per line of text would split it otherwise. */
  data?: string;
  /** How long a browser's EventSource waits before it reconnects, in ms. */
  retry?: number;
  /** A comment line (`: keep-alive`): keeps proxies from closing a quiet stream; clients ignore it. */
  comment?: string;
}

/** A message's text: its fields in the order a client reads them, and the blank line that ends it. */
export function sseText(m: SseMessage): string {
  let out = "";
  if (m.comment !== undefined) out += `: ${m.comment}\n`;
  if (m.retry !== undefined) out += `retry: ${m.retry}\n`;
  if (m.id !== undefined) out += `id: ${m.id}\n`;
  if (m.event !== undefined) out += `event: ${m.event}\n`;
  if (m.data !== undefined) out += `data: ${m.data}\n`;
  return `${out}\n`;
}

/**
 * The Last-Event-ID a reconnecting EventSource sends (its last event's id, trimmed), or undefined
 * when none (or an empty one) is sent.
 */
export function lastEventId(request: Request): string | undefined {
  const header = request.headers.get("last-event-id")?.trim();
  return header ? header : undefined;
}

const encoder = new TextEncoder();

/**
 * A streamed event-stream response of `messages` (each a message, or text already framed by
 * sseText, as bytes), pulled one at a time as the client takes them (a slow client pauses the
 * reading). `close` is called when the client goes or the stream is cancelled.
 */
export function sseResponse(messages: AsyncIterator<SseMessage | Uint8Array>, close: () => void): Response {
  let ended = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (ended) return;
      const next = await messages.next();
      if (next.done) {
        ended = true;
        try {
          controller.close();
        } catch {
          // Cancelled already.
        }
        return;
      }
      const m = next.value;
      controller.enqueue(m instanceof Uint8Array ? m : encoder.encode(sseText(m)));
    },
    cancel() {
      ended = true;
      close();
      void messages.return?.(undefined);
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      // Proxies that buffer (nginx) pass each event on at once.
      "x-accel-buffering": "no",
    },
  });
}

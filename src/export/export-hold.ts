/**
 * A test hook: holds each page an export or cursor=all job reads, synchronously, on the thread
 * that reads it, so a test can prove that the server's own thread stays free meanwhile. The
 * control is an Int32Array on a SharedArrayBuffer (it is shared with the reading thread):
 * [HOLD] 1 holds the reads (until set to 0 and notified, or HOLD_LIMIT_MS), EXIT ends the reading
 * thread instead (a crash mid-read); [ENTERED] and [LEFT] count the reads that reached and left
 * the hold.
 */
export const HOLD = 0;
export const ENTERED = 1;
export const LEFT = 2;
/** [HOLD] set to this ends the reading thread (a worker) when released. */
export const EXIT = 2;
/** A hold never outlasts this, so a test that forgets to release it cannot hang forever. */
export const HOLD_LIMIT_MS = 10_000;

export function holdRead(control: Int32Array | undefined): void {
  if (!control) return;
  Atomics.add(control, ENTERED, 1);
  Atomics.wait(control, HOLD, 1, HOLD_LIMIT_MS);
  Atomics.add(control, LEFT, 1);
}

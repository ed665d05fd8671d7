import type { Server } from "node:http";
import type { Logger } from "../logger.ts";

export interface Stoppable {
  /** Hands running cursor=all jobs over to the next gateway polled for them. */
  handOverJobs(): Promise<{ id: string; progress: number }[]>;
  /** Releases the app's resources (its export thread). */
  dispose(): Promise<void> | void;
}

/**
 * A graceful shutdown (SIGTERM, SIGINT): stop accepting connections; hand running export jobs
 * over at once (they are not requests, and the next gateway resumes each from the Domains it
 * has written); let requests in flight finish for up to `timeoutMs`, then cut those left; release
 * the app. Each step is logged. Resolves with how it went; the caller exits.
 */
export async function shutDown(
  server: Server,
  app: Stoppable,
  log: Logger,
  { timeoutMs, signal }: { timeoutMs: number; signal: string },
): Promise<{ handedOver: number; cut: number }> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive connections with no request in flight close now; busy ones once their response ends.
  server.closeIdleConnections();
  let inFlight = 0;
  server.getConnections((_e, n) => {
    inFlight = n;
  });
  log.info(
    { signal, timeoutMs },
    "shutting down: accepting no new connections, finishing requests in flight",
  );
  // One deadline for both: a job stuck on its page must not hold the shutdown past it.
  const deadline = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), timeoutMs).unref());
  const jobs = await handOver(app, log, deadline);
  let cut = 0;
  if ((await Promise.race([closed.then(() => "drained" as const), deadline])) === "late") {
    cut = await new Promise<number>((resolve) => server.getConnections((_e, n) => resolve(n)));
    log.warn(
      { connections: cut },
      `shutting down: ${cut} connection(s) still busy after ${timeoutMs} ms are cut`,
    );
    server.closeAllConnections();
    await closed;
  } else {
    log.info({ connections: inFlight }, "shutting down: every request in flight finished");
  }
  await app.dispose();
  log.info("shut down");
  return { handedOver: jobs, cut };
}

/**
 * Hands the app's running export jobs over (each stops after the page it is on, left paused for
 * the next gateway polled for it), waiting no later than `deadline`: what any process serving the
 * app does before it releases it, since app.dispose() stops the export thread and fails a job
 * still reading. Resolves with how many were handed over; each outcome is logged.
 */
export async function handOver(
  app: Pick<Stoppable, "handOverJobs">,
  log: Logger,
  deadline: Promise<"late">,
): Promise<number> {
  const jobs = await Promise.race([
    app.handOverJobs().catch((err: Error) => {
      log.error({ err }, "shutting down: export jobs could not be handed over");
      return [];
    }),
    deadline,
  ]);
  if (jobs === "late") {
    log.warn(
      "shutting down: export jobs did not stop within the deadline; they fail when the export thread stops, and their next poll starts them again",
    );
    return 0;
  }
  if (jobs.length)
    log.info(
      { jobs },
      `shutting down: handed ${jobs.length} export job(s) over to the next gateway polled for them`,
    );
  return jobs.length;
}

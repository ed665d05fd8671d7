import type { ReadContext } from "../context.ts";
import { inSpan } from "../db/sql-tracing.ts";
import type { Logger } from "../logger.ts";
import type { Metrics } from "../ops/metrics.ts";
import { renderedFaults } from "../query/domain-read/rendered-rows.ts";
import type { RecordsPlan } from "./records.ts";
import { reportBroken } from "./rendered.ts";
import type { Plan, RecordsEnvelope } from "./route.ts";
import { withSharedTexts } from "./shared-text.ts";

/**
 * A Domain route's records, read through the query layer and written as the route's plan decided
 * for its selection (src/rest/route.ts, `records`): the default fields copied from the snapshot's
 * rendered records (every served snapshot has them: src/db/snapshot-format.ts), to a client that
 * takes gzip as their pieces are kept, in one gzip member; any other selection by the row writer.
 * What is left to the request is what only it knows: whether its client takes gzip. A Domain
 * whose rendered piece was lost or another's is read again and written by the row writer, counted
 * and logged once per snapshot; a record the row writer cannot write leaves the answer to the
 * resolvers (null), which src/rest/answer.ts runs.
 */
type Records = NonNullable<Plan["records"]>;

/** The records as read, and how they are to be written. */
export interface RecordsRead {
  value: unknown;
  readCtx: ReadContext;
  /** The plan read: the rendered records' or the rows'. */
  read: { plan: RecordsPlan; envelope: RecordsEnvelope };
  /** Rendered records to a gzip client: their pieces as they are, neither inflated nor compressed. */
  gzipped: RecordsEnvelope | null;
}

/** Reads the records of `all` with `args` for `readCtx` (traced as a GraphQL execution is). */
export async function readRecords(
  opId: string,
  all: Records,
  args: Record<string, unknown>,
  readCtx: ReadContext,
  gzip: boolean,
): Promise<RecordsRead> {
  const read = all.rendered ?? all;
  const value = await readWith(opId, read.plan, args, readCtx);
  return { value, readCtx, read, gzipped: all.rendered && gzip ? all.rendered.gzipped : null };
}

/** The answer's body, gzipped or not; null where a record cannot be written from its row. */
export async function writeRecords(
  ctx: { metrics?: Metrics | null; logger: Logger },
  opId: string,
  all: Records,
  args: Record<string, unknown>,
  { value, readCtx, read, gzipped }: RecordsRead,
): Promise<{ body: Uint8Array<ArrayBuffer>; gzipped: boolean } | null> {
  const write = gzipped ?? read.envelope;
  const body = await withSharedTexts(readCtx.served, (shared) => write(value, readCtx, shared));
  if (body) return { body, gzipped: gzipped !== null };
  if (read === all) return null;
  // A Domain whose rendered record was lost or another's (src/db/rendered.ts: checkedPiece): read
  // again and written from the rows.
  const broken = renderedFaults(readCtx);
  ctx.metrics?.rendered("rest", "broken", Math.max(1, broken.length));
  if (readCtx.served) reportBroken(ctx.logger, readCtx.served, "rest", broken.length, broken);
  const again = await readWith(opId, all.plan, args, readCtx);
  const written = await withSharedTexts(readCtx.served, (shared) => all.envelope(again, readCtx, shared));
  return written ? { body: written, gzipped: false } : null;
}

const readWith = (opId: string, plan: RecordsPlan, args: Record<string, unknown>, readCtx: ReadContext) =>
  inSpan(`rest.read ${opId}`, () => plan.answer(readCtx, args));

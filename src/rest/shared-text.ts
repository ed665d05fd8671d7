import { encodeGlobalID } from "@pothos/plugin-relay";
import { type DocumentNode, type FieldNode, Kind, type SelectionSetNode } from "graphql";
import { LRUCache } from "lru-cache";
import { readContext } from "../context.ts";
import { perReader } from "../db/per-reader.ts";
import type { ServedSnapshot } from "../db/snapshots.ts";
import { execute } from "../schema/execute.ts";
import { MAX_NODES } from "../schema/node.ts";
import { field, operation } from "./document.ts";
import { toSelectionSet } from "./fields.ts";
import { legacyWriter, type SharedRun, type SharedTexts } from "./legacy-writer.ts";

/**
 * The text of objects that many parents share, written once per snapshot.
 *
 * An installed App or a detected technology reads the same under every Domain of a snapshot: a
 * page of 50 Domains with the default fields carries about 400 of them, an export millions. REST
 * selects only such an object's key under each parent (src/rest/fields.ts, toSelectionSet) and
 * writes its fields from text kept per snapshot reader. The text is still the GraphQL schema's:
 * the object is answered by `nodes`, compiled by graphql-jit for the run's selection, and written
 * by the same legacy writer, the first time a snapshot meets it.
 */

/** The text of one run's objects, by key, and its length (UTF-16 code units). */
interface RunTexts {
  texts: Map<string, string>;
  size: number;
}

/**
 * Text kept per snapshot reader, by run: at most MAX_KEPT code units in all (an App with the
 * default fields is about 1 KB; the runs a client can ask for are many, the Apps of a snapshot
 * few). A run's size is counted again each time text is added to it (fill deletes and sets it).
 */
const MAX_KEPT = 32 * 1024 * 1024;
const keptRuns = perReader(
  () =>
    new LRUCache<string, RunTexts>({
      maxSize: MAX_KEPT,
      sizeCalculation: (run, id) => Math.max(1, run.size + id.length),
    }),
);

interface RunQuery {
  /** `nodes` with the run's selection (compiled when first run: src/schema/execute.ts). */
  document: DocumentNode;
  write: (object: Record<string, unknown>) => string;
}
const queries = new LRUCache<string, RunQuery>({ max: 500 });

const inlineFragment = (type: string, selectionSet: SelectionSetNode) => ({
  kind: Kind.INLINE_FRAGMENT as const,
  typeCondition: { kind: Kind.NAMED_TYPE as const, name: { kind: Kind.NAME as const, value: type } },
  selectionSet,
});

/** `nodes` with the run's selection, made once per run: the shared objects' own operation. */
function runQuery(run: SharedRun): RunQuery {
  let q = queries.get(run.id);
  if (!q) {
    const own = toSelectionSet(run.selection);
    const keyed = { ...own, selections: [field(run.shared.key), ...own.selections] as FieldNode[] };
    const document = operation(
      "SharedText",
      { ids: "[ID!]!" },
      field("nodes", ["ids"], {
        kind: Kind.SELECTION_SET,
        selections: [inlineFragment(run.shared.type, keyed)],
      }),
    );
    const writer = legacyWriter(run.selection);
    const none: SharedTexts = {
      text: () => {
        throw new Error("a shared object within a shared object");
      },
    };
    const write = (object: Record<string, unknown>) => {
      const text = writer(object, none);
      return text === "{}" ? "" : text.slice(1, -1);
    };
    q = { document, write };
    queries.set(run.id, q);
  }
  return q;
}

/**
 * The shared text of one response, from the snapshot `served` reads: what a writer asks for that
 * is not kept yet is noted, and `fill` writes it (keeping it for the next responses too).
 */
class ResponseTexts implements SharedTexts {
  /** This response's text by run (looked up once per run), with what it filled itself. */
  private readonly runs = new Map<SharedRun, RunTexts>();
  private readonly missing = new Map<SharedRun, Set<string>>();

  constructor(private readonly served: ServedSnapshot | null) {}

  private kept(run: SharedRun): RunTexts {
    let texts = this.runs.get(run);
    if (!texts) {
      if (!this.served) throw new Error("shared text asked for without a snapshot");
      const kept = keptRuns(this.served.sql, 0);
      texts = kept.get(run.id);
      if (!texts) {
        texts = { texts: new Map(), size: 0 };
        kept.set(run.id, texts);
      }
      this.runs.set(run, texts);
    }
    return texts;
  }

  text(run: SharedRun, key: string): string | undefined {
    const text = this.kept(run).texts.get(key);
    if (text === undefined) {
      let keys = this.missing.get(run);
      if (!keys) {
        keys = new Set();
        this.missing.set(run, keys);
      }
      keys.add(key);
    }
    return text;
  }

  get complete(): boolean {
    return this.missing.size === 0;
  }

  /** Writes the text noted missing, through each run's operation on this snapshot. */
  async fill(): Promise<void> {
    // A context per operation: Pothos caches the nodes it resolves per context, and a node that
    // another operation on the same context is still resolving comes back without its type.
    const missing = [...this.missing];
    this.missing.clear();
    await Promise.all(
      missing.map(async ([run, keys]) => {
        const { document, write } = runQuery(run);
        const texts = this.kept(run);
        const all = [...keys];
        for (let i = 0; i < all.length; i += MAX_NODES) {
          const chunk = all.slice(i, i + MAX_NODES);
          const ids = chunk.map((k) => encodeGlobalID(run.shared.type, k));
          const result = await execute(document, { ids }, readContext(this.served));
          if (result.errors?.length) throw result.errors[0].originalError ?? result.errors[0];
          const nodes = (result.data as { nodes: (Record<string, unknown> | null)[] }).nodes;
          nodes.forEach((node, j) => {
            if (!node || node[run.shared.key] !== chunk[j])
              throw new Error(`${run.shared.type} ${chunk[j]} is named but not found in its snapshot`);
            const text = write(node);
            if (!texts.texts.has(chunk[j])) texts.size += chunk[j].length + text.length + 16;
            texts.texts.set(chunk[j], text);
          });
        }
        // Counted again, so that the kept text stays within MAX_KEPT (this response keeps its own).
        // lru-cache recounts only a new value: the same object set again keeps its old size.
        if (this.served) {
          const kept = keptRuns(this.served.sql, 0);
          kept.delete(run.id);
          kept.set(run.id, texts);
        }
      }),
    );
  }
}

/**
 * What `write` gives with the text of the shared objects it writes: written once, and written
 * again after filling the text this snapshot had not kept yet (a response's first meeting with
 * an App or a technology).
 */
export async function withSharedTexts<T>(
  served: ServedSnapshot | null,
  write: (shared: SharedTexts) => T,
): Promise<T> {
  const texts = new ResponseTexts(served);
  const first = write(texts);
  if (texts.complete) return first;
  await texts.fill();
  const second = write(texts);
  if (!texts.complete) throw new Error("shared text: still missing after it was filled");
  return second;
}

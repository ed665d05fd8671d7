import { parentPort } from "node:worker_threads";
import Database from "better-sqlite3";
import { LRUCache } from "lru-cache";
import { sqliteParams, sqliteText } from "./sqlite-text.ts";
import type { ReadAnswer, ReadMessage } from "./sqlite-threads.ts";

// A thread of src/db/sqlite-threads.ts: runs the reads of snapshot files it is sent, a batch at a
// time, and answers each batch with one message. It imports nothing of the gateway but these two
// libraries and the reader's SQL conversion, so that it starts in milliseconds.

interface Open {
  db: Database.Database;
  /** Prepared statements by the reader's SQL text (`$1`…). */
  statements: LRUCache<string, Database.Statement>;
}
const files = new Map<string, Open>();

function opened(file: string): Open {
  let open = files.get(file);
  if (!open) {
    open = {
      db: new Database(file, { readonly: true, fileMustExist: true }),
      statements: new LRUCache({ max: 500 }),
    };
    files.set(file, open);
  }
  return open;
}

function read(file: string, sql: string, params: readonly unknown[]): unknown[][] {
  const { db, statements } = opened(file);
  let s = statements.get(sql);
  if (!s) {
    s = db.prepare(sqliteText(sql)).raw(true);
    statements.set(sql, s);
  }
  return s.all(sqliteParams(params)) as unknown[][];
}

parentPort?.on("message", (message: ReadMessage) => {
  if (message.type === "close") {
    const open = files.get(message.file);
    files.delete(message.file);
    open?.db.close();
    parentPort?.postMessage({ type: "closed", id: message.id } satisfies ReadAnswer);
    return;
  }
  const { id, reads } = message;
  const answers: ReadAnswer & { type: "read" } = { type: "read", id, answers: new Array(reads.length) };
  for (let i = 0; i < reads.length; i++) {
    const [file, sql, params] = reads[i];
    try {
      answers.answers[i] = read(file, sql, params);
    } catch (e) {
      const err = e as Error & { code?: unknown };
      answers.answers[i] = {
        message: err.message,
        name: err.name,
        ...(typeof err.code === "string" ? { code: err.code } : {}),
      };
    }
  }
  parentPort?.postMessage(answers);
});

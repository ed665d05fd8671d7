import pino from "pino";
import type { Config } from "./config.ts";

export type Logger = pino.Logger;

/**
 * pino on stdout, written asynchronously: a line per request written with a system call of its
 * own cost each request about 13 µs of the server's thread. Lines written while one is under way
 * go out together after it, and pino writes what is left when the process exits.
 */
export function createLogger(config: Pick<Config, "logLevel">, dest: 1 | 2 = 1): Logger {
  // stderr (2) where stdout carries a protocol (npm run mcp: MCP over stdio).
  return pino({ level: config.logLevel, base: undefined }, pino.destination({ dest, sync: false }));
}

type Level = "debug" | "info" | "warn" | "error";

/**
 * A pino call for what a library logs console-style (`log("message", detail, error)`): its
 * strings are the message, an Error is pino's `err` (with its type, message and stack), and other
 * values are the line's fields. yoga logs so.
 */
export function logArgs(logger: Logger, level: Level, args: readonly unknown[]): void {
  // yoga logs at debug several times a request: nothing is built for a level that is off.
  if (!logger.isLevelEnabled(level)) return;
  const words: string[] = [];
  const errors: Error[] = [];
  const values: unknown[] = [];
  const fields: Record<string, unknown> = {};
  for (const a of args) {
    if (typeof a === "string") words.push(a);
    else if (a instanceof Error) errors.push(a);
    else if (typeof a === "object" && a !== null && !Array.isArray(a)) Object.assign(fields, a);
    else if (a !== undefined) values.push(a);
  }
  if (errors.length) fields.err = errors[0];
  if (errors.length > 1) fields.errors = errors.slice(1);
  if (values.length) fields.values = values;
  logger[level](fields, words.join(" ") || errors[0]?.message);
}

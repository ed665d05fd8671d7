import pino from "pino";
import type * as LoggerModule from "../../src/logger.ts";

/** A line the app logged, as pino writes it. */
export type LogLine = { level: number; msg?: string; [key: string]: unknown };

/** Every line the apps of a test file log, once the file mocks the logger with capturingLogger. */
export const logged: LogLine[] = [];

/** pino's numeric levels: 40 warn, 50 error. */
export const errorLines = () => logged.filter((l) => l.level >= 50);

/**
 * src/logger.ts with createLogger writing into `logged` at `level` and above. A test file mocks
 * the module with it, so that every app it creates logs there:
 *
 *   vi.mock("../../src/logger.ts", async (original) =>
 *     (await import("../support/logs.ts")).capturingLogger(await original(), "debug"));
 */
export function capturingLogger(
  original: typeof LoggerModule,
  level: "debug" | "info" | "warn",
): typeof LoggerModule {
  return {
    ...original,
    createLogger: () =>
      pino({ level, base: undefined }, { write: (line: string) => void logged.push(JSON.parse(line)) }),
  };
}

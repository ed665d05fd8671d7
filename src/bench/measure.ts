import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

/**
 * glibc's malloc as the image sets it (docs/deploy/Dockerfile: buffers of 128 KB and more mmapped
 * at a fixed threshold), for every process the bench starts: its gateways and the loader.
 */
export const MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: "131072" };

/**
 * The loader's flags, as `npm run load` runs it: the pipeline collects what each step left before
 * the next begins (src/load-pipeline.ts, `measured`), so that each step's peak is its own.
 */
export const LOAD_FLAGS = ["--expose-gc"];

export interface Measured {
  seconds: number;
  peakRssMb: number;
  code: number | null;
}

/**
 * Runs a TypeScript entry point in its own Node process (node --import tsx, so the measured pid is
 * the worker itself) and reports wall time and peak RSS (VmHWM from /proc, sampled every 100 ms).
 */
export async function runMeasured(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  nodeFlags: string[] = [],
): Promise<Measured> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [...nodeFlags, "--import", "tsx", script, ...args], {
    env: { ...MALLOC_ENV, ...env },
    stdio: ["ignore", "inherit", "inherit"],
  });
  let peakKb = 0;
  const sample = () => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
      if (m) peakKb = Math.max(peakKb, Number(m[1]));
    } catch {
      // the process has exited
    }
  };
  const timer = setInterval(sample, 100);
  const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
  clearInterval(timer);
  return {
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
    peakRssMb: Math.round(peakKb / 1024),
    code,
  };
}

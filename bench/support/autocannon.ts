// The load generator of the HTTP benchmarks: autocannon pinned to CPU 1 (the server under test
// runs on CPU 0), JSON results reduced to what RESULTS.md reports.
import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  token?: string;
  /** Sent as a JSON POST body. */
  body?: string;
}

export function autocannon(url: string, options: LoadOptions): LoadResult {
  const argv = ["-c", "1", join(ROOT, "node_modules/.bin/autocannon"), "-j"];
  argv.push("-c", String(options.connections), "-d", String(options.seconds));
  if (options.token !== undefined) argv.push("-H", `authorization=Bearer ${options.token}`);
  if (options.body !== undefined) {
    argv.push("-m", "POST", "-H", "content-type=application/json", "-b", options.body);
  }
  argv.push(url);
  const out = execFileSync("taskset", argv, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const result = JSON.parse(out) as {
    requests: { average: number };
    latency: { p50: number; p99: number };
    errors: number;
    non2xx: number;
  };
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

/** The p-th percentile (0-100) of a list of durations. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? NaN;
}

/** Runs `step` `count` times one after another and returns each duration in ms. */
export async function timeSequential(count: number, step: (i: number) => Promise<void>): Promise<number[]> {
  const durations: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await step(i);
    durations.push(performance.now() - start);
  }
  return durations;
}

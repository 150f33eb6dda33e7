// Load and resource measurements of a process pinned to CPU 0, for bench/sidecar/run.ts: the
// load generator (autocannon or wrk) on CPU 1, the process's CPU time and memory from /proc.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cpuSeconds } from "../support/process-stats.ts";

const ROOT = resolve(import.meta.dirname, "../..");

export type LoadTool = "autocannon" | "wrk";

export interface LoadResult {
  requestsPerSecond: number;
  /** Requests per CPU-second the sidecar used: its throughput on a core of its own. */
  requestsPerCpuSecond: number;
  sidecarCpuShare: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

/** The load generator (autocannon or wrk) on CPU 1, 50 connections, loopback; and the sidecar's CPU use meanwhile. */
export function load(
  tool: LoadTool,
  pid: number | readonly number[],
  url: string,
  seconds: number,
  post?: string,
  headers: Record<string, string> = {},
): LoadResult {
  // A server of several processes (a proxy and its upstream) is measured on all their CPU.
  const cpuOfAll = () => [pid].flat().reduce((sum, one) => sum + cpuSeconds(one), 0);
  const cpuBefore = cpuOfAll();
  const measured =
    tool === "wrk" ? wrk(url, seconds, post, headers) : autocannon(url, seconds, post, headers);
  const cpu = cpuOfAll() - cpuBefore;
  return {
    requestsPerSecond: Math.round(measured.total / measured.seconds),
    requestsPerCpuSecond: Math.round(measured.total / cpu),
    sidecarCpuShare: Math.round((100 * cpu) / measured.seconds) / 100,
    p50Ms: measured.p50Ms,
    p99Ms: measured.p99Ms,
    errors: measured.errors,
    non2xx: measured.non2xx,
  };
}

interface Measured {
  total: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

function autocannon(
  url: string,
  seconds: number,
  post: string | undefined,
  headers: Record<string, string>,
): Measured {
  const argv = [
    "-c",
    "1",
    join(ROOT, "node_modules/.bin/autocannon"),
    "-j",
    "-c",
    "50",
    "-d",
    String(seconds),
  ];
  if (post !== undefined) argv.push("-m", "POST", "-H", "content-type=application/json", "-b", post);
  for (const [name, value] of Object.entries(headers)) argv.push("-H", `${name}=${value}`);
  argv.push(url);
  const out = execFileSync("taskset", argv, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const result = JSON.parse(out) as {
    requests: { total: number };
    duration: number;
    latency: { p50: number; p99: number };
    errors: number;
    non2xx: number;
  };
  return {
    total: result.requests.total,
    seconds: result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

function wrk(
  url: string,
  seconds: number,
  post: string | undefined,
  headers: Record<string, string>,
): Measured {
  const argv = ["-c", "1", "wrk", "-t1", "-c50", `-d${seconds}s`, "--latency"];
  for (const [name, value] of Object.entries(headers)) argv.push("-H", `${name}: ${value}`);
  if (post !== undefined) {
    const script = join(tmpdir(), "svc-bench-post.lua");
    writeFileSync(
      script,
      `wrk.method = "POST"\nwrk.body = ${JSON.stringify(post)}\nwrk.headers["Content-Type"] = "application/json"\n`,
    );
    argv.push("-s", script);
  }
  argv.push(url);
  const out = execFileSync("taskset", argv, { encoding: "utf8" });
  const ms = (label: string) => {
    const match = new RegExp(`^\\s+${label}%\\s+([\\d.]+)(us|ms|s)\\s*$`, "m").exec(out);
    if (!match) throw new Error(`wrk printed no ${label}% latency:\n${out}`);
    return Number(match[1]) * (match[2] === "us" ? 0.001 : match[2] === "s" ? 1000 : 1);
  };
  const total = /(\d+) requests in ([\d.]+)(m?s)/.exec(out);
  if (!total) throw new Error(`wrk printed no total:\n${out}`);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    total: Number(total[1]),
    seconds: Number(total[2]) / (total[3] === "ms" ? 1000 : 1),
    p50Ms: ms("50"),
    p99Ms: ms("99"),
    errors: errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
  };
}

// One `svc operator` process of bench/operator/memory.ts: started with a variant's environment
// and Node flags, read through its /metrics and /proc, and (with --smaps) asked where its
// memory is.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freeLoopbackPort, waitFor } from "@svc/kube";
import { cpuSeconds, memory } from "../support/process-stats.ts";
import { parseMallocStats, summariseSmaps } from "./smaps.ts";

export interface OperatorRun {
  name: string;
  pid: number;
  emptyRss?: number;
  fullRss?: number;
  peakRssMb: number;
  heapTotal?: number;
  heapUsed?: number;
  external?: number;
  settledSeconds?: number;
  cpuSeconds?: number;
  meanReconcileMs?: number;
  /** process.memoryUsage() at the --smaps point: RSS and V8's heap read at the same instant. */
  usage?: NodeJS.MemoryUsage;
  /** Why it was killed, if its RSS passed the bound. */
  runaway?: string;
  settledRss(what: string, cached: number, since?: number): Promise<number>;
  snapshot(what: string): Promise<void>;
  readHeap(): Promise<void>;
  metric(name: string): Promise<number>;
  stderr(): string;
  probeFile: string;
  stop(): void;
}

interface Options {
  root: string;
  kubeconfigPath: string;
  nodeOptions: string;
  snapshotDir: string | undefined;
  probe: boolean;
  maxRssMb: number;
}

/** "NAME [untrimmed] [VAR=VALUE…] [--node-flag…]" */
export async function startOperator(spec: string, options: Options): Promise<OperatorRun> {
  const [name = "default", ...words] = spec.trim().split(/\s+/);
  const untrimmed = words.includes("untrimmed");
  const nodeFlags = words.filter((w) => w.startsWith("--"));
  const env = Object.fromEntries(
    words
      .filter((w) => !w.startsWith("--") && w.includes("="))
      .map((w) => [w.slice(0, w.indexOf("=")), w.slice(w.indexOf("=") + 1)]),
  );
  const port = await freeLoopbackPort();
  const probeFile = join(tmpdir(), `svc-memory-probe-${name}-${process.pid}.json`);
  const command = untrimmed ? "bench/operator/untrimmed-operator.ts" : "packages/cli/src/main.ts";
  let stderr = "";
  // A variant's Node and V8 flags on the command line: NODE_OPTIONS refuses most V8 flags
  // (--optimize-for-size, --heap-growing-percent).
  const child = spawn(process.execPath, [...nodeFlags, join(options.root, command), "operator"], {
    env: {
      ...process.env,
      ...env,
      KUBECONFIG: options.kubeconfigPath,
      SVC_OPERATOR_METRICS_PORT: String(port),
      SVC_OPERATOR_METRICS_HOST: "127.0.0.1",
      SVC_OPERATOR_LEADER_ELECTION: "false",
      SVC_LOG_LEVEL: "warn",
      SVC_BENCH_MEMORY_PROBE: probeFile,
      NODE_OPTIONS: [
        options.nodeOptions,
        options.snapshotDir === undefined ? "" : "--heapsnapshot-signal=SIGUSR2",
        options.probe ? `--import=${join(options.root, "bench/operator/memory-probe.ts")}` : "",
      ]
        .join(" ")
        .trim(),
    },
    cwd: options.snapshotDir ?? options.root,
    stdio: ["ignore", "inherit", "pipe"],
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    process.stderr.write(`[${name}] ${chunk.toString()}`);
  });
  const pid = child.pid ?? 0;
  const metric = async (metricName: string): Promise<number> => {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`, {
      signal: AbortSignal.timeout(10_000),
    }).catch(() => undefined);
    if (response === undefined) return NaN;
    const text = await response.text();
    return text
      .split("\n")
      .filter((line) => line.startsWith(metricName))
      .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
  };
  const run: OperatorRun = {
    name,
    pid,
    peakRssMb: 0,
    probeFile,
    metric,
    stderr: () => stderr,
    stop: () => {
      clearInterval(watch);
      child.kill("SIGTERM");
      // A busy (runaway) operator may not get to its SIGTERM handler.
      setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
      rmSync(probeFile, { force: true });
    },
    async settledRss(what, cached, since) {
      const alive = () => {
        if (run.runaway !== undefined) throw new Error(`${name}: ${run.runaway}`);
      };
      await waitFor(
        () => (alive(), metric("svc_operator_cached_objects").catch(() => -1)),
        (n) => n >= cached,
        { what: `${name}: ${what}`, timeoutMs: 600_000, intervalMs: 500 },
      );
      await waitFor(
        () => (alive(), metric("svc_operator_queue_depth")),
        (n) => n === 0,
        { what: `${name}: ${what}`, timeoutMs: 600_000 },
      );
      if (since !== undefined) {
        run.settledSeconds = (Date.now() - since) / 1000;
        run.cpuSeconds = cpuSeconds(pid);
      }
      // Let the collector settle: three readings a second apart, the lowest counts; a reading
      // the busy operator did not answer in time is taken again (at most 60 tries).
      const readings: number[] = [];
      for (let tries = 0; readings.length < 3 && tries < 60; tries++) {
        await new Promise((r) => setTimeout(r, 1000));
        const rss = await metric("svc_operator_process_resident_memory_bytes");
        if (Number.isFinite(rss) && rss > 0) readings.push(rss);
      }
      return Math.min(...readings);
    },
    async snapshot(what) {
      if (options.snapshotDir === undefined) return;
      child.kill("SIGUSR2");
      // Writing the snapshot stops the process for a while; done when /metrics answers again.
      await new Promise((r) => setTimeout(r, 2000));
      await waitFor(() => metric("svc_operator_leader"), Number.isFinite, {
        what: "the snapshot",
        timeoutMs: 300_000,
      });
      console.log(`${name}: heap snapshot of ${what} written to ${options.snapshotDir}`);
    },
    async readHeap() {
      const answered = (metricName: string) =>
        waitFor(() => metric(metricName), Number.isFinite, {
          what: metricName,
          timeoutMs: 60_000,
          intervalMs: 1000,
        });
      run.heapTotal = await answered("svc_operator_nodejs_heap_size_total_bytes");
      run.heapUsed = await answered("svc_operator_nodejs_heap_size_used_bytes");
      run.external = await answered("svc_operator_nodejs_external_memory_bytes");
      const sum = await answered("controller_runtime_reconcile_time_seconds_sum");
      const count = await answered("controller_runtime_reconcile_time_seconds_count");
      run.meanReconcileMs = (sum / count) * 1000;
    },
  };
  // The high-water mark, and a bound: a runaway operator is killed, not left to take the machine.
  const watch = setInterval(() => {
    try {
      const { vmRssMb } = memory(pid);
      run.peakRssMb = Math.max(run.peakRssMb, vmRssMb);
      if (vmRssMb > options.maxRssMb && run.runaway === undefined) {
        run.runaway = `RSS ${vmRssMb.toFixed(0)} MB > ${options.maxRssMb} MB, killed`;
        console.log(`${name}: ${run.runaway}`);
        child.kill("SIGKILL");
      }
    } catch {
      // exited
    }
  }, 1000);
  child.on("exit", (code, signal) => {
    if (run.runaway === undefined && code !== 0) run.runaway = `exited (${code ?? signal})`;
  });
  return run;
}

/** Where the full operator's RSS is: smaps classes, process.memoryUsage(), glibc's view. */
export async function whereTheMemoryIs(o: OperatorRun, options: { mallocTrim: boolean }): Promise<void> {
  process.kill(o.pid, "SIGWINCH");
  await waitFor(
    () => {
      try {
        return JSON.parse(readFileSync(o.probeFile, "utf8")) as Record<string, Record<string, unknown>>;
      } catch {
        return undefined;
      }
    },
    (v) => v !== undefined,
    { what: `${o.name}: memory probe`, timeoutMs: 30_000, intervalMs: 200 },
  ).then((probe) => {
    o.usage = probe?.["usage"] as unknown as NodeJS.MemoryUsage;
    const mb = (n: unknown) => Math.round(Number(n) / 1024 / 1024);
    const usage = Object.entries(probe?.["usage"] ?? {}).map(([k, v]) => `${k} ${mb(v)}`);
    console.log(`${o.name}: process.memoryUsage() MB: ${usage.join(", ")}`);
    const spaces = Object.entries(probe?.["spaces"] ?? {}).map(([k, v]) => {
      const space = v as { size: number; physical: number; used: number };
      return space.size === 0 ? "" : `${k} ${mb(space.size)}/${mb(space.physical)}/${mb(space.used)}`;
    });
    console.log(`${o.name}: V8 spaces committed/resident/used MB: ${spaces.filter(Boolean).join(", ")}`);
  });
  const smaps = summariseSmaps(o.pid);
  const r = smaps.rollup;
  console.log(
    `${o.name}: smaps_rollup: Rss ${r.rssMb.toFixed(0)} MB = anonymous ${r.anonymousMb.toFixed(0)} + file-backed ${r.fileMb.toFixed(0)}`,
  );
  for (const [cls, c] of Object.entries(smaps.classes).sort((a, b) => b[1].rssMb - a[1].rssMb))
    console.log(
      `${o.name}:   ${c.rssMb.toFixed(1).padStart(7)} MB resident  ${cls} (${c.mappings} mappings, ${c.sizeMb.toFixed(0)} MB mapped)`,
    );
  if (!options.mallocTrim) return;
  // glibc's own account (printed by the process to its stderr), then give back its free memory.
  const before = o.stderr().length;
  const rssBefore = memory(o.pid).vmRssMb;
  // gdb exits non-zero after calling into the process ("Couldn't write extended state status"
  // on some kernels) although both calls ran: its status is not a verdict, the output is.
  spawnSync(
    "gdb",
    ["-p", String(o.pid), "-batch", "-ex", "call (void) malloc_stats()", "-ex", "call (int) malloc_trim(0)"],
    { stdio: "ignore", timeout: 120_000 },
  );
  await new Promise((r) => setTimeout(r, 2000));
  const stats = parseMallocStats(o.stderr().slice(before));
  console.log(
    `${o.name}: malloc_stats: ${stats.arenas} arenas, ${stats.systemMb.toFixed(0)} MB from the system, ${stats.inUseMb.toFixed(0)} MB in use; RSS ${rssBefore.toFixed(0)} MB → ${memory(o.pid).vmRssMb.toFixed(0)} MB after malloc_trim(0)`,
  );
}

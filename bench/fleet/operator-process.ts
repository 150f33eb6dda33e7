// `svc operator` as the fleet benchmark runs it: the real command, a process of its own, read
// through its metrics and measured from /proc and a V8 heap snapshot (SIGUSR2 writes one, after
// the full collection a snapshot forces).
import { readdir, readFile, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { freeLoopbackPort, waitFor } from "@svc/kube";
import { superviseProcess, type SupervisedProcess } from "@svc/localkube";
import { memory } from "../support/process-stats.ts";
import { liveHeap } from "./svc-fleet.ts";

const ROOT = resolve(import.meta.dirname, "../..");

export interface OperatorMemory {
  rssMb: number;
  liveHeapMb: number;
}

export interface FleetOperatorOptions {
  name: string;
  /** The hub's kubeconfig: where the ClusterConnections (and the Leases) are. */
  kubeconfigPath: string;
  /** Where the process writes its heap snapshots. */
  snapshotDir: string;
  concurrency: number;
  /** Settings beside the defaults (sharding, identity, Lease duration, log level). */
  settings: Record<string, string>;
  /** Where its log (pino's JSON lines) is written, besides the tail kept for errors. */
  logPath?: string;
}

/** One line of the operator's log (pino's JSON): its time (ms since the epoch) and fields. */
export interface LogLine {
  time: number;
  msg: string;
  cluster?: string;
  state?: string;
}

export class FleetOperator {
  readonly name: string;
  readonly #process: SupervisedProcess;
  readonly #metricsPort: number;
  readonly #snapshotDir: string;
  readonly #logPath: string | undefined;

  private constructor(
    name: string,
    process: SupervisedProcess,
    metricsPort: number,
    { snapshotDir, logPath }: Pick<FleetOperatorOptions, "snapshotDir" | "logPath">,
  ) {
    this.name = name;
    this.#process = process;
    this.#metricsPort = metricsPort;
    this.#snapshotDir = snapshotDir;
    this.#logPath = logPath;
  }

  static async start(options: FleetOperatorOptions): Promise<FleetOperator> {
    const metricsPort = await freeLoopbackPort();
    const child = superviseProcess({
      name: options.name,
      command: process.execPath,
      args: ["--heapsnapshot-signal=SIGUSR2", join(ROOT, "packages/cli/src/main.ts"), "operator"],
      cwd: options.snapshotDir,
      env: {
        ...process.env,
        KUBECONFIG: options.kubeconfigPath,
        SVC_OPERATOR_METRICS_PORT: String(metricsPort),
        SVC_OPERATOR_METRICS_HOST: "127.0.0.1",
        SVC_OPERATOR_CONCURRENCY: String(options.concurrency),
        SVC_LOG_LEVEL: "warn",
        ...options.settings,
      },
      ...(options.logPath === undefined ? {} : { logPath: options.logPath }),
    });
    return new FleetOperator(options.name, child, metricsPort, options);
  }

  get pid(): number {
    const { pid } = this.#process;
    if (pid === undefined) throw new Error(`${this.name} did not start`);
    return pid;
  }

  /** The metrics page; undefined while the process does not answer. Throws once it has exited. */
  async #metricsText(): Promise<string | undefined> {
    if (!this.#process.running()) throw new Error(`${this.name} exited:\n${this.#process.logTail(40)}`);
    const reply = await fetch(`http://127.0.0.1:${this.#metricsPort}/metrics`, {
      signal: AbortSignal.timeout(10_000),
    }).catch(() => undefined);
    return reply?.text();
  }

  /** The sum of a metric's series (those containing `label`, when given); NaN while it does not answer. */
  async metric(name: string, label = ""): Promise<number> {
    const text = await this.#metricsText();
    if (text === undefined) return NaN;
    return text
      .split("\n")
      .filter(
        (line) => line.startsWith(name) && /^[ {]/.test(line.slice(name.length)) && line.includes(label),
      )
      .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
  }

  /** The clusters whose objects it caches (the clusters it acts on), from its metrics. */
  async cachedClusters(): Promise<string[]> {
    const text = (await this.#metricsText()) ?? "";
    return [
      ...new Set(
        [...text.matchAll(/svc_operator_cached_objects\{cluster="([^"]+)"/g)].map((m) => m[1] ?? ""),
      ),
    ].sort();
  }

  /** Until its queues are empty. */
  idle(what: string): Promise<number> {
    return waitFor(
      () => this.metric("svc_operator_queue_depth"),
      (n) => n === 0,
      { what: `${this.name}: ${what}`, timeoutMs: 1_800_000 },
    );
  }

  /** RSS (the lowest of three readings a second apart) and live heap (a snapshot's total self size). */
  async memory(what: string): Promise<OperatorMemory> {
    // RSS first: writing a snapshot takes memory of its own.
    const rssMb = await this.rss();
    return { rssMb, liveHeapMb: await this.liveHeap(what) };
  }

  /** Resident memory in MB: the lowest of three readings a second apart. */
  async rss(): Promise<number> {
    const readings: number[] = [];
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      readings.push(memory(this.pid).vmRssMb);
    }
    return Math.min(...readings);
  }

  /**
   * A heap snapshot's total self size in MB: what survives a full GC. Writing it stops the
   * process for seconds (long enough, at fleet size, for a sharded replica to miss renewals).
   */
  async liveHeap(what: string): Promise<number> {
    const before = new Set(await readdir(this.#snapshotDir));
    process.kill(this.pid, "SIGUSR2");
    const file = await waitFor(
      async () =>
        (await readdir(this.#snapshotDir)).find((f) => !before.has(f) && f.endsWith(".heapsnapshot")),
      (f) => f !== undefined,
      { what: `heap snapshot of ${what}`, timeoutMs: 600_000, intervalMs: 1000 },
    );
    // The file exists from the start of the write; the process answers again once it is done.
    await waitFor(() => this.metric("svc_operator_queue_depth"), Number.isFinite, {
      what,
      timeoutMs: 600_000,
    });
    const path = join(this.#snapshotDir, file ?? "");
    const liveHeapMb = await liveHeap(path);
    await rm(path);
    return liveHeapMb;
  }

  /** The lines of its log file that are JSON (none without a logPath). */
  async log(): Promise<LogLine[]> {
    if (this.#logPath === undefined) return [];
    const text = await readFile(this.#logPath, "utf8").catch(() => "");
    return text.split("\n").flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as Partial<LogLine>;
        return typeof parsed.time === "number" && typeof parsed.msg === "string" ? [parsed as LogLine] : [];
      } catch {
        return [];
      }
    });
  }

  stop(): Promise<void> {
    return this.#process.stop();
  }

  /** SIGKILL: no hand-over, as when a node dies. */
  kill(): Promise<void> {
    return this.#process.stop({ signal: "SIGKILL" });
  }
}

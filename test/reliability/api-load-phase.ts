// The phases of the API load test (api-load.test.ts): every client loops over its requests, one
// at a time, on one shared keep-alive pool; each request's duration and error are counted per
// operation.
import { Pool } from "undici";

export type Operation =
  | "GET flags (namespace)"
  | "GET flag (seed)"
  | "GET flag (own)"
  | "GET auth/me"
  | "GET audit"
  | "GET clusters"
  | "GET workloads"
  | "POST flag (create)"
  | "PUT flag (update)"
  | "POST flag toggle"
  | "DELETE flag"
  | "GET /healthz";
/** Per-operation durations and error counts of one phase. */
export class LoadStats {
  readonly durations = new Map<Operation, number[]>();
  readonly errors = new Map<string, number>();
  elapsedMs = 0;

  record(op: Operation, ms: number, error?: string): void {
    const list = this.durations.get(op) ?? [];
    list.push(ms);
    this.durations.set(op, list);
    if (error !== undefined) this.fail(op, error);
  }

  /** An error found in an answer that was already recorded (a stale read, a wrong toggle). */
  fail(op: Operation, error: string): void {
    this.errors.set(`${op}: ${error}`, (this.errors.get(`${op}: ${error}`) ?? 0) + 1);
  }

  get requests(): number {
    return [...this.durations.values()].reduce((n, list) => n + list.length, 0);
  }
}

/** Every client loops over `step` until `ms` have passed (each request bounded by its timeout). */
export async function runPhase<Client>(
  clients: readonly Client[],
  ms: number,
  step: (client: Client, stats: LoadStats) => Promise<void>,
): Promise<LoadStats> {
  const stats = new LoadStats();
  const started = performance.now();
  const end = started + ms;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < end) await step(client, stats);
    }),
  );
  stats.elapsedMs = performance.now() - started;
  return stats;
}

/** The pool all clients share: one keep-alive connection per client at most. */
export function connectionPool(url: string, clients: number): Pool {
  return new Pool(url, { connections: clients, keepAliveTimeout: 60_000 });
}

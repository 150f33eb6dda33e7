// The clients of the API load test (api-load.test.ts): each one loops over requests, one at a
// time, on a shared keep-alive connection pool. Every client has a role; a writing client owns
// the flags it creates (names never reused), so it knows what each flag must hold after each
// acknowledged write, and checks it when it reads its own flag back (the API promises a writer
// reads its own write). Errors are counted by kind, never thrown: the test asserts there are none.
import type { Pool } from "undici";
import type { LoadStats, Operation } from "./api-load-phase.ts";

export type Role = "admin" | "editor" | "viewer";
type Write = "create" | "update" | "toggle" | "delete";

/** A write the API answered with its success status: what its audit event must show. */
export interface AckedWrite {
  action: Write;
  name: string;
  actor: string;
  /** defaultValue (create, update: after; delete: before) or the new enabled state (toggle). */
  detail: string;
}

/** A flag as its owner last had it acknowledged. */
export interface OwnedFlag {
  value: string;
  enabled: boolean;
}

const REQUEST_TIMEOUT_MS = 30_000;
const SELECTOR = { matchLabels: { app: "api-load-none" } };

/** A small seeded PRNG (mulberry32): each client's choices are the same from run to run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Session {
  role: Role;
  username: string;
  token: string;
}

export interface Target {
  pool: Pool;
  namespace: string;
  seeds: readonly string[];
}

/** One request; the status and body, or the kind of failure (timeout, transport error). */
async function send(
  target: Target,
  method: "GET" | "POST" | "PUT" | "DELETE",
  path: string,
  token: string | undefined,
  body?: unknown,
): Promise<{ status: number; text: string } | { failure: string }> {
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  try {
    const reply = await target.pool.request({
      method,
      path,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal,
    });
    return { status: reply.statusCode, text: await reply.body.text() };
  } catch (error) {
    if (signal.aborted) return { failure: `no answer in ${REQUEST_TIMEOUT_MS / 1000} s` };
    const code = (error as { code?: unknown }).code;
    return { failure: `transport error ${typeof code === "string" ? code : String(error)}` };
  }
}

export class LoadClient {
  /** Live flags, as last acknowledged. */
  readonly flags = new Map<string, OwnedFlag>();
  readonly deleted = new Set<string>();
  /** Flags whose last write failed: their state is unknown (the errors are counted anyway). */
  readonly uncertain = new Set<string>();
  readonly acked: AckedWrite[] = [];
  readonly #random: () => number;
  #sequence = 0;

  readonly index: number;
  readonly session: Session;
  readonly target: Target;

  constructor(index: number, session: Session, target: Target) {
    this.index = index;
    this.session = session;
    this.target = target;
    this.#random = seeded(index + 1);
  }

  get writes(): boolean {
    return this.session.role !== "viewer";
  }

  /** One request of the mix: a writer reads half the time; a viewer only reads. */
  async step(stats: LoadStats): Promise<void> {
    if (this.writes && this.#random() < 0.5) await this.#write(stats);
    else await this.#read(stats);
  }

  /** Times one request and checks its status; returns the body when the status was `expected`. */
  async #timed(
    stats: LoadStats,
    op: Operation,
    expected: number,
    method: "GET" | "POST" | "PUT" | "DELETE",
    path: string,
    body?: unknown,
  ): Promise<string | undefined> {
    const token = op === "GET /healthz" ? undefined : this.session.token;
    const started = performance.now();
    const answer = await send(this.target, method, path, token, body);
    const ms = performance.now() - started;
    if ("failure" in answer) {
      stats.record(op, ms, answer.failure);
      return undefined;
    }
    if (answer.status !== expected) {
      const kind = answer.status >= 500 ? "5xx" : "unexpected status";
      stats.record(op, ms, `${kind} ${answer.status} ${answer.text.slice(0, 120)}`);
      return undefined;
    }
    stats.record(op, ms);
    return answer.text;
  }

  async healthz(stats: LoadStats): Promise<void> {
    await this.#timed(stats, "GET /healthz", 200, "GET", "/healthz");
  }

  #pick<T>(items: readonly T[]): T | undefined {
    return items[Math.floor(this.#random() * items.length)];
  }

  #flagPath(name: string, suffix = ""): string {
    return `/api/v1/flags/${this.target.namespace}/${name}${suffix}?clusterId=local`;
  }

  async #read(stats: LoadStats): Promise<void> {
    const ns = this.target.namespace;
    const r = this.#random();
    const own = this.#pick([...this.flags.keys()]);
    if (r < 0.2)
      await this.#timed(
        stats,
        "GET flags (namespace)",
        200,
        "GET",
        `/api/v1/flags?clusterId=local&namespace=${ns}`,
      );
    else if (r < 0.4 && own !== undefined) await this.#readOwn(stats, own);
    else if (r < 0.4)
      await this.#timed(
        stats,
        "GET flag (seed)",
        200,
        "GET",
        this.#flagPath(this.#pick(this.target.seeds) ?? ""),
      );
    else if (r < 0.6) await this.#timed(stats, "GET auth/me", 200, "GET", "/api/v1/auth/me");
    else if (r < 0.75) await this.#timed(stats, "GET audit", 200, "GET", "/api/v1/audit?limit=20");
    else if (r < 0.85) await this.#timed(stats, "GET clusters", 200, "GET", "/api/v1/clusters");
    else
      await this.#timed(
        stats,
        "GET workloads",
        200,
        "GET",
        `/api/v1/clusters/local/workloads?namespace=${ns}`,
      );
  }

  /** Reads its own flag back: it must hold the last acknowledged value and state. */
  async #readOwn(stats: LoadStats, name: string): Promise<void> {
    const text = await this.#timed(stats, "GET flag (own)", 200, "GET", this.#flagPath(name));
    const want = this.flags.get(name);
    if (text === undefined || want === undefined) return;
    const got = JSON.parse(text) as { defaultValue: string; enabled: boolean };
    if (got.defaultValue !== want.value || got.enabled !== want.enabled)
      stats.fail("GET flag (own)", "stale read of own write");
  }

  async #write(stats: LoadStats): Promise<void> {
    const live = [...this.flags.keys()];
    const admin = this.session.role === "admin";
    // An admin keeps at most two flags alive (creates, edits, deletes); an editor, who may not
    // delete, makes two and edits them: the namespace's size, and the list reads, stay bounded.
    if (live.length === 0 || (live.length < 2 && this.#random() < 0.3)) return this.#create(stats);
    const name = this.#pick(live) ?? "";
    const r = this.#random();
    if (r < 0.5) return this.#update(stats, name);
    if (r < 0.75 || !admin) return this.#toggle(stats, name);
    return this.#delete(stats, name);
  }

  #nextValue(): string {
    return `v${this.index}.${++this.#sequence}`;
  }

  #ack(action: Write, name: string, detail: string): void {
    this.acked.push({ action, name, actor: this.session.username, detail });
  }

  #unsure(name: string): void {
    this.flags.delete(name);
    this.uncertain.add(name);
  }

  async #create(stats: LoadStats): Promise<void> {
    const name = `c${this.index}-${this.#sequence + 1}`;
    const value = this.#nextValue();
    const body = {
      name,
      namespace: this.target.namespace,
      clusterId: "local",
      type: "string",
      defaultValue: value,
      description: "api load test",
      delivery: { envVar: { selector: SELECTOR } },
    };
    if ((await this.#timed(stats, "POST flag (create)", 201, "POST", "/api/v1/flags", body)) === undefined) {
      this.#unsure(name);
      return;
    }
    this.flags.set(name, { value, enabled: true });
    this.#ack("create", name, value);
  }

  async #update(stats: LoadStats, name: string): Promise<void> {
    const value = this.#nextValue();
    const body = { type: "string", defaultValue: value, delivery: { envVar: { selector: SELECTOR } } };
    if (
      (await this.#timed(stats, "PUT flag (update)", 200, "PUT", this.#flagPath(name), body)) === undefined
    ) {
      this.#unsure(name);
      return;
    }
    this.flags.set(name, { value, enabled: this.flags.get(name)?.enabled ?? true });
    this.#ack("update", name, value);
  }

  async #toggle(stats: LoadStats, name: string): Promise<void> {
    const before = this.flags.get(name) ?? { value: "", enabled: true };
    const text = await this.#timed(
      stats,
      "POST flag toggle",
      200,
      "POST",
      this.#flagPath(name, "/toggle"),
      {},
    );
    if (text === undefined) {
      this.#unsure(name);
      return;
    }
    const enabled = (JSON.parse(text) as { enabled: boolean }).enabled;
    if (enabled === before.enabled) stats.fail("POST flag toggle", "answered a flag not flipped");
    this.flags.set(name, { ...before, enabled: !before.enabled });
    this.#ack("toggle", name, String(!before.enabled));
  }

  async #delete(stats: LoadStats, name: string): Promise<void> {
    const before = this.flags.get(name);
    if ((await this.#timed(stats, "DELETE flag", 200, "DELETE", this.#flagPath(name))) === undefined) {
      this.#unsure(name);
      return;
    }
    this.flags.delete(name);
    this.deleted.add(name);
    this.#ack("delete", name, before?.value ?? "");
  }
}

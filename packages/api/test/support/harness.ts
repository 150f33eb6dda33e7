// Real API servers on 127.0.0.1 over real HTTP, on a SQLite file or a PostgreSQL database.
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { DEFAULT_DELIVERY_POLICY } from "@svc/core";
import { testPostgresDatabase } from "../../../../test/support/postgres.ts";
import { buildApiServer, type ApiServer, type ApiServerOptions } from "../../src/index.ts";
import { DEFAULT_WEBHOOK_CONFIG, type ApiConfig, type DatabaseConfig } from "../../src/config.ts";

export const ADMIN_PASSWORD = "initial-admin-password";

export interface Backend {
  name: "sqlite" | "postgres";
  /** A new, empty database and how to remove it. */
  open: () => Promise<{ database: DatabaseConfig; remove: () => Promise<void> }>;
}

export const BACKENDS: readonly Backend[] = [
  {
    name: "sqlite",
    open: async () => {
      const dir = await mkdtemp(join(tmpdir(), "svc-api-test-"));
      return {
        database: { kind: "sqlite", path: join(dir, "svc.sqlite") },
        remove: () => rm(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: "postgres",
    open: async () => {
      const db = await testPostgresDatabase("api");
      return { database: { kind: "postgres", url: db.url }, remove: db.drop };
    },
  },
];

export function testConfig(
  database: DatabaseConfig,
  adminPassword: string | undefined = ADMIN_PASSWORD,
): ApiConfig {
  return {
    host: "127.0.0.1",
    port: 0,
    metricsHost: "127.0.0.1",
    metricsPort: 0,
    database,
    adminPassword,
    auditRetentionDays: 365,
    logLevel: "silent",
    trustProxy: false,
    clusterId: "local",
    systemNamespace: "svc-system",
    webhooks: DEFAULT_WEBHOOK_CONFIG,
    sso: undefined,
    passwordLogin: true,
    delivery: DEFAULT_DELIVERY_POLICY,
  };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
}

export interface CallOptions {
  token?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (with its own content type in `headers`). */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** One HTTP request to the server at `url` (node:http, so that even a GET may carry a body). */
export function callServer(
  url: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers["authorization"] = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    headers["content-type"] ??= "application/json";
    body = JSON.stringify(options.body);
  }
  if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = request(url + path, { method, headers, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) responseHeaders.set(name, [value].flat().join(", "));
        }
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, text, json });
      });
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** A test clock: real time plus an offset that a test moves forward. */
export class TestClock {
  offsetMs = 0;
  readonly now = (): number => Date.now() + this.offsetMs;
}

export class TestApi {
  readonly clock = new TestClock();
  server!: ApiServer;
  url = "";
  metricsUrl = "";
  readonly #config: ApiConfig;
  readonly #options: Omit<ApiServerOptions, "now">;
  /** The admin's session on this server, made once: each login costs a bcrypt verify (~0.25 s). */
  #adminToken: Promise<string> | undefined;

  private constructor(config: ApiConfig, options: Omit<ApiServerOptions, "now">) {
    this.#config = config;
    this.#options = options;
  }

  static async start(config: ApiConfig, options: Omit<ApiServerOptions, "now"> = {}): Promise<TestApi> {
    const api = new TestApi(config, options);
    await api.#boot();
    return api;
  }

  async #boot(): Promise<void> {
    this.#adminToken = undefined;
    this.server = await buildApiServer(this.#config, { ...this.#options, now: this.clock.now });
    const urls = await this.server.listen();
    this.url = urls.url;
    this.metricsUrl = urls.metricsUrl;
  }

  /** Stops the server and starts a new one on the same database (a new process, for sessions). */
  async restart(): Promise<void> {
    await this.server.close();
    await this.#boot();
  }

  async close(): Promise<void> {
    await this.server.close();
  }

  /** One HTTP request to this server (node:http, so that even a GET may carry a body). */
  call(method: string, path: string, options: CallOptions = {}): Promise<Reply> {
    return callServer(this.url, method, path, options);
  }

  async login(username: string, password: string): Promise<string> {
    const reply = await this.call("POST", "/api/v1/auth/login", { body: { username, password } });
    if (reply.status !== 200) throw new Error(`login of ${username} failed: ${reply.status} ${reply.text}`);
    return (reply.json as { token: string }).token;
  }

  /**
   * A session of the initial admin on this server, logged in once and reused (`fresh` logs in
   * again: a test may have ended the session). A failed login is not kept.
   */
  adminToken(fresh = false): Promise<string> {
    if (fresh || this.#adminToken === undefined) {
      const login = this.login("admin", ADMIN_PASSWORD);
      this.#adminToken = login;
      login.catch(() => {
        if (this.#adminToken === login) this.#adminToken = undefined;
      });
    }
    return this.#adminToken;
  }

  /** Creates a user through the API as `adminToken`. */
  async createUser(
    adminToken: string,
    username: string,
    role: string,
    password = `${username}-password`,
  ): Promise<void> {
    const reply = await this.call("POST", "/api/v1/users", {
      token: adminToken,
      body: { username, password, role },
    });
    if (reply.status !== 201) throw new Error(`creating ${username} failed: ${reply.status} ${reply.text}`);
  }
}

/**
 * A server of its own on a new database for one test: for tests that move the clock, restart the
 * server or need to know every user there is.
 */
export async function withOwnServer<T>(backend: Backend, work: (api: TestApi) => Promise<T>): Promise<T> {
  const db = await backend.open();
  const api = await TestApi.start(testConfig(db.database));
  try {
    return await work(api);
  } finally {
    await api.close();
    await db.remove();
  }
}

/**
 * One server for the tests of a describe block, started before them on a new database. Its clock
 * is never moved: tests that need that use withOwnServer. Each test makes the users and tokens it
 * uses (`userWithRole`), so that no test depends on another's.
 */
export function serverForSuite(backend: Backend): () => TestApi {
  let api: TestApi | undefined;
  let remove: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const db = await backend.open();
    remove = db.remove;
    api = await TestApi.start(testConfig(db.database));
  });
  afterAll(async () => {
    await api?.close();
    await remove?.();
  });
  return () => {
    if (api === undefined) throw new Error("the suite's API server has not started");
    return api;
  };
}

let userSerial = 0;

/** A new user with `role` and a session of theirs; password `${username}-password`. */
export async function userWithRole(
  api: TestApi,
  role: "admin" | "editor" | "viewer",
): Promise<{ username: string; password: string; token: string }> {
  userSerial += 1;
  const username = `${role}-${userSerial}`;
  const password = `${username}-password`;
  try {
    await api.createUser(await api.adminToken(), username, role, password);
  } catch (error) {
    // The reused admin session was ended by the test (a logout, a password change): once more.
    if (!(error instanceof Error && error.message.includes("failed: 401 "))) throw error;
    await api.createUser(await api.adminToken(true), username, role, password);
  }
  return { username, password, token: await api.login(username, password) };
}

// `svc api` and `svc reset-admin-password` as processes, on SQLite and on PostgreSQL.
import { randomBytes } from "node:crypto";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { once } from "node:events";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { DatabaseConfig } from "../src/config.ts";
import { ADMIN_PASSWORD, BACKENDS, TestApi, testConfig } from "./support/harness.ts";

const MAIN = resolve(import.meta.dirname, "../../cli/src/main.ts");
const SYSTEM_NAMESPACE = `cli-int-${randomBytes(3).toString("hex")}`;

function databaseEnv(database: DatabaseConfig): Record<string, string> {
  return database.kind === "sqlite"
    ? { SVC_DATABASE_PATH: database.path }
    : { SVC_DATABASE_URL: database.url };
}

/**
 * A `svc` command as an installation runs it: with its cluster (the shared test control plane;
 * without one, `svc api` waits its 30 s for the hub before it serves or refuses), and a system
 * namespace of its own, so that it sees no other file's ClusterConnections or FlagRollouts.
 */
function svc(args: string[], env: Record<string, string>): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [MAIN, ...args], {
    env: {
      PATH: process.env["PATH"] ?? "",
      KUBECONFIG: inject("kubeconfigPath"),
      SVC_NAMESPACE: SYSTEM_NAMESPACE,
      SVC_API_HOST: "127.0.0.1",
      SVC_API_PORT: "0",
      SVC_METRICS_PORT: "0",
      ...env,
    },
  });
}

/** Runs a command to its end (bounded); returns its exit code and output. */
async function run(args: string[], env: Record<string, string>, stdin?: string) {
  const child = svc(args, env);
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  child.stdin.end(stdin);
  const timeout = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timeout);
  return { code, out };
}

describe.each(BACKENDS)("svc commands on $name", (backend) => {
  let database: DatabaseConfig;
  let remove: () => Promise<void>;

  beforeAll(async () => {
    ({ database, remove } = await backend.open());
  });
  afterAll(async () => {
    await remove();
  });

  it("refuses to start with no user and no SVC_ADMIN_PASSWORD", async () => {
    const { code, out } = await run(["api"], databaseEnv(database));
    expect(code).toBe(1);
    expect(out).toContain("SVC_ADMIN_PASSWORD");
  });

  it("serves with JSON logs carrying request ids, and stops gracefully on SIGTERM", async () => {
    const child = svc(["api"], { ...databaseEnv(database), SVC_ADMIN_PASSWORD: ADMIN_PASSWORD });
    let logs = "";
    child.stderr.on("data", (d: Buffer) => (logs += d.toString()));
    const url = await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`no start within 60 s: ${logs}`));
      }, 60_000);
      child.stdout.on("data", (d: Buffer) => {
        logs += d.toString();
        const match = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(logs);
        if (match?.[1] !== undefined) {
          clearTimeout(timer);
          resolveUrl(match[1]);
        }
      });
    });
    const health = await fetch(`${url}/healthz`, { headers: { "x-request-id": "trace-me-42" } });
    expect(health.headers.get("x-request-id")).toBe("trace-me-42");
    const login = await fetch(`${url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password: ADMIN_PASSWORD }),
    });
    expect(login.status).toBe(200);
    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
    const lines = logs.trim().split("\n");
    for (const line of lines) {
      expect(() => {
        JSON.parse(line);
      }, line).not.toThrow();
    }
    expect(logs).toContain('"reqId":"trace-me-42"');
    expect(logs).not.toContain(ADMIN_PASSWORD);
    expect(logs).not.toContain(((await login.json()) as { token: string }).token);
  });

  it("resets the admin password: the old one and the admin's sessions stop working", async () => {
    const api = await TestApi.start(testConfig(database));
    try {
      const session = await api.login("admin", ADMIN_PASSWORD);
      const reset = await run(
        ["reset-admin-password", "--password-stdin"],
        databaseEnv(database),
        "a-brand-new-secret\n",
      );
      expect(reset).toMatchObject({ code: 0, out: "admin password reset\n" });
      expect((await api.call("GET", "/api/v1/auth/me", { token: session })).status).toBe(401);
      const old = await api.call("POST", "/api/v1/auth/login", {
        body: { username: "admin", password: ADMIN_PASSWORD },
      });
      expect(old.status).toBe(401);
      const token = await api.login("admin", "a-brand-new-secret");
      const events = (await api.call("GET", "/api/v1/audit?actor=svc%20reset-admin-password", { token }))
        .json;
      expect(events).toMatchObject([
        { action: "update", resourceName: "admin", details: { passwordChanged: true } },
      ]);
      // Without a given password, one is generated and printed.
      const generated = await run(["reset-admin-password"], databaseEnv(database));
      const password = /new password: (\S{16})\n/.exec(generated.out)?.[1] ?? "";
      await api.login("admin", password);
    } finally {
      await api.close();
    }
  });
});

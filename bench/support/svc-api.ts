// The real `svc api` command for the benchmarks: pinned to CPU 0 (the load runs on CPU 1), logs
// written where a container's would be (and not read), started and logged into.
import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";
import { freeLoopbackPort, waitFor } from "@svc/kube";

const ROOT = resolve(import.meta.dirname, "../..");
export const BENCH_ADMIN_PASSWORD = "bench-admin-password";

/** Starts `svc api` with `env` on top of the bench defaults; waits (bounded) for /healthz. */
export async function startSvcApi(
  env: Record<string, string>,
  logLevel = "info",
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freeLoopbackPort();
  const child = spawn(
    "taskset",
    ["-c", "0", process.execPath, join(ROOT, "packages/cli/src/main.ts"), "api"],
    {
      env: {
        ...process.env,
        ...env,
        SVC_API_HOST: "127.0.0.1",
        SVC_API_PORT: String(port),
        // Any free port unless the caller picks one (to scrape it).
        SVC_METRICS_PORT: env["SVC_METRICS_PORT"] ?? "0",
        SVC_ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD,
        SVC_LOG_LEVEL: logLevel,
      },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`svc api exited with ${child.exitCode}`);
        return fetch(`${url}/healthz`).then(
          (r) => r.status,
          () => 0,
        );
      },
      (status) => status === 200,
      { what: "svc api answering /healthz", timeoutMs: 120_000, intervalMs: 20 },
    );
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error("svc api did not start", { cause: error });
  }
  return { child, url };
}

/** A token of the admin user. */
export async function loginAdmin(url: string): Promise<string> {
  const reply = await fetch(`${url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: BENCH_ADMIN_PASSWORD }),
  });
  return ((await reply.json()) as { token: string }).token;
}

/** One request to the API as `token`; its JSON answer, or an error naming the status and body. */
export async function apiCall(
  url: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const reply = await fetch(url + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!reply.ok) throw new Error(`${method} ${path}: ${reply.status} ${await reply.text()}`);
  return reply.json();
}

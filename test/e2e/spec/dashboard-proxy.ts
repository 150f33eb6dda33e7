// SPEC.md's 502: the dashboard's web proxy answers it when it cannot reach the API server. svc
// dev's dashboard proxies its API; a second `svc dashboard` process is pointed at a loopback port
// where nothing listens (port 1), as a dashboard whose API server is down.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { expect } from "vitest";
import { callServer } from "../../../packages/api/test/support/harness.ts";
import { expectError, expectJson } from "./api.ts";

const main = join(import.meta.dirname, "../../../packages/cli/src/main.ts");

export async function walkDashboardProxy(dashboardUrl: string, token: string): Promise<void> {
  const me = await callServer(dashboardUrl, "GET", "/api/v1/auth/me", { token });
  expect(expectJson(me, 200)).toEqual({ username: "admin", role: "admin" });

  const child = spawn(process.execPath, [main, "dashboard"], {
    env: {
      ...process.env,
      SVC_API_URL: "http://127.0.0.1:1",
      SVC_DASHBOARD_PORT: "0",
      SVC_DASHBOARD_HOST: "127.0.0.1",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    let url = "";
    for await (const line of createInterface({ input: child.stdout })) {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === "svc dashboard listening") {
        url = entry.url ?? "";
        break;
      }
    }
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const method of ["GET", "POST"])
      expectError(await callServer(url, method, "/api/v1/flags", { token }), 502, /unreachable/);
  } finally {
    child.kill("SIGTERM");
    if (child.exitCode === null) await once(child, "exit");
  }
}

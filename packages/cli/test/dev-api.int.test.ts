// `svc dev`'s API server: it tells the admin password in force, which the banner prints.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { DEV_ADMIN_PASSWORD, startDevApi } from "../src/commands/api.ts";

let dir = "";
const env = { SVC_API_PORT: "0", SVC_METRICS_PORT: "0", SVC_LOG_LEVEL: "silent" };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-dev-api-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function logsIn(url: string, password: string): Promise<boolean> {
  const reply = await fetch(`${url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password }),
  });
  return reply.status === 200;
}

it("prints SVC_ADMIN_PASSWORD when it is set, and no password it cannot vouch for", async () => {
  const first = await startDevApi(dir, inject("kubeconfigPath"), {
    ...env,
    SVC_ADMIN_PASSWORD: "chosen-dev-password",
  });
  try {
    expect(first.adminPassword).toBe("chosen-dev-password");
    expect(await logsIn(first.url, "chosen-dev-password")).toBe(true);
  } finally {
    await first.close();
  }
  // The next run keeps the admin of the first: the default password is not the one in force.
  const second = await startDevApi(dir, inject("kubeconfigPath"), env);
  try {
    expect(second.adminPassword).toBeUndefined();
    expect(await logsIn(second.url, DEV_ADMIN_PASSWORD)).toBe(false);
  } finally {
    await second.close();
  }
});

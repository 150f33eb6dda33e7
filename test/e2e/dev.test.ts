// `make dev` runs `svc dev`: this starts it as a user would (on free ports), uses what its banner
// points at, and stops it with Ctrl-C.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, expect, it } from "vitest";

const repoRoot = join(import.meta.dirname, "../..");
let devDir = "";

afterAll(async () => {
  await rm(devDir, { recursive: true, force: true });
});

it("svc dev serves the API and the demo flag through the sidecar, and cleans up on Ctrl-C", async () => {
  devDir = await mkdtemp(join(tmpdir(), "svc-dev-test-"));
  const child = spawn(process.execPath, [join(repoRoot, "packages/cli/src/main.ts"), "dev"], {
    env: {
      ...process.env,
      SVC_DEV_DIR: devDir,
      SVC_API_PORT: "0",
      SVC_METRICS_PORT: "0",
      SVC_SIDECAR_PORT: "0",
      SVC_OPERATOR_METRICS_PORT: "0",
      SVC_DASHBOARD_PORT: "0",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const banner: string[] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    banner.push(line);
    if (line.includes("logs ")) break;
  }
  const field = (label: string): string => {
    const line = banner.find((l) => l.trimStart().startsWith(label));
    const match = /(https?:\/\/\S+|\/\S+)/.exec(line?.slice(line.indexOf(label) + label.length) ?? "");
    if (!match?.[1]) throw new Error(`no ${label} in the banner:\n${banner.join("\n")}`);
    return match[1];
  };
  const apiUrl = field("REST API");
  const dashboardUrl = field("dashboard");
  const sidecarFlags = field("sidecar (demo)");
  const kubeconfig = field("kubeconfig");

  expect((await fetch(`${apiUrl}/healthz`)).status).toBe(200);
  // The dashboard serves the app and passes /api to the same API server.
  const page = await fetch(dashboardUrl);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('<div id="root">');
  const login = await fetch(`${dashboardUrl}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: "admin-dev-password" }),
  });
  expect(login.status).toBe(200);
  const flags: unknown = await (await fetch(sidecarFlags)).json();
  expect(flags).toEqual([{ name: "new-checkout", type: "boolean", value: "true", disabled: false }]);
  expect(existsSync(kubeconfig)).toBe(true);

  // The banner's kubectl command works, and prints the CRD's columns.
  const tryLine = banner.find((l) => l.trimStart().startsWith("try")) ?? "";
  const [kubectl, ...kubectlArgs] = tryLine.trim().split(/\s+/).slice(1);
  const table = execFileSync(kubectl ?? "kubectl", kubectlArgs, { encoding: "utf8" });
  expect(table).toMatch(/^NAMESPACE\s+NAME\s+TYPE\s+VALUE\s+ENABLED\s+DELIVERY\s+PHASE\s+AGE/);
  expect(table).toMatch(/demo\s+new-checkout\s+boolean\s+true\s+true/);

  child.kill("SIGINT");
  await once(child, "exit");
  expect(existsSync(kubeconfig)).toBe(false);
});

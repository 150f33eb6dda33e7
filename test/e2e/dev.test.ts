// `make dev` runs `svc dev`: these start it as a user would (on free ports, without a terminal),
// use what its banner points at, and stop it with Ctrl-C.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiextensionsV1Api, AppsV1Api, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { startLocalControlPlane, type LocalControlPlane } from "@svc/localkube";
import { afterAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.ts";
import { startDev, stopDev } from "../support/dev-process.ts";
import { eventually } from "../support/kube.ts";
import { machineState, processesOfInGroup } from "../support/node-machine.ts";

function kubeConfigAt(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

async function login(apiUrl: string, password: string): Promise<string> {
  const reply = await fetch(`${apiUrl}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password }),
  });
  expect(reply.status).toBe(200);
  return ((await reply.json()) as { token: string }).token;
}

/** The `data:` payloads of a server-sent event stream until one satisfies `wanted`, or the deadline. */
async function streamUntil(
  url: string,
  wanted: (data: string) => boolean,
  timeoutMs: number,
): Promise<string[]> {
  const seen: string[] = [];
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const chunk = await reader?.read();
      if (chunk === undefined || chunk.done) return seen;
      buffer += chunk.value;
      for (const line of buffer.split("\n").slice(0, -1))
        if (line.startsWith("data:")) {
          seen.push(line.slice(5).trim());
          if (wanted(line.slice(5))) return seen;
        }
      buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
    }
  } catch {
    return seen;
  } finally {
    void reader?.cancel().catch(() => undefined);
  }
}

describe("svc dev on local control planes (CLUSTERS=2)", () => {
  it("delivers the demo flags, takes a new flag to a demo Deployment, the sidecar and the dashboard, and removes everything on Ctrl-C", async () => {
    const password = "chosen-by-env-1";
    const dev = await startDev({ SVC_DEV_CLUSTERS: "2", SVC_ADMIN_PASSWORD: password });
    try {
      // A terminal's Ctrl-C reaches svc dev's group only: none of its components is in it.
      expect(machineState(dev.devDir).processes).not.toEqual([]);
      expect(processesOfInGroup(dev.devDir, dev.child.pid ?? 0)).toEqual([]);
      // The banner prints the password in force (the environment's, not the development one).
      expect(dev.banner.find((l) => l.trimStart().startsWith("dashboard"))).toContain(`password ${password}`);
      const demo = dev.section("demo data");
      for (const cluster of ["local", "east"])
        for (const [flag, kind] of [
          ["new-checkout", "envVar"],
          ["welcome-message", "configMap"],
          ["sampling-rate", "sidecar"],
        ])
          // The phase, then the status message ("delivered to 1 workload").
          expect(demo).toContain(`${cluster}/${flag} (${kind}): Delivered  delivered to 1 workload`);

      const dashboardUrl = dev.field("dashboard");
      const apiUrl = dev.field("REST API");
      const sidecarFlags = dev.field("sidecar (demo)");
      const [hubKubeconfig, eastKubeconfig] = dev
        .section("clusters")
        .map((l) => /kubeconfig (\S+)\)/.exec(l)?.[1]);
      if (hubKubeconfig === undefined || eastKubeconfig === undefined)
        throw new Error(`no kubeconfigs in the banner:\n${dev.banner.join("\n")}`);

      // Logging in through the dashboard's /api with the printed password.
      const token = await login(dashboardUrl, password);
      const api = (path: string, init: RequestInit = {}) =>
        fetch(`${apiUrl}${path}`, {
          ...init,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        });

      // The second cluster is registered and Connected, with its own demo workloads delivered to.
      const clusters = (await (await api("/api/v1/clusters")).json()) as { id: string; status: string }[];
      expect(clusters.map((c) => [c.id, c.status]).sort()).toEqual([
        ["east", "Connected"],
        ["local", "Connected"],
      ]);
      const eastWeb = await kubeConfigAt(eastKubeconfig)
        .makeApiClient(AppsV1Api)
        .readNamespacedDeployment({ namespace: "demo", name: "web" });
      expect(eastWeb.spec?.template.spec?.containers[0]?.env).toContainEqual({
        name: "FLAG_NEW_CHECKOUT",
        value: "true",
      });

      // A flag created through the API reaches the demo Deployment and the demo sidecar's stream.
      const stream = streamUntil(`${sidecarFlags}/stream`, (data) => data.includes('"e2e-banner"'), 60_000);
      const created = await api("/api/v1/flags", {
        method: "POST",
        body: JSON.stringify({
          name: "e2e-banner",
          namespace: "demo",
          clusterId: "local",
          type: "string",
          defaultValue: "hello from the test",
          description: "created by the svc dev end-to-end test",
          delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
        }),
      });
      expect(created.status).toBe(201);
      expect(
        (await stream).some((data) => data.includes('"e2e-banner"') && data.includes("hello from the test")),
      ).toBe(true);
      const hubApps = kubeConfigAt(hubKubeconfig).makeApiClient(AppsV1Api);
      await eventually(
        async () =>
          (await hubApps.readNamespacedDeployment({ namespace: "demo", name: "web" })).spec?.template.spec,
        (spec) => spec?.containers[0]?.env?.some((e) => e.name === "FLAG_E2E_BANNER") === true,
        "FLAG_E2E_BANNER in Deployment web",
      );

      // The banner's kubectl command works against the hub.
      const [kubectl, ...kubectlArgs] = (dev.section("try")[0] ?? "").split(/\s+/).slice(1);
      const table = execFileSync(kubectl ?? "kubectl", kubectlArgs, { encoding: "utf8" });
      expect(table).toMatch(/demo\s+e2e-banner\s+string\s+hello from the test/);

      // The dashboard shows the new flag.
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        await page.goto(`${dashboardUrl}/login`);
        await page.getByLabel("Username").fill("admin");
        await page.getByLabel("Password").fill(password);
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.getByRole("link", { name: "e2e-banner" }).waitFor({ timeout: 30_000 });
      } finally {
        await browser.close();
      }
    } finally {
      const printedBefore = dev.printed().length;
      expect(await stopDev(dev)).not.toBeNull();
      // svc's processes stop before the clusters they talk to: none logs an error on the way
      // out (the operator used to fail to renew its Lease on a stopped control plane).
      const errors = dev
        .printed()
        .slice(printedBefore)
        .filter((line) => /"level":(50|60)/.test(line));
      expect(errors).toEqual([]);
    }
    // Everything of the run is gone after Ctrl-C to its process group: both control planes'
    // folders and the database, and every process that ran from them.
    expect(await readdir(dev.devDir)).toEqual([]);
    const left = machineState(dev.devDir);
    expect({ processes: left.processes, mounts: left.mounts }).toEqual({ processes: [], mounts: [] });
  });
});

describe("svc dev on the cluster of KUBECONFIG (SVC_DEV_KUBECONFIG=true)", () => {
  let controlPlane: LocalControlPlane | undefined;
  afterAll(async () => {
    await controlPlane?.stop();
  });

  it("uses that cluster, and on Ctrl-C removes only what it created there", async () => {
    controlPlane = await startLocalControlPlane();
    const kc = controlPlane.kubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: "keep-me" } } });
    const dev = await startDev({ SVC_DEV_KUBECONFIG: "true", KUBECONFIG: controlPlane.kubeconfigPath });
    try {
      expect(dev.field("kubeconfig")).toBe(controlPlane.kubeconfigPath);
      expect(dev.section("demo data")).toContain(
        "local/new-checkout (envVar): Delivered  delivered to 1 workload",
      );
      const web = await kc
        .makeApiClient(AppsV1Api)
        .readNamespacedDeployment({ namespace: "demo", name: "web" });
      expect(web.spec?.template.spec?.containers[0]?.env).toContainEqual({
        name: "FLAG_NEW_CHECKOUT",
        value: "true",
      });
    } finally {
      await stopDev(dev);
    }
    const namespaces = (await core.listNamespace()).items
      .filter((ns) => ns.status?.phase !== "Terminating")
      .map((ns) => ns.metadata?.name);
    expect(namespaces).toContain("keep-me");
    expect(namespaces).not.toContain("demo");
    expect(namespaces).not.toContain("svc-system");
    const crds = await kc.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
    expect(crds.items.map((crd) => crd.metadata?.name).filter((name) => name?.endsWith(".svc.io"))).toEqual(
      [],
    );
    // The cluster itself is left running.
    expect(existsSync(controlPlane.kubeconfigPath)).toBe(true);
  });
});

const repoRoot = join(import.meta.dirname, "../..");

it("says why it cannot start, without a stack trace, exits 1 and leaves its folder empty", async () => {
  const devDir = await mkdtemp(join(tmpdir(), "svc-dev-test-"));
  const child = spawn(process.execPath, [join(repoRoot, "packages/cli/src/main.ts"), "dev"], {
    env: {
      ...process.env,
      SVC_DEV_DIR: devDir,
      SVC_DEV_KUBECONFIG: "true",
      KUBECONFIG: join(devDir, "missing-kubeconfig"),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  expect(code).toBe(1);
  expect(stderr).toMatch(/^svc dev: cannot start: .*missing-kubeconfig/);
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(await readdir(devDir)).toEqual([]);
  await rm(devDir, { recursive: true });
});

it("refuses a bad setting with one line naming it and exit code 2", async () => {
  const child = spawn(process.execPath, [join(repoRoot, "packages/cli/src/main.ts"), "dev"], {
    env: { ...process.env, SVC_DEV_CLUSTERS: "3" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  expect(code).toBe(2);
  expect(stderr.trim().split("\n")).toEqual([
    expect.stringMatching(/^svc dev: .*SVC_DEV_CLUSTERS.*between 1 and 2.*"3"$/),
  ]);
});

// The dashboard as users get it, for browser tests: the built app served by the real dashboard
// server, in front of a real API server connected to the shared test control plane, driven in
// Debian's Chromium by playwright-core (never a downloaded browser).
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { buildApiServer, type ApiConfig, type ApiServer } from "@svc/api";
import { API_GROUP, API_VERSION, FEATURE_FLAG, type Role } from "@svc/core";
import { ClusterRegistry, installCrds } from "@svc/kube";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../../../../test/support/chromium.ts";
import { testKubeConfig, testNamespace } from "../../../../test/support/kube.ts";
import { testConfig } from "../../../api/test/support/harness.ts";
import { buildDashboardServer, type DashboardServer } from "../../src/index.ts";

export const SCREENSHOT_DIR = fileURLToPath(new URL("../../.screenshots", import.meta.url));

export const PASSWORDS: Readonly<Record<Role, string>> = {
  admin: "admin-password-1",
  editor: "editor-password-1",
  viewer: "viewer-password-1",
};

export interface StoredFlag {
  spec: {
    type: string;
    defaultValue: string;
    description?: string;
    enabled?: boolean;
    delivery: Record<string, unknown>;
  };
}

export interface PageOptions {
  theme?: "light" | "dark";
  width?: number;
  height?: number;
}

export interface DashboardHarness {
  /** The dashboard server (the browser's origin). */
  url: string;
  /** The API server, directly. */
  apiUrl: string;
  kubeConfig: KubeConfig;
  /** A namespace of the test control plane for this file's workloads and flags. */
  namespace: string;
  /** The id the control plane has in the API (the local cluster). */
  clusterId: string;
  passwords: Readonly<Record<Role, string>>;
  /** The FeatureFlag `name` of the file's namespace as the cluster has it (rejects when absent). */
  featureFlag: (name: string) => Promise<StoredFlag>;
  /** A fresh browser context (own storage) and page; `theme` emulates the system colour scheme. */
  newPage: (options?: PageOptions) => Promise<Page>;
  /** Signs in through the login form as the user of that role and waits for the app shell. */
  login: (page: Page, role: Role) => Promise<void>;
  /** Direct API calls as the user of a role, e.g. a change "made by someone else". */
  api: (role: Role) => { fetch: (path: string, init?: RequestInit) => Promise<Response> };
  /** Saves a PNG into packages/dashboard/.screenshots (git-ignored). */
  screenshot: (page: Page, name: string) => Promise<void>;
  /** Stops the API server (the dashboard server keeps running) and starts it again on its port. */
  stopApi: () => Promise<void>;
  startApi: () => Promise<void>;
  close: () => Promise<void>;
}

function apiConfig(dir: string, systemNamespace: string): ApiConfig {
  // Behind the dashboard's proxy, as deployed: the API takes the source address it forwards.
  return {
    ...testConfig({ kind: "sqlite", path: join(dir, "svc.sqlite") }, PASSWORDS.admin),
    trustProxy: true,
    systemNamespace,
  };
}

async function json(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status} ${text}`);
  return JSON.parse(text) as unknown;
}

export interface HarnessOptions {
  /** The dashboard's port, when the API must know its URL first (single sign-on's redirect URL). */
  dashboardPort?: number;
  /** Settings of the API server beyond the harness's own. */
  api?: Partial<ApiConfig>;
}

/** Starts everything for the calling test file; `close()` it in afterAll. */
export async function startDashboardHarness(
  prefix = "dash",
  options: HarnessOptions = {},
): Promise<DashboardHarness> {
  const kubeConfig = testKubeConfig();
  await installCrds(kubeConfig);
  const namespace = await testNamespace(kubeConfig, prefix);
  const systemNamespace = await testNamespace(kubeConfig, `${prefix}-svc`);
  const registry = await ClusterRegistry.start({
    hubKubeConfig: kubeConfig,
    systemNamespace,
    localClusterId: "local",
  });
  const dir = await mkdtemp(join(tmpdir(), "svc-dashboard-test-"));
  let config = { ...apiConfig(dir, systemNamespace), ...options.api };
  let api: ApiServer | undefined = await buildApiServer(config, { clusters: registry });
  const apiUrl = (await api.listen()).url;
  // Restarts reuse the port, so the dashboard's SVC_API_URL stays right.
  config = { ...config, port: Number(new URL(apiUrl).port) };

  const dashboard: DashboardServer = await buildDashboardServer({
    host: "127.0.0.1",
    port: options.dashboardPort ?? 0,
    apiUrl,
    apiTimeoutMs: 10_000,
    logLevel: "silent",
  });
  const { url } = await dashboard.listen();

  const tokens = new Map<Role, string>();
  const login = async (username: string, password: string) => {
    const body = (await json(
      await fetch(`${apiUrl}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username, password }),
      }),
    )) as { token: string };
    return body.token;
  };
  const tokenFor = async (role: Role): Promise<string> => {
    const known = tokens.get(role);
    if (known !== undefined) return known;
    const token = await login(role, PASSWORDS[role]);
    tokens.set(role, token);
    return token;
  };
  const adminToken = await tokenFor("admin");
  for (const role of ["editor", "viewer"] as const) {
    await json(
      await fetch(`${apiUrl}/api/v1/users`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
        body: JSON.stringify({ username: role, password: PASSWORDS[role], role }),
      }),
    );
  }

  const browser: Browser = await launchChromium();
  await mkdir(SCREENSHOT_DIR, { recursive: true });

  const harness: DashboardHarness = {
    url,
    apiUrl,
    kubeConfig,
    namespace,
    clusterId: "local",
    passwords: PASSWORDS,
    featureFlag: (name) =>
      kubeConfig.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        namespace,
        plural: FEATURE_FLAG.plural,
        name,
      }) as Promise<StoredFlag>,
    newPage: async (options = {}) => {
      const context = await browser.newContext({
        colorScheme: options.theme ?? "light",
        viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
        acceptDownloads: true,
      });
      return context.newPage();
    },
    login: async (page, role) => {
      await page.goto(`${url}/login`);
      await page.getByLabel("Username").fill(role);
      await page.getByLabel("Password").fill(PASSWORDS[role]);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("navigation", { name: "Main" }).waitFor();
    },
    api: (role) => ({
      fetch: async (path, init = {}) => {
        const headers = new Headers(init.headers);
        headers.set("authorization", `Bearer ${await tokenFor(role)}`);
        if (init.body !== undefined && !headers.has("content-type"))
          headers.set("content-type", "application/json");
        return fetch(`${apiUrl}${path}`, { ...init, headers });
      },
    }),
    screenshot: async (page, name) => {
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
    },
    stopApi: async () => {
      await api?.close();
      api = undefined;
      // Sessions live in the API server's memory: a restart ends them.
      tokens.clear();
    },
    startApi: async () => {
      if (api !== undefined) return;
      api = await buildApiServer(config, { clusters: registry });
      await api.listen();
    },
    close: async () => {
      await browser.close();
      await dashboard.close();
      await api?.close();
      await registry.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

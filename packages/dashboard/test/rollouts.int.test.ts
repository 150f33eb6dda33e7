// Rollouts in a real Chromium against the production build, the real API server and a real
// operator (in process, packages/operator/test/support/operator.ts), over two real clusters: the
// shared control plane ("local") and a second one started for this file ("edge", region=eu).
// The flags target no workload, so they deliver as NoTargets and every gate passes at once.
// An editor builds a two-wave plan in the form (first refused by the API, its message under the
// field it names), watches it advance on the timeline, aborts it while wave 1 bakes and sees it
// rolled back in both clusters; a flag deleted mid-plan fails a gate, whose reason the page shows
// as the operator wrote it; a viewer reads a scheduled plan and is offered nothing; a plan on a
// protected cluster ("vault") is not the author's to approve, and an admin's approval starts it;
// an editor's direct toggle there is refused, with a link to a new plan of the flag.
// Each test works on a flag of its own (checkout, banner, greeting, notice).
import { readFile } from "node:fs/promises";
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import {
  API_GROUP,
  API_GROUP_VERSION,
  CLUSTER_CONNECTION,
  localClusterConnection,
  OVERRIDE_REASON_HEADER,
  PROTECTED_CLUSTER_LABEL,
} from "@svc/core";
import { installCrds } from "@svc/kube";
import { startLocalControlPlane, type LocalControlPlane } from "@svc/localkube";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningOperator } from "../../operator/src/index.ts";
import { startOperator } from "../../operator/test/support/operator.ts";
import { startDashboardHarness, type DashboardHarness } from "./support/harness.ts";

const PREFIX = "dash-rollouts";

let h: DashboardHarness;
let edge: LocalControlPlane | undefined;
let edgeKc: KubeConfig;
let operator: RunningOperator | undefined;
let vaultNamespace = "";

/** The harness's system namespace (where the API registers clusters and keeps plans). */
async function systemNamespaceOf(kc: KubeConfig): Promise<string> {
  const { items } = await kc.makeApiClient(CoreV1Api).listNamespace();
  const names = items
    .filter((ns) => ns.status?.phase === "Active")
    .map((ns) => ns.metadata?.name ?? "")
    .filter((name) => name.startsWith(`${PREFIX}-svc-`));
  if (names.length !== 1)
    throw new Error(`expected one ${PREFIX}-svc-* namespace, found ${names.join(", ")}`);
  return names[0] ?? "";
}

/** A call to the API as the user of `role`; expects `status`, answers the JSON body. */
async function send(
  role: "admin" | "editor",
  method: "POST" | "DELETE",
  path: string,
  body?: unknown,
  status = 201,
  headers: Record<string, string> = {},
): Promise<{ name: string }> {
  const init = body === undefined ? { method, headers } : { method, headers, body: JSON.stringify(body) };
  const answer = await h.api(role).fetch(path, init);
  const text = await answer.text();
  expect(answer.status, text).toBe(status);
  return (text === "" ? {} : JSON.parse(text)) as { name: string };
}

/** The checkout flag's defaultValue in local and in edge, read from Kubernetes. */
const checkoutValues = () =>
  Promise.all(
    [h.kubeConfig, edgeKc].map(async (kc) => {
      const flag = (await kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
        ...{ group: API_GROUP, version: "v1alpha1", namespace: h.namespace },
        ...{ plural: "featureflags", name: "checkout" },
      })) as { spec: { defaultValue: string } };
      return flag.spec.defaultValue;
    }),
  );

/** Into packages/dashboard/.screenshots, as every browser test; docs/images holds copies. */
const shot = (page: Page, name: string) => h.screenshot(page, name);

beforeAll(async () => {
  [edge, h] = await Promise.all([startLocalControlPlane(), startDashboardHarness(PREFIX)]);
  edgeKc = edge.kubeConfig();
  const systemNamespace = await systemNamespaceOf(h.kubeConfig);
  // The operator's own view of the hub, confined to this file's namespace (as operatorScope does,
  // in the namespace the API server uses: the operator must see the clusters the API registers).
  const connection = localClusterConnection({
    id: "local",
    apiServer: h.kubeConfig.getCurrentCluster()?.server ?? "",
    systemNamespace,
  });
  await h.kubeConfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: API_GROUP,
    version: "v1alpha1",
    namespace: systemNamespace,
    plural: CLUSTER_CONNECTION.plural,
    body: {
      ...connection,
      apiVersion: API_GROUP_VERSION,
      spec: { ...connection.spec, namespaces: [h.namespace] },
    },
  });
  await edgeKc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: h.namespace } } });
  await installCrds(edgeKc);
  const edgeRegistration = {
    id: "edge",
    displayName: "Edge",
    apiServer: edge.server,
    authMethod: "kubeconfig",
    kubeconfig: await readFile(edge.kubeconfigPath, "utf8"),
    labels: { region: "eu" },
    namespaces: [h.namespace],
  };
  await send("admin", "POST", "/api/v1/clusters", edgeRegistration);
  // A protected cluster (plans touching it wait for a second user), on the edge control plane
  // but in a namespace of its own, so that no flag is seen by two clusters.
  vaultNamespace = `${h.namespace}-vault`;
  await edgeKc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: vaultNamespace } } });
  const vault = { id: "vault", displayName: "Vault", namespaces: [vaultNamespace] };
  const labels = { [PROTECTED_CLUSTER_LABEL]: "true" };
  await send("admin", "POST", "/api/v1/clusters", { ...edgeRegistration, ...vault, labels });
  for (const [name, clusterId, namespace = h.namespace] of [
    ["checkout", "local"],
    ["checkout", "edge"],
    ["banner", "edge"],
    ["greeting", "local"],
    ["notice", "vault", vaultNamespace],
  ])
    await send(
      "admin",
      "POST",
      "/api/v1/flags",
      {
        name,
        namespace,
        clusterId,
        type: "boolean",
        defaultValue: "false",
        delivery: { envVar: { selector: { matchLabels: { app: `no-${name}` } } } },
      },
      201,
      // A protected cluster takes a direct write only from an admin saying why.
      clusterId === "vault" ? { [OVERRIDE_REASON_HEADER]: "the test's flag of the protected cluster" } : {},
    );
  operator = await startOperator({ kc: h.kubeConfig, systemNamespace, namespaces: [h.namespace] });
}, 180_000);

afterAll(async () => {
  await operator?.close();
  await h.close();
  await edge?.stop();
});

/** A signed-in page recording console errors (a CSP violation is one) and uncaught errors. */
async function signedIn(role: "admin" | "editor" | "viewer"): Promise<{ page: Page; errors: string[] }> {
  const page = await h.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await h.login(page, role);
  return { page, errors };
}

const waveRegion = (page: Page, index: number, of: number) =>
  page.getByRole("region", { name: `Wave ${index} (${index + 1} of ${of})` });
const planStatus = (page: Page) => page.getByRole("group", { name: "Plan status" });

describe("rollouts", () => {
  it("an editor creates a two-wave plan, watches it advance, aborts it while wave 1 bakes, and sees it rolled back", async () => {
    const { page, errors } = await signedIn("editor");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Rollouts" }).click();
    await page.getByRole("heading", { name: "Rollouts" }).waitFor();
    await page.getByRole("link", { name: "New rollout" }).click();
    await page.getByRole("heading", { name: "New rollout" }).waitFor();

    await page.getByLabel("Flag namespace", { exact: true }).fill(h.namespace);
    await page.getByLabel("Flag name", { exact: true }).fill("checkout");
    await page.getByLabel("New value").fill("true");
    const wave0 = page.getByRole("group", { name: "Wave 0" });
    await wave0.getByRole("checkbox", { name: /^local/ }).check();
    await wave0.getByLabel("Wave 0 bake seconds").fill("3");
    await page.getByRole("button", { name: "Add wave" }).click();
    const wave1 = page.getByRole("group", { name: "Wave 1" });
    await wave1.getByLabel("Wave 1 clusters by").selectOption("selector");
    const labels = wave1.getByLabel("Wave 1 cluster labels");
    await labels.fill("region=nowhere");
    await wave1.getByLabel("Wave 1 bake seconds").fill("3600");
    await wave1.getByLabel("Wave 1 workloads first (%)").fill("50");

    // Refused by the API (only it knows the registered clusters): its message under the field.
    await page.getByRole("button", { name: "Create rollout" }).click();
    await expect.poll(() => labels.getAttribute("aria-invalid")).toBe("true");
    const problemId = ((await labels.getAttribute("aria-describedby")) ?? "").split(" ")[1] ?? "";
    expect(await page.locator(`[id="${problemId}"]`).textContent()).toBe(
      "waves.1.clusterSelector: matches no registered cluster",
    );
    await shot(page, "rollout-new-refused");

    await labels.fill("region=eu");
    await page.getByRole("button", { name: "Create rollout" }).click();
    await page.getByRole("heading", { name: /^Rollout checkout-[a-z0-9]{5}$/ }).waitFor();
    const name = (await page.getByRole("heading", { level: 1 }).textContent())?.replace("Rollout ", "") ?? "";

    // Wave 0 (local) passes its 3 s gate; wave 1 (edge, found by its label) is delivered and bakes.
    await waveRegion(page, 0, 2).getByText("Succeeded", { exact: true }).first().waitFor({ timeout: 60_000 });
    const baking = waveRegion(page, 1, 2);
    await baking.getByRole("timer").waitFor({ timeout: 60_000 });
    expect(await baking.getByRole("timer").textContent()).toMatch(/^(59 min \d+ s|1 h) left$/);
    expect(await baking.getByRole("row", { name: /edge/ }).textContent()).toContain("Baking");
    // Its flag targets no workload in edge: no canary to take first, so the wave has no step.
    expect(await baking.textContent()).toContain("bake 1 h; 50 % of each cluster's workloads first");
    expect(await planStatus(page).textContent()).toContain("Progressing");
    expect(await checkoutValues()).toEqual(["true", "true"]);
    const actions = page.getByRole("toolbar", { name: "Plan actions" });
    for (const label of ["Pause", "Skip bake", "Abort"])
      await actions.getByRole("button", { name: label }).waitFor();
    await shot(page, "rollout-timeline");

    await actions.getByRole("button", { name: "Abort" }).click();
    const dialog = page.getByRole("alertdialog", { name: `Abort rollout ${name}?` });
    expect(await dialog.textContent()).toContain("roll back every applied wave");
    await dialog.getByRole("button", { name: "Abort and roll back" }).click();
    await planStatus(page).getByText("Rolled back", { exact: true }).waitFor({ timeout: 60_000 });
    expect(await page.getByLabel("Operator's message").textContent()).toBe(
      "aborted by a user: rolling back every applied wave; every applied wave rolled back",
    );
    for (const index of [0, 1])
      await waveRegion(page, index, 2).getByText("Rolled back", { exact: true }).first().waitFor();
    expect(await checkoutValues()).toEqual(["false", "false"]);
    // Finished: no timer, and only Delete is offered.
    expect(await page.getByRole("timer").count()).toBe(0);
    expect(await actions.getByRole("button").allTextContents()).toEqual(["Delete"]);
    await shot(page, "rollout-rolled-back");

    await page.getByRole("link", { name: "All rollouts" }).click();
    const row = page.getByRole("row").filter({ hasText: name });
    await row.waitFor();
    await shot(page, "rollouts-list");
    expect(await row.textContent()).toMatch(new RegExp(`${h.namespace}/checkoutRolled back2 / 2editor`));
    await page.getByLabel("Phase").selectOption("Progressing");
    await page.getByText("No progressing rollouts").waitFor();
    await page.getByLabel("Phase").selectOption("RolledBack");
    await row.waitFor();
    expect(page.url()).toContain("phase=RolledBack");
    // The one error is the browser's report of the refused creation (400).
    expect(errors).toEqual([expect.stringContaining("status of 400")]);
    await page.close();
  });

  it("shows a failed gate's reason as the operator wrote it", async () => {
    const plan = await send("editor", "POST", "/api/v1/rollouts", {
      flag: { namespace: h.namespace, name: "banner" },
      change: { defaultValue: "true" },
      waves: [{ clusters: ["edge"], bakeSeconds: 3600 }],
    });
    const page = await h.newPage();
    await h.login(page, "editor");
    await page.goto(`${h.url}/rollouts/${plan.name}`);
    await waveRegion(page, 0, 1).getByRole("timer").waitFor({ timeout: 60_000 });
    // The flag goes from edge mid-plan: the gate fails on it.
    await send("admin", "DELETE", `/api/v1/flags/${h.namespace}/banner?clusterId=edge`, undefined, 200);
    const reason = "cluster edge: the flag was deleted during the plan";
    const message = page.getByLabel("Operator's message");
    await expect
      .poll(() => message.textContent(), { timeout: 60_000 })
      .toMatch(new RegExp(`^wave 0 failed its gate: ${reason}; `));
    await planStatus(page)
      .getByText(/^(Rolled back|Failed)$/)
      .waitFor({ timeout: 30_000 });
    const wave = waveRegion(page, 0, 1);
    expect(await wave.getByLabel("Wave 0 message").textContent()).toBe(reason);
    await shot(page, "rollout-gate-failed");
    await page.close();
  });

  it("a viewer reads plans and is offered no action", async () => {
    // A plan of its own, scheduled a day ahead: the operator holds it, nothing is changed.
    const startAt = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const plan = await send("editor", "POST", "/api/v1/rollouts", {
      flag: { namespace: h.namespace, name: "greeting" },
      change: { enabled: false },
      startAt,
      waves: [{ clusters: ["local"] }],
    });
    const page = await h.newPage();
    await h.login(page, "viewer");
    await page.goto(`${h.url}/rollouts`);
    await page.getByRole("table", { name: "Rollouts" }).waitFor();
    expect(await page.getByRole("link", { name: "New rollout" }).count()).toBe(0);
    await page.getByRole("row").filter({ hasText: plan.name }).getByRole("link", { name: plan.name }).click();
    await planStatus(page).getByText("Scheduled", { exact: true }).waitFor({ timeout: 30_000 });
    expect(await page.getByLabel("Operator's message").textContent()).toBe(`starts at ${startAt}`);
    expect(await page.getByRole("toolbar", { name: "Plan actions" }).count()).toBe(0);
    expect(await page.getByRole("button").allTextContents()).not.toContain("Abort");
    await page.goto(`${h.url}/rollouts/new`);
    await page.getByText("Your role (viewer) cannot create rollouts").waitFor();
    expect(await page.getByLabel("Flag name", { exact: true }).count()).toBe(0);
    await page.close();
    await send("editor", "POST", `/api/v1/rollouts/${plan.name}/abort`, undefined, 200);
  });

  it("a plan touching a protected cluster waits for a second user: never its author's Approve", async () => {
    const plan = await send("editor", "POST", "/api/v1/rollouts", {
      flag: { namespace: vaultNamespace, name: "notice" },
      change: { defaultValue: "true" },
      waves: [{ clusters: ["vault"], bakeSeconds: 0 }],
    });
    const author = await h.newPage();
    await h.login(author, "editor");
    await author.goto(`${h.url}/rollouts/${plan.name}`);
    await planStatus(author).getByText("Awaiting approval", { exact: true }).waitFor({ timeout: 30_000 });
    expect(await author.getByLabel("Operator's message").textContent()).toBe(
      "touches protected cluster vault: waiting for a second user's approval",
    );
    const authorActions = author.getByRole("toolbar", { name: "Plan actions" });
    expect(await authorActions.getByRole("button").allTextContents()).toEqual(["Reject", "Pause", "Abort"]);
    await author.close();

    const { page, errors } = await signedIn("admin");
    await page.goto(`${h.url}/rollouts/${plan.name}`);
    const actions = page.getByRole("toolbar", { name: "Plan actions" });
    await actions.getByRole("button", { name: "Approve" }).click();
    const dialog = page.getByRole("dialog", { name: `Approve rollout ${plan.name}?` });
    expect(await dialog.textContent()).toContain("protected clusters (vault)");
    await dialog.getByLabel("Comment").fill("checked with ops");
    await dialog.getByRole("button", { name: "Approve" }).click();
    await planStatus(page).getByText("Succeeded", { exact: true }).waitFor({ timeout: 60_000 });
    await page.getByText("by admin").waitFor();
    expect(await page.locator("dl").textContent()).toMatch(/Approvedby admin .*: checked with ops/);
    await shot(page, "rollout-approved");
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("a direct write on a protected cluster", () => {
  it("is refused to an editor, with a link to a new rollout plan of the flag", async () => {
    const { page } = await signedIn("editor");
    await page.goto(`${h.url}/flags/vault/${vaultNamespace}/notice`);
    const toggle = page.getByRole("switch", { name: "Enabled notice" });
    const before = await toggle.getAttribute("aria-checked");
    await toggle.click();
    const alert = page.getByRole("alert").filter({ hasText: "cluster vault is protected" });
    await alert.waitFor({ timeout: 30_000 });
    expect(await alert.textContent()).toContain(
      "Not allowed: cluster vault is protected: a direct toggle of flag",
    );
    await shot(page, "protected-toggle-refused");
    await alert.getByRole("link", { name: "Make this change as a rollout plan" }).click();
    await page.getByRole("heading", { name: "New rollout" }).waitFor();
    expect(await page.getByLabel("Flag namespace", { exact: true }).inputValue()).toBe(vaultNamespace);
    expect(await page.getByLabel("Flag name", { exact: true }).inputValue()).toBe("notice");
    await page.goto(`${h.url}/flags/vault/${vaultNamespace}/notice`);
    expect(await page.getByRole("switch", { name: "Enabled notice" }).getAttribute("aria-checked")).toBe(
      before,
    );
    await page.close();
  });
});

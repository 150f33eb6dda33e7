// Webhooks for flag changes that did not go through the API, against the real control plane:
// a FeatureFlag created, edited and deleted with the Kubernetes client reaches a real receiver
// on 127.0.0.1 as created/changed/deleted with the field manager as actor and the changed
// fields; a flag that existed when the API started, or when a cluster was connected, is no
// event; and a change made through the API, which the cache sees too, arrives once, with the
// API's actor.
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, FEATURE_FLAG } from "@svc/core";
import { installCrds } from "@svc/kube";
import { beforeAll, expect, inject, it, vi } from "vitest";
import { validFlagSpec } from "../../../test/support/flag-cases.ts";
import { testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import type { WebhookEvent } from "../src/webhooks/events.ts";
import { startClusterApi, type ClusterApi } from "./support/cluster-api.ts";
import { loopbackWebhookConfig, WebhookReceiver } from "./support/webhook-receiver.ts";

const GRACE_MS = 1000;
const flags = { group: API_GROUP, version: API_VERSION, plural: FEATURE_FLAG.plural };
const spec = { ...validFlagSpec, enabled: false };

let env: ClusterApi;
let receiver: WebhookReceiver;
let ns: string;
let custom: CustomObjectsApi;

/** The events of flag `name` in `cluster` that reached the receiver. */
const eventsOf = (name: string, cluster = "local"): WebhookEvent[] =>
  receiver.received
    .map((r) => JSON.parse(r.body) as WebhookEvent)
    .filter((e) => e.name === name && e.cluster === cluster);

async function arrived(name: string, type: string, cluster = "local"): Promise<WebhookEvent> {
  return vi.waitFor(
    () => {
      const event = eventsOf(name, cluster).find((e) => e.type === type);
      if (event === undefined) throw new Error(`no ${type} of ${name} yet`);
      return event;
    },
    { timeout: 15_000, interval: 100 },
  );
}

function createDirectly(name: string, fieldManager: string) {
  return custom.createNamespacedCustomObject({
    ...flags,
    namespace: ns,
    fieldManager,
    body: { apiVersion: API_GROUP_VERSION, kind: FEATURE_FLAG.kind, metadata: { name }, spec },
  });
}

beforeAll(async () => {
  const kc = testKubeConfig();
  await installCrds(kc);
  custom = kc.makeApiClient(CustomObjectsApi);
  ns = await testNamespace(kc, "webhooks-observed");
  receiver = await WebhookReceiver.start();
  // Before the API starts: its caches' first list finds it, which is no change.
  await createDirectly("preexisting", "kubectl-create");
  env = await startClusterApi("webhooks-observed", {
    webhooks: loopbackWebhookConfig(GRACE_MS, 500),
  });
  const reply = await env.api.call("POST", "/api/v1/webhooks", {
    token: env.tokens.admin,
    body: {
      name: "observed",
      url: receiver.url,
      events: ["flag.created", "flag.changed", "flag.deleted"],
      namespaces: [ns],
    },
  });
  expect(reply.status, reply.text).toBe(201);
  return async () => {
    await receiver.down();
  };
}, 120_000);

it("tells of a flag created, edited and deleted with the Kubernetes client, by its field managers", async () => {
  const created = (await createDirectly("direct", "argocd-controller")) as { metadata: { uid: string } };
  const uid = created.metadata.uid;
  expect(await arrived("direct", "flag.created")).toMatchObject({
    id: `flag.created/local/${uid}`,
    cluster: "local",
    namespace: ns,
    actor: "argocd-controller",
    details: { before: {}, after: { type: "boolean", defaultValue: "true", enabled: false } },
  });

  await custom.patchNamespacedCustomObject(
    {
      ...flags,
      namespace: ns,
      name: "direct",
      fieldManager: "kubectl-edit",
      body: { spec: { enabled: true } },
    },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  );
  expect(await arrived("direct", "flag.changed")).toMatchObject({
    id: `flag.changed/local/${uid}/2`,
    actor: "kubectl-edit",
    details: { before: { enabled: false }, after: { enabled: true } },
  });

  // A status write (the operator's) is no change of the flag.
  await custom.patchNamespacedCustomObjectStatus(
    {
      ...flags,
      namespace: ns,
      name: "direct",
      fieldManager: "svc-operator",
      body: { status: { observedGeneration: 2, phase: "Delivered", delivery: "envVar", targets: [] } },
    },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  );
  await custom.deleteNamespacedCustomObject({ ...flags, namespace: ns, name: "direct" });
  expect(await arrived("direct", "flag.deleted")).toMatchObject({
    id: `flag.deleted/local/${uid}`,
    actor: "",
    details: { before: { type: "boolean", enabled: true }, after: {} },
  });
  await sleep(300);
  expect(eventsOf("direct").map((e) => e.type)).toEqual(["flag.created", "flag.changed", "flag.deleted"]);
  expect(eventsOf("preexisting")).toEqual([]);
});

it("tells once of a change made through the API, which its cache sees too, with the API's actor", async () => {
  const admin = { token: env.tokens.admin };
  const create = await env.api.call("POST", "/api/v1/flags", {
    ...admin,
    body: { ...spec, name: "via-api", namespace: ns, clusterId: "local" },
  });
  expect(create.status, create.text).toBe(201);
  const toggle = await env.api.call("POST", `/api/v1/flags/${ns}/via-api/toggle?clusterId=local`, {
    ...admin,
    body: { enabled: true },
  });
  expect(toggle.status, toggle.text).toBe(200);
  // A change seen later than the API's own, so due later: once it is here, any second copy of
  // the API's events (enqueued from the cache after the grace period) would be too.
  await createDirectly("sentinel", "kubectl-create");
  await arrived("sentinel", "flag.created");
  await sleep(500);
  // Both may be sent in one batch, so in either order.
  const events = eventsOf("via-api").sort((a, b) => a.type.localeCompare(b.type));
  expect(events.map((e) => [e.type, e.actor])).toEqual([
    ["flag.changed", "admin"],
    ["flag.created", "admin"],
  ]);
  expect(events[0]?.id).toMatch(/^flag\.changed\/local\/[0-9a-f-]{36}\/2$/);
  expect(events[0]?.details).toEqual({ before: { enabled: false }, after: { enabled: true } });
  expect(receiver.distinctIds().size).toBe(receiver.received.length);
});

it("tells nothing of what a cluster connected while the API runs already held, then of its changes", async () => {
  // The shared control plane once more, as cluster "mirror" scanning this file's namespace only:
  // its caches' first list finds "preexisting" (and whatever the other tests left).
  const kubeconfig = await readFile(inject("kubeconfigPath"), "utf8");
  const reply = await env.api.call("POST", "/api/v1/clusters", {
    token: env.tokens.admin,
    body: {
      id: "mirror",
      displayName: "Mirror",
      apiServer: env.kc.getCurrentCluster()?.server ?? "",
      kubeconfig,
      namespaces: [ns],
    },
  });
  expect(reply.status, reply.text).toBe(201);
  await vi.waitFor(
    () => {
      expect(env.registry.get("mirror")?.health().state).toBe("ready");
    },
    { timeout: 30_000, interval: 100 },
  );
  await createDirectly("mirrored", "kubectl-create");
  expect(await arrived("mirrored", "flag.created", "mirror")).toMatchObject({ actor: "kubectl-create" });
  await sleep(300);
  const mirrorEvents = receiver.received
    .map((r) => JSON.parse(r.body) as WebhookEvent)
    .filter((e) => e.cluster === "mirror");
  expect(mirrorEvents.map((e) => e.name)).toEqual(["mirrored"]);
});

// Two API replicas on one PostgreSQL database and one control plane, each with its own caches
// and outbox worker, as two pods of the API: flag changes made through either replica or with the
// Kubernetes client directly (which both replicas see in their caches, and both enqueue after the
// grace period) reach a real receiver on 127.0.0.1 exactly once each, counted by svc-event-id.
import { setTimeout as sleep } from "node:timers/promises";
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, FEATURE_FLAG } from "@svc/core";
import { ClusterRegistry, installCrds } from "@svc/kube";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { validFlagSpec } from "../../../test/support/flag-cases.ts";
import { testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { testPostgresDatabase } from "../../../test/support/postgres.ts";
import { ADMIN_PASSWORD, TestApi, testConfig } from "./support/harness.ts";
import { loopbackWebhookConfig, WebhookReceiver } from "./support/webhook-receiver.ts";

const GRACE_MS = 300;
const FLAGS = 9;
const flags = { group: API_GROUP, version: API_VERSION, plural: FEATURE_FLAG.plural };

const apis: TestApi[] = [];
const registries: ClusterRegistry[] = [];
const tokens: string[] = [];
let receiver: WebhookReceiver;
let custom: CustomObjectsApi;
let ns: string;
let dropDatabase: () => Promise<void> = () => Promise.resolve();

beforeAll(async () => {
  const kc = testKubeConfig();
  await installCrds(kc);
  custom = kc.makeApiClient(CustomObjectsApi);
  const systemNamespace = await testNamespace(kc, "webhooks-replicas-svc");
  ns = await testNamespace(kc, "webhooks-replicas");
  const db = await testPostgresDatabase("replicas");
  dropDatabase = db.drop;
  receiver = await WebhookReceiver.start();
  const config = {
    ...testConfig({ kind: "postgres", url: db.url }),
    systemNamespace,
    webhooks: loopbackWebhookConfig(GRACE_MS),
  };
  for (let i = 0; i < 2; i++) {
    const registry = await ClusterRegistry.start({
      hubKubeConfig: kc,
      systemNamespace,
      localClusterId: "local",
    });
    registries.push(registry);
    const api = await TestApi.start(config, { clusters: registry });
    apis.push(api);
    // Sessions live in each replica's memory: a token per replica.
    tokens.push(await api.login("admin", ADMIN_PASSWORD));
  }
}, 120_000);

afterAll(async () => {
  for (const api of apis) await api.close();
  for (const registry of registries) await registry.close();
  await receiver.down();
  await dropDatabase();
});

/** A call through replica `i` that must succeed. */
async function through(i: number, method: string, path: string, body?: unknown) {
  const reply = await apis[i]?.call(method, path, { token: tokens[i] ?? "", body });
  expect(reply?.status, `${method} ${path} through replica ${i}: ${reply?.text}`).toBeLessThan(300);
  return reply?.json as Record<string, unknown>;
}

type Way = "a" | "b" | "kube";
const WAYS: readonly Way[] = ["a", "b", "kube"];
const replica = (way: Way) => (way === "a" ? 0 : 1);

async function create(name: string, way: Way) {
  if (way === "kube")
    await custom.createNamespacedCustomObject({
      ...flags,
      namespace: ns,
      fieldManager: "kubectl-create",
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FEATURE_FLAG.kind,
        metadata: { name },
        spec: { ...validFlagSpec, enabled: false },
      },
    });
  else
    await through(replica(way), "POST", "/api/v1/flags", {
      ...validFlagSpec,
      enabled: false,
      name,
      namespace: ns,
      clusterId: "local",
    });
}

async function enable(name: string, way: Way) {
  if (way === "kube")
    await custom.patchNamespacedCustomObject(
      { ...flags, namespace: ns, name, fieldManager: "kubectl-edit", body: { spec: { enabled: true } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
  else
    await through(replica(way), "POST", `/api/v1/flags/${ns}/${name}/toggle?clusterId=local`, {
      enabled: true,
    });
}

async function remove(name: string, way: Way) {
  if (way === "kube") await custom.deleteNamespacedCustomObject({ ...flags, namespace: ns, name });
  else await through(replica(way), "DELETE", `/api/v1/flags/${ns}/${name}?clusterId=local`);
}

it("sends each flag event once with two replicas, whichever replica or tool made the change", async () => {
  const hook = await through(0, "POST", "/api/v1/webhooks", {
    name: "both-replicas",
    url: receiver.url,
    events: ["flag.created", "flag.changed", "flag.deleted"],
    namespaces: [ns],
  });
  // Both replicas read the one database: the other one knows the webhook.
  expect(await through(1, "GET", `/api/v1/webhooks/${String(hook["id"])}`)).toMatchObject({
    name: "both-replicas",
  });
  const names = Array.from({ length: FLAGS }, (_, i) => `f${i}`);
  // Each flag is created one way, changed another, and a third of them deleted a third way.
  for (const [i, name] of names.entries()) await create(name, WAYS[i % 3] ?? "a");
  for (const [i, name] of names.entries()) await enable(name, WAYS[(i + 1) % 3] ?? "a");
  const deleted = names.slice(0, 3);
  for (const [i, name] of deleted.entries()) await remove(name, WAYS[(i + 2) % 3] ?? "a");
  const expected = FLAGS * 2 + deleted.length;

  await vi.waitFor(
    () => {
      expect(receiver.distinctIds().size).toBe(expected);
    },
    { timeout: 20_000, interval: 100 },
  );
  // Long enough for any second copy: every replica's sightings are due after the grace period,
  // and a second row would be claimed within a poll or two.
  await sleep(GRACE_MS + 1500);
  const perKey = new Map<string, number>();
  for (const { eventId } of receiver.received) perKey.set(eventId, (perKey.get(eventId) ?? 0) + 1);
  expect([...perKey.values()].filter((n) => n !== 1)).toEqual([]);
  expect(receiver.received.length).toBe(expected);
  const types = [...perKey.keys()].map((id) => id.split("/")[0]);
  expect(types.filter((t) => t === "flag.created").length).toBe(FLAGS);
  expect(types.filter((t) => t === "flag.changed").length).toBe(FLAGS);
  expect(types.filter((t) => t === "flag.deleted").length).toBe(deleted.length);
});

// Pausing a webhook (enabled: false), against the real control plane and real receivers on
// 127.0.0.1: a paused webhook gets nothing for the flag changes made meanwhile (not the API's
// event, not the caches' sighting), a resumed one gets the next change; what was pending when it
// was paused waits and is sent once it is resumed; the audit log records each switch.
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, expect, it, vi } from "vitest";
import { validFlagSpec } from "../../../test/support/flag-cases.ts";
import { testNamespace } from "../../../test/support/kube.ts";
import type { WebhookEvent } from "../src/webhooks/events.ts";
import { startClusterApi, type ClusterApi } from "./support/cluster-api.ts";
import { loopbackWebhookConfig, WebhookReceiver } from "./support/webhook-receiver.ts";

const GRACE_MS = 500;
let env: ClusterApi;
let ns: string;

const events = (receiver: WebhookReceiver) =>
  receiver.received.map((r) => JSON.parse(r.body) as WebhookEvent);

async function call(method: string, path: string, body?: unknown) {
  const reply = await env.api.call(method, path, { token: env.tokens.admin, body });
  expect(reply.status, `${method} ${path}: ${reply.text}`).toBeLessThan(300);
  return reply.json as Record<string, unknown>;
}

const hookBody = (name: string, receiver: WebhookReceiver) => ({
  name,
  url: receiver.url,
  events: ["flag.created", "flag.changed", "flag.deleted"],
  namespaces: [ns],
});

const createFlag = (name: string) =>
  call("POST", "/api/v1/flags", {
    ...validFlagSpec,
    enabled: false,
    name,
    namespace: ns,
    clusterId: "local",
  });
const toggle = (name: string, enabled: boolean) =>
  call("POST", `/api/v1/flags/${ns}/${name}/toggle?clusterId=local`, { enabled });

async function arrived(receiver: WebhookReceiver, name: string, type: string): Promise<WebhookEvent> {
  return vi.waitFor(
    () => {
      const event = events(receiver).find((e) => e.name === name && e.type === type);
      if (event === undefined) throw new Error(`no ${type} of ${name} yet`);
      return event;
    },
    { timeout: 15_000, interval: 100 },
  );
}

beforeAll(async () => {
  env = await startClusterApi("webhooks-pause", {
    webhooks: loopbackWebhookConfig(GRACE_MS),
  });
  ns = await testNamespace(env.kc, "webhooks-pause");
}, 120_000);

it("sends a paused webhook nothing for a flag change, and a resumed one the next change", async () => {
  const quiet = await WebhookReceiver.start();
  const witness = await WebhookReceiver.start();
  try {
    const hook = await call("POST", "/api/v1/webhooks", hookBody("maintenance", quiet));
    expect(hook["enabled"]).toBe(true);
    await call("POST", "/api/v1/webhooks", hookBody("witness", witness));
    const id = String(hook["id"]);
    expect(
      await call("PUT", `/api/v1/webhooks/${id}`, { ...hookBody("maintenance", quiet), enabled: false }),
    ).toMatchObject({ enabled: false });
    // A PUT without the field (a client from before it) keeps the webhook paused.
    expect(await call("PUT", `/api/v1/webhooks/${id}`, hookBody("maintenance window", quiet))).toMatchObject({
      enabled: false,
      name: "maintenance window",
    });
    expect(await call("GET", `/api/v1/webhooks/${id}`)).toMatchObject({ enabled: false });

    await createFlag("paused-flag");
    await toggle("paused-flag", true);
    await arrived(witness, "paused-flag", "flag.changed");
    // The caches' sighting of the same changes comes after the grace period: wait it out too.
    await sleep(GRACE_MS + 1000);
    expect(events(quiet)).toEqual([]);
    expect(await call("GET", `/api/v1/webhooks/${id}/deliveries`)).toEqual({ items: [] });

    await call("PUT", `/api/v1/webhooks/${id}`, { ...hookBody("maintenance window", quiet), enabled: true });
    await toggle("paused-flag", false);
    const resumed = await arrived(quiet, "paused-flag", "flag.changed");
    expect(resumed.details).toMatchObject({ before: { enabled: true }, after: { enabled: false } });
    await sleep(GRACE_MS + 500);
    // The changes made while paused are not sent afterwards: only the one made since.
    expect(events(quiet).map((e) => e.id)).toEqual([resumed.id]);

    const audit = (await env.api.call("GET", "/api/v1/audit?resource=webhook", { token: env.tokens.admin }))
      .json as { action: string; resourceName: string; details: Record<string, unknown> }[];
    const switches = audit
      .filter((e) => e.resourceName === id && e.action === "update")
      .map((e) => e.details)
      .reverse();
    expect(switches).toEqual([
      { before: { enabled: true }, after: { enabled: false } },
      { before: { name: "maintenance" }, after: { name: "maintenance window" } },
      { before: { enabled: false }, after: { enabled: true } },
    ]);
  } finally {
    await quiet.down();
    await witness.down();
  }
});

it("holds what was pending when the webhook was paused, and sends it once resumed", async () => {
  const receiver = await WebhookReceiver.start();
  try {
    const id = String((await call("POST", "/api/v1/webhooks", hookBody("held", receiver)))["id"]);
    await receiver.down();
    await createFlag("held-flag");
    // Pending, failing: the receiver is down.
    await vi.waitFor(
      async () => {
        const { items } = (await call("GET", `/api/v1/webhooks/${id}/deliveries`)) as {
          items: { state: string; attempts: number }[];
        };
        expect(items[0]).toMatchObject({ state: "pending" });
        expect(items[0]?.attempts).toBeGreaterThan(0);
      },
      { timeout: 15_000, interval: 100 },
    );
    await call("PUT", `/api/v1/webhooks/${id}`, { ...hookBody("held", receiver), enabled: false });
    await receiver.up();
    // Several retry intervals (at most 300 ms): none is attempted while paused.
    await sleep(1500);
    expect(receiver.received).toEqual([]);
    await call("PUT", `/api/v1/webhooks/${id}`, { ...hookBody("held", receiver), enabled: true });
    const event = await arrived(receiver, "held-flag", "flag.created");
    const { items } = (await call("GET", `/api/v1/webhooks/${id}/deliveries`)) as {
      items: { eventId: string; state: string }[];
    };
    expect(items).toMatchObject([{ eventId: event.id, state: "delivered" }]);
  } finally {
    await receiver.down();
  }
});

// The webhooks' pure parts: events and their ids, matching, bodies, signatures, retries, the
// SSRF address check, and their settings.
import { createHmac } from "node:crypto";
import type { ClusterConnectionResource, FeatureFlagResource } from "@svc/core";
import { describe, expect, it } from "vitest";
import { parseApiConfig } from "../src/config.ts";
import { addressRefusal, parseNetwork, resolveAllowed } from "../src/webhooks/address.ts";
import { eventsOfAudit, matches, statusEvents, type WebhookEvent } from "../src/webhooks/events.ts";
import {
  bodyOf,
  GIVE_UP_AFTER_MS,
  headersOf,
  retryAfterFailure,
  signatureOf,
} from "../src/webhooks/payload.ts";

/** The value, which the test just made sure exists. */
function defined<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("expected a value");
  return value;
}

const change = {
  timestamp: "2026-01-01T10:00:00.000Z",
  actor: "alice",
  action: "toggle",
  resource: "flag",
  resourceName: "checkout",
  namespace: "shop",
  cluster: "local",
  outcome: "success",
  details: { before: { enabled: false }, after: { enabled: true } },
};

/** The flag the audited write changed: generation 3 to 4. */
const written = [{ name: "checkout", uid: "u1", generation: 4, previousGeneration: 3 }];

describe("events", () => {
  const eventOfAudit = (audited: typeof change) => eventsOfAudit(audited, written)[0];

  it("come from successful flag writes only, typed by the audited action", () => {
    expect(eventsOfAudit(change, written)).toEqual([
      {
        id: "flag.changed/local/u1/4",
        type: "flag.changed",
        occurredAt: change.timestamp,
        cluster: "local",
        namespace: "shop",
        name: "checkout",
        actor: "alice",
        details: change.details,
      },
    ]);
    expect(eventOfAudit({ ...change, action: "create" })?.type).toBe("flag.created");
    expect(eventOfAudit({ ...change, action: "delete" })?.type).toBe("flag.deleted");
    expect(eventOfAudit({ ...change, outcome: "denied" })).toBeUndefined();
    expect(eventOfAudit({ ...change, resource: "user", action: "create" })).toBeUndefined();
  });

  const degraded = (generation: number, since: string): FeatureFlagResource =>
    ({
      metadata: { namespace: "shop", name: "checkout", uid: "u1", generation },
      spec: {},
      status: {
        phase: "Degraded",
        message: "1 of 1 targets cannot get the flag",
        conditions: [
          { type: "Ready", status: "False", reason: "Degraded", message: "", lastTransitionTime: since },
        ],
      },
    }) as unknown as FeatureFlagResource;
  const disconnected = (phase: string, since: string) =>
    ({
      metadata: { name: "eu", namespace: "svc-system", uid: "c1" },
      spec: {},
      status: {
        phase,
        message: "unreachable",
        conditions: [{ type: "Ready", status: "False", reason: "x", message: "", lastTransitionTime: since }],
      },
    }) as unknown as ClusterConnectionResource;

  it("from status: the same objects give the same ids on every replica, a new transition a new id", () => {
    const snapshot = [
      {
        id: "eu",
        connection: disconnected("Disconnected", "2026-01-01T10:00:00Z"),
        flags: [degraded(3, "2026-01-01T10:00:01Z")],
      },
    ];
    const first = statusEvents(snapshot);
    expect(first.map((e) => [e.type, e.id])).toEqual([
      ["delivery.failed", "delivery.failed/eu/u1/3/2026-01-01T10:00:01Z"],
      ["cluster.disconnected", "cluster.disconnected/eu/c1/2026-01-01T10:00:00Z"],
    ]);
    expect(statusEvents(structuredClone(snapshot))).toEqual(first);
    const later = statusEvents([{ ...defined(snapshot[0]), flags: [degraded(4, "2026-01-01T10:05:00Z")] }]);
    expect(later[0]?.id).not.toBe(first[0]?.id);
    const healthy = [{ id: "eu", connection: disconnected("Connected", "2026-01-01T10:00:00Z"), flags: [] }];
    expect(statusEvents(healthy)).toEqual([]);
  });

  const event: WebhookEvent = { ...defined(eventOfAudit(change)) };
  const subscription = {
    enabled: true,
    events: ["flag.changed" as const],
    clusters: [],
    namespaces: [],
    createdAt: "2026-01-01T09:00:00.000Z",
  };

  it("match a webhook by type, cluster and namespace, and only once it exists", () => {
    expect(matches(subscription, event)).toBe(true);
    expect(matches({ ...subscription, events: ["flag.deleted"] }, event)).toBe(false);
    expect(matches({ ...subscription, clusters: ["eu"] }, event)).toBe(false);
    expect(matches({ ...subscription, clusters: ["local"], namespaces: ["shop"] }, event)).toBe(true);
    expect(matches({ ...subscription, namespaces: ["other"] }, event)).toBe(false);
    const clusterEvent = { ...event, type: "cluster.disconnected" as const, namespace: "" };
    expect(
      matches({ ...subscription, events: ["cluster.disconnected"], namespaces: ["other"] }, clusterEvent),
    ).toBe(true);
    expect(matches({ ...subscription, createdAt: "2026-01-01T11:00:00.000Z" }, event)).toBe(false);
  });

  it("match no event made while the webhook was paused, even when seen once it is resumed", () => {
    // event.occurredAt is 10:00 (when a cache saw it, for a change made elsewhere).
    expect(matches({ ...subscription, resumedAt: "2026-01-01T10:30:00.000Z" }, event)).toBe(false);
    expect(matches({ ...subscription, resumedAt: "2026-01-01T09:30:00.000Z" }, event)).toBe(true);
    expect(matches({ ...subscription, resumedAt: null }, event)).toBe(true);
  });

  it("match no event while the webhook is paused, whatever it subscribes to", () => {
    expect(matches({ ...subscription, enabled: false }, event)).toBe(false);
    const clusterEvent = { ...event, type: "cluster.disconnected" as const, namespace: "" };
    expect(matches({ ...subscription, enabled: false, events: ["cluster.disconnected"] }, clusterEvent)).toBe(
      false,
    );
  });
});

describe("payload", () => {
  const event = { ...defined(eventsOfAudit(change, written)[0]), id: "e-1" };

  it("is the event as JSON, or Slack's {text}", () => {
    expect(JSON.parse(bodyOf(event, "json"))).toEqual(event);
    expect(JSON.parse(bodyOf(event, "slack"))).toEqual({
      text: "svc: flag shop/checkout in cluster local changed by alice",
    });
  });

  it("is signed as Stripe signs: HMAC-SHA256 of '<t>.<body>' with the secret", () => {
    const body = bodyOf(event, "json");
    const nowMs = 1_767_261_600_123;
    const expected = createHmac("sha256", "s3cret-s3cret-s3cret").update(`1767261600.${body}`).digest("hex");
    expect(signatureOf("s3cret-s3cret-s3cret", body, nowMs)).toBe(`t=1767261600,v1=${expected}`);
    const headers = headersOf(event, body, "s3cret-s3cret-s3cret", nowMs);
    expect(headers["svc-event-id"]).toBe("e-1");
    expect(headers["svc-event-type"]).toBe("flag.changed");
    expect(headers["svc-signature"]).toBe(`t=1767261600,v1=${expected}`);
    expect(signatureOf("another-secret-value", body, nowMs)).not.toBe(headers["svc-signature"]);
  });

  it("is retried with growing, capped delays, and given up after a day", () => {
    const delays = [1, 2, 3, 4, 5, 10].map((n) => {
      const decision = retryAfterFailure(n, 0, 1000, 8000, 0.5);
      return decision.retry ? decision.atMs - 1000 : -1;
    });
    expect(delays).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
    expect(retryAfterFailure(3, 0, GIVE_UP_AFTER_MS, 8000, 0.5)).toEqual({ retry: false });
  });
});

describe("SSRF address check", () => {
  const none: never[] = [];
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.9.9.9", "loopback"],
    ["::1", "loopback"],
    ["169.254.169.254", "link-local"],
    ["fe80::1", "link-local"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["fd00:ec2::254", "private"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["100.64.0.1", "shared"],
    ["224.0.0.1", "multicast"],
  ])("refuses %s (%s)", (ip, what) => {
    expect(addressRefusal(ip, none)).toContain(what);
  });

  it.each(["93.184.215.14", "1.1.1.1", "2606:4700:4700::1111", "172.32.0.1", "11.0.0.1"])(
    "lets %s through",
    (ip) => {
      expect(addressRefusal(ip, none)).toBeUndefined();
    },
  );

  it("lets the configured networks through, and only them", () => {
    const allowed = [defined(parseNetwork("127.0.0.1/32")), defined(parseNetwork("10.0.0.0/8"))];
    expect(addressRefusal("127.0.0.1", allowed)).toBeUndefined();
    expect(addressRefusal("10.200.0.1", allowed)).toBeUndefined();
    expect(addressRefusal("127.0.0.2", allowed)).toContain("loopback");
    expect(addressRefusal("169.254.169.254", allowed)).toContain("link-local");
    expect(parseNetwork("10.0.0.0/33")).toBeUndefined();
    expect(parseNetwork("nonsense")).toBeUndefined();
  });

  it("checks every address a name resolves to", async () => {
    const resolve = () =>
      Promise.resolve([
        { address: "93.184.215.14", family: 4 },
        { address: "10.0.0.1", family: 4 },
      ]);
    const result = await resolveAllowed("mixed.example", [], resolve);
    expect(result).toEqual({
      ok: false,
      error: expect.stringContaining("mixed.example resolves to 10.0.0.1") as unknown,
    });
    const publicOnly = () => Promise.resolve([{ address: "93.184.215.14", family: 4 }]);
    expect(await resolveAllowed("ok.example", [], publicOnly)).toEqual({
      ok: true,
      address: "93.184.215.14",
      family: 4,
    });
    expect(await resolveAllowed("[::1]", [])).toMatchObject({ ok: false });
  });
});

describe("settings", () => {
  it("read the allowed networks, timeout and retry bound, naming a bad variable", () => {
    const parsed = parseApiConfig({
      SVC_WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1/32, 10.0.0.0/8",
      SVC_WEBHOOK_TIMEOUT: "2s",
      SVC_WEBHOOK_RETRY_MAX_DELAY: "1m",
    });
    expect(parsed.ok && parsed.value.webhooks).toEqual({
      allowedNetworks: ["127.0.0.1/32", "10.0.0.0/8"],
      timeoutMs: 2000,
      retryMaxDelayMs: 60_000,
      pollIntervalMs: 1000,
      observedGraceMs: 5000,
    });
    const bad = parseApiConfig({ SVC_WEBHOOK_ALLOWED_NETWORKS: "10.0.0.0/8,not-a-cidr" });
    expect(bad.ok ? [] : bad.errors).toEqual([
      { field: "SVC_WEBHOOK_ALLOWED_NETWORKS", message: "not a CIDR: not-a-cidr" },
    ]);
  });
});

// The flag events' pure parts: ids every replica computes alike, the API's own writes' events
// (one per flag written, none for a change that changed nothing), and the events a change seen
// in a cluster's cache means (created, changed, deleted; nothing while the cache fills), with
// the field manager of the latest spec change as actor.
import type { FeatureFlagResource } from "@svc/core";
import { describe, expect, it } from "vitest";
import {
  eventsOfAudit,
  eventsOfObservedChange,
  flagEventId,
  latestSpecManager,
  type ObservedFlagChange,
} from "../src/webhooks/events.ts";

const SPEC_TOUCHED = { "f:spec": {} };

function flag(
  generation: number,
  enabled: boolean,
  managedFields: { manager: string; time: string; subresource?: string; fieldsV1?: object }[] = [],
  extra: Partial<FeatureFlagResource["metadata"]> = {},
): FeatureFlagResource {
  return {
    metadata: {
      namespace: "shop",
      name: "checkout",
      uid: "u1",
      generation,
      resourceVersion: String(100 + generation),
      managedFields: managedFields.map((entry) => ({ fieldsV1: SPEC_TOUCHED, ...entry })),
      ...extra,
    },
    spec: {
      type: "boolean",
      defaultValue: "false",
      enabled,
      delivery: { envVar: { selector: { matchLabels: { app: "shop" } } } },
    },
  } as unknown as FeatureFlagResource;
}

const AT = "2026-01-01T10:00:05.000Z";
const created = flag(1, false, [{ manager: "kubectl-create", time: "2026-01-01T10:00:00Z" }]);
const edited = flag(2, true, [
  { manager: "kubectl-create", time: "2026-01-01T10:00:00Z" },
  { manager: "kubectl-edit", time: "2026-01-01T10:00:04Z" },
]);

function seen(change: Partial<ObservedFlagChange>): ObservedFlagChange {
  return {
    cluster: "eu",
    synced: true,
    type: "upsert",
    object: edited,
    previous: created,
    at: AT,
    ...change,
  };
}

describe("flag event ids", () => {
  it("name the cluster and object, and for a change its generation", () => {
    expect(flagEventId("flag.created", "eu", "u1", 1)).toBe("flag.created/eu/u1");
    expect(flagEventId("flag.changed", "eu", "u1", 2)).toBe("flag.changed/eu/u1/2");
    expect(flagEventId("flag.deleted", "eu", "u1", 3)).toBe("flag.deleted/eu/u1");
  });
});

describe("the API's own flag writes", () => {
  const audited = {
    timestamp: AT,
    actor: "alice",
    action: "update",
    resource: "flag",
    resourceName: "checkout",
    namespace: "shop",
    cluster: "eu",
    outcome: "success",
    details: { before: { enabled: false }, after: { enabled: true } },
  };

  it("carry the id the cache's sighting of the same change has, and the audit's actor and details", () => {
    const [event] = eventsOfAudit(audited, [
      { name: "checkout", uid: "u1", generation: 2, previousGeneration: 1 },
    ]);
    const [sighting] = eventsOfObservedChange(seen({}));
    expect(event?.id).toBe("flag.changed/eu/u1/2");
    expect(event?.id).toBe(sighting?.id);
    expect(event).toMatchObject({ actor: "alice", details: audited.details });
    const createdByApi = eventsOfAudit({ ...audited, action: "create" }, [
      { name: "checkout", uid: "u1", generation: 1 },
    ]);
    expect(createdByApi[0]?.id).toBe(
      eventsOfObservedChange(seen({ object: created, previous: undefined }))[0]?.id,
    );
    const deletedByApi = eventsOfAudit({ ...audited, action: "delete" }, [
      { name: "checkout", uid: "u1", generation: 2 },
    ]);
    expect(deletedByApi[0]?.id).toBe(
      eventsOfObservedChange(seen({ type: "delete", previous: undefined }))[0]?.id,
    );
  });

  it("are none for a change that moved no generation (a toggle to the state it had)", () => {
    const same = [{ name: "checkout", uid: "u1", generation: 2, previousGeneration: 2 }];
    expect(eventsOfAudit({ ...audited, action: "toggle" }, same)).toEqual([]);
    expect(eventsOfAudit({ ...audited, action: "delete" }, same)).toHaveLength(1);
  });

  it("are one per flag an import created, each with its own definition", () => {
    const events = eventsOfAudit(
      { ...audited, action: "create", resourceName: "a,b", details: { imported: ["a", "b"] } },
      [
        { name: "a", uid: "ua", generation: 1, details: { before: {}, after: { type: "boolean" } } },
        { name: "b", uid: "ub", generation: 1, details: { before: {}, after: { type: "string" } } },
      ],
    );
    expect(events.map((e) => [e.id, e.name, e.details])).toEqual([
      ["flag.created/eu/ua", "a", { before: {}, after: { type: "boolean" } }],
      ["flag.created/eu/ub", "b", { before: {}, after: { type: "string" } }],
    ]);
  });
});

describe("flag changes seen in a cache", () => {
  it("a new object is created, by the manager that wrote its spec, with its whole definition", () => {
    expect(eventsOfObservedChange(seen({ object: created, previous: undefined }))).toEqual([
      {
        id: "flag.created/eu/u1",
        type: "flag.created",
        occurredAt: AT,
        cluster: "eu",
        namespace: "shop",
        name: "checkout",
        actor: "kubectl-create",
        details: {
          before: {},
          after: {
            type: "boolean",
            defaultValue: "false",
            enabled: false,
            delivery: { envVar: { selector: { matchLabels: { app: "shop" } } } },
          },
        },
      },
    ]);
  });

  it("a moved generation is a change: before/after of the changed fields, by the latest spec writer", () => {
    expect(eventsOfObservedChange(seen({}))).toEqual([
      expect.objectContaining({
        id: "flag.changed/eu/u1/2",
        type: "flag.changed",
        actor: "kubectl-edit",
        details: { before: { enabled: false }, after: { enabled: true } },
      }),
    ]);
  });

  it("a status, label or finalizer write (same generation) is none", () => {
    const statusWrite = { ...edited, metadata: { ...edited.metadata, resourceVersion: "999" } };
    expect(eventsOfObservedChange(seen({ object: statusWrite, previous: edited }))).toEqual([]);
  });

  it("a deletion is seen once it begins (finalizers) or the object goes, with the same id", () => {
    const deleting = flag(3, true, [], { deletionTimestamp: "2026-01-01T10:00:06Z" });
    const [begun] = eventsOfObservedChange(seen({ object: deleting, previous: edited }));
    const [gone] = eventsOfObservedChange(seen({ type: "delete", object: deleting, previous: undefined }));
    expect(begun).toMatchObject({
      id: "flag.deleted/eu/u1",
      type: "flag.deleted",
      actor: "",
      details: { after: {} },
    });
    expect(gone?.id).toBe(begun?.id);
    const finalizerWrite = flag(3, true, [], {
      deletionTimestamp: "2026-01-01T10:00:06Z",
      resourceVersion: "1000",
    });
    expect(eventsOfObservedChange(seen({ object: finalizerWrite, previous: deleting }))).toEqual([]);
  });

  it("a name reused by another object (one relist saw both) is the old one deleted and a new one created", () => {
    const other = flag(1, false, [{ manager: "argocd-controller", time: "2026-01-01T10:00:03Z" }], {
      uid: "u2",
    });
    expect(
      eventsOfObservedChange(seen({ object: other, previous: edited })).map((e) => [e.id, e.actor]),
    ).toEqual([
      ["flag.deleted/eu/u1", ""],
      ["flag.created/eu/u2", "argocd-controller"],
    ]);
  });

  it("nothing is a change before the cluster's caches first synced (the first list, a restart)", () => {
    for (const change of [
      seen({ synced: false, previous: undefined }),
      seen({ synced: false }),
      seen({ synced: false, type: "delete" }),
    ])
      expect(eventsOfObservedChange(change)).toEqual([]);
  });
});

describe("the latest spec writer", () => {
  it("is the manager of the newest entry that owns spec fields", () => {
    expect(latestSpecManager(edited.metadata.managedFields)).toBe("kubectl-edit");
    const withStatus = [
      ...(edited.metadata.managedFields ?? []),
      {
        manager: "svc-operator",
        time: "2026-01-01T10:00:09Z",
        subresource: "status",
        fieldsV1: { "f:status": {} },
      },
      { manager: "svc-operator", time: "2026-01-01T10:00:09Z", fieldsV1: { "f:metadata": {} } },
    ];
    expect(latestSpecManager(withStatus)).toBe("kubectl-edit");
  });

  it("is unknown without entries, or when two managers share the newest second", () => {
    expect(latestSpecManager(undefined)).toBe("");
    expect(latestSpecManager([])).toBe("");
    const tie = [
      { manager: "argocd-controller", time: "2026-01-01T10:00:04Z", fieldsV1: SPEC_TOUCHED },
      { manager: "kubectl-edit", time: "2026-01-01T10:00:04Z", fieldsV1: SPEC_TOUCHED },
    ];
    expect(latestSpecManager(tie)).toBe("");
    expect(
      latestSpecManager([...tie, { manager: "flux", time: "2026-01-01T10:00:05Z", fieldsV1: SPEC_TOUCHED }]),
    ).toBe("flux");
  });
});

import { describe, expect, it } from "vitest";
import { ObjectStore, type CacheEvent } from "../src/registry/informer-cache.ts";

interface Obj {
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    deletionTimestamp?: string;
  };
  value?: string;
}

function obj(namespace: string, name: string, resourceVersion: string, value = ""): Obj {
  return { metadata: { namespace, name, resourceVersion }, value };
}

function store() {
  const errors: unknown[] = [];
  const cache = new ObjectStore<Obj>((e) => errors.push(e));
  const events: string[] = [];
  cache.onEvent((e: CacheEvent<Obj>) =>
    events.push(`${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion ?? ""}`),
  );
  return { cache, events, errors };
}

describe("ObjectStore", () => {
  it("lists by namespace then name, whatever the order of arrival", () => {
    const { cache } = store();
    for (const [ns, name] of [
      ["b", "x"],
      ["a", "z"],
      ["a", "b"],
      ["", "cluster-scoped"],
    ] as const)
      cache.upsert(obj(ns, name, "1"));
    expect(cache.list().map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual([
      "/cluster-scoped",
      "a/b",
      "a/z",
      "b/x",
    ]);
    expect(cache.list("a").map((o) => o.metadata.name)).toEqual(["b", "z"]);
    expect(cache.list("none")).toEqual([]);
    expect(cache.get("", "cluster-scoped")?.metadata.name).toBe("cluster-scoped");
  });

  it("keeps the newer object when an older version arrives later (numeric resourceVersions)", () => {
    const { cache, events } = store();
    cache.upsert(obj("ns", "f", "10", "written"));
    cache.upsert(obj("ns", "f", "9", "stale watch event"));
    expect(cache.get("ns", "f")?.value).toBe("written");
    cache.upsert(obj("ns", "f", "10", "same version again"));
    expect(events).toEqual(["upsert f@10"]);
    cache.upsert(obj("ns", "f", "100", "newer"));
    expect(cache.get("ns", "f")?.value).toBe("newer");
  });

  it("tells a listener which object an upsert replaced (none for a new one)", () => {
    const cache = new ObjectStore<Obj>(() => undefined);
    const seen: [string | undefined, string | undefined][] = [];
    cache.onEvent((e) => seen.push([e.previous?.value, e.object.value]));
    cache.upsert(obj("ns", "f", "1", "first"));
    cache.upsert(obj("ns", "f", "2", "second"));
    cache.upsert(obj("ns", "f", "1", "stale: no event"));
    cache.replace([obj("ns", "f", "3", "relisted")], () => true);
    expect(seen).toEqual([
      [undefined, "first"],
      ["first", "second"],
      ["second", "relisted"],
    ]);
  });

  it("lets a non-numeric resourceVersion replace (the newest arrival wins)", () => {
    const { cache } = store();
    cache.upsert(obj("ns", "f", "10", "a"));
    cache.upsert(obj("ns", "f", "opaque", "b"));
    expect(cache.get("ns", "f")?.value).toBe("b");
  });

  it("ignores stale watch events for an object its writer removed, until a newer version shows up", () => {
    const { cache, events } = store();
    cache.upsert(obj("ns", "f", "5"));
    cache.remove("ns", "f");
    cache.upsert(obj("ns", "f", "5", "late event of the deleted object"));
    expect(cache.get("ns", "f")).toBeUndefined();
    cache.applyDeleted(obj("ns", "f", "6"));
    cache.upsert(obj("ns", "f", "7", "created again"));
    expect(cache.get("ns", "f")?.value).toBe("created again");
    expect(events).toEqual(["upsert f@5", "delete f@5", "upsert f@7"]);
  });

  it("never brings back a flag its writer deleted: replays of its later events, as the API saw them", () => {
    // The sequence a FeatureFlag with the operator's finalizer goes through: updated, toggled,
    // deleted (the delete answers the object with deletionTimestamp), then the watch replays the
    // toggle, the deletion and the finalizer's status write (newer than the delete), and at last
    // DELETED; a toggle's write-through that raced the delete arrives after that.
    const { cache } = store();
    const incarnation = (resourceVersion: string, extra: Partial<Obj["metadata"]> = {}): Obj => ({
      metadata: { namespace: "ns", name: "f", resourceVersion, uid: "uid-1", ...extra },
    });
    cache.upsert(incarnation("10"));
    cache.remove("ns", "f", incarnation("12", { deletionTimestamp: "2026-11-25T08:00:00Z" }));
    cache.upsert(incarnation("11"));
    cache.upsert(incarnation("12", { deletionTimestamp: "2026-11-25T08:00:00Z" }));
    cache.upsert(incarnation("13", { deletionTimestamp: "2026-11-25T08:00:00Z" }));
    expect(cache.get("ns", "f")).toBeUndefined();
    cache.replace([incarnation("13", { deletionTimestamp: "2026-11-25T08:00:00Z" })], () => true);
    expect(cache.get("ns", "f")).toBeUndefined();
    cache.applyDeleted(incarnation("14"));
    cache.upsert(incarnation("11"));
    expect(cache.get("ns", "f")).toBeUndefined();
    cache.upsert({ metadata: { namespace: "ns", name: "f", resourceVersion: "15", uid: "uid-2" } });
    expect(cache.get("ns", "f")?.metadata.uid).toBe("uid-2");
  });

  it("without uids, ignores the deleted object's events while it is being deleted", () => {
    const { cache } = store();
    cache.upsert(obj("ns", "f", "5"));
    cache.remove("ns", "f");
    cache.upsert({ metadata: { namespace: "ns", name: "f", resourceVersion: "6", deletionTimestamp: "t" } });
    expect(cache.get("ns", "f")).toBeUndefined();
  });

  it("forgets the oldest deletions past its bound", () => {
    const { cache } = store();
    for (let i = 0; i <= 4096; i++) cache.remove("ns", `f${i}`, obj("ns", `f${i}`, "5"));
    cache.upsert(obj("ns", "f0", "5", "remembered no longer"));
    cache.upsert(obj("ns", "f1", "5", "still remembered"));
    expect(cache.get("ns", "f0")?.value).toBe("remembered no longer");
    expect(cache.get("ns", "f1")).toBeUndefined();
  });

  it("does not let a DELETED event of an older incarnation remove a newer object", () => {
    const { cache } = store();
    cache.upsert(obj("ns", "f", "20", "re-created and written through"));
    cache.applyDeleted(obj("ns", "f", "15"));
    expect(cache.get("ns", "f")?.value).toBe("re-created and written through");
  });

  it("replaces only within the relisted scope, deleting what the list lacks", () => {
    const { cache, events } = store();
    cache.upsert(obj("a", "kept", "1"));
    cache.upsert(obj("a", "gone", "1"));
    cache.upsert(obj("b", "other-scope", "1"));
    cache.replace([obj("a", "kept", "2"), obj("a", "new", "3")], (ns) => ns === "a");
    expect(
      cache
        .list()
        .map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion ?? ""}`),
    ).toEqual(["a/kept@2", "a/new@3", "b/other-scope@1"]);
    expect(events.slice(3)).toEqual(["delete gone@1", "upsert kept@2", "upsert new@3"]);
  });

  it("hands out a fresh snapshot after a change and the same one otherwise", () => {
    const { cache } = store();
    cache.upsert(obj("a", "x", "1"));
    const first = cache.list("a");
    expect(cache.list("a")).toBe(first);
    cache.upsert(obj("a", "y", "2"));
    expect(cache.list("a")).not.toBe(first);
    expect(first).toHaveLength(1);
  });

  it("hands out the same empty list for a namespace without objects, and one nobody can fill", () => {
    const { cache } = store();
    const none = cache.list("a");
    expect(cache.list("a")).toBe(none);
    cache.upsert(obj("a", "x", "1"));
    cache.remove("a", "x");
    expect(cache.list("a")).toBe(none);
    expect(Object.isFrozen(none)).toBe(true);
  });

  it("reports a failing listener and still tells the others", () => {
    const { cache, errors } = store();
    const seen: string[] = [];
    cache.onEvent(() => {
      throw new Error("listener bug");
    });
    const stop = cache.onEvent((e) => seen.push(e.object.metadata.name));
    cache.upsert(obj("a", "x", "1"));
    stop();
    cache.upsert(obj("a", "y", "1"));
    expect(seen).toEqual(["x"]);
    expect(errors).toHaveLength(2);
  });
});

// Paged, filtered lists (limit + continue, as Kubernetes pages) and their ETags: flags and
// workloads from a real kube-apiserver's caches, the audit log on SQLite and PostgreSQL.
import { AppsV1Api } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { eventually, testNamespace } from "../../../test/support/kube.ts";
import { AuditRepo, insertAuditEvent } from "../src/audit/store.ts";
import type { NewAuditEvent } from "../src/audit/event.ts";
import { openStore } from "../src/store/db.ts";
import { startClusterApi, type ClusterApi } from "./support/cluster-api.ts";
import { ADMIN_PASSWORD, BACKENDS, serverForSuite } from "./support/harness.ts";

interface Named {
  name: string;
}
interface ListPage<T = Named> {
  items: T[];
  metadata: { continue?: string; remainingItemCount: number };
}

const DELIVERIES = [
  { envVar: { selector: { matchLabels: { app: "shop" } } } },
  { sidecar: { selector: { matchLabels: { app: "shop" } } } },
] as const;

describe("paged flag and workload lists", () => {
  let env: ClusterApi;
  let ns: string;
  let otherNs: string;
  const get = (path: string, headers: Record<string, string> = {}) =>
    env.api.call("GET", path, { token: env.tokens.viewer, headers });
  const flagsPath = (query: string) => `/api/v1/flags?clusterId=local&namespace=${ns}${query}`;

  async function createFlag(namespace: string, name: string, delivery: (typeof DELIVERIES)[number]) {
    const body = { name, namespace, clusterId: "local", type: "boolean", defaultValue: "true", delivery };
    const reply = await env.api.call("POST", "/api/v1/flags", { token: env.tokens.admin, body });
    expect(reply.status, reply.text).toBe(201);
  }
  const flagNames = async (query = "") => ((await get(flagsPath(query))).json as Named[]).map((f) => f.name);
  const cached = (names: string[]) =>
    eventually(
      flagNames,
      (listed) => names.every((n) => listed.includes(n)),
      `flags ${names.join(", ")}`,
      10_000,
    );

  beforeAll(async () => {
    env = await startClusterApi("paged");
    ns = await testNamespace(env.kc, "paged");
    otherNs = await testNamespace(env.kc, "paged-other");
    // 12 flags, f-00 … f-11, envVar and sidecar alternately.
    const names = Array.from({ length: 12 }, (_, i) => `f-${String(i).padStart(2, "0")}`);
    for (const [i, name] of names.entries()) await createFlag(ns, name, DELIVERIES[i % 2] ?? DELIVERIES[0]);
    await createFlag(otherNs, "f-00", DELIVERIES[0]);
    await cached(names);
  });

  it("walks the flags a page at a time while flags come and go, never repeating or losing one", async () => {
    const first = (await get(flagsPath("&limit=5"))).json as ListPage;
    expect(first.items.map((f) => f.name)).toEqual(["f-00", "f-01", "f-02", "f-03", "f-04"]);
    expect(first.metadata.remainingItemCount).toBe(7);
    // Underneath: one flag the walk has passed goes, one it has not reached goes, two come.
    await env.api.call("DELETE", `/api/v1/flags/${ns}/f-01?clusterId=local`, { token: env.tokens.admin });
    await env.api.call("DELETE", `/api/v1/flags/${ns}/f-07?clusterId=local`, { token: env.tokens.admin });
    await createFlag(ns, "f-00a", DELIVERIES[0]);
    await createFlag(ns, "f-09a", DELIVERIES[0]);
    await eventually(
      flagNames,
      (listed) => listed.includes("f-09a") && listed.includes("f-00a") && !listed.includes("f-07"),
      "the changes in the cache",
      10_000,
    );
    const walked = first.items.map((f) => f.name);
    let token = first.metadata.continue;
    while (token !== undefined) {
      const reply = await get(flagsPath(`&limit=5&continue=${token}`));
      expect(reply.status, reply.text).toBe(200);
      const page = reply.json as ListPage;
      walked.push(...page.items.map((f) => f.name));
      token = page.metadata.continue;
      if (token === undefined) expect(page.metadata.remainingItemCount).toBe(0);
    }
    // f-00a sorts before the position the walk had reached, so it is not listed; f-09a is.
    expect(walked).toEqual([
      "f-00",
      "f-01",
      "f-02",
      "f-03",
      "f-04",
      "f-05",
      "f-06",
      "f-08",
      "f-09",
      "f-09a",
      "f-10",
      "f-11",
    ]);
    expect(await flagNames()).toContain("f-00a");
  });

  it("filters by name prefix, delivery kind and phase, as an array without limit and paged with it", async () => {
    expect(await flagNames("&namePrefix=f-1")).toEqual(["f-10", "f-11"]);
    const sidecars = await flagNames("&delivery=sidecar&namePrefix=f-0");
    expect(sidecars.length).toBeGreaterThan(0);
    for (const name of sidecars) expect(Number(name.slice(2, 4)) % 2).toBe(1);
    // No operator runs here: every flag waits for one.
    expect(await flagNames("&phase=Delivered")).toEqual([]);
    expect((await flagNames("&phase=Pending")).length).toBe((await flagNames()).length);
    const page = (await get(flagsPath("&namePrefix=f-1&limit=1"))).json as ListPage;
    expect(page.items.map((f) => f.name)).toEqual(["f-10"]);
    expect(page.metadata.remainingItemCount).toBe(1);
  });

  it.each([
    ["&limit=0", "query.limit"],
    ["&limit=1001", "query.limit"],
    ["&limit=ten", "query.limit"],
    ["&limit=5&continue=not-a-token", "query.continue"],
    ["&continue=eyJrIjpbXX0", "query.continue"],
  ])("refuses %s with 400 naming %s", async (query, field) => {
    const reply = await get(flagsPath(query));
    expect(reply.status).toBe(400);
    expect((reply.json as { error: string }).error).toContain(field);
  });

  it("refuses a continue token from another query (namespace, filters, cluster, list) with 400", async () => {
    const token = ((await get(flagsPath("&limit=2"))).json as ListPage).metadata.continue ?? "";
    for (const path of [
      `/api/v1/flags?clusterId=local&namespace=${otherNs}&limit=2&continue=${token}`,
      `${flagsPath("&delivery=envVar")}&limit=2&continue=${token}`,
      `/api/v1/flags?namespace=${ns}&limit=2&continue=${token}`,
      `/api/v1/clusters/local/workloads?namespace=${ns}&limit=2&continue=${token}`,
    ]) {
      const reply = await get(path);
      expect(reply.status, path).toBe(400);
      expect((reply.json as { error: string }).error).toMatch(/^query\.continue: /);
    }
  });

  it("answers 304 with no body while the list is unchanged, and the new list once it changes", async () => {
    const first = await get(flagsPath(""));
    const etag = first.headers.get("etag") ?? "";
    expect(etag).toMatch(/^W\/"/);
    const unchanged = await get(flagsPath(""), { "if-none-match": etag });
    expect([unchanged.status, unchanged.text]).toEqual([304, ""]);
    const paged = await get(flagsPath("&limit=3"));
    expect(paged.headers.get("etag")).not.toBe(etag);
    expect(
      (await get(flagsPath("&limit=3"), { "if-none-match": paged.headers.get("etag") ?? "" })).status,
    ).toBe(304);
    await createFlag(ns, "f-12", DELIVERIES[1]);
    await cached(["f-12"]);
    const changed = await get(flagsPath(""), { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect((changed.json as Named[]).map((f) => f.name)).toContain("f-12");
  });

  it("pages workloads by namespace and name, filters by name prefix and kind, with an ETag", async () => {
    const apps = env.kc.makeApiClient(AppsV1Api);
    const spec = (app: string) => ({
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app } },
        spec: { containers: [{ name: "main", image: "example/app:1" }] },
      },
    });
    for (const name of ["web-a", "web-b", "web-c"]) {
      await apps.createNamespacedDeployment({
        namespace: ns,
        body: { metadata: { name }, spec: spec(name) },
      });
    }
    await apps.createNamespacedDaemonSet({
      namespace: ns,
      body: { metadata: { name: "web-b" }, spec: spec("ds") },
    });
    const path = (query: string) => `/api/v1/clusters/local/workloads?namespace=${ns}${query}`;
    await eventually(
      () => get(path("")),
      (reply) => Array.isArray(reply.json) && reply.json.length === 4,
      "the four workloads",
      10_000,
    );
    const first = (await get(path("&limit=2"))).json as ListPage<Named & { kind: string }>;
    const second = (await get(path(`&limit=2&continue=${first.metadata.continue ?? ""}`))).json as ListPage<
      Named & { kind: string }
    >;
    expect([...first.items, ...second.items].map((w) => `${w.name}/${w.kind}`)).toEqual([
      "web-a/Deployment",
      "web-b/DaemonSet",
      "web-b/Deployment",
      "web-c/Deployment",
    ]);
    expect([first.metadata.remainingItemCount, second.metadata]).toEqual([2, { remainingItemCount: 0 }]);
    const filtered = (await get(path("&namePrefix=web-b&kind=Deployment"))).json as Named[];
    expect(filtered.map((w) => w.name)).toEqual(["web-b"]);
    const reply = await get(path(""));
    expect((await get(path(""), { "if-none-match": reply.headers.get("etag") ?? "" })).status).toBe(304);
    expect((await get(path("&limit=0"))).status).toBe(400);
  });
});

const event = (timestamp: string, resourceName: string): NewAuditEvent => ({
  timestamp,
  actor: "admin",
  actorRole: "admin",
  action: "update",
  resource: "flag",
  resourceName,
  namespace: "shop",
  cluster: "local",
  outcome: "success",
  sourceIp: "127.0.0.1",
  details: {},
});

describe.each(BACKENDS)("paged audit log on $name", (backend) => {
  const server = serverForSuite(backend);

  it("pages by (time, id) in SQL, newest first, through equal times and events written meanwhile", async () => {
    const db = await backend.open();
    const store = await openStore(db.database);
    try {
      const audit = new AuditRepo(store);
      // Three events share a time: their ids order them.
      const times = ["2026-01-01T00:00:03.000Z", "2026-01-01T00:00:02.000Z", "2026-01-01T00:00:02.000Z"];
      for (const [i, time] of [...times, "2026-01-01T00:00:02.000Z", "2026-01-01T00:00:01.000Z"].entries()) {
        await insertAuditEvent(store.db, event(time, `e${i}`));
      }
      const query = { resource: "flag", limit: 2 };
      const first = await audit.page(query, undefined);
      expect(first.items.map((e) => e.resourceName)).toEqual(["e0", "e3"]);
      expect(first.remainingItemCount).toBe(3);
      // Written between pages: newer than the walk's position (not listed) and older (listed).
      await insertAuditEvent(store.db, event("2026-01-01T00:00:04.000Z", "newer"));
      await insertAuditEvent(store.db, event("2026-01-01T00:00:00.000Z", "older"));
      const second = await audit.page(query, first.after as readonly [string, number]);
      const third = await audit.page(query, second.after as readonly [string, number]);
      expect([...second.items, ...third.items].map((e) => e.resourceName)).toEqual([
        "e2",
        "e1",
        "e4",
        "older",
      ]);
      expect(third.after).toBeUndefined();
    } finally {
      await store.close();
      await db.remove();
    }
  });

  it("answers the list shape for continue, refuses before with it, and a token of other filters", async () => {
    const api = server();
    const admin = await api.login("admin", ADMIN_PASSWORD);
    // Four audited events without a password hash each: updates of a user who does not exist (404).
    for (let i = 0; i < 4; i++) {
      await api.call("PUT", "/api/v1/users/nobody", { token: admin, body: { role: "viewer" } });
    }
    const get = (query: string, headers: Record<string, string> = {}) =>
      api.call("GET", `/api/v1/audit${query}`, { token: admin, headers });
    const all = (await get("?action=update")).json as { id: number }[];
    expect(all.length).toBe(4);
    const first = (await get("?action=update&limit=2&continue=")).json as ListPage<{ id: number }>;
    const token = first.metadata.continue ?? "";
    const second = (await get(`?action=update&limit=2&continue=${token}`)).json as ListPage<{ id: number }>;
    expect([...first.items, ...second.items].map((e) => e.id)).toEqual(all.slice(0, 4).map((e) => e.id));
    expect(first.metadata.remainingItemCount).toBe(all.length - 2);
    for (const [query, field] of [
      [`?action=create&limit=2&continue=${token}`, "query.continue"],
      [`?action=update&continue=${token}&before=5`, "query.continue"],
      ["?continue=x", "query.continue"],
      ["?continue=&limit=0", "query.limit"],
    ] as const) {
      const reply = await get(query);
      expect(reply.status, query).toBe(400);
      expect((reply.json as { error: string }).error).toContain(field);
    }
    const csv = await get(`?continue=${token}&action=update`, { accept: "text/csv" });
    expect(csv.status).toBe(400);
    const listed = await get("?action=update");
    const etag = listed.headers.get("etag") ?? "";
    expect((await get("?action=update", { "if-none-match": etag })).status).toBe(304);
  });
});

// FlagRollout plans over REST against the real kube-apiserver: three more clusters registered on
// the same control plane (eu-1, eu-2 protected, both region=eu and scanning this file's namespace;
// us-1 scanning another), no operator: where a test needs one, it writes the plan's status itself.
import { readFile } from "node:fs/promises";
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import {
  API_GROUP,
  API_VERSION,
  FLAG_ROLLOUT,
  planChangeDigest,
  PROTECTED_CLUSTER_LABEL,
  type FlagRolloutSpec,
  type FlagRolloutStatus,
} from "@svc/core";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { validFlagSpec } from "../../../test/support/flag-cases.ts";
import { eventually, testNamespace } from "../../../test/support/kube.ts";
import {
  invalidRolloutCases,
  invalidRolloutCasesTypeScriptOnly,
} from "../../../test/support/rollout-cases.ts";
import { updatePlanStatus } from "../src/rollouts/store.ts";
import { startClusterApi, type ClusterApi } from "./support/cluster-api.ts";

interface View {
  name: string;
  author: string;
  createdAt: string;
  spec: Record<string, unknown> & { paused?: boolean; abort?: boolean; skipBake?: number };
  status: FlagRolloutStatus;
}
interface Stored {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: View["spec"];
  status?: FlagRolloutStatus;
}

let env: ClusterApi;
let ns = "";
let custom: CustomObjectsApi;
let second = ""; // a second editor's token
const as = (role: "admin" | "editor" | "viewer") => env.tokens[role];
const plans = () => ({
  group: API_GROUP,
  version: API_VERSION,
  namespace: env.systemNamespace,
  plural: FLAG_ROLLOUT.plural,
});
const stored = async (name: string) =>
  (await custom.getNamespacedCustomObject({ ...plans(), name })) as Stored;
const storedNames = async () =>
  ((await custom.listNamespacedCustomObject(plans())) as { items: Stored[] }).items
    .map((p) => p.metadata.name)
    .sort();
const errorOf = (reply: { json: unknown }) => (reply.json as { error: string }).error;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** The error names `field` itself (not a longer path that starts with it). */
const namesField = (field: string) => new RegExp(`(^|; )${escape(field)}: `);

/** What the operator would write: status through the status subresource. */
async function operatorWrites(name: string, status: FlagRolloutStatus): Promise<void> {
  await custom.patchNamespacedCustomObjectStatus(
    { ...plans(), name, body: { status } },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  );
}

async function register(id: string, labels: Record<string, string>, namespace: string, kubeconfig: string) {
  const reply = await env.api.call("POST", "/api/v1/clusters", {
    token: as("admin"),
    body: {
      id,
      displayName: id,
      apiServer: env.kc.getCurrentCluster()?.server,
      authMethod: "kubeconfig",
      kubeconfig,
      labels,
      namespaces: [namespace],
    },
  });
  expect(reply.status, reply.text).toBe(201);
}

/** A new flag in the namespace, once eu-1 and eu-2 see it too. */
async function newFlag(name: string, spec: Record<string, unknown> = validFlagSpec): Promise<string> {
  const reply = await env.api.call("POST", "/api/v1/flags", {
    token: as("admin"),
    body: { ...spec, name, namespace: ns, clusterId: "local" },
  });
  expect(reply.status, reply.text).toBe(201);
  for (const id of ["eu-1", "eu-2"])
    await eventually(
      () => Promise.resolve(env.registry.get(id)?.flags.get(ns, name)),
      (f) => f !== undefined,
      `${name} in ${id}`,
    );
  return name;
}

const planBody = (flag: string, extra: Record<string, unknown> = {}) => ({
  flag: { namespace: ns, name: flag },
  change: { defaultValue: "false" },
  waves: [{ clusters: ["local"], bakeSeconds: 30 }, { clusterSelector: { matchLabels: { region: "eu" } } }],
  ...extra,
});

async function create(body: unknown, token = as("editor")): Promise<View> {
  const reply = await env.api.call("POST", "/api/v1/rollouts", { token, body });
  expect(reply.status, reply.text).toBe(201);
  return reply.json as View;
}

beforeAll(async () => {
  env = await startClusterApi("rollouts");
  custom = env.kc.makeApiClient(CustomObjectsApi);
  ns = await testNamespace(env.kc, "rollouts");
  const elsewhere = await testNamespace(env.kc, "rollouts-us");
  const kubeconfig = await readFile(inject("kubeconfigPath"), "utf8");
  await register("eu-1", { region: "eu" }, ns, kubeconfig);
  await register("eu-2", { region: "eu", [PROTECTED_CLUSTER_LABEL]: "true" }, ns, kubeconfig);
  await register("us-1", { region: "us" }, elsewhere, kubeconfig);
  await env.api.createUser(as("admin"), "ed2", "editor");
  second = await env.api.login("ed2", "ed2-password");
});

describe("creating a plan", () => {
  it("answers 201 with the view, and stores a FlagRollout naming its author", async () => {
    const flag = await newFlag("created");
    const view = await create(planBody(flag));
    expect(view.name).toMatch(/^created-[a-z0-9]{5}$/);
    expect(view).toMatchObject({ author: "ed", spec: planBody(flag) });
    expect(view.status).toEqual({});
    const plan = await stored(view.name);
    expect(plan.metadata.annotations?.["svc.io/author"]).toBe("ed");
    // As stored, with the CRD's defaults filled in.
    expect(view.spec).toEqual(plan.spec);
    expect(plan.spec).toMatchObject({ ...planBody(flag), progressDeadlineSeconds: 600 });
    const read = await env.api.call("GET", `/api/v1/rollouts/${view.name}`, { token: as("viewer") });
    expect(read.json).toEqual(view);
    const audit = await env.api.call(
      "GET",
      `/api/v1/audit?resource=rollout&action=create&resourceName=${view.name}`,
      {
        token: as("admin"),
      },
    );
    expect(audit.json).toMatchObject([
      { actor: "ed", namespace: ns, cluster: "local,eu-1,eu-2", outcome: "success" },
    ]);
  });

  it("refuses every bad input with 400 naming the field, and creates nothing", async () => {
    const flag = await newFlag("refused");
    await newFlag("typed", { ...validFlagSpec, type: "integer", defaultValue: "1" });
    const cases: [string, unknown, string][] = [
      ...[...invalidRolloutCases, ...invalidRolloutCasesTypeScriptOnly].map(
        (c): [string, unknown, string] => [c.why, c.spec, c.field],
      ),
      [
        "an unknown cluster",
        planBody(flag, { waves: [{ clusters: ["local"] }, { clusters: ["nowhere"] }] }),
        "waves.1.clusters",
      ],
      [
        "waves overlapping by selector",
        planBody(flag, {
          waves: [{ clusters: ["eu-1"] }, { clusterSelector: { matchLabels: { region: "eu" } } }],
        }),
        "waves.1",
      ],
      [
        "a selector matching no cluster",
        planBody(flag, { waves: [{ clusterSelector: { matchLabels: { region: "ap" } } }] }),
        "waves.0.clusterSelector",
      ],
      ["an unknown flag", planBody("ghost"), "flag"],
      [
        "a flag missing in one cluster",
        planBody(flag, { waves: [{ clusters: ["local"] }, { clusters: ["us-1"] }] }),
        "flag",
      ],
      [
        "a value not of the flag's type",
        planBody("typed", { change: { defaultValue: "two" } }),
        "change.defaultValue",
      ],
      ["a name that is no name", planBody(flag, { name: "Bad_Name" }), "name"],
    ];
    const before = await storedNames();
    for (const [why, body, field] of cases) {
      const reply = await env.api.call("POST", "/api/v1/rollouts", { token: as("editor"), body });
      expect(reply.status, `${why}: ${reply.text}`).toBe(400);
      expect(errorOf(reply), why).toMatch(namesField(field));
    }
    expect(await storedNames()).toEqual(before);
    const messages = await Promise.all(
      [
        planBody("ghost"),
        planBody(flag, { waves: [{ clusters: ["us-1"] }] }),
        planBody(flag, { waves: [{ clusters: ["x"] }] }),
      ].map(async (body) =>
        errorOf(await env.api.call("POST", "/api/v1/rollouts", { token: as("editor"), body })),
      ),
    );
    expect(messages).toEqual([
      `flag: ${ns}/ghost not found in cluster local; flag: ${ns}/ghost not found in cluster eu-1; flag: ${ns}/ghost not found in cluster eu-2`,
      `flag: ${ns}/${flag} not found in cluster us-1`,
      "waves.0.clusters: no cluster x is registered",
    ]);
  });

  it("allows one unfinished plan per flag (409 for a second), and refuses a name taken", async () => {
    const flag = await newFlag("single");
    const first = await create(planBody(flag));
    const again = async (extra: Record<string, unknown> = {}) =>
      env.api.call("POST", "/api/v1/rollouts", { token: as("admin"), body: planBody(flag, extra) });
    const pending = await again();
    expect(pending.status).toBe(409);
    expect(errorOf(pending)).toBe(
      `plan ${first.name} of flag ${ns}/${flag} is unfinished (Pending); one plan per flag at a time`,
    );
    await operatorWrites(first.name, { phase: "Progressing" });
    expect(errorOf(await again())).toContain(`(Progressing)`);
    await operatorWrites(first.name, { phase: "Succeeded" });
    const other = await newFlag("single-other");
    const taken = await env.api.call("POST", "/api/v1/rollouts", {
      token: as("admin"),
      body: planBody(other, { name: first.name }),
    });
    expect(taken.status).toBe(409);
    expect(errorOf(taken)).toBe(`plan ${first.name} already exists: choose another name`);
    expect((await again({ name: "single-next" })).status).toBe(201);
  });

  it("is for admins and editors: a viewer gets 403 and nothing is created", async () => {
    const flag = await newFlag("viewed");
    const before = await storedNames();
    const reply = await env.api.call("POST", "/api/v1/rollouts", {
      token: as("viewer"),
      body: planBody(flag),
    });
    expect(reply.status).toBe(403);
    expect(await storedNames()).toEqual(before);
    expect((await env.api.call("GET", "/api/v1/rollouts", { token: as("viewer") })).status).toBe(200);
  });
});

describe("approval", () => {
  it("is never the author's: a second editor approves, and the operator's status stays", async () => {
    const plan = await create(planBody(await newFlag("guarded")));
    const approve = (token: string, body?: unknown) =>
      env.api.call("POST", `/api/v1/rollouts/${plan.name}/approve`, {
        token,
        ...(body === undefined ? {} : { body }),
      });
    const early = await approve(second);
    expect(early.status).toBe(409);
    expect(errorOf(early)).toBe(`plan ${plan.name} is not awaiting approval (Pending)`);
    const waiting: FlagRolloutStatus = {
      phase: "AwaitingApproval",
      protectedClusters: ["eu-2"],
      message: "waiting for a second user",
    };
    await operatorWrites(plan.name, waiting);
    const own = await approve(as("editor"));
    expect(own.status).toBe(403);
    expect(errorOf(own)).toBe("the author of a plan cannot approve it: a second user must");
    expect((await approve(as("viewer"))).status).toBe(403);
    expect((await stored(plan.name)).status?.approval).toBeUndefined();
    const approved = await approve(second, { comment: "looks good" });
    expect(approved.status, approved.text).toBe(200);
    const approval = {
      decision: "Approved",
      by: "ed2",
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string,
      comment: "looks good",
      // Bound to the plan as approved: an edit afterwards voids it (the operator asks again).
      digest: planChangeDigest((await stored(plan.name)).spec as unknown as FlagRolloutSpec),
    };
    expect((approved.json as View).status).toEqual({ ...waiting, approval });
    expect((await stored(plan.name)).status).toEqual({ ...waiting, approval });
    expect(errorOf(await approve(as("admin")))).toMatch(
      new RegExp(`^plan ${plan.name} was already approved by ed2 at `),
    );
    const audit = await env.api.call("GET", `/api/v1/audit?resource=rollout&resourceName=${plan.name}`, {
      token: as("admin"),
    });
    const events = (audit.json as { action: string; actor: string; outcome: string; cluster: string }[]).map(
      (e) => `${e.action} ${e.actor} ${e.outcome} ${e.cluster}`,
    );
    expect(events).toContain("approve ed2 success local,eu-1,eu-2");
    expect(events).toContain("approve ed denied local,eu-1,eu-2");
  });

  it("decides on the plan the user read: one edited since (kubectl) is 409, read again first", async () => {
    const plan = await create(planBody(await newFlag("reread")));
    await operatorWrites(plan.name, { phase: "AwaitingApproval", protectedClusters: ["eu-2"] });
    const read = (await env.api.call("GET", `/api/v1/rollouts/${plan.name}`, { token: second })).json as View;
    // Edited after the approver read it: another value.
    await custom.patchNamespacedCustomObject(
      { ...plans(), name: plan.name, body: { spec: { change: { defaultValue: "true" } } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    const approve = (spec: unknown) =>
      env.api.call("POST", `/api/v1/rollouts/${plan.name}/approve`, { token: second, body: { spec } });
    const stale = await approve(read.spec);
    expect(stale.status).toBe(409);
    expect(errorOf(stale)).toBe(
      `plan ${plan.name} changed since you read it (its change, waves or schedule): read it again before deciding`,
    );
    expect((await stored(plan.name)).status?.approval).toBeUndefined();
    const fresh = (await env.api.call("GET", `/api/v1/rollouts/${plan.name}`, { token: second }))
      .json as View;
    // A pause is no change of what the plan does: the spec read before it still counts.
    await env.api.call("POST", `/api/v1/rollouts/${plan.name}/pause`, { token: as("editor") });
    const approved = await approve(fresh.spec);
    expect(approved.status, approved.text).toBe(200);
    expect((await stored(plan.name)).status?.approval).toMatchObject({
      by: "ed2",
      digest: planChangeDigest(fresh.spec as unknown as FlagRolloutSpec),
    });
  });

  it("lets the author reject (withdraw) a plan", async () => {
    const plan = await create(planBody(await newFlag("withdrawn")));
    await operatorWrites(plan.name, { phase: "AwaitingApproval", protectedClusters: ["eu-2"] });
    const reply = await env.api.call("POST", `/api/v1/rollouts/${plan.name}/reject`, {
      token: as("editor"),
      body: {},
    });
    expect(reply.status, reply.text).toBe(200);
    expect((await stored(plan.name)).status?.approval).toMatchObject({ decision: "Rejected", by: "ed" });
  });

  it("reads again and retries when the operator wrote the status in between, losing neither write", async () => {
    const plan = await create(planBody(await newFlag("raced")));
    await operatorWrites(plan.name, { phase: "AwaitingApproval", protectedClusters: ["eu-2"] });
    const hub = env.registry.get("local");
    if (hub === undefined) throw new Error("no local cluster");
    const store = { hub, namespace: env.systemNamespace };
    const seen: (string | undefined)[] = [];
    await updatePlanStatus(store, plan.name, async (read) => {
      seen.push(read.status?.message);
      // The operator's write lands after this read, before the API's write.
      if (seen.length === 1) await operatorWrites(plan.name, { message: "the operator was here" });
      return { approval: { decision: "Approved", by: "ed2", at: "2026-11-27T10:00:00Z" } };
    });
    expect(seen).toEqual([undefined, "the operator was here"]);
    expect((await stored(plan.name)).status).toMatchObject({
      message: "the operator was here",
      approval: { by: "ed2" },
    });
  });
});

describe("actions", () => {
  it("pause, resume, abort and skip-bake set the spec; a finished plan refuses them", async () => {
    const plan = await create(planBody(await newFlag("acted")));
    const act = (action: string) =>
      env.api.call("POST", `/api/v1/rollouts/${plan.name}/${action}`, { token: as("editor") });
    const specAfter = async (action: string) => {
      const reply = await act(action);
      expect(reply.status, reply.text).toBe(200);
      expect((reply.json as View).spec).toEqual((await stored(plan.name)).spec);
      return (reply.json as View).spec;
    };
    expect(await specAfter("pause")).toMatchObject({ paused: true });
    expect(await specAfter("resume")).toMatchObject({ paused: false });
    expect(await specAfter("skip-bake")).toMatchObject({ skipBake: 0 });
    await operatorWrites(plan.name, { phase: "Progressing", currentWave: 1 });
    expect(await specAfter("skip-bake")).toMatchObject({ skipBake: 1 });
    expect((await act("pause")).status).toBe(200);
    expect(await specAfter("abort")).toMatchObject({ abort: true, paused: true, skipBake: 1 });
    const early = await env.api.call("DELETE", `/api/v1/rollouts/${plan.name}`, { token: as("editor") });
    expect(early.status).toBe(409);
    expect(errorOf(early)).toBe(`plan ${plan.name} is unfinished (Progressing): abort it first`);
    await operatorWrites(plan.name, { phase: "RolledBack" });
    const late = await act("resume");
    expect(late.status).toBe(409);
    expect(errorOf(late)).toBe(`plan ${plan.name} is finished (RolledBack)`);
    expect((await stored(plan.name)).spec.paused).toBe(true);
    expect((await act("pause")).status).toBe(409);
    const gone = await env.api.call("DELETE", `/api/v1/rollouts/${plan.name}`, { token: as("editor") });
    expect(gone.status).toBe(204);
    expect(await storedNames()).not.toContain(plan.name);
    expect((await env.api.call("GET", `/api/v1/rollouts/${plan.name}`, { token: as("viewer") })).status).toBe(
      404,
    );
    expect((await act("pause")).status).toBe(404);
    const misnamed = await env.api.call("POST", "/api/v1/rollouts/Bad_Name/pause", { token: as("editor") });
    expect(misnamed.status).toBe(400);
    expect(errorOf(misnamed)).toBe("path.name: must be a plan's name (a DNS-1123 label)");
  });
});

describe("promote", () => {
  it("makes a plan whose change is the source flag's value, targeting included", async () => {
    const flag = await newFlag("promoted", {
      type: "string",
      defaultValue: "blue",
      variants: { blue: "blue", green: "green" },
      defaultVariant: "blue",
      targeting: { if: [{ "==": [{ var: "plan" }, "pro"] }, "green", null] },
      delivery: validFlagSpec.delivery,
    });
    const source = (await custom.getNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace: ns,
      plural: "featureflags",
      name: flag,
    })) as {
      spec: Record<string, unknown>;
    };
    const { enabled, defaultValue, variants, defaultVariant, targeting } = source.spec;
    const path = `/api/v1/flags/${ns}/${flag}/promote?clusterId=local`;
    const body = {
      name: "promote-1",
      waves: [{ clusters: ["eu-1"] }, { clusters: ["eu-2"] }],
      startAt: "2026-12-01T09:00:00Z",
    };
    const reply = await env.api.call("POST", path, { token: as("editor"), body });
    expect(reply.status, reply.text).toBe(201);
    const change = { enabled, defaultValue, variants, defaultVariant, targeting };
    expect(enabled).toBe(true);
    expect((reply.json as View).spec).toMatchObject({
      flag: { namespace: ns, name: flag },
      change,
      startAt: body.startAt,
    });
    expect((await stored("promote-1")).spec.change).toEqual(change);
    expect(
      (await env.api.call("POST", path, { token: as("editor"), body: { ...body, name: "promote-2" } }))
        .status,
    ).toBe(409);
    const absent = await env.api.call("POST", `/api/v1/flags/${ns}/${flag}/promote?clusterId=us-1`, {
      token: as("editor"),
      body,
    });
    expect(absent.status).toBe(404);
    expect(errorOf(absent)).toBe(`flag ${ns}/${flag} not found in cluster us-1`);
    const bad = await env.api.call("POST", path, { token: as("editor"), body: { waves: [] } });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatch(namesField("waves"));
  });
});

describe("the list", () => {
  it("is newest first, filters by flag and phase, and pages with limit and continue", async () => {
    const made: string[] = [];
    for (const name of ["listed-a", "listed-b", "listed-c"]) {
      const flag = await newFlag(name);
      // creationTimestamp counts whole seconds: each plan is a second newer than any before it.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      made.unshift((await create(planBody(flag))).name);
    }
    const list = async (query: string) =>
      ((await env.api.call("GET", `/api/v1/rollouts${query}`, { token: as("viewer") })).json as View[]).map(
        (p) => p.name,
      );
    const all = await list("");
    expect(all.slice(0, 3)).toEqual(made);
    expect(all.length).toBeGreaterThan(4);
    expect(await list(`?flag=${ns}/listed-b`)).toEqual([made[1]]);
    const [newest = "", ...older] = made;
    await operatorWrites(newest, { phase: "Paused" });
    expect(await list("?phase=Paused")).toEqual([newest]);
    const pending = await list("?phase=Pending");
    expect(pending).toEqual(expect.arrayContaining(older));
    expect(pending).not.toContain(newest);
    const paged: string[] = [];
    let token: string | undefined = "";
    while (token !== undefined) {
      const reply = await env.api.call("GET", `/api/v1/rollouts?limit=2&continue=${token}`, {
        token: as("viewer"),
      });
      const page = reply.json as {
        items: View[];
        metadata: { continue?: string; remainingItemCount: number };
      };
      expect(page.items.length).toBeLessThanOrEqual(2);
      paged.push(...page.items.map((p) => p.name));
      expect(page.metadata.remainingItemCount).toBe(all.length - paged.length);
      token = page.metadata.continue;
    }
    expect(paged).toEqual(all);
    const first = await env.api.call("GET", "/api/v1/rollouts?limit=1", { token: as("viewer") });
    const next = (first.json as { metadata: { continue: string } }).metadata.continue;
    const foreign = await env.api.call("GET", `/api/v1/rollouts?phase=Paused&continue=${next}`, {
      token: as("viewer"),
    });
    expect(foreign.status).toBe(400);
    expect(errorOf(foreign)).toMatch(/^query\.continue: belongs to another query/);
    const bad = await env.api.call("GET", "/api/v1/rollouts?flag=no-slash", { token: as("viewer") });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatch(/^query\.flag: /);
  });
});

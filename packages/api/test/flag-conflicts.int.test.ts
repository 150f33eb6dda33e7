// Conflicts only on real conflicts (issue 37 item 0), against the real control plane and the real
// operator delivering the flag: GET, edit, PUT of a delivered flag succeeds although the
// operator wrote its status in between; a change of the spec by someone else since the version
// read still answers 409, naming the changed fields and who changed them.
import { AppsV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { API_GROUP, API_VERSION, FEATURE_FLAG } from "@svc/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, testNamespace } from "../../../test/support/kube.ts";
import { operatorScope, startOperator } from "../../operator/test/support/operator.ts";
import type { RunningOperator } from "../../operator/src/index.ts";
import { startClusterApi, type ClusterApi } from "./support/cluster-api.ts";

interface FlagReply {
  defaultValue: string;
  description: string;
  resourceVersion: string;
  status: { phase: string };
}

const EDITS = 200;

let env: ClusterApi;
let ns: string;
let operator: RunningOperator;
let objects: CustomObjectsApi;
let secondEditor: string;

const target = () => ({ group: API_GROUP, version: API_VERSION, namespace: ns, plural: FEATURE_FLAG.plural });
const flagPath = (name: string) => `/api/v1/flags/${ns}/${name}?clusterId=local`;

beforeAll(async () => {
  env = await startClusterApi("flag-conflicts");
  ns = await testNamespace(env.kc, "flag-conflicts");
  objects = env.kc.makeApiClient(CustomObjectsApi);
  // No replicas: each edit rolls the Deployment, and no pod needs to start for it.
  await env.kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace: ns,
    body: {
      metadata: { name: "web", labels: { app: "web" } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "main", image: "example/main:1" }] },
        },
      },
    },
  });
  operator = await startOperator(await operatorScope(env.kc, "flag-conflicts", [ns]));
  await env.api.createUser(env.tokens.admin, "ed2", "editor");
  secondEditor = await env.api.login("ed2", "ed2-password");
}, 120_000);

afterAll(async () => {
  await operator.close();
});

async function read(name: string, token = env.tokens.editor): Promise<FlagReply> {
  const reply = await env.api.call("GET", flagPath(name), { token });
  expect(reply.status, reply.text).toBe(200);
  return reply.json as FlagReply;
}

const put = (name: string, body: FlagReply, token = env.tokens.editor) =>
  env.api.call("PUT", flagPath(name), { token, body });

/** A string envVar flag for the `web` Deployment, once the operator delivered it. */
async function deliveredFlag(name: string): Promise<FlagReply> {
  const created = await env.api.call("POST", "/api/v1/flags", {
    token: env.tokens.editor,
    body: {
      name,
      namespace: ns,
      clusterId: "local",
      type: "string",
      defaultValue: "v0",
      delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
    },
  });
  expect(created.status, created.text).toBe(201);
  return eventually(
    () => read(name),
    (flag) => flag.status.phase === "Delivered",
    `${name} delivered`,
  );
}

/** What the operator does after a delivery: its status through the status subresource. */
async function writeStatusAsTheOperator(name: string, message: string): Promise<void> {
  await objects.patchNamespacedCustomObjectStatus(
    { ...target(), name, body: { status: { message } } },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  );
}

it(`takes ${EDITS} GET, edit, PUT rounds of a delivered flag while the operator writes its status, with no 409`, async () => {
  await deliveredFlag("loop");
  const refused: string[] = [];
  for (let round = 1; round <= EDITS; round++) {
    const flag = await read("loop");
    const reply = await put("loop", { ...flag, defaultValue: `v${round}` });
    if (reply.status !== 200) refused.push(`round ${round}: ${reply.status} ${reply.text}`);
  }
  expect(refused).toEqual([]);
  const last = await eventually(
    () => read("loop"),
    (flag) => flag.status.phase === "Delivered",
    "last delivered",
  );
  expect(last.defaultValue).toBe(`v${EDITS}`);
}, 300_000);

it("writes on the newest version when only the status and the operator's metadata changed since the read", async () => {
  await deliveredFlag("status-only");
  const flag = await read("status-only");
  await writeStatusAsTheOperator("status-only", "written after the client's read");
  await objects.patchNamespacedCustomObject(
    { ...target(), name: "status-only", body: { metadata: { annotations: { "svc.io/note": "operator" } } } },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  );
  const reply = await put("status-only", { ...flag, defaultValue: "edited" });
  expect(reply.status, reply.text).toBe(200);
  expect((reply.json as FlagReply).defaultValue).toBe("edited");
  expect(Number((reply.json as FlagReply).resourceVersion)).toBeGreaterThan(Number(flag.resourceVersion));
});

it("answers 409 naming the fields and the field manager when the spec was changed outside svc", async () => {
  await deliveredFlag("edited-outside");
  const flag = await read("edited-outside");
  await objects.patchNamespacedCustomObject(
    {
      ...target(),
      name: "edited-outside",
      fieldManager: "kubectl-edit",
      body: { spec: { description: "theirs" } },
    },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  );
  await eventually(
    () => read("edited-outside"),
    (seen) => seen.description === "theirs",
    "the edit cached",
  );
  const reply = await put("edited-outside", { ...flag, defaultValue: "mine" });
  expect(reply.status, reply.text).toBe(409);
  expect((reply.json as { error: string }).error).toBe(
    `flag ${ns}/edited-outside was changed after resourceVersion ${flag.resourceVersion} by kubectl-edit (description): read it again and retry`,
  );
  const kept = await read("edited-outside");
  expect([kept.description, kept.defaultValue]).toEqual(["theirs", "v0"]);
});

it("lets exactly one of two editors racing on the same field from the same read through, naming the winner", async () => {
  await deliveredFlag("raced");
  for (let race = 1; race <= 10; race++) {
    const flag = await read("raced");
    const [first, second] = await Promise.all([
      put("raced", { ...flag, defaultValue: `ed-${race}` }),
      put("raced", { ...flag, defaultValue: `ed2-${race}` }, secondEditor),
    ]);
    expect([first.status, second.status].sort(), `race ${race}: ${first.text} ${second.text}`).toEqual([
      200, 409,
    ]);
    const [winner, loser] = first.status === 200 ? ["ed", second] : ["ed2", first];
    expect((loser.json as { error: string }).error).toContain(`by ${winner} (defaultValue)`);
    expect((await read("raced")).defaultValue).toBe(`${winner}-${race}`);
  }
}, 120_000);

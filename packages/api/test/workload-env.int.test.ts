// Issue 37 item 6, over REST on a real kube-apiserver: a viewer sees the names of a workload's
// literal environment variables but not their values (DATABASE_URL with its password,
// SENTRY_DSN); the values svc delivered stay visible; editors and admins see the values.
import { AppsV1Api } from "@kubernetes/client-node";
import { MANAGED_ENV_ANNOTATION } from "@svc/core";
import { beforeAll, expect, it } from "vitest";
import { eventually, testNamespace } from "../../../test/support/kube.ts";
import { startClusterApi, type ClusterApi, type TestRole } from "./support/cluster-api.ts";

const DATABASE_URL = "postgres://shop:pa55word@db.shop:5432/shop";
const SENTRY_DSN = "https://0123abcd@o1.ingest.sentry.example/42";

let env: ClusterApi;
let ns: string;

beforeAll(async () => {
  env = await startClusterApi("workload-env");
  ns = await testNamespace(env.kc, "workload-env");
  // As svc leaves a workload it delivered flag `checkout` to: the variable, and its annotation.
  await env.kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace: ns,
    body: {
      metadata: { name: "web", annotations: { [MANAGED_ENV_ANNOTATION]: "FLAG_CHECKOUT" } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: {
            containers: [
              {
                name: "main",
                image: "example/web:1",
                env: [
                  { name: "DATABASE_URL", value: DATABASE_URL },
                  { name: "SENTRY_DSN", value: SENTRY_DSN },
                  { name: "FLAG_CHECKOUT", value: "true" },
                ],
              },
            ],
          },
        },
      },
    },
  });
  await eventually(
    () => env.api.call("GET", `/api/v1/clusters/local/workloads/${ns}/web`, { token: env.tokens.admin }),
    (reply) => reply.status === 200,
    "the workload in the API",
    10_000,
  );
});

/** A user with a global role (or none) and grants, signed in. */
async function userWith(username: string, role: string, grants: unknown[]): Promise<string> {
  const password = `${username}-password`;
  const created = await env.api.call("POST", "/api/v1/users", {
    token: env.tokens.admin,
    body: { username, password, role, grants },
  });
  expect(created.status, created.text).toBe(201);
  return env.api.login(username, password);
}

/** The env of `web` as `who` (a role's user, or a token) reads it, in the list and in the detail. */
async function envAs(who: TestRole | { token: string }) {
  const token = typeof who === "string" ? env.tokens[who] : who.token;
  const list = await env.api.call("GET", `/api/v1/clusters/local/workloads?namespace=${ns}`, { token });
  const detail = await env.api.call("GET", `/api/v1/clusters/local/workloads/${ns}/web`, { token });
  expect([list.status, detail.status]).toEqual([200, 200]);
  type View = { containers: { env: unknown[] }[] };
  return {
    text: list.text + detail.text,
    list: (list.json as View[])[0]?.containers[0]?.env,
    detail: (detail.json as View).containers[0]?.env,
  };
}

it("shows a viewer the names of literal variables but no value svc did not deliver", async () => {
  const seen = await envAs("viewer");
  const expected = [
    { name: "DATABASE_URL", value: "<redacted>" },
    { name: "SENTRY_DSN", value: "<redacted>" },
    { name: "FLAG_CHECKOUT", value: "true" },
  ];
  expect(seen.list).toEqual(expected);
  expect(seen.detail).toEqual(expected);
  expect(seen.text).not.toContain("pa55word");
  expect(seen.text).not.toContain("sentry.example");
});

it("shows editors and admins the literal values", async () => {
  for (const role of ["editor", "admin"] as const) {
    const seen = await envAs(role);
    const expected = [
      { name: "DATABASE_URL", value: DATABASE_URL },
      { name: "SENTRY_DSN", value: SENTRY_DSN },
      { name: "FLAG_CHECKOUT", value: "true" },
    ];
    expect(seen.list, role).toEqual(expected);
    expect(seen.detail, role).toEqual(expected);
  }
});

it("decides by the role in the workload's scope: an editor's grant elsewhere does not show them", async () => {
  const hidden = [
    { name: "DATABASE_URL", value: "<redacted>" },
    { name: "SENTRY_DSN", value: "<redacted>" },
    { name: "FLAG_CHECKOUT", value: "true" },
  ];
  const elsewhere = await userWith("ed-elsewhere", "viewer", [
    { role: "editor", namespaces: [`${ns}-other`] },
  ]);
  expect((await envAs({ token: elsewhere })).detail).toEqual(hidden);
  const here = await userWith("ed-here", "none", [{ role: "editor", clusters: ["local"], namespaces: [ns] }]);
  const seen = await envAs({ token: here });
  expect(seen.detail).toEqual([
    { name: "DATABASE_URL", value: DATABASE_URL },
    { name: "SENTRY_DSN", value: SENTRY_DSN },
    { name: "FLAG_CHECKOUT", value: "true" },
  ]);
  expect(seen.list).toEqual(seen.detail);
});

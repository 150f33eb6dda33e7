// A ClusterConnection applied with kubectl that names svc's own admin Secret: the operator marks
// it Error with the reason in its status, and the Secret's value reaches no server (the
// apiServer is a loopback HTTPS server of the test's own that records every request, with a
// certificate of a CA the connection could otherwise have been given).
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, CLUSTER_CONNECTION, type ClusterConnectionStatus } from "@svc/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificateAuthority, issueServingCertificate } from "@svc/localkube";
import { startRecordingServer, type RecordingServer } from "../../kube/test/support/recording-server.ts";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import type { RunningOperator } from "../src/index.ts";
import { operatorScope, startOperator, type OperatorScope } from "./support/operator.ts";

const hub = testKubeConfig();
const PASSWORD = "operator-test-admin-password";
let scope: OperatorScope;
let operator: RunningOperator;
let server: RecordingServer;
let dir: string;
let ca: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-operator-creds-"));
  await mkdir(join(dir, "ca"));
  const authority = await createCertificateAuthority(join(dir, "ca"));
  ca = await readFile(authority.certPath, "utf8");
  server = await startRecordingServer(
    await issueServingCertificate(authority, dir, "server", ["127.0.0.1"], []),
  );
  const ns = await testNamespace(hub, "op-creds");
  scope = await operatorScope(hub, "op-creds", [ns]);
  operator = await startOperator(scope);
}, 180_000);

afterAll(async () => {
  await operator.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function apply(id: string, credentialRef: { name: string; key: string }) {
  await hub.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: API_GROUP,
    version: "v1alpha1",
    namespace: scope.systemNamespace,
    plural: CLUSTER_CONNECTION.plural,
    body: {
      apiVersion: API_GROUP_VERSION,
      kind: CLUSTER_CONNECTION.kind,
      metadata: { name: id },
      spec: { displayName: id, apiServer: server.url, authMethod: "serviceaccount", credentialRef },
    },
  });
}

const statusOf = async (id: string) =>
  (
    (await hub.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: API_GROUP,
      version: "v1alpha1",
      namespace: scope.systemNamespace,
      plural: CLUSTER_CONNECTION.plural,
      name: id,
    })) as { status?: ClusterConnectionStatus }
  ).status;

describe("a ClusterConnection naming a Secret not made for it", () => {
  it("is Error with the reason in its status, and the Secret's value is sent nowhere", async () => {
    // svc's admin Secret, with a ca.crt beside the password: nothing but the rule on which
    // Secret may be read stops the password from going to this server.
    await hub.makeApiClient(CoreV1Api).createNamespacedSecret({
      namespace: scope.systemNamespace,
      body: { metadata: { name: "svc-admin" }, stringData: { "admin-password": PASSWORD, "ca.crt": ca } },
    });
    await apply("leak", { name: "svc-admin", key: "admin-password" });
    const status = await eventually(
      () => statusOf("leak"),
      (s) => s?.phase === "Error",
      "leak in Error",
    );
    expect(status?.message).toMatch(
      /^spec\.credentialRef: Secret svc-admin is not a credential of cluster leak/,
    );
    expect(JSON.stringify(status)).not.toContain(PASSWORD);
    // A witness with its own Secret, applied after: once it has reached the server, the
    // operator has had every chance to send the password too.
    await hub.makeApiClient(CoreV1Api).createNamespacedSecret({
      namespace: scope.systemNamespace,
      body: {
        metadata: { name: "svc-cluster-witness" },
        stringData: { token: "witness-token", "ca.crt": ca },
      },
    });
    await apply("witness", { name: "svc-cluster-witness", key: "token" });
    await eventually(
      () => Promise.resolve(server.requests.map((r) => r.authorization)),
      (seen) => seen.includes("Bearer witness-token"),
      "the witness's request at the server",
    );
    expect(server.requests.filter((r) => r.authorization?.includes(PASSWORD))).toEqual([]);
  });
});

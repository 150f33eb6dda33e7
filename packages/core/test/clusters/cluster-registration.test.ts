import { describe, expect, it } from "vitest";
import {
  clusterConnectionFromRegistration,
  describeErrors,
  localClusterConnection,
  validateClusterConnectionSpec,
  validateClusterRegistration,
} from "../../src/index.ts";
import { invalidClusterCases } from "../../../../test/support/cluster-cases.ts";

const kubeconfig = [
  "apiVersion: v1",
  "kind: Config",
  "clusters: [{name: c, cluster: {server: 'https://10.0.0.1:6443', certificate-authority-data: QQ==}}]",
  "users: [{name: u, user: {token: sekrit}}]",
  "contexts: [{name: x, context: {cluster: c, user: u}}]",
  "current-context: x",
].join("\n");
const base = { id: "prod-eu", displayName: "Production EU", apiServer: "https://10.0.0.1:6443" };

function errors(input: unknown) {
  const result = validateClusterRegistration(input);
  return result.ok ? [] : result.errors;
}
const fields = (input: unknown) => errors(input).map((e) => e.field);

describe("validateClusterRegistration", () => {
  it("accepts each credential source alone", () => {
    expect(fields({ ...base, kubeconfig })).toEqual([]);
    expect(fields({ ...base, token: "t0k3n", caData: "LS0tLS1CRUdJTg==", authMethod: "oidc" })).toEqual([]);
    expect(
      fields({ ...base, credentialRef: { name: "prod-creds", key: "kubeconfig" }, authMethod: "kubeconfig" }),
    ).toEqual([]);
  });

  it("accepts SPEC.md's body without credentials, and at most one credential source", () => {
    expect(errors(base)).toEqual([]);
    expect(fields({ ...base, authMethod: "kubeconfig" })).toEqual([]);
    expect(fields({ ...base, caData: "QQ==" })).toEqual(["caData"]);
    expect(errors({ ...base, kubeconfig, token: "t" })).toEqual([
      {
        field: "token",
        message: "cannot be sent with kubeconfig: send exactly one of kubeconfig, token or credentialRef",
      },
    ]);
  });

  it("checks that authMethod and caData fit the credentials", () => {
    expect(fields({ ...base, kubeconfig, authMethod: "oidc" })).toEqual(["authMethod"]);
    expect(fields({ ...base, token: "t", authMethod: "kubeconfig" })).toEqual(["authMethod"]);
    expect(fields({ ...base, kubeconfig, caData: "QQ==" })).toEqual(["caData"]);
    expect(fields({ ...base, token: "t", caData: "not base64!" })).toEqual(["caData"]);
  });

  it("refuses a kubeconfig that is not one, without quoting it", () => {
    const withExec = kubeconfig.replace("{token: sekrit}", "{exec: {command: aws}}");
    for (const bad of ["clusters: [unclosed", "just text", "clusters: []\nusers: []", withExec]) {
      const found = errors({ ...base, kubeconfig: bad });
      expect(found.map((e) => e.field)).toEqual(["kubeconfig"]);
      expect(describeErrors(found)).not.toContain(bad);
    }
  });

  it.each(invalidClusterCases.map((c) => [c.why, c] as const))("refuses a spec with %s", (_why, c) => {
    expect(fields({ id: "x", ...c.spec })).toContain(c.field);
  });

  it("refuses unknown fields and a bad id", () => {
    expect(fields({ ...base, token: "t", password: "x" })).toEqual(["password"]);
    expect(fields({ ...base, id: "Prod", token: "t" })).toEqual(["id"]);
  });
});

describe("clusterConnectionFromRegistration", () => {
  it("stores an inline kubeconfig in svc-cluster-<id> and references it", () => {
    const { connection, secret } = clusterConnectionFromRegistration(
      { ...base, kubeconfig, namespaces: ["shop"], labels: { region: "eu" } },
      "svc-system",
    );
    expect(connection).toEqual({
      apiVersion: "svc.io/v1alpha1",
      kind: "ClusterConnection",
      metadata: {
        name: "prod-eu",
        namespace: "svc-system",
        labels: { "app.kubernetes.io/managed-by": "svc" },
      },
      spec: {
        displayName: "Production EU",
        apiServer: "https://10.0.0.1:6443",
        authMethod: "kubeconfig",
        credentialRef: { name: "svc-cluster-prod-eu", key: "kubeconfig" },
        namespaces: ["shop"],
        labels: { region: "eu" },
      },
    });
    expect(secret).toEqual({
      name: "svc-cluster-prod-eu",
      namespace: "svc-system",
      labels: {
        "app.kubernetes.io/managed-by": "svc",
        "svc.io/cluster": "prod-eu",
        "svc.io/cluster-credential": "prod-eu",
      },
      data: { kubeconfig: Buffer.from(kubeconfig).toString("base64") },
    });
    expect(JSON.stringify(connection)).not.toContain("sekrit");
    expect(validateClusterConnectionSpec(connection.spec).ok).toBe(true);
  });

  it("stores a token with its CA, as a ServiceAccount token Secret lays them out", () => {
    const { connection, secret } = clusterConnectionFromRegistration(
      { ...base, token: "t0k3n", caData: "QQ==" },
      "svc-system",
    );
    expect(connection.spec).toMatchObject({
      authMethod: "serviceaccount",
      credentialRef: { name: "svc-cluster-prod-eu", key: "token" },
    });
    expect(secret?.data).toEqual({ token: Buffer.from("t0k3n").toString("base64"), "ca.crt": "QQ==" });
  });

  it("without credentials, refers to the Secret svc-cluster-<id> under its authMethod's key", () => {
    const plain = clusterConnectionFromRegistration(base, "svc-system");
    expect(plain.secret).toBeUndefined();
    expect(plain.connection.spec).toMatchObject({
      authMethod: "serviceaccount",
      credentialRef: { name: "svc-cluster-prod-eu", key: "token" },
    });
    const byKubeconfig = clusterConnectionFromRegistration(
      { ...base, authMethod: "kubeconfig" },
      "svc-system",
    );
    expect(byKubeconfig.connection.spec.credentialRef).toEqual({
      name: "svc-cluster-prod-eu",
      key: "kubeconfig",
    });
  });

  it("creates no Secret when the credentials are referenced", () => {
    const credentialRef = { name: "prod-creds", key: "token" };
    const result = clusterConnectionFromRegistration(
      { ...base, credentialRef, authMethod: "oidc" },
      "svc-system",
    );
    expect(result.secret).toBeUndefined();
    expect(result.connection.spec).toMatchObject({ credentialRef, authMethod: "oidc" });
  });
});

describe("localClusterConnection", () => {
  it("reaches the hub with the process's own identity", () => {
    const local = localClusterConnection({
      id: "local",
      apiServer: "https://127.0.0.1:6443",
      systemNamespace: "svc-system",
    });
    expect(local.metadata).toMatchObject({ name: "local", namespace: "svc-system" });
    expect(local.spec).toEqual({
      displayName: "Local cluster",
      apiServer: "https://127.0.0.1:6443",
      authMethod: "serviceaccount",
    });
    expect(validateClusterConnectionSpec(local.spec).ok).toBe(true);
  });
});

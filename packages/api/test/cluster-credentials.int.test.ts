// POST /api/v1/clusters and cluster credentials: a registration may name only a Secret made for
// that cluster, and reaches its API server over verified TLS unless an insecure option says
// otherwise, with a reason the audit log keeps. Each refusal is a 400 naming the field, with
// nothing written and no connection made: the API server given is a loopback server of the
// test's own that records every request reaching it.
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { API_GROUP, API_VERSION, CLUSTER_CONNECTION } from "@svc/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificateAuthority, issueServingCertificate } from "@svc/localkube";
import { startRecordingServer, type RecordingServer } from "../../kube/test/support/recording-server.ts";
import { startClusterApi, type ClusterApi } from "./support/cluster-api.ts";

const ADMIN_PASSWORD = "svc-admin-password-value";
let env: ClusterApi;
let dir: string;
let tlsServer: RecordingServer;
let plainServer: RecordingServer;
let caData: string;

beforeAll(async () => {
  env = await startClusterApi("cluster-creds");
  dir = await mkdtemp(join(tmpdir(), "svc-api-cluster-creds-"));
  await mkdir(join(dir, "ca"));
  const authority = await createCertificateAuthority(join(dir, "ca"));
  caData = Buffer.from(await readFile(authority.certPath)).toString("base64");
  const certificate = await issueServingCertificate(authority, dir, "server", ["127.0.0.1"], []);
  [tlsServer, plainServer] = await Promise.all([startRecordingServer(certificate), startRecordingServer()]);
  await env.kc.makeApiClient(CoreV1Api).createNamespacedSecret({
    namespace: env.systemNamespace,
    body: { metadata: { name: "svc-admin" }, stringData: { "admin-password": ADMIN_PASSWORD } },
  });
}, 180_000);

afterAll(async () => {
  await Promise.all([tlsServer.close(), plainServer.close()]);
  await rm(dir, { recursive: true, force: true });
});

const admin = () => ({ token: env.tokens.admin });
const register = (body: Record<string, unknown>) =>
  env.api.call("POST", "/api/v1/clusters", { ...admin(), body });
const errorOf = (reply: { json: unknown }) => (reply.json as { error?: string }).error ?? "";

async function connectionNames(): Promise<string[]> {
  const list = (await env.kc.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    namespace: env.systemNamespace,
    plural: CLUSTER_CONNECTION.plural,
  })) as { items: { metadata: { name: string } }[] };
  return list.items.map((item) => item.metadata.name);
}

async function secretNames(): Promise<string[]> {
  const list = await env.kc.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: env.systemNamespace });
  return list.items.map((secret) => secret.metadata?.name ?? "");
}

function kubeconfig(cluster: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    `clusters: [{name: c, cluster: {server: "${tlsServer.url}", ${cluster}}}]`,
    'users: [{name: u, user: {token: "kubeconfig-token"}}]',
    "contexts: [{name: x, context: {cluster: c, user: u}}]",
    "current-context: x",
  ].join("\n");
}

describe("POST /api/v1/clusters with credentialRef", () => {
  it("refuses svc's admin Secret with 400 naming credentialRef.name: nothing stored, no connection made", async () => {
    const reply = await register({
      id: "leak",
      displayName: "Leak",
      apiServer: tlsServer.url,
      credentialRef: { name: "svc-admin", key: "admin-password" },
    });
    expect(reply.status, reply.text).toBe(400);
    expect(errorOf(reply)).toMatch(
      /^credentialRef\.name: Secret svc-admin is not a credential of cluster leak/,
    );
    expect(reply.text).not.toContain(ADMIN_PASSWORD);
    expect(await connectionNames()).not.toContain("leak");
    expect(env.registry.get("leak")).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(tlsServer.requests).toEqual([]);
    expect(tlsServer.tlsFailures).toBe(0);
  });

  it("accepts a Secret labelled for the cluster, and refuses one labelled for another or missing", async () => {
    await env.kc.makeApiClient(CoreV1Api).createNamespacedSecret({
      namespace: env.systemNamespace,
      body: {
        metadata: { name: "team-east", labels: { "svc.io/cluster-credential": "east" } },
        stringData: { token: "east-token", "ca.crt": Buffer.from(caData, "base64").toString() },
      },
    });
    const body = {
      displayName: "East",
      apiServer: tlsServer.url,
      credentialRef: { name: "team-east", key: "token" },
    };
    const other = await register({ id: "west", ...body });
    expect(other.status, other.text).toBe(400);
    expect(errorOf(other)).toMatch(/^credentialRef\.name: .*svc\.io\/cluster-credential=west/);
    const missing = await register({ id: "east", ...body, credentialRef: { name: "absent", key: "token" } });
    expect(missing.status, missing.text).toBe(400);
    expect(errorOf(missing)).toMatch(/^credentialRef\.name: no Secret absent/);
    expect(await connectionNames()).toEqual([]);
    const created = await register({ id: "east", ...body });
    expect(created.status, created.text).toBe(201);
  });

  it("labels the Secret it makes for inline credentials as that cluster's credential", async () => {
    const reply = await register({
      id: "inline",
      displayName: "Inline",
      apiServer: tlsServer.url,
      token: "inline-token",
      caData,
    });
    expect(reply.status, reply.text).toBe(201);
    const secret = await env.kc
      .makeApiClient(CoreV1Api)
      .readNamespacedSecret({ namespace: env.systemNamespace, name: "svc-cluster-inline" });
    expect(secret.metadata?.labels?.["svc.io/cluster-credential"]).toBe("inline");
  });
});

describe("POST /api/v1/clusters and the transport to the API server", () => {
  it("refuses http:// without insecure.allowPlaintext, and accepts it with one, audited with its reason", async () => {
    const body = { id: "plain", displayName: "Plain", apiServer: plainServer.url, token: "plain-token" };
    const refused = await register(body);
    expect(refused.status, refused.text).toBe(400);
    expect(errorOf(refused)).toMatch(/^apiServer: http:\/\/ .*insecure\.allowPlaintext/);
    expect(await connectionNames()).not.toContain("plain");
    expect(await secretNames()).not.toContain("svc-cluster-plain");
    expect(plainServer.requests).toEqual([]);

    const reason = "kube-apiserver on loopback in a lab";
    const allowed = await register({ ...body, insecure: { allowPlaintext: true, reason } });
    expect(allowed.status, allowed.text).toBe(201);
    const audit = await env.api.call("GET", "/api/v1/audit?resource=cluster", admin());
    const events = audit.json as { resourceId?: string; details?: unknown }[];
    const created = events.find((event) => JSON.stringify(event).includes('"plain"'));
    expect(JSON.stringify(created?.details)).toContain(JSON.stringify({ allowPlaintext: true, reason }));
  });

  it("refuses a kubeconfig with insecure-skip-tls-verify or proxy-url, or without a CA, unless allowed", async () => {
    const cases: [string, string, RegExp][] = [
      ["skip", "insecure-skip-tls-verify: true", /insecure-skip-tls-verify is set.*insecure\.skipTLSVerify/],
      [
        "proxy",
        `certificate-authority-data: "${caData}", proxy-url: "${plainServer.url}"`,
        /proxy-url.*insecure\.allowProxy/,
      ],
      ["no-ca", "tls-server-name: localhost", /no CA certificate.*trustSystemCAs/],
    ];
    for (const [id, cluster, message] of cases) {
      const reply = await register({
        id,
        displayName: id,
        apiServer: tlsServer.url,
        kubeconfig: kubeconfig(cluster),
      });
      expect(reply.status, `${id}: ${reply.text}`).toBe(400);
      expect(errorOf(reply)).toMatch(/^kubeconfig: /);
      expect(errorOf(reply)).toMatch(message);
    }
    expect(await connectionNames()).not.toContain("skip");
    const allowed = await register({
      id: "skip",
      displayName: "skip",
      apiServer: tlsServer.url,
      kubeconfig: kubeconfig("insecure-skip-tls-verify: true"),
      insecure: { skipTLSVerify: true, reason: "lab cluster with a self-signed certificate" },
    });
    expect(allowed.status, allowed.text).toBe(201);
  });

  it("refuses a token without caData unless trustSystemCAs says to trust public CAs", async () => {
    const body = { id: "public", displayName: "Public", apiServer: tlsServer.url, token: "public-token" };
    const refused = await register(body);
    expect(refused.status, refused.text).toBe(400);
    expect(errorOf(refused)).toMatch(/^caData: no CA certificate.*trustSystemCAs: true/);
    const allowed = await register({ ...body, trustSystemCAs: true });
    expect(allowed.status, allowed.text).toBe(201);
  });
});

// Cluster credentials as applied with kubectl (no API in between): the registry reads only
// Secrets made for the cluster, sends nothing over plaintext or an unverified TLS connection
// unless the connection says so explicitly, and its status says why. Each API server here is
// a loopback server of the test's own that records the Authorization header of every request
// reaching it.
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getCACertificates, setDefaultCACertificates } from "node:tls";
import { CoreV1Api } from "@kubernetes/client-node";
import { ClusterRegistry, installCrds } from "@svc/kube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { createCertificateAuthority, issueServingCertificate } from "@svc/localkube";
import { startRecordingServer, type RecordingServer } from "./support/recording-server.ts";
import { registerCluster, settledIn } from "./support/registry.ts";

const hub = testKubeConfig();
const ADMIN_PASSWORD = "admin-password-never-sent";
let dir: string;
let systemNamespace: string;
let registry: ClusterRegistry;
/** HTTPS with a certificate of the "public" CA: one the process trusts by default, as a public CA. */
let publicServer: RecordingServer;
/** HTTPS with a certificate of the cluster's own CA (clusterCa). */
let clusterServer: RecordingServer;
let plainServer: RecordingServer;
let clusterCa: string;
let otherCa: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-registry-credentials-"));
  const [publicAuthority, clusterAuthority, otherAuthority] = await Promise.all(
    ["public", "cluster", "other"].map(async (name) => {
      await mkdir(join(dir, name));
      return createCertificateAuthority(join(dir, name));
    }),
  );
  if (publicAuthority === undefined || clusterAuthority === undefined || otherAuthority === undefined)
    throw new Error("certificate authorities missing");
  // An attacker's server with a publicly trusted certificate (any public CA signs one for a
  // domain they own): the public CA is added to this process's default trust store.
  const publicCa = await readFile(publicAuthority.certPath, "utf8");
  setDefaultCACertificates([...getCACertificates("default"), publicCa]);
  clusterCa = await readFile(clusterAuthority.certPath, "utf8");
  otherCa = await readFile(otherAuthority.certPath, "utf8");
  const serving = (authority: typeof publicAuthority, name: string) =>
    issueServingCertificate(authority, dir, name, ["127.0.0.1"], ["localhost"]);
  [publicServer, clusterServer, plainServer] = await Promise.all([
    serving(publicAuthority, "public-server").then(startRecordingServer),
    serving(clusterAuthority, "cluster-server").then(startRecordingServer),
    startRecordingServer(),
  ]);
  await installCrds(hub);
  systemNamespace = await testNamespace(hub, "registry-credentials");
  registry = await ClusterRegistry.start({
    hubKubeConfig: hub,
    systemNamespace,
    localClusterId: "hub",
    probeIntervalMs: 500,
  });
}, 120_000);

afterAll(async () => {
  await registry.close();
  await Promise.all([publicServer.close(), clusterServer.close(), plainServer.close()]);
  await rm(dir, { recursive: true, force: true });
});

async function createSecret(name: string, data: Record<string, string>, labels?: Record<string, string>) {
  await hub.makeApiClient(CoreV1Api).createNamespacedSecret({
    namespace: systemNamespace,
    body: { metadata: { name, ...(labels === undefined ? {} : { labels }) }, stringData: data },
  });
}

/** The Authorization headers `server` received so far. */
const authorizations = (server: RecordingServer) => server.requests.map((r) => r.authorization ?? "");

function kubeconfig(cluster: string, token: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    `clusters: [{name: c, cluster: {${cluster}}}]`,
    `users: [{name: u, user: {token: "${token}"}}]`,
    "contexts: [{name: x, context: {cluster: c, user: u}}]",
    "current-context: x",
  ].join("\n");
}

const caData = (pem: string) => Buffer.from(pem).toString("base64");

describe("a ClusterConnection applied with kubectl, naming a Secret", () => {
  it("never reads svc's admin Secret: Error naming the rule, and its value reaches no server", async () => {
    await createSecret("svc-admin", { "admin-password": ADMIN_PASSWORD });
    await registerCluster(hub, systemNamespace, "leak", {
      apiServer: publicServer.url,
      authMethod: "serviceaccount",
      credentialRef: { name: "svc-admin", key: "admin-password" },
      trustSystemCAs: true,
    });
    const cluster = await settledIn(registry, "leak", "error");
    // Long enough for a request that was going to be made to have been made (probe: 500 ms).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(authorizations(publicServer).filter((a) => a.includes(ADMIN_PASSWORD))).toEqual([]);
    expect(cluster.health().message).toMatch(
      /Secret svc-admin is not a credential of cluster leak: .*svc-cluster-leak.*svc\.io\/cluster-credential=leak/,
    );
    expect(cluster.health().message).not.toContain(ADMIN_PASSWORD);
  });

  it("never sends another cluster's credential: a Secret labelled for one cluster serves that one only", async () => {
    const token = "west-token-for-west-only";
    await createSecret("west-creds", { token, "ca.crt": clusterCa }, { "svc.io/cluster-credential": "west" });
    const ref = { name: "west-creds", key: "token" };
    await registerCluster(hub, systemNamespace, "not-west", {
      apiServer: clusterServer.url,
      credentialRef: ref,
    });
    await settledIn(registry, "not-west", "error", /not a credential of cluster not-west/);
    await registerCluster(hub, systemNamespace, "west", { apiServer: clusterServer.url, credentialRef: ref });
    await settledIn(registry, "west", "error", /may not list/);
    // The label lets west's own connection use it.
    expect(authorizations(clusterServer)).toContain(`Bearer ${token}`);
  });
});

describe("the connection to the API server", () => {
  it("sends no Authorization header to a server whose certificate the given CA did not sign", async () => {
    const token = "token-for-a-verified-server";
    await registerCluster(
      hub,
      systemNamespace,
      "wrong-ca",
      { apiServer: clusterServer.url },
      { token, "ca.crt": otherCa },
    );
    const cluster = await settledIn(registry, "wrong-ca", "error", /TLS/);
    expect(cluster.health().message).toMatch(/certificate/i);
    expect(clusterServer.tlsFailures).toBeGreaterThan(0);
    expect(authorizations(clusterServer)).not.toContain(`Bearer ${token}`);
  });

  it("trusts public CAs only when the connection says so: without a CA, nothing is sent", async () => {
    const token = "token-without-a-ca";
    await registerCluster(hub, systemNamespace, "no-ca", { apiServer: publicServer.url }, { token });
    const cluster = await settledIn(registry, "no-ca", "error", /CA/);
    expect(cluster.health().message).toMatch(/trustSystemCAs/);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(authorizations(publicServer)).not.toContain(`Bearer ${token}`);

    const chosen = "token-for-a-publicly-trusted-server";
    await registerCluster(
      hub,
      systemNamespace,
      "public-ca",
      { apiServer: publicServer.url, trustSystemCAs: true },
      { token: chosen },
    );
    await settledIn(registry, "public-ca", "error", /may not list/);
    expect(authorizations(publicServer)).toContain(`Bearer ${chosen}`);
  });

  it("refuses a kubeconfig's insecure-skip-tls-verify and proxy-url unless the connection allows them", async () => {
    const skipping = "token-behind-skip-tls-verify";
    await registerCluster(
      hub,
      systemNamespace,
      "skip-verify",
      { apiServer: publicServer.url },
      { kubeconfig: kubeconfig(`server: "${publicServer.url}", insecure-skip-tls-verify: true`, skipping) },
    );
    await settledIn(registry, "skip-verify", "error", /insecure-skip-tls-verify.*insecure\.skipTLSVerify/);
    const proxied = "token-through-a-proxy";
    await registerCluster(
      hub,
      systemNamespace,
      "proxied",
      { apiServer: clusterServer.url },
      {
        kubeconfig: kubeconfig(
          `server: "${clusterServer.url}", certificate-authority-data: "${caData(clusterCa)}", proxy-url: "${plainServer.url}"`,
          proxied,
        ),
      },
    );
    await settledIn(registry, "proxied", "error", /proxy-url.*insecure\.allowProxy/);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const server of [publicServer, clusterServer, plainServer])
      expect(authorizations(server).filter((a) => a.includes(skipping) || a.includes(proxied))).toEqual([]);

    const allowed = "token-with-skip-tls-verify-allowed";
    await registerCluster(
      hub,
      systemNamespace,
      "skip-allowed",
      {
        apiServer: clusterServer.url,
        insecure: { skipTLSVerify: true, reason: "lab cluster with a self-signed certificate" },
      },
      { kubeconfig: kubeconfig(`server: "${clusterServer.url}", insecure-skip-tls-verify: true`, allowed) },
    );
    await settledIn(registry, "skip-allowed", "error", /may not list/);
    expect(authorizations(clusterServer)).toContain(`Bearer ${allowed}`);
  });

  it("refuses an http:// API server unless the connection allows plaintext", async () => {
    const token = "token-that-would-travel-in-clear";
    await registerCluster(hub, systemNamespace, "plain", { apiServer: plainServer.url }, { token });
    await settledIn(registry, "plain", "error", /http:\/\/.*insecure\.allowPlaintext/);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(authorizations(plainServer)).not.toContain(`Bearer ${token}`);

    const allowed = "token-in-clear-on-purpose";
    await registerCluster(
      hub,
      systemNamespace,
      "plain-allowed",
      {
        apiServer: plainServer.url,
        insecure: { allowPlaintext: true, reason: "kube-apiserver on loopback in a lab" },
      },
      { token: allowed },
    );
    await settledIn(registry, "plain-allowed", "error", /may not list/);
    expect(authorizations(plainServer)).toContain(`Bearer ${allowed}`);
  });
});

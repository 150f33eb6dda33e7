// The rules for cluster credentials: which Secret a connection may read, and how the API
// server may be reached with them (issue 37, "Cluster credentials").
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import {
  credentialSecretProblem,
  kubeconfigTrust,
  transportProblems,
  validateClusterConnectionSpec,
  validateClusterRegistration,
  type FieldError,
  type ServerTrust,
} from "../../src/index.ts";

const verified: ServerTrust = { ca: true, skipTLSVerify: false, proxy: false };
const https = { apiServer: "https://10.0.0.1:6443" };

function kubeconfig(cluster: Record<string, unknown>) {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    "current-context": "east",
    contexts: [{ name: "east", context: { cluster: "c", user: "u" } }],
    clusters: [{ name: "c", cluster: { server: "https://10.0.0.1:6443", ...cluster } }],
    users: [{ name: "u", user: { token: "t" } }],
  });
}

function errors(input: Record<string, unknown>): FieldError[] {
  const result = validateClusterRegistration({ id: "east", displayName: "East", ...input });
  return result.ok ? [] : result.errors;
}

describe("credentialSecretProblem", () => {
  it("allows the cluster's default Secret and a Secret labelled for it, and nothing else", () => {
    expect(credentialSecretProblem("east", "svc-cluster-east", undefined)).toBeUndefined();
    expect(credentialSecretProblem("east", "team", { "svc.io/cluster-credential": "east" })).toBeUndefined();
    expect(credentialSecretProblem("east", "svc-admin", {})).toBe(
      "Secret svc-admin is not a credential of cluster east: name it svc-cluster-east, " +
        "or label it svc.io/cluster-credential=east",
    );
    // Another cluster's credential, by its default name or its label, is not this cluster's.
    expect(credentialSecretProblem("east", "svc-cluster-west", { "svc.io/cluster": "west" })).toBeDefined();
    expect(credentialSecretProblem("east", "team", { "svc.io/cluster-credential": "west" })).toBeDefined();
    expect(credentialSecretProblem("east", "team", { "svc.io/cluster-credential": "true" })).toBeDefined();
  });
});

describe("transportProblems", () => {
  const messages = (spec: Record<string, unknown>, trust: ServerTrust) =>
    transportProblems({ ...https, ...spec }, trust).map((p) => `${p.subject}: ${p.message}`);

  it("accepts https verified against the CA given", () => {
    expect(messages({}, verified)).toEqual([]);
  });

  it("refuses http:// unless insecure.allowPlaintext, whatever the credentials", () => {
    const plain = { apiServer: "http://10.0.0.1:8080" };
    expect(messages(plain, verified)).toEqual([
      "apiServer: http:// would send the credentials unencrypted: use https://, or set insecure.allowPlaintext (with insecure.reason)",
    ]);
    expect(messages({ ...plain, insecure: { allowPlaintext: true, reason: "lab" } }, verified)).toEqual([]);
    // A CA means nothing over http: none is needed.
    const noCa = { ...verified, ca: false };
    expect(messages({ ...plain, insecure: { allowPlaintext: true, reason: "lab" } }, noCa)).toEqual([]);
  });

  it("refuses skipping verification and a proxy unless each is allowed", () => {
    const skipping = { ...verified, skipTLSVerify: true };
    expect(messages({}, skipping)).toEqual([
      expect.stringMatching(/insecure-skip-tls-verify.*skipTLSVerify/),
    ]);
    expect(messages({ insecure: { skipTLSVerify: true, reason: "r" } }, skipping)).toEqual([]);
    // allowing one weakening allows no other
    expect(messages({ insecure: { allowProxy: true, reason: "r" } }, skipping)).toHaveLength(1);
    const proxied = { ...verified, proxy: true };
    expect(messages({}, proxied)).toEqual([expect.stringMatching(/proxy-url.*allowProxy/)]);
    expect(messages({ insecure: { allowProxy: true, reason: "r" } }, proxied)).toEqual([]);
  });

  it("trusts the system's public CAs only when trustSystemCAs says so", () => {
    const noCa = { ...verified, ca: false };
    expect(messages({}, noCa)).toEqual([expect.stringMatching(/no CA certificate.*trustSystemCAs: true/)]);
    expect(messages({ trustSystemCAs: true }, noCa)).toEqual([]);
    // Skipping verification, allowed, needs no CA either.
    expect(
      messages({ insecure: { skipTLSVerify: true, reason: "r" } }, { ...noCa, skipTLSVerify: true }),
    ).toEqual([]);
  });
});

describe("kubeconfigTrust", () => {
  it("reads the CA, insecure-skip-tls-verify and proxy-url of the current context's cluster", () => {
    expect(kubeconfigTrust(kubeconfig({ "certificate-authority-data": "QQ==" }))).toEqual(verified);
    expect(kubeconfigTrust(kubeconfig({}))).toEqual({ ...verified, ca: false });
    expect(kubeconfigTrust(kubeconfig({ "insecure-skip-tls-verify": true }))).toMatchObject({
      skipTLSVerify: true,
    });
    expect(kubeconfigTrust(kubeconfig({ "insecure-skip-tls-verify": false }))).toMatchObject({
      skipTLSVerify: false,
    });
    expect(kubeconfigTrust(kubeconfig({ "proxy-url": "socks5://10.0.0.9:1080" }))).toMatchObject({
      proxy: true,
    });
    expect(kubeconfigTrust(kubeconfig({ "insecure-skip-tls-verify": "true" }))).toMatchObject({
      skipTLSVerify: true,
    });
    expect(kubeconfigTrust(kubeconfig({ "proxy-url": "" }))).toMatchObject({ proxy: false });
    expect(kubeconfigTrust("clusters: []")).toBeUndefined();
  });
});

describe("validateClusterRegistration and the transport", () => {
  const reason = "lab cluster";

  it("names apiServer for http://, kubeconfig for its TLS settings, caData for a token without a CA", () => {
    expect(errors({ apiServer: "http://10.0.0.1:8080" })).toEqual([
      { field: "apiServer", message: expect.stringMatching(/^http:\/\/ would send/) as string },
    ]);
    expect(errors({ ...https, kubeconfig: kubeconfig({ "insecure-skip-tls-verify": true }) })).toEqual([
      { field: "kubeconfig", message: expect.stringMatching(/^insecure-skip-tls-verify is set/) as string },
    ]);
    expect(
      errors({
        ...https,
        kubeconfig: kubeconfig({ "certificate-authority-data": "QQ==", "proxy-url": "http://p" }),
      }),
    ).toEqual([{ field: "kubeconfig", message: expect.stringMatching(/^proxy-url is set/) as string }]);
    expect(errors({ ...https, token: "t" })).toEqual([
      { field: "caData", message: expect.stringMatching(/^no CA certificate/) as string },
    ]);
  });

  it("accepts each with its explicit option, which needs a reason", () => {
    expect(
      errors({ apiServer: "http://10.0.0.1:8080", token: "t", insecure: { allowPlaintext: true, reason } }),
    ).toEqual([]);
    expect(
      errors({
        ...https,
        kubeconfig: kubeconfig({ "insecure-skip-tls-verify": true }),
        insecure: { skipTLSVerify: true, reason },
      }),
    ).toEqual([]);
    expect(errors({ ...https, token: "t", trustSystemCAs: true })).toEqual([]);
    expect(
      errors({ ...https, token: "t", trustSystemCAs: true, insecure: { allowPlaintext: true } }),
    ).toEqual([expect.objectContaining({ field: "insecure.reason" })]);
    expect(errors({ ...https, token: "t", trustSystemCAs: true, insecure: { reason: "" } })).toEqual([
      expect.objectContaining({ field: "insecure.reason" }),
    ]);
  });

  it("leaves a referenced Secret's TLS to the registry, which reads it, but not http://", () => {
    const credentialRef = { name: "svc-cluster-east", key: "token" };
    expect(errors({ ...https, credentialRef })).toEqual([]);
    expect(errors({ apiServer: "http://10.0.0.1:8080", credentialRef })).toEqual([
      expect.objectContaining({ field: "apiServer" }),
    ]);
  });

  it("keeps the spec's own validation as the CRD has it: insecure and trustSystemCAs are spec fields", () => {
    const spec = { displayName: "x", ...https, trustSystemCAs: true, insecure: { allowProxy: true, reason } };
    expect(validateClusterConnectionSpec(spec).ok).toBe(true);
    expect(
      validateClusterConnectionSpec({ ...spec, insecure: { allowProxy: true, why: "x", reason } }).ok,
    ).toBe(false);
  });
});

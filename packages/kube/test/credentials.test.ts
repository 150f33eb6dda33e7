import { describe, expect, it } from "vitest";
import { clusterCredentials, connectionFingerprint } from "../src/registry/credentials.ts";
import type { ClusterConnectionResource, SecretJson } from "../src/registry/types.ts";

const SECRET_TOKEN = "s3cr3t-token-value";

function connection(
  authMethod: "kubeconfig" | "serviceaccount" | "oidc",
  key = "k",
): ClusterConnectionResource {
  return {
    apiVersion: "svc.io/v1alpha1",
    kind: "ClusterConnection",
    metadata: { name: "east", namespace: "svc-system" },
    spec: {
      displayName: "East",
      apiServer: "https://east.example:6443",
      authMethod,
      credentialRef: { name: "svc-cluster-east", key },
    },
  };
}

function secret(
  data: Record<string, string>,
  name = "svc-cluster-east",
  labels?: Record<string, string>,
): SecretJson {
  return {
    metadata: { name, ...(labels === undefined ? {} : { labels }) },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")])),
  };
}

function kubeconfig(
  user: string,
  cluster = "server: https://elsewhere:443, certificate-authority-data: QQ==",
): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    `clusters: [{name: c, cluster: {${cluster}}}]`,
    `users: [{name: u, user: {${user}}}]`,
    "contexts: [{name: x, context: {cluster: c, user: u}}]",
    "current-context: x",
  ].join("\n");
}

function message(result: ReturnType<typeof clusterCredentials>): string {
  if (result.ok) throw new Error("expected a refusal");
  return result.message;
}

describe("clusterCredentials", () => {
  it("uses a kubeconfig's current context, at the connection's apiServer", () => {
    const result = clusterCredentials(
      connection("kubeconfig"),
      secret({ k: kubeconfig(`token: ${SECRET_TOKEN}`) }),
    );
    if (!result.ok) throw new Error(result.message);
    expect(result.kubeConfig.getCurrentCluster()?.server).toBe("https://east.example:6443");
    expect(result.kubeConfig.getCurrentUser()?.token).toBe(SECRET_TOKEN);
  });

  it("refuses exec plugins, auth providers and file references, naming the Secret and key", () => {
    const exec = clusterCredentials(
      connection("kubeconfig"),
      secret({ k: kubeconfig("exec: {command: /bin/sh}") }),
    );
    expect(message(exec)).toBe(
      "the kubeconfig in Secret svc-cluster-east key k uses an exec credential plugin, which is not run: put a token or client certificate in it",
    );
    const provider = clusterCredentials(
      connection("kubeconfig"),
      secret({ k: kubeconfig("auth-provider: {name: gcp}") }),
    );
    expect(message(provider)).toMatch(/auth-provider/);
    const tokenFile = clusterCredentials(
      connection("kubeconfig"),
      secret({ k: kubeconfig("token-file: /var/run/secrets/token") }),
    );
    expect(message(tokenFile)).toMatch(/refers to a file \(token-file\)/);
    const caFile = clusterCredentials(
      connection("kubeconfig"),
      secret({
        k: kubeconfig(`token: ${SECRET_TOKEN}`, "server: https://x, certificate-authority: /etc/ca.crt"),
      }),
    );
    expect(message(caFile)).toMatch(/certificate-authority/);
  });

  it("never quotes the Secret's content in a message", () => {
    const broken = clusterCredentials(
      connection("kubeconfig"),
      secret({ k: `users: [{token: ${SECRET_TOKEN}` }),
    );
    expect(message(broken)).toBe("the kubeconfig in Secret svc-cluster-east key k is not valid YAML");
    const noContext = clusterCredentials(connection("kubeconfig"), secret({ k: `token: ${SECRET_TOKEN}` }));
    expect(message(noContext)).not.toContain(SECRET_TOKEN);
  });

  it.each(["serviceaccount", "oidc"] as const)(
    "sends a %s token as bearer, trusting ca.crt when the Secret has one",
    (method) => {
      const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
      const result = clusterCredentials(
        connection(method, "token"),
        secret({ token: `${SECRET_TOKEN}\n`, "ca.crt": pem }),
      );
      if (!result.ok) throw new Error(result.message);
      expect(result.kubeConfig.getCurrentUser()?.token).toBe(SECRET_TOKEN);
      expect(Buffer.from(result.kubeConfig.getCurrentCluster()?.caData ?? "", "base64").toString()).toBe(pem);
      const withoutCa = clusterCredentials(connection(method, "token"), secret({ token: SECRET_TOKEN }));
      expect(message(withoutCa)).toMatch(
        /^Secret svc-cluster-east: no CA certificate .*trustSystemCAs: true/,
      );
      const publicCas = connection(method, "token");
      publicCas.spec.trustSystemCAs = true;
      const trusted = clusterCredentials(publicCas, secret({ token: SECRET_TOKEN }));
      expect(trusted.ok && trusted.kubeConfig.getCurrentCluster()?.caData).toBeUndefined();
      expect(trusted.ok && trusted.kubeConfig.getCurrentCluster()?.skipTLSVerify).toBe(false);
    },
  );

  it("explains a missing Secret, key or credentialRef", () => {
    expect(message(clusterCredentials(connection("oidc"), undefined))).toBe(
      "no credentials: Secret svc-cluster-east (key k) not found in svc-system",
    );
    expect(message(clusterCredentials(connection("oidc", "token"), secret({ other: "x" })))).toBe(
      "Secret svc-cluster-east has no key token",
    );
    const withoutRef = connection("serviceaccount");
    delete withoutRef.spec.credentialRef;
    expect(message(clusterCredentials(withoutRef, undefined))).toMatch(/credentialRef is required/);
  });
});

describe("clusterCredentials and the credential Secret", () => {
  it("reads only svc-cluster-<id> or a Secret labelled for this cluster, never quoting another", () => {
    const ref = (name: string) => {
      const c = connection("serviceaccount", "token");
      c.spec.credentialRef = { name, key: "token" };
      return c;
    };
    const data = { token: SECRET_TOKEN, "ca.crt": "pem" };
    expect(message(clusterCredentials(ref("svc-admin"), secret(data, "svc-admin")))).toBe(
      "spec.credentialRef: Secret svc-admin is not a credential of cluster east: name it svc-cluster-east, " +
        "or label it svc.io/cluster-credential=east",
    );
    const forWest = secret(data, "shared", { "svc.io/cluster-credential": "west" });
    expect(message(clusterCredentials(ref("shared"), forWest))).toMatch(/not a credential of cluster east/);
    const forEast = secret(data, "shared", { "svc.io/cluster-credential": "east" });
    expect(clusterCredentials(ref("shared"), forEast).ok).toBe(true);
    expect(clusterCredentials(ref("svc-cluster-east"), secret(data)).ok).toBe(true);
  });
});

describe("clusterCredentials and the transport", () => {
  const withSpec = (method: "kubeconfig" | "serviceaccount", patch: Record<string, unknown>) => {
    const c = connection(method, method === "kubeconfig" ? "k" : "token");
    c.spec = { ...c.spec, ...patch };
    return c;
  };
  const token = secret({ token: SECRET_TOKEN, "ca.crt": "pem" });

  it("refuses http:// before reading the Secret's value, unless insecure.allowPlaintext", () => {
    const plain = withSpec("serviceaccount", { apiServer: "http://east.example:8080" });
    expect(message(clusterCredentials(plain, token))).toMatch(/^spec\.apiServer: http:\/\/ .*allowPlaintext/);
    const allowed = withSpec("serviceaccount", {
      apiServer: "http://east.example:8080",
      insecure: { allowPlaintext: true, reason: "lab" },
    });
    const result = clusterCredentials(allowed, token);
    if (!result.ok) throw new Error(result.message);
    expect(result.kubeConfig.getCurrentCluster()?.server).toBe("http://east.example:8080");
  });

  it("refuses a kubeconfig's insecure-skip-tls-verify, proxy-url or missing CA unless the spec allows them", () => {
    const cases: [string, RegExp, Record<string, unknown>][] = [
      [
        "insecure-skip-tls-verify: true",
        /insecure-skip-tls-verify is set/,
        { insecure: { skipTLSVerify: true, reason: "r" } },
      ],
      [
        "certificate-authority-data: QQ==, proxy-url: 'http://proxy:3128'",
        /proxy-url is set/,
        { insecure: { allowProxy: true, reason: "r" } },
      ],
      ["tls-server-name: east", /no CA certificate/, { trustSystemCAs: true }],
    ];
    for (const [cluster, refusal, allowance] of cases) {
      const file = secret({ k: kubeconfig(`token: ${SECRET_TOKEN}`, `server: https://x, ${cluster}`) });
      const refused = message(clusterCredentials(withSpec("kubeconfig", {}), file));
      expect(refused).toMatch(/^the kubeconfig in Secret svc-cluster-east key k: /);
      expect(refused).toMatch(refusal);
      expect(refused).not.toContain(SECRET_TOKEN);
      expect(clusterCredentials(withSpec("kubeconfig", allowance), file).ok).toBe(true);
    }
  });
});

describe("connectionFingerprint", () => {
  const base = connection("serviceaccount", "token");
  const creds = secret({ token: SECRET_TOKEN });
  const fingerprint = connectionFingerprint(false, base, creds);

  it("changes with what the connection depends on: address, method, namespaces, the Secret's key or CA", () => {
    const changed = [
      { ...base, spec: { ...base.spec, apiServer: "https://west.example:6443" } },
      { ...base, spec: { ...base.spec, authMethod: "oidc" as const } },
      { ...base, spec: { ...base.spec, namespaces: ["shop"] } },
    ].map((c) => connectionFingerprint(false, c, creds));
    changed.push(connectionFingerprint(false, base, secret({ token: "rotated" })));
    changed.push(connectionFingerprint(false, base, secret({ token: SECRET_TOKEN, "ca.crt": "pem" })));
    changed.push(connectionFingerprint(false, base, undefined));
    changed.push(
      connectionFingerprint(false, { ...base, spec: { ...base.spec, trustSystemCAs: true } }, creds),
    );
    changed.push(
      connectionFingerprint(
        false,
        { ...base, spec: { ...base.spec, insecure: { allowProxy: true, reason: "r" } } },
        creds,
      ),
    );
    changed.push(
      connectionFingerprint(
        false,
        base,
        secret({ token: SECRET_TOKEN }, "svc-cluster-east", { "svc.io/cluster-credential": "east" }),
      ),
    );
    expect(new Set([fingerprint, ...changed]).size).toBe(changed.length + 1);
  });

  it("stays the same for what does not need a reconnect: display name, labels, status, other Secret keys", () => {
    const same = {
      ...base,
      spec: { ...base.spec, displayName: "renamed", labels: { env: "prod" }, namespaces: [] },
    };
    const withStatus = { ...base, status: { phase: "Connected" as const } };
    expect(connectionFingerprint(false, same, creds)).toBe(fingerprint);
    expect(connectionFingerprint(false, withStatus, secret({ token: SECRET_TOKEN, unrelated: "x" }))).toBe(
      fingerprint,
    );
    expect(
      connectionFingerprint(false, { ...base, spec: { ...base.spec, authMethod: undefined } }, creds),
    ).toBe(connectionFingerprint(false, base, creds));
  });

  it("ignores the local cluster's address and credentials, which are the process's own", () => {
    const local = connectionFingerprint(true, undefined, undefined);
    expect(connectionFingerprint(true, base, creds)).toBe(local);
    expect(
      connectionFingerprint(true, { ...base, spec: { ...base.spec, namespaces: ["shop"] } }, creds),
    ).not.toBe(local);
  });
});

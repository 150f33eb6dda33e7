import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { kubeconfigProblem } from "../../src/index.ts";

function kubeconfig(user: Record<string, unknown>, cluster: Record<string, unknown> = {}) {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    "current-context": "east",
    contexts: [{ name: "east", context: { cluster: "c", user: "u" } }],
    clusters: [{ name: "c", cluster: { server: "https://10.0.0.1:6443", ...cluster } }],
    users: [{ name: "u", user }],
  });
}

describe("kubeconfigProblem", () => {
  it("accepts inline credentials", () => {
    expect(
      kubeconfigProblem(kubeconfig({ token: "t" }, { "certificate-authority-data": "QQ==" })),
    ).toBeUndefined();
    expect(
      kubeconfigProblem(kubeconfig({ "client-certificate-data": "QQ==", "client-key-data": "QQ==" })),
    ).toBe(undefined);
  });

  it("refuses what would run a command or read a file of the svc server", () => {
    expect(kubeconfigProblem(kubeconfig({ exec: { command: "aws" } }))).toBe(
      "uses an exec credential plugin, which is not run: put a token or client certificate in it",
    );
    expect(kubeconfigProblem(kubeconfig({ "auth-provider": { name: "gcp" } }))).toBe(
      "uses an auth-provider, which is not run: put a token or client certificate in it",
    );
    for (const key of ["token-file", "client-certificate", "client-key"]) {
      expect(kubeconfigProblem(kubeconfig({ [key]: "/etc/passwd" }))).toBe(
        `refers to a file (${key}): put the data inline (${key}-data or token)`,
      );
    }
    expect(kubeconfigProblem(kubeconfig({ token: "t" }, { "certificate-authority": "/ca.pem" }))).toBe(
      "refers to a file (certificate-authority): put the data inline (certificate-authority-data or token)",
    );
  });

  it("needs a current context that names a cluster of the file", () => {
    expect(kubeconfigProblem("clusters: []\nusers: []")).toBe("has no current context");
    const noCluster = kubeconfig({ token: "t" }).replace("cluster: c", "cluster: elsewhere");
    expect(kubeconfigProblem(noCluster)).toBe("names in its current context no cluster of the file");
  });

  it("never quotes the file, even when it is not YAML", () => {
    const secret = "users: [{name: u, user: {token: sekrit}";
    expect(kubeconfigProblem(secret)).toBe("is not valid YAML");
    expect(kubeconfigProblem("just text")).toBe("is not a kubeconfig");
  });
});

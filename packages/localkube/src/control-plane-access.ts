// How a local control plane is reached: a probe of its components' https endpoints (before the
// cluster's CA is known), and the kubeconfig files written for its users.
import { request } from "node:https";

/** GET an https URL on loopback, trusting any certificate (used only before the CA is known). */
export function probe(url: string, token?: string): Promise<number> {
  return new Promise((done) => {
    const req = request(
      url,
      {
        rejectUnauthorized: false,
        timeout: 2000,
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        done(res.statusCode ?? 0);
      },
    );
    req.on("error", () => {
      done(0);
    });
    req.on("timeout", () => req.destroy());
    req.end();
  });
}

export type Credentials = { token: string } | { certPath: string; keyPath: string };

export function kubeconfigYaml(server: string, caPem: string, credentials: Credentials): string {
  const ca = Buffer.from(caPem).toString("base64");
  const user =
    "token" in credentials
      ? `{token: "${credentials.token}"}`
      : `{client-certificate: "${credentials.certPath}", client-key: "${credentials.keyPath}"}`;
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: local`,
    `  cluster: {server: "${server}", certificate-authority-data: "${ca}"}`,
    "users:",
    `- name: admin`,
    `  user: ${user}`,
    "contexts:",
    `- name: local`,
    `  context: {cluster: local, user: admin}`,
    "current-context: local",
    "",
  ].join("\n");
}

import { describe, expect, it } from "vitest";
import { validOrThrow } from "@svc/core/schema/field-errors";
import type { Environment } from "@svc/core/schema/settings";
import { configFromEnv as parseResult } from "../src/config.ts";
import { isLoopback, revealsFlags } from "../src/server.ts";
import { kubeconfigConnection, type Kubeconfig } from "../src/kube-connection.ts";

/** The configuration, or an Error naming every bad variable as `svc sidecar` prints them. */
const configFromEnv = (env: Environment) => validOrThrow(parseResult(env));

describe("configFromEnv", () => {
  it("defaults to port 8514 on all interfaces, flags for loopback only, and the in-cluster ServiceAccount", () => {
    expect(configFromEnv({ POD_NAMESPACE: "shop" })).toEqual({
      namespace: "shop",
      port: 8514,
      host: "0.0.0.0",
      remoteReads: false,
      kubeconfigPath: undefined,
      heartbeatMs: 15_000,
      logLevel: "info",
      // Where the operator mounts the pod's labels (a rollout's canary step reads them).
      podLabelsPath: "/etc/svc-flags-podinfo/labels",
    });
  });

  it("reads the port, host, heartbeat and the first KUBECONFIG file", () => {
    expect(
      configFromEnv({
        POD_NAMESPACE: "shop",
        SVC_SIDECAR_PORT: "9000",
        SVC_SIDECAR_HOST: "127.0.0.1",
        SVC_SIDECAR_HEARTBEAT_MS: "500",
        SVC_SIDECAR_REMOTE_READS: "true",
        KUBECONFIG: "/a/config:/b/config",
      }),
    ).toMatchObject({
      port: 9000,
      host: "127.0.0.1",
      remoteReads: true,
      heartbeatMs: 500,
      kubeconfigPath: "/a/config",
    });
  });

  it("takes only loopback peers for the pod's own containers, and guards only the routes that reveal flags", () => {
    for (const peer of ["127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1"])
      expect(isLoopback(peer)).toBe(true);
    for (const peer of ["10.88.0.1", "::ffff:10.0.0.7", "fe80::1", "1.127.0.1", undefined])
      expect(isLoopback(peer)).toBe(false);
    for (const path of [
      "/flags",
      "/flags/a",
      "/flags/a/value",
      "/flags/stream",
      "/ofrep/v1/evaluate/flags",
      "/ofrep/v1/evaluate/flags/a",
    ])
      expect(revealsFlags(path)).toBe(true);
    for (const path of ["/healthz", "/metrics", "/flagsx", "/"]) expect(revealsFlags(path)).toBe(false);
  });

  it("reads the heartbeat with a unit and refuses numbers the API would refuse", () => {
    expect(configFromEnv({ POD_NAMESPACE: "shop", SVC_SIDECAR_HEARTBEAT_MS: "2s" }).heartbeatMs).toBe(2000);
    expect(() => configFromEnv({ POD_NAMESPACE: "shop", SVC_SIDECAR_PORT: "0x1F" })).toThrow(
      'SVC_SIDECAR_PORT: must be a port number between 0 and 65535, got "0x1F"',
    );
    expect(() => configFromEnv({ POD_NAMESPACE: "shop", SVC_SIDECAR_PORT: " 8e3 " })).toThrow(
      /SVC_SIDECAR_PORT/,
    );
    expect(() => configFromEnv({ POD_NAMESPACE: "shop", SVC_LOG_LEVEL: "loud" })).toThrow(/SVC_LOG_LEVEL/);
  });

  it("names every variable that is wrong, in one message", () => {
    expect(() => configFromEnv({ SVC_SIDECAR_PORT: "http", SVC_SIDECAR_HEARTBEAT_MS: "5" })).toThrow(
      /^POD_NAMESPACE: .*; SVC_SIDECAR_PORT: .*; SVC_SIDECAR_HEARTBEAT_MS: /,
    );
  });

  it("names the variable that is wrong", () => {
    expect(() => configFromEnv({})).toThrow(/POD_NAMESPACE/);
    expect(() => configFromEnv({ POD_NAMESPACE: "shop", SVC_SIDECAR_PORT: "http" })).toThrow(
      /SVC_SIDECAR_PORT/,
    );
    expect(() => configFromEnv({ POD_NAMESPACE: "shop", SVC_SIDECAR_PORT: "70000" })).toThrow(
      /SVC_SIDECAR_PORT/,
    );
    expect(() => configFromEnv({ POD_NAMESPACE: "shop", SVC_SIDECAR_HEARTBEAT_MS: "5" })).toThrow(
      /SVC_SIDECAR_HEARTBEAT_MS/,
    );
  });
});

describe("kubeconfigConnection", () => {
  const base: Kubeconfig = {
    "current-context": "dev",
    contexts: [{ name: "dev", context: { cluster: "c", user: "u" } }],
    clusters: [
      { name: "c", cluster: { server: "https://127.0.0.1:6443/", "certificate-authority-data": "Q0E=" } },
    ],
    users: [{ name: "u", user: { token: "secret" } }],
  };
  const files: Record<string, string> = {
    "/certs/client.crt": "CERT",
    "/certs/client.key": "KEY",
    "/t": "tok\n",
  };
  const readFile = (path: string) => Buffer.from(files[path] ?? "");

  it("takes server, CA and token from the current context", () => {
    const connection = kubeconfigConnection(base, readFile);
    expect(connection.server).toBe("https://127.0.0.1:6443");
    expect(connection.ca?.toString()).toBe("CA");
    expect(connection.token()).toBe("secret");
    expect(connection.rejectUnauthorized).toBe(true);
  });

  it("reads client certificates and token files, and honours insecure-skip-tls-verify", () => {
    const connection = kubeconfigConnection(
      {
        ...base,
        clusters: [{ name: "c", cluster: { server: "https://k", "insecure-skip-tls-verify": true } }],
        users: [
          {
            name: "u",
            user: {
              "client-certificate": "/certs/client.crt",
              "client-key": "/certs/client.key",
              tokenFile: "/t",
            },
          },
        ],
      },
      readFile,
    );
    expect(connection.cert?.toString()).toBe("CERT");
    expect(connection.key?.toString()).toBe("KEY");
    expect(connection.token()).toBe("tok");
    expect(connection.rejectUnauthorized).toBe(false);
    expect(connection.ca).toBeUndefined();
  });

  it("re-reads a tokenFile once a minute (rotated tokens), keeping the last token while the file is unreadable", () => {
    const disk = new Map([["/run/token", "first\n"]]);
    let clock = 1_000_000;
    const connection = kubeconfigConnection(
      { ...base, users: [{ name: "u", user: { tokenFile: "/run/token" } }] },
      (path) => {
        const text = disk.get(path);
        if (text === undefined) throw new Error(`ENOENT: ${path}`);
        return Buffer.from(text);
      },
      () => clock,
    );
    expect(connection.token()).toBe("first");
    disk.set("/run/token", "second\n");
    clock += 30_000;
    expect(connection.token()).toBe("first");
    clock += 30_000;
    expect(connection.token()).toBe("second");
    disk.delete("/run/token");
    clock += 60_000;
    expect(connection.token()).toBe("second");
    disk.set("/run/token", "third");
    expect(connection.token()).toBe("third");
  });

  it("refuses exec plugins and unknown contexts with a message", () => {
    expect(() =>
      kubeconfigConnection({ ...base, users: [{ name: "u", user: { exec: { command: "aws" } } }] }, readFile),
    ).toThrow(/token and client-certificate users only/);
    expect(() => kubeconfigConnection({ ...base, "current-context": "prod" }, readFile)).toThrow(
      /no context named "prod"/,
    );
  });
});

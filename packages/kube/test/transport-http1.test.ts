// The cluster transport speaks HTTP/1.1 to an API server that offers HTTP/2 (as kube-apiserver
// does): reads, watches and writes alike. Node's HTTP/2 session ran away under
// load (bench/RESULTS.md, "Operator"), so one multiplexed session must never come back unnoticed,
// e.g. through an undici upgrade that drops the per-request allowH2 option.
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createSecureServer, type Http2SecureServer } from "node:http2";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpMethod, KubeConfig, RequestContext } from "@kubernetes/client-node";
import { fetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClusterTransport } from "../src/registry/transport.ts";
import { createCertificateAuthority, issueServingCertificate } from "@svc/localkube";

let dir: string;
let server: Http2SecureServer;
let kubeConfig: KubeConfig;
/** The HTTP version of every request the server answered, by path. */
const versions: { path: string; version: string }[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-transport-"));
  const ca = await createCertificateAuthority(dir);
  const serving = await issueServingCertificate(ca, dir, "server", ["127.0.0.1"], []);
  server = createSecureServer(
    { cert: await readFile(serving.certPath), key: await readFile(serving.keyPath), allowHTTP1: true },
    (request, response) => {
      const path = request.url.split("?")[0] ?? "";
      versions.push({ path, version: request.httpVersion });
      response.setHeader("content-type", "application/json");
      if (request.url.includes("watch=true")) {
        response.end(`${JSON.stringify({ type: "ADDED", object: { metadata: { name: "a" } } })}\n`);
      } else {
        response.end(JSON.stringify({ kind: "NamespaceList", apiVersion: "v1", metadata: {}, items: [] }));
      }
    },
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [
      {
        name: "local",
        server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
        caData: (await readFile(ca.certPath)).toString("base64"),
      },
    ],
    users: [{ name: "u", token: "t" }],
    contexts: [{ name: "c", cluster: "local", user: "u" }],
    currentContext: "c",
  });
});

afterAll(async () => {
  server.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the cluster transport", () => {
  it("is offered HTTP/2 by the server (client-node's own pool takes it)", async () => {
    const context = new RequestContext(`${kubeConfig.getCurrentCluster()?.server}/`, HttpMethod.GET);
    await kubeConfig.applySecurityAuthentication(context);
    const dispatcher = context.getDispatcher();
    const response = await fetch(`${kubeConfig.getCurrentCluster()?.server}/control`, { dispatcher });
    await response.text();
    expect(versions.find((request) => request.path === "/control")?.version).toBe("2.0");
  });

  it("reads, watches and writes over HTTP/1.1", async () => {
    const transport = new ClusterTransport(kubeConfig);
    try {
      await transport.getJson("/api/v1/namespaces", {}, 5_000);
      const events: unknown[] = [];
      await transport.watch("/api/v1/pods", {}, 5_000, new AbortController().signal, (event) => {
        events.push(event);
      });
      expect(events).toHaveLength(1);
      await transport.request("POST", "/api/v1/namespaces", {
        payload: { "content-type": "application/json", body: JSON.stringify({ metadata: { name: "n" } }) },
        timeoutMs: 5_000,
      });
    } finally {
      await transport.close();
    }
    const ours = versions.filter((request) => request.path !== "/control");
    expect(ours.map((request) => request.path)).toEqual([
      "/api/v1/namespaces",
      "/api/v1/pods",
      "/api/v1/namespaces",
    ]);
    expect(ours.every((request) => request.version === "1.1")).toBe(true);
  });
});

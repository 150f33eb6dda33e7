// A loopback HTTPS proxy in front of the test kube-apiserver, for tests that need an API server
// that answers some requests late: it sees each request (method, path and query), can hold
// those a test picks until released, and forwards the rest. It terminates TLS with a
// certificate of its own for 127.0.0.1 and passes the client's bearer token on.
import { execFile } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, request, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { KubeConfig } from "@kubernetes/client-node";

export interface ProxiedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
}

export interface ApiServerProxy {
  /** The upstream's user, through the proxy. */
  kubeConfig: KubeConfig;
  /** Every request received, in order. */
  readonly requests: readonly ProxiedRequest[];
  /** Requests held now (the client has not given up on them). */
  held: () => readonly ProxiedRequest[];
  /** Holds every later request for which `match` holds, until release(). */
  hold: (match: (request: ProxiedRequest) => boolean) => void;
  /** Forwards the held requests and stops holding. */
  release: () => void;
  close: () => Promise<void>;
}

const run = promisify(execFile);

async function selfSignedLoopbackCertificate(): Promise<{ cert: string; key: string }> {
  const dir = await mkdtemp(join(tmpdir(), "svc-proxy-"));
  try {
    const [certPath, keyPath] = [join(dir, "tls.crt"), join(dir, "tls.key")];
    await run("openssl", [
      ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
      ...["-keyout", keyPath, "-out", certPath, "-days", "1", "-subj", "/CN=127.0.0.1"],
      ...["-addext", "subjectAltName=IP:127.0.0.1"],
    ]);
    return { cert: await readFile(certPath, "utf8"), key: await readFile(keyPath, "utf8") };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Starts a proxy to the current cluster of `upstream` (a token-authenticated kubeconfig). */
export async function startApiServerProxy(upstream: KubeConfig): Promise<ApiServerProxy> {
  const cluster = upstream.getCurrentCluster();
  const user = upstream.getCurrentUser();
  if (cluster === null || user === null) throw new Error("the kubeconfig has no current cluster or user");
  const target = new URL(cluster.server);
  const ca =
    cluster.caData === undefined
      ? await readFile(cluster.caFile ?? "", "utf8")
      : Buffer.from(cluster.caData, "base64").toString("utf8");
  const requests: ProxiedRequest[] = [];
  let holding: ((request: ProxiedRequest) => boolean) | undefined;
  const waiting = new Set<{ seen: ProxiedRequest; forward: () => void; gone: () => boolean }>();

  const forward = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const upstreamRequest = request(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: target.host },
        ca,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstreamRequest.on("error", () => outgoing.destroy());
    outgoing.on("close", () => upstreamRequest.destroy());
    incoming.pipe(upstreamRequest);
  };

  const { cert, key } = await selfSignedLoopbackCertificate();
  const server: Server = createServer({ cert, key }, (incoming, outgoing) => {
    const seen = { method: incoming.method ?? "GET", url: incoming.url ?? "/" };
    requests.push(seen);
    if (holding?.(seen) !== true) {
      forward(incoming, outgoing);
      return;
    }
    incoming.pause();
    const entry = {
      seen,
      forward: () => {
        incoming.resume();
        forward(incoming, outgoing);
      },
      gone: () => outgoing.destroyed || incoming.destroyed,
    };
    waiting.add(entry);
    outgoing.on("close", () => waiting.delete(entry));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;

  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [
      { name: "proxied", server: `https://127.0.0.1:${port}`, caData: Buffer.from(cert).toString("base64") },
    ],
    users: [{ ...user, name: "proxied" }],
    contexts: [{ name: "proxied", cluster: "proxied", user: "proxied" }],
    currentContext: "proxied",
  });

  return {
    kubeConfig,
    requests,
    held: () => [...waiting].filter((entry) => !entry.gone()).map((entry) => entry.seen),
    hold: (match) => {
      holding = match;
    },
    release: () => {
      holding = undefined;
      for (const entry of waiting) if (!entry.gone()) entry.forward();
      waiting.clear();
    },
    close: async () => {
      server.close();
      server.closeAllConnections();
      await once(server, "close");
    },
  };
}

// A loopback HTTP proxy in front of the real kube-apiserver, for tests of what the sidecar asks
// it: records each request's path and query, cuts open watches (a dropped connection, as when a
// kube-apiserver restarts or a load balancer resets), and can send one watch from an ancient
// resourceVersion so the real API server answers it 410 Gone. It logs in to the kube-apiserver
// with the given connection's credentials; the sidecar talks to it in plain HTTP.
import * as http from "node:http";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import type { KubeConnection } from "../../src/kube-connection.ts";

export interface RecordedRequest {
  path: string;
  query: URLSearchParams;
  /** The resourceVersion forwarded when the proxy replaced the client's (expireNextWatch). */
  forwardedResourceVersion?: string;
}

export interface RecordingProxy {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** Lists (no watch=1) in arrival order. */
  lists(): RecordedRequest[];
  watches(): RecordedRequest[];
  /** Destroys every open watch connection; returns how many there were. */
  dropWatches(): number;
  /** The next watch is forwarded from resourceVersion 1, which the API server no longer keeps. */
  expireNextWatch(): void;
  close(): Promise<void>;
}

export async function startRecordingProxy(upstream: KubeConnection): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  const openWatches = new Set<http.ServerResponse>();
  const agent = new https.Agent({
    keepAlive: true,
    ...(upstream.ca && { ca: upstream.ca }),
    ...(upstream.cert && { cert: upstream.cert }),
    ...(upstream.key && { key: upstream.key }),
    rejectUnauthorized: upstream.rejectUnauthorized,
  });
  let expireNext = false;
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://proxy");
    const recorded: RecordedRequest = { path: url.pathname, query: new URLSearchParams(url.searchParams) };
    requests.push(recorded);
    const isWatch = url.searchParams.get("watch") === "1" || url.searchParams.get("watch") === "true";
    if (isWatch && expireNext) {
      expireNext = false;
      url.searchParams.set("resourceVersion", "1");
      recorded.forwardedResourceVersion = "1";
    }
    const token = upstream.token();
    const forward = https.request(
      new URL(upstream.server + url.pathname + url.search),
      {
        method: request.method ?? "GET",
        agent,
        headers: {
          accept: "application/json",
          ...(token !== undefined && { authorization: `Bearer ${token}` }),
        },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        if (isWatch) {
          openWatches.add(response);
          response.on("close", () => openWatches.delete(response));
        }
        answer.pipe(response);
        response.on("close", () => answer.destroy());
      },
    );
    forward.on("error", () => response.destroy());
    request.pipe(forward);
  });
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  const withWatch = (watch: boolean) =>
    requests.filter((r) => (r.query.get("watch") === "1" || r.query.get("watch") === "true") === watch);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    lists: () => withWatch(false),
    watches: () => withWatch(true),
    dropWatches() {
      const count = openWatches.size;
      for (const response of openWatches) response.destroy();
      return count;
    },
    expireNextWatch() {
      expireNext = true;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      agent.destroy();
    },
  };
}

/** A kubeconfig (YAML is JSON) pointing at the proxy; the proxy adds the credentials. */
export function proxyKubeconfig(proxyUrl: string): string {
  return JSON.stringify({
    "current-context": "proxy",
    clusters: [{ name: "proxy", cluster: { server: proxyUrl } }],
    users: [{ name: "anonymous", user: {} }],
    contexts: [{ name: "proxy", context: { cluster: "proxy", user: "anonymous" } }],
  });
}

// The HTTP side of one cluster: time-bounded GETs and watch streams over one connection pool,
// authenticated by client-node's KubeConfig. client-node builds a new connection pool for every
// request it sends and its ListWatch neither restarts after an error nor asks for bookmarks, so
// the registry's informers and its clusters' ObjectWriter talk to the API server through this
// small layer instead, over one pool per cluster.
import { HttpMethod, RequestContext, type KubeConfig } from "@kubernetes/client-node";
import { KubeApiError, parseStatusBody } from "@svc/kube-wire";
import type { RequestOptions } from "node:https";
import { Agent, fetch, type Dispatcher } from "undici";

export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: unknown;
}

export type Query = Record<string, string | number | boolean | undefined>;

/** A request's body and its media type. */
export interface Payload {
  "content-type": string;
  body: string;
}

export class ClusterTransport {
  readonly server: string;
  readonly #kubeConfig: KubeConfig;
  #dispatcher: Promise<Dispatcher> | undefined;
  #closed = false;

  constructor(kubeConfig: KubeConfig) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error("the kubeconfig has no current cluster");
    this.#kubeConfig = kubeConfig;
    this.server = cluster.server.replace(/\/+$/, "");
  }

  /**
   * The pool every request to this cluster goes through: client-node's (its TLS, proxy and
   * credentials), or a plain one of ours when client-node leaves it to undici's global one.
   */
  dispatcher(): Promise<Dispatcher> {
    this.#dispatcher ??= this.#authenticate(`${this.server}/`).then(({ dispatcher }) =>
      http1Only(dispatcher ?? new Agent()),
    );
    return this.#dispatcher;
  }

  /** GET a JSON document, the whole exchange bounded by `timeoutMs`. */
  async getJson(path: string, query: Query, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
    const url = this.#url(path, query);
    const headers = await this.#headers();
    const timeout = AbortSignal.timeout(timeoutMs);
    const response = await fetch(url, {
      headers: { ...headers, accept: "application/json" },
      dispatcher: await this.dispatcher(),
      signal: signal === undefined ? timeout : AbortSignal.any([timeout, signal]),
    });
    if (response.status !== 200) throw await statusError(response);
    return response.json();
  }

  /**
   * Streams a watch: `onEvent` for each event until the server ends the stream (resolves) or it
   * fails (rejects). The response headers must arrive within `connectTimeoutMs`; after that the
   * caller's `signal` (its watchdog) bounds the stream.
   */
  async watch(
    path: string,
    query: Query,
    connectTimeoutMs: number,
    signal: AbortSignal,
    onEvent: (event: WatchEvent) => void,
  ): Promise<void> {
    const url = this.#url(path, { ...query, watch: true });
    const headers = await this.#headers();
    const connecting = new AbortController();
    const connectTimer = setTimeout(() => {
      connecting.abort(new DOMException(`no answer in ${connectTimeoutMs} ms`, "TimeoutError"));
    }, connectTimeoutMs);
    let response;
    try {
      response = await fetch(url, {
        headers: { ...headers, accept: "application/json" },
        dispatcher: await this.dispatcher(),
        signal: AbortSignal.any([connecting.signal, signal]),
      });
    } finally {
      clearTimeout(connectTimer);
    }
    if (response.status !== 200) throw await statusError(response);
    if (response.body === null) return;
    let buffered = "";
    for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      let newline = buffered.indexOf("\n");
      while (newline >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line !== "") onEvent(JSON.parse(line) as WatchEvent);
        newline = buffered.indexOf("\n");
      }
    }
  }

  /**
   * Any call, bounded by `timeoutMs`: the answer's JSON (undefined when empty), or a
   * KubeApiError naming the method and path for a status outside 2xx.
   */
  async request(
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
    pathAndQuery: string,
    {
      payload,
      timeoutMs,
      signal,
      accept = "application/json",
    }: {
      payload?: Payload | undefined;
      timeoutMs: number;
      signal?: AbortSignal | undefined;
      /** The representation asked for, e.g. only an object's metadata (PartialObjectMetadata). */
      accept?: string | undefined;
    },
  ): Promise<unknown> {
    const response = await fetch(this.server + pathAndQuery, {
      method,
      headers: {
        ...(await this.#headers()),
        accept,
        "user-agent": "svc",
        ...(payload === undefined ? {} : { "content-type": payload["content-type"] }),
      },
      ...(payload === undefined ? {} : { body: payload.body }),
      dispatcher: await this.dispatcher(),
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(signal === undefined ? [] : [signal])]),
    });
    if (response.status < 200 || response.status > 299) {
      const error = await statusError(response);
      const what = `${method} ${pathAndQuery.split("?")[0] ?? ""}`;
      throw new KubeApiError(error.status, `${what}: ${error.message}`, error.reason, error.message);
    }
    const text = await response.text();
    return text === "" ? undefined : JSON.parse(text);
  }

  /** Closes the connection pool (idle and active connections alike). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const dispatcher = await this.#dispatcher?.catch(() => undefined);
    await dispatcher?.destroy();
  }

  #url(path: string, query: Query): string {
    const url = new URL(this.server + path);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  /** The connection pool client-node would make: its TLS settings, CA and proxy (once per transport). */
  async #authenticate(url: string): Promise<{ dispatcher: Dispatcher | undefined }> {
    const context = new RequestContext(url, HttpMethod.GET);
    await this.#kubeConfig.applySecurityAuthentication(context);
    return { dispatcher: context.getDispatcher() };
  }

  /**
   * The credentials' headers of one request: a bearer token is read again each time, as a rotated
   * token file must be. Through client-node's https options, which reuse its cached agent,
   * rather than its request context, which builds a new connection pool each call.
   */
  async #headers(): Promise<Record<string, string>> {
    const options: RequestOptions = {};
    await this.#kubeConfig.applyToHTTPSOptions(options);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.headers ?? {}))
      if (value !== undefined)
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
    if (typeof options.auth === "string")
      headers["authorization"] = `Basic ${Buffer.from(options.auth).toString("base64")}`;
    return headers;
  }
}

/**
 * Every request over HTTP/1.1 connections from the pool, never multiplexed over one HTTP/2
 * session: undici negotiates HTTP/2 with a kube-apiserver by default, and under load (requests
 * aborted by their timeouts while the event loop lags) Node's HTTP/2 session queued outgoing
 * frames without bound, several GB within minutes (bench/RESULTS.md, "Operator"). HTTP/1.1
 * also keeps one slow watch from sharing a connection's flow-control window with every write.
 */
function http1Only(dispatcher: Dispatcher): Dispatcher {
  return dispatcher.compose((dispatch) => (options, handler) => {
    // undici's Agent and ProxyAgent read allowH2 per request (their DispatchOptions type omits it).
    const http1: Dispatcher.DispatchOptions & { allowH2: false } = { ...options, allowH2: false };
    return dispatch(http1, handler);
  });
}

export async function statusError(response: { status: number; statusText: string; text(): Promise<string> }) {
  const text = await response.text().catch(() => "");
  const status = parseStatusBody(text);
  // not a Status object: the HTTP status line
  const message = status.message ?? `${response.status} ${response.statusText}`;
  return new KubeApiError(response.status, message, status.reason);
}

// The HTTP shell: routes a request to a response the state already holds. No framework: each
// route is a map lookup and one write (bench/sidecar measures the difference this makes).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Registry } from "prom-client";
import type { FlagState } from "./flags.ts";
import { flagNotFound, ifNoneMatchHits } from "./ofrep.ts";
import { errorResponse, JSON_TYPE, prepare, TEXT_TYPE, type PreparedResponse } from "./responses.ts";
import type { SidecarStats } from "./stats.ts";
import type { ChangeStream } from "./stream.ts";

export interface ServerParts {
  namespace: string;
  state: FlagState;
  stream: ChangeStream;
  stats: SidecarStats;
  metrics: () => Promise<Registry>;
}

const OK = prepare(200, TEXT_TYPE, "ok");
const NOT_READY = errorResponse(503, "flags not loaded from Kubernetes yet", ["Retry-After", "1"]);
const NOT_FOUND = errorResponse(404, "not found");
const OFREP_PREFIX = "/ofrep/v1/evaluate/flags";
const STREAM_HEAD = prepare(200, "text/event-stream; charset=utf-8", "");

const EMPTY = Buffer.alloc(0);
const KEEP_ALIVE_MS = 65_000;

function send(response: ServerResponse, prepared: PreparedResponse): void {
  response.writeHead(prepared.status, prepared.headers);
  response.end(prepared.body);
}

function methodNotAllowed(allowed: string): PreparedResponse {
  return errorResponse(405, `method not allowed; use ${allowed}`, ["Allow", allowed]);
}

export interface SidecarHttp {
  server: Server;
  /**
   * GET (or HEAD) of /healthz, /flags, /flags/{name} or /flags/{name}/value: the prepared
   * response; undefined for any other path. Shared with the fast path (fast-path.ts).
   */
  readFlags: (path: string) => PreparedResponse | undefined;
}

export function createSidecarServer(parts: ServerParts): SidecarHttp {
  const { state, stream, stats, namespace } = parts;
  const flagNotFoundResponse = (name: string) =>
    errorResponse(404, `flag ${name} not found in namespace ${namespace}`);

  const readFlags = (path: string): PreparedResponse | undefined => {
    if (path === "/healthz") {
      stats.requests.healthz++;
      // Ready once the first list is done; stays ready through API outages (the flags are still served).
      return stats.ready ? OK : NOT_READY;
    }
    if (path !== "/flags" && (!path.startsWith("/flags/") || path === "/flags/stream")) return undefined;
    if (!stats.ready) return NOT_READY;
    if (path === "/flags") {
      stats.requests.flags++;
      return state.listResponse();
    }
    const rest = path.slice("/flags/".length);
    const slash = rest.indexOf("/");
    const name = slash === -1 ? rest : rest.slice(0, slash);
    if (slash === -1) {
      stats.requests.flag++;
      return state.get(name)?.object ?? flagNotFoundResponse(name);
    }
    if (rest.slice(slash) === "/value") {
      stats.requests.value++;
      return state.get(name)?.value ?? flagNotFoundResponse(name);
    }
    return undefined;
  };

  /** The response to send, or undefined when the route answers by itself (stream, metrics). */
  const respond = (request: IncomingMessage, response: ServerResponse): PreparedResponse | undefined => {
    const url = request.url ?? "/";
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    // HEAD is GET without a body (node:http drops the body of a HEAD response).
    const isGet = request.method === "GET" || request.method === "HEAD";

    if (path === "/flags/stream") {
      if (!isGet) return methodNotAllowed("GET");
      // Accepted before the first sync too: the initial list then arrives as update events.
      stats.requests.stream++;
      // A HEAD response has no body, so a stream would never end: answer the headers only.
      if (request.method === "HEAD") return STREAM_HEAD;
      stream.subscribe(request, response);
      return undefined;
    }
    if (path === "/healthz" || path === "/flags" || path.startsWith("/flags/")) {
      if (!isGet) return methodNotAllowed("GET");
      const prepared = readFlags(path);
      if (prepared) return prepared;
    } else if (path === OFREP_PREFIX || path.startsWith(`${OFREP_PREFIX}/`)) {
      // Flag names are DNS labels: a key that needs percent-decoding names no flag anyway.
      const key = path.slice(OFREP_PREFIX.length + 1);
      if (request.method !== "POST") return methodNotAllowed("POST");
      // The evaluation context is not read (flags are static); node:http discards the unread body.
      if (!stats.ready) return NOT_READY;
      if (key === "") {
        stats.requests.ofrep_bulk++;
        const bulk = state.ofrepBulk();
        return ifNoneMatchHits(request.headers["if-none-match"], bulk.etag)
          ? { status: 304, headers: ["ETag", bulk.etag], body: EMPTY }
          : bulk.response;
      }
      if (!key.includes("/")) {
        stats.requests.ofrep_single++;
        return state.get(key)?.ofrep ?? prepare(404, JSON_TYPE, flagNotFound(key, namespace));
      }
    } else if (path === "/metrics") {
      stats.requests.metrics++;
      if (!isGet) return methodNotAllowed("GET");
      parts
        .metrics()
        .then(async (registry) => {
          send(response, prepare(200, registry.contentType, await registry.metrics()));
        })
        .catch((error: unknown) => {
          send(response, errorResponse(500, `metrics: ${String(error)}`));
        });
      return undefined;
    }
    stats.requests.other++;
    return NOT_FOUND;
  };

  const server = createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, (request, response) => {
    const prepared = respond(request, response);
    if (prepared) send(response, prepared);
  });
  return { server, readFlags };
}

// The HTTP shell: routes a request to a response the state already holds. No framework: each
// route is a map lookup and one write (bench/sidecar measures the difference this makes).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Registry } from "prom-client";
import type { FlagState } from "./flags.ts";
import { evaluationFailure, flagNotFound, ifNoneMatchHits, parseEvaluationRequest } from "./ofrep.ts";
import type { Duplex } from "node:stream";
import { answerClientError, endAfterRequestBody, requestBodyUnread } from "@svc/process/lingering-close";
import {
  clientErrorAnswer,
  errorResponse,
  JSON_TYPE,
  OFREP_EVENTS_PATH,
  ofrepSingle,
  prepare,
  TEXT_TYPE,
  type PreparedResponse,
} from "./responses.ts";
import type { Route, SidecarStats } from "./stats.ts";
import type { ChangeStream } from "./stream.ts";

/**
 * How long a client may take. node:http's defaults (60 s for a request's head, 300 s for the
 * whole request, checked every 30 s) suit uploads over slow links; the sidecar's clients sit in
 * the same pod and send a few hundred bytes, so slow senders are cut far sooner.
 */
export interface HttpTimeouts {
  /** From the connection (or the previous request) to the end of the request's head. */
  headersTimeoutMs: number;
  /** From the start of a request to the end of its body. */
  requestTimeoutMs: number;
  /** Idle time of a kept-alive connection between requests. */
  keepAliveTimeoutMs: number;
  /** How often the two request timeouts are checked, hence how late they may act. */
  timeoutCheckIntervalMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  timeoutCheckIntervalMs: 1_000,
};

/** The largest OFREP request body read (an evaluation context is a few hundred bytes). */
export const MAX_BODY_BYTES = 64 * 1024;

export interface ServerParts {
  namespace: string;
  state: FlagState;
  stream: ChangeStream;
  stats: SidecarStats;
  metrics: () => Promise<Registry>;
  timeouts: HttpTimeouts;
  /** Whether clients not on loopback may read flags (SVC_SIDECAR_REMOTE_READS). */
  remoteReads: boolean;
}

/** Whether a peer address is this host's loopback (the pod's own containers share it). */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address;
  return v4.startsWith("127.") || address === "::1";
}

const OK = prepare(200, TEXT_TYPE, "ok");
const NOT_READY = errorResponse(503, "flags not loaded from Kubernetes yet", ["Retry-After", "1"]);
const NOT_FOUND = errorResponse(404, "not found");
const OFREP_PREFIX = "/ofrep/v1/evaluate/flags";
const REMOTE_REFUSED = errorResponse(
  403,
  "this namespace's flags are served to the pod's own containers only: connect to 127.0.0.1",
);

/** Routes that reveal flags (reads, stream, OFREP), as opposed to /healthz and /metrics. */
export function revealsFlags(path: string): boolean {
  return (
    path === "/flags" ||
    path.startsWith("/flags/") ||
    path === OFREP_PREFIX ||
    path.startsWith(`${OFREP_PREFIX}/`) ||
    path === OFREP_EVENTS_PATH
  );
}
const STREAM_HEAD = prepare(200, "text/event-stream; charset=utf-8", "");
const BODY_TOO_LARGE = prepare(
  413,
  JSON_TYPE,
  evaluationFailure(undefined, "GENERAL", `the request body is larger than ${MAX_BODY_BYTES} bytes`),
  ["Connection", "close"],
);

const EMPTY = Buffer.alloc(0);

function decodedKey(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** Answers; a body the route did not read is read after the answer (a lingering close). */
function send(request: IncomingMessage, response: ServerResponse, prepared: PreparedResponse): void {
  response.writeHead(prepared.status, prepared.headers);
  if (requestBodyUnread(request)) endAfterRequestBody(request, response, prepared.body);
  else response.end(prepared.body);
}

function methodNotAllowed(allowed: string): PreparedResponse {
  return errorResponse(405, `method not allowed; use ${allowed}`, ["Allow", allowed]);
}

/** The body as text, or undefined when it is larger than `max` bytes (the rest is not kept). */
function readBody(request: IncomingMessage, max: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
    });
    request.on("end", () => {
      resolve(size > max ? undefined : Buffer.concat(chunks).toString("utf8"));
    });
    request.on("error", reject);
  });
}

/** A read of the flags: the route it counts under and the prepared answer. */
export interface FlagRead {
  route: Route;
  response: PreparedResponse;
}

export interface SidecarHttp {
  server: Server;
}

function flagNotFoundResponse({ namespace }: ServerParts, name: string): PreparedResponse {
  return errorResponse(404, `flag ${name} not found in namespace ${namespace}`);
}

/**
 * GET (or HEAD) of /healthz, /flags, /flags/{name} or /flags/{name}/value: the route and
 * prepared response, undefined for any other path.
 */
function readFlags(parts: ServerParts, path: string): FlagRead | undefined {
  const { state, stats } = parts;
  if (path === "/healthz") {
    // Ready once the first list is done; stays ready through API outages (the flags are still served).
    return { route: "healthz", response: stats.ready ? OK : NOT_READY };
  }
  if (path !== "/flags" && (!path.startsWith("/flags/") || path === "/flags/stream")) return undefined;
  if (path === "/flags") return { route: "flags", response: stats.ready ? state.listResponse() : NOT_READY };
  const rest = path.slice("/flags/".length);
  const slash = rest.indexOf("/");
  const name = slash === -1 ? rest : rest.slice(0, slash);
  const entry = stats.ready ? state.get(name) : undefined;
  const absent = stats.ready ? flagNotFoundResponse(parts, name) : NOT_READY;
  if (slash === -1) return { route: "flag", response: entry?.object ?? absent };
  if (rest.slice(slash) === "/value") return { route: "value", response: entry?.value ?? absent };
  return undefined;
}

/** POST /ofrep/v1/evaluate/flags[/{key}], once the body is read. */
function evaluateOfrep(
  { state, stats, namespace }: ServerParts,
  request: IncomingMessage,
  key: string,
  body: string | undefined,
): PreparedResponse {
  if (body === undefined) return BODY_TOO_LARGE;
  if (!stats.ready) return NOT_READY;
  const single = key !== "";
  stats.requests[single ? "ofrep_single" : "ofrep_bulk"]++;
  const request_ = parseEvaluationRequest(body);
  if ("problem" in request_) {
    return prepare(
      400,
      JSON_TYPE,
      evaluationFailure(single ? key : undefined, "INVALID_CONTEXT", request_.problem),
    );
  }
  if (single) {
    const entry = state.byKey(key);
    return entry
      ? ofrepSingle(entry, request_.context)
      : prepare(404, JSON_TYPE, flagNotFound(key, namespace));
  }
  const bulk = state.ofrepBulk(request_.context);
  return ifNoneMatchHits(request.headers["if-none-match"], bulk.etag)
    ? { status: 304, headers: ["ETag", bulk.etag], body: EMPTY }
    : bulk.response;
}

/** GET of the change stream or OFREP's event stream: subscribes (undefined), or the answer to send. */
function subscribe(
  { stats, stream }: ServerParts,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  isGet: boolean,
): PreparedResponse | undefined {
  if (!isGet) return methodNotAllowed("GET");
  // Accepted before the first sync too: the initial list then arrives as update events.
  stats.requests.stream++;
  // A HEAD response has no body, so a stream would never end: answer the headers only.
  if (request.method === "HEAD") return STREAM_HEAD;
  if (path === OFREP_EVENTS_PATH) stream.subscribeOfrep(request, response);
  else stream.subscribe(request, response);
  return undefined;
}

/** POST under OFREP's prefix: answered once the body is read (undefined), or the refusal to send. */
function answerOfrep(
  parts: ServerParts,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): PreparedResponse | undefined {
  const rawKey = path.slice(OFREP_PREFIX.length + 1);
  if (request.method !== "POST") return methodNotAllowed("POST");
  if (rawKey.includes("/")) {
    parts.stats.requests.other++;
    return NOT_FOUND;
  }
  // flagd keys are free strings (`my.Flag_X`, spaces, `/` as %2F): the path carries them encoded.
  const key = decodedKey(rawKey);
  if (key === undefined) {
    const details = "the flag key in the path is not valid percent-encoding";
    return prepare(400, JSON_TYPE, evaluationFailure(rawKey, "GENERAL", details));
  }
  const declared = Number(request.headers["content-length"] ?? 0);
  if (declared > MAX_BODY_BYTES) return BODY_TOO_LARGE;
  readBody(request, MAX_BODY_BYTES).then(
    (body) => {
      send(request, response, evaluateOfrep(parts, request, key, body));
    },
    () => response.destroy(),
  );
  return undefined;
}

/** GET /metrics: answered once the registry renders (undefined), or the refusal to send. */
function answerMetrics(
  parts: ServerParts,
  request: IncomingMessage,
  response: ServerResponse,
  isGet: boolean,
): PreparedResponse | undefined {
  parts.stats.requests.metrics++;
  if (!isGet) return methodNotAllowed("GET");
  parts
    .metrics()
    .then(async (registry) => {
      send(request, response, prepare(200, registry.contentType, await registry.metrics()));
    })
    .catch((error: unknown) => {
      send(request, response, errorResponse(500, `metrics: ${String(error)}`));
    });
  return undefined;
}

/** The response to send, or undefined when the route answers by itself (stream, OFREP, metrics). */
function respond(
  parts: ServerParts,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): PreparedResponse | undefined {
  // HEAD is GET without a body (node:http drops the body of a HEAD response).
  const isGet = request.method === "GET" || request.method === "HEAD";
  if (path === "/flags/stream" || path === OFREP_EVENTS_PATH)
    return subscribe(parts, request, response, path, isGet);
  if (path === "/healthz" || path === "/flags" || path.startsWith("/flags/")) {
    if (!isGet) return methodNotAllowed("GET");
    const read = readFlags(parts, path);
    if (read) {
      parts.stats.requests[read.route]++;
      return read.response;
    }
  } else if (path === OFREP_PREFIX || path.startsWith(`${OFREP_PREFIX}/`)) {
    return answerOfrep(parts, request, response, path);
  } else if (path === "/metrics") {
    return answerMetrics(parts, request, response, isGet);
  }
  parts.stats.requests.other++;
  return NOT_FOUND;
}

export function createSidecarServer(parts: ServerParts): SidecarHttp {
  const { stats, timeouts } = parts;
  const server = createServer(
    {
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      connectionsCheckingInterval: timeouts.timeoutCheckIntervalMs,
      // TCP keep-alive probes find peers that vanished without a FIN.
      keepAlive: true,
    },
    (request, response) => {
      const url = request.url ?? "/";
      const query = url.indexOf("?");
      const path = query === -1 ? url : url.slice(0, query);
      if (!parts.remoteReads && !isLoopback(request.socket.remoteAddress) && revealsFlags(path)) {
        stats.requests.other++;
        send(request, response, REMOTE_REFUSED);
        return;
      }
      const prepared = respond(parts, request, response, path);
      if (prepared) send(request, response, prepared);
    },
  );
  server.on("clientError", (error: Error & { code?: string }, socket: Duplex) => {
    answerClientError(error, socket, () => clientErrorAnswer(error));
  });
  return { server };
}

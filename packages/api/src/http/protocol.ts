import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { httpClientErrorAnswer } from "@svc/core/http/refusals";
import { answerClientError } from "@svc/process/lingering-close";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { HttpError } from "./errors.ts";
import { clientAddress } from "./client-address.ts";

/** How long a client may take to send a request (docs/api.md "Limits"). */
export interface HttpTimeouts {
  /** From the connection's request start to the end of its headers. */
  headersMs: number;
  /** From the request's start to the end of its body. */
  requestMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { headersMs: 10_000, requestMs: 30_000 };

/** The longest path segment served: a Kubernetes object name has at most 253 characters. */
export const MAX_PATH_SEGMENT = 253;

/** Node's limit on the request line and headers together (its `maxHeaderSize` default). */
const MAX_HEADER_BYTES = 16 * 1024;

/** How often Node looks for requests past their timeouts (its default is 30 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/**
 * Every response of every port carries these: nothing is cached (tokens, users, audit), nothing
 * is sniffed or framed. There is no CORS header: browsers reach the API through the dashboard's
 * own origin, so cross-origin reads stay refused (docs/api.md "Security headers").
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
};

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** A client's X-Request-Id when it is a short id of safe characters; otherwise a new one. */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === "string" && REQUEST_ID.test(header) ? header : randomUUID();
}

/** Answers on the raw socket, as Node does, but with a JSON {error}; then a lingering close. */
function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  answerClientError(error, socket, () => httpClientErrorAnswer(error, MAX_HEADER_BYTES, SECURITY_HEADERS));
}

/** The router's own refusals (a path it cannot decode, a segment too long) as JSON {error}. */
function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const tooLong = error.code === "FST_ERR_MAX_PARAM_LENGTH";
  void reply
    .code(tooLong ? 414 : 400)
    .headers({ ...SECURITY_HEADERS, "x-request-id": request.id })
    .send({
      error: tooLong
        ? `a path segment is longer than ${MAX_PATH_SEGMENT} characters`
        : "the path is not valid percent-encoded UTF-8",
    });
}

/** Fastify options every port of the API server shares: timeouts, limits, request ids, errors. */
export function httpServerOptions(timeouts: HttpTimeouts) {
  return {
    requestTimeout: timeouts.requestMs,
    http: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
      maxHeaderSize: MAX_HEADER_BYTES,
      // Node's own 400 for a missing Host has an empty body; installRequestBasics answers instead.
      requireHostHeader: false,
    },
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT },
    requestIdHeader: false as const,
    // Fastify's own 503 while closing has its own body shape; installRequestBasics answers instead.
    return503OnClosing: false,
    genReqId: (request: IncomingMessage) => requestIdOf(request.headers["x-request-id"]),
    clientErrorHandler,
    frameworkErrors,
  };
}

/**
 * The first hook of every request: the client's address is read while the connection is
 * surely there, and the security headers and request id go on every response, errors included.
 */
export function installRequestBasics(app: FastifyInstance, proxySecret?: string): void {
  app.decorateRequest("sourceIp", "");
  let closing = false;
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  app.addHook("onRequest", async (request, reply) => {
    // Undefined when the client has already gone, though Fastify's type says string.
    const ip: unknown = request.ip;
    request.sourceIp = clientAddress(typeof ip === "string" ? ip : "", request.headers, proxySecret);
    void reply.headers(SECURITY_HEADERS).header("x-request-id", request.id);
    if (request.raw.httpVersion === "1.1" && request.headers.host === undefined) {
      throw new HttpError(400, "the Host header is required (HTTP/1.1)");
    }
    // A request that reaches a closing server (pipelined, or on a busy keep-alive connection)
    // goes to another replica: the load balancer retries it.
    if (closing) {
      void reply.header("connection", "close");
      throw new HttpError(503, "the server is shutting down: try again", { "retry-after": "1" });
    }
  });
}

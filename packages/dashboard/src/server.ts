import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fastifyCompress from "@fastify/compress";
import fastifyProxy from "@fastify/http-proxy";
import fastifyStatic from "@fastify/static";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RawServerBase,
  type RouteGenericInterface,
} from "fastify";
import { API_BODY_LIMIT_BYTES, httpClientErrorAnswer } from "@svc/core/http/refusals";
import { answerClientError, installLingeringClose } from "@svc/process/lingering-close";
import { pino } from "pino";
import { CSP_NONCE_PLACEHOLDER, PRODUCTION_STAMP } from "./build-output.ts";
import type { DashboardConfig } from "./config.ts";
import {
  bodyRefusal,
  cacheControlFor,
  contentSecurityPolicy,
  DASHBOARD_SECURITY_HEADERS,
  proxyFailure,
  upstreamHeaders,
  type RequestHeaders,
} from "./headers.ts";

/** The dashboard's own errors: JSON `{error}` like every answer of svc, never cached. */
function sendError(reply: FastifyReply<RouteGenericInterface, RawServerBase>, status: number, error: string) {
  return reply
    .code(status)
    .headers({ ...DASHBOARD_SECURITY_HEADERS, "cache-control": "no-store" })
    .type("application/json")
    .send({ error });
}

/** The longest request line and headers taken: 1 KiB under the API server's limit. */
export const DASHBOARD_MAX_HEADER_BYTES = 15 * 1024;

/** Where `make dashboard` (vite build) puts the app. */
export const DEFAULT_DIST_DIR = fileURLToPath(new URL("../dist", import.meta.url));

export interface DashboardServer {
  app: FastifyInstance;
  listen: () => Promise<{ url: string }>;
  close: () => Promise<void>;
}

export interface DashboardServerOptions {
  distDir?: string;
}

/** The Fastify app with the protocol's limits and refusals: JSON {error}, then a lingering close. */
function dashboardApp(config: DashboardConfig): FastifyInstance {
  const logger: FastifyBaseLogger = pino({ level: config.logLevel, base: { component: "dashboard" } });
  const app = Fastify({
    loggerInstance: logger,
    // request.ip: the browser's address behind the ingress controllers listed, else the connection's.
    trustProxy:
      config.trustedProxies === undefined || config.trustedProxies.length === 0
        ? false
        : [...config.trustedProxies],
    // The proxy streams request bodies through untouched, after bodyRefusal (below) checked their size.
    bodyLimit: API_BODY_LIMIT_BYTES,
    return503OnClosing: true,
    // Under the API server's 16 KiB (its protocol.ts), with room for the headers the proxy adds:
    // a head the API refused as too large was a 502 here for a HEAD (a 431 has a body).
    http: { maxHeaderSize: DASHBOARD_MAX_HEADER_BYTES },
    // A path that is not valid percent-encoding, refused by the router before any route.
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      void sendError(reply, 400, error.message);
    },
    // A request the parser refused: JSON {error}, then a lingering close (its body may still arrive).
    clientErrorHandler: (error, socket) => {
      const headers = { ...DASHBOARD_SECURITY_HEADERS, "cache-control": "no-store" };
      answerClientError(error, socket, () =>
        httpClientErrorAnswer(error, DASHBOARD_MAX_HEADER_BYTES, headers),
      );
    },
  });
  // A refused body still arriving is read after the answer, so that the client gets it.
  installLingeringClose(app.server);
  return app;
}

/** The dashboard's own headers and refusals, set before the proxy so that its context inherits them. */
function installRefusals(app: FastifyInstance): void {
  app.addHook("onSend", async (request, reply) => {
    // Proxied answers keep the API's own headers (stricter: default-src 'none', no-store); the
    // proxy's own failures set the dashboard's in onError below.
    if (request.url.startsWith("/api/")) return;
    for (const [name, value] of Object.entries(DASHBOARD_SECURITY_HEADERS)) {
      if (!reply.hasHeader(name)) reply.header(name, value);
    }
  });

  // The dashboard's own refusals (a path the proxy will not pass on, a malformed body) are JSON
  // {error} like every answer of svc, not Fastify's {statusCode, error, message}.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = typeof error.statusCode === "number" && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, "request failed");
    return sendError(reply, status, status >= 500 ? "internal error" : error.message);
  });

  app.addHook("onRequest", async (request, reply) => {
    const refusal = bodyRefusal(request.method, request.headers, API_BODY_LIMIT_BYTES);
    if (refusal === undefined) return;
    await sendError(reply, refusal.status, refusal.error);
  });
}

/** `/api/*`, and nothing else, passed to the API server. */
async function registerProxy(app: FastifyInstance, config: DashboardConfig): Promise<void> {
  await app.register(fastifyProxy, {
    upstream: config.apiUrl,
    prefix: "/api",
    rewritePrefix: "/api",
    // One line per failure (below) instead of reply-from's per-request lines.
    disableRequestLogging: true,
    http: { requestOptions: { timeout: config.apiTimeoutMs } },
    replyOptions: {
      rewriteRequestHeaders: (request, headers) =>
        upstreamHeaders(request.method, headers as RequestHeaders, request.ip, config.proxySecret),
      onError: (reply, { error }) => {
        const failure = proxyFailure(error, config.apiUrl);
        reply.log.warn({ status: failure.status }, failure.error);
        void sendError(reply, failure.status, failure.error);
      },
    },
  });
}

/** assets/ as files; every other GET is one of the app's routes, answered with index.html. */
async function registerApp(app: FastifyInstance, distDir: string): Promise<void> {
  const indexHtml = readFileSync(join(distDir, "index.html"), "utf8");
  // Only assets/ is served as files: index.html goes out with each response's nonce.
  await app.register(fastifyStatic, {
    root: join(distDir, "assets"),
    prefix: "/assets/",
    wildcard: false,
    index: false,
    preCompressed: true,
    setHeaders: (reply, path) => {
      void reply.header("cache-control", cacheControlFor(path));
    },
  });

  app.get("/healthz", (_request, reply) => reply.type("text/plain").send("ok"));

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    const appRoute = !path.startsWith("/api/") && !path.startsWith("/assets/");
    if ((request.method === "GET" || request.method === "HEAD") && appRoute) {
      // A fresh nonce each time, for the <style> elements Radix's dialogs insert (headers.ts).
      const nonce = randomBytes(16).toString("base64");
      return reply
        .header("cache-control", "no-cache")
        .header("content-security-policy", contentSecurityPolicy(nonce))
        .type("text/html; charset=utf-8")
        .send(indexHtml.replaceAll(CSP_NONCE_PLACEHOLDER, nonce));
    }
    return sendError(reply, 404, `no route ${request.method} ${path}`);
  });
}

/**
 * `svc dashboard`: serves the built single-page app and passes `/api/*` (nothing else) to the API
 * server. Paths that are not files are the app's own routes, so they get index.html.
 */
export async function buildDashboardServer(
  config: DashboardConfig,
  options: DashboardServerOptions = {},
): Promise<DashboardServer> {
  const distDir = options.distDir ?? DEFAULT_DIST_DIR;
  if (!existsSync(join(distDir, PRODUCTION_STAMP))) {
    throw new Error(`no production build of the dashboard in ${distDir}: run \`make dashboard\``);
  }
  const app = dashboardApp(config);
  installRefusals(app);
  // index.html and the API's answers (the flag list: 375 KB per poll, 8 KB gzipped); the assets
  // are sent precompressed by the static plugin, which this leaves alone (Content-Encoding set).
  await app.register(fastifyCompress, { encodings: ["br", "gzip"] });
  await registerProxy(app, config);
  await registerApp(app, distDir);

  return {
    app,
    listen: async () => {
      await app.listen({ host: config.host, port: config.port });
      const address = app.server.address();
      const port = typeof address === "object" && address !== null ? address.port : config.port;
      const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host;
      return { url: `http://${host}:${port}` };
    },
    close: () => app.close(),
  };
}

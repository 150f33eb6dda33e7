import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fastifyProxy from "@fastify/http-proxy";
import fastifyStatic from "@fastify/static";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { pino } from "pino";
import type { DashboardConfig } from "./config.ts";
import { cacheControlFor, DASHBOARD_SECURITY_HEADERS, proxyFailure } from "./headers.ts";

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

/**
 * `svc dashboard`: serves the built single-page app and passes `/api/*` (nothing else) to the API
 * server. Paths that are not files are the app's own routes, so they get index.html.
 */
export async function buildDashboardServer(
  config: DashboardConfig,
  options: DashboardServerOptions = {},
): Promise<DashboardServer> {
  const distDir = options.distDir ?? DEFAULT_DIST_DIR;
  if (!existsSync(`${distDir}/index.html`)) {
    throw new Error(`the dashboard is not built (no ${distDir}/index.html): run \`make dashboard\``);
  }
  const logger: FastifyBaseLogger = pino({ level: config.logLevel, base: { component: "dashboard" } });
  const app = Fastify({
    loggerInstance: logger,
    // The proxy streams request bodies through untouched; the API server enforces its limits.
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
  });

  app.addHook("onSend", async (request, reply) => {
    // Proxied answers keep the API's own headers (stricter: default-src 'none', no-store); the
    // proxy's own failures set the dashboard's in onError below.
    if (request.url.startsWith("/api/")) return;
    for (const [name, value] of Object.entries(DASHBOARD_SECURITY_HEADERS)) reply.header(name, value);
  });

  await app.register(fastifyProxy, {
    upstream: config.apiUrl,
    prefix: "/api",
    rewritePrefix: "/api",
    // One line per failure (below) instead of reply-from's per-request lines.
    disableRequestLogging: true,
    http: { requestOptions: { timeout: config.apiTimeoutMs } },
    replyOptions: {
      // The dashboard is the edge: the API sees the browser's address, never one the browser claims.
      rewriteRequestHeaders: (request, headers) => ({ ...headers, "x-forwarded-for": request.ip }),
      onError: (reply, { error }) => {
        const failure = proxyFailure(error, config.apiUrl);
        reply.log.warn({ status: failure.status }, failure.error);
        void reply
          .code(failure.status)
          .headers({ ...DASHBOARD_SECURITY_HEADERS, "cache-control": "no-store" })
          .type("application/json")
          .send({ error: failure.error });
      },
    },
  });

  await app.register(fastifyStatic, {
    root: distDir,
    wildcard: false,
    index: false,
    setHeaders: (reply, path) => {
      void reply.header("cache-control", cacheControlFor(path));
    },
  });

  app.get("/healthz", (_request, reply) => reply.type("text/plain").send("ok"));

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? "/";
    if ((request.method === "GET" || request.method === "HEAD") && !path.startsWith("/api/")) {
      return reply.header("cache-control", "no-cache").sendFile("index.html");
    }
    return reply.code(404).send({ error: `no route ${request.method} ${path}` });
  });

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

import Fastify, { type FastifyInstance } from "fastify";
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";
import { installErrorHandling } from "./http/errors.ts";
import { httpServerOptions, installRequestBasics, type HttpTimeouts } from "./http/protocol.ts";

/** One registry per server, so that several servers in one process (tests) do not collide. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "svc_api_" });
  return {
    registry,
    requestDuration: new Histogram({
      name: "svc_api_http_request_duration_seconds",
      help: "HTTP request duration by route and status",
      labelNames: ["method", "route", "status"] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    logins: new Counter({
      name: "svc_api_logins_total",
      help: "Login attempts by outcome (success, failure, throttled, busy)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    auditWriteFailures: new Counter({
      name: "svc_api_audit_write_failures_total",
      help: "Audit events that could not be written",
      registers: [registry],
    }),
  };
}
export type Metrics = ReturnType<typeof createMetrics>;

/** The metrics port's own tiny server: GET /metrics only, no authentication; errors as on the API. */
export function metricsServer(metrics: Metrics, timeouts: HttpTimeouts): FastifyInstance {
  const app = Fastify({ ...httpServerOptions(timeouts), logger: false });
  installRequestBasics(app);
  installErrorHandling(app);
  app.get("/metrics", async (_request, reply) => {
    void reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  return app;
}

import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { pino } from "pino";
import { retentionCutoff } from "./audit/query.ts";
import { installAuditRecorder } from "./audit/recorder.ts";
import { PasswordHashing, type HashingLimits } from "./auth/passwords.ts";
import { SessionStore } from "./auth/sessions.ts";
import { LoginThrottle } from "./auth/throttle.ts";
import { API_BODY_LIMIT_BYTES } from "@svc/core/http/refusals";
import { installLingeringClose } from "@svc/process/lingering-close";
import type { ClusterRegistry } from "@svc/kube";
import {
  part,
  startGroups,
  type Part,
  type Runnable,
  type RunnableGroups,
  type StartedGroups,
} from "@svc/process";
import { clusterRoutes } from "./clusters/routes.ts";
import type { ApiConfig } from "./config.ts";
import { flagRoutes } from "./flags/routes.ts";
import { evaluateRoutes } from "./flags/evaluate.ts";
import { flagdFileRoutes } from "./flags/flagd-file.ts";
import { workloadRoutes } from "./workloads/routes.ts";
import { rolloutRoutes } from "./rollouts/routes.ts";
import { RolloutStepRecorder } from "./rollouts/steps.ts";
import type { ApiContext } from "./context.ts";
import { installAuth } from "./http/auth-hook.ts";
import { installErrorHandling, typeboxValidatorCompiler } from "./http/errors.ts";
import {
  DEFAULT_HTTP_TIMEOUTS,
  httpServerOptions,
  installRequestBasics,
  type HttpTimeouts,
} from "./http/protocol.ts";
import "./http/request.ts";
import { createMetrics, metricsServer } from "./metrics.ts";
import { auditRoutes } from "./audit/routes.ts";
import { authRoutes } from "./auth/routes.ts";
import { ssoRoutes } from "./sso/routes.ts";
import { healthRoutes } from "./http/health.ts";
import { installOpenApi, openApiRoutes } from "./http/openapi.ts";
import { userRoutes } from "./users/routes.ts";
import { AuditRepo } from "./audit/store.ts";
import { openStore } from "./store/db.ts";
import { UsersRepo } from "./users/store.ts";
import { ensureInitialAdmin } from "./users/admin.ts";
import { installWebhookEvents, webhookRoutes } from "./webhooks/routes.ts";
import { WebhooksRepo } from "./webhooks/store.ts";
import { OutboxWorker } from "./webhooks/worker.ts";

/** DESIGN.md §4: request bodies up to 1 MiB, else 413. */
export const BODY_LIMIT = API_BODY_LIMIT_BYTES;
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;
const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

export interface ApiServer {
  app: FastifyInstance;
  context: ApiContext;
  /** Records the operator's FlagRollout steps in the audit log; undefined without Kubernetes. */
  rolloutSteps: RolloutStepRecorder | undefined;
  /** Listens on the configured API and metrics ports; returns their base URLs. */
  listen: () => Promise<{ url: string; metricsUrl: string }>;
  /** Graceful: stops accepting, lets in-flight requests finish, then closes the database. */
  close: () => Promise<void>;
}

export interface ApiServerOptions {
  /** Clock in ms since the epoch (tests move it to expire tokens). */
  now?: () => number;
  /** How long clients may take to send a request (tests shorten them). */
  timeouts?: HttpTimeouts;
  /**
   * The connected clusters behind the flag, cluster and workload routes. The caller owns it
   * (starts and closes it); without it those routes answer 503.
   */
  clusters?: ClusterRegistry;
  /** Bounds of the password hashing (docs/api.md "Limits"). */
  hashing?: HashingLimits;
}

function apiLogger(config: ApiConfig): FastifyBaseLogger {
  const logger: FastifyBaseLogger = pino({
    level: config.logLevel,
    // Tokens and passwords never reach the log (bodies are not logged at all).
    redact: ["req.headers.authorization", "req.headers.cookie", 'req.headers["x-svc-proxy-secret"]'],
  });
  if (config.trustProxy === true) {
    logger.warn(
      "SVC_TRUST_PROXY=true is deprecated: anyone who reaches the API can forge the source address " +
        "of the audit log and the login throttle; list the proxies in SVC_TRUSTED_PROXIES instead",
    );
  }
  return logger;
}

/** The database, migrated, with its repositories and the initial admin; closed again if that fails. */
async function openContext(
  config: ApiConfig,
  options: ApiServerOptions,
  logger: FastifyBaseLogger,
): Promise<ApiContext> {
  const now = options.now ?? Date.now;
  const store = await openStore(config.database, {
    onConnectionError: (error) => {
      // The message and code only: pg attaches its whole client object to the error (kilobytes of
      // connection state on every line).
      const code = "code" in error ? String(error.code) : undefined;
      logger.warn(
        { err: { message: error.message, code } },
        "database connection lost; it is reopened on next use",
      );
    },
  });
  const context: ApiContext = {
    config,
    store,
    users: new UsersRepo(store),
    audit: new AuditRepo(store),
    webhooks: new WebhooksRepo(store),
    sessions: new SessionStore(now),
    throttle: new LoginThrottle(now),
    hashing: new PasswordHashing(options.hashing),
    metrics: createMetrics(),
    now,
    clusters: options.clusters,
  };
  try {
    await ensureInitialAdmin(context.users, config.adminPassword, now());
  } catch (error) {
    await store.close();
    throw error;
  }
  return context;
}

/** The Fastify app: protocol limits, auth, audit, webhooks' events, metrics, every route. */
async function buildApp(context: ApiContext, logger: FastifyBaseLogger, timeouts: HttpTimeouts) {
  const { config } = context;
  const app = Fastify({
    ...httpServerOptions(timeouts),
    loggerInstance: logger,
    bodyLimit: BODY_LIMIT,
    trustProxy: typeof config.trustProxy === "boolean" ? config.trustProxy : [...config.trustProxy],
    // Validation errors are the validator's own messages (see typeboxValidatorCompiler).
    schemaErrorFormatter: (errors) => new Error(errors.map((e) => e.message).join("; ")),
  });
  // A refused body still arriving is read after the answer, so that the client gets it.
  installLingeringClose(app.server);
  app.setValidatorCompiler(typeboxValidatorCompiler);
  installRequestBasics(app, config.proxySecret);
  installErrorHandling(app);
  installAuth(app, context);
  installAuditRecorder(app, context);
  installWebhookEvents(app, context);
  await installOpenApi(app);
  app.addHook("onResponse", async (request, reply) => {
    context.metrics.requestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? "unmatched", status: reply.statusCode },
      reply.elapsedTime / 1000,
    );
  });
  for (const routes of [
    healthRoutes,
    authRoutes,
    ssoRoutes,
    userRoutes,
    auditRoutes,
    flagRoutes,
    evaluateRoutes,
    flagdFileRoutes,
    clusterRoutes,
    workloadRoutes,
    webhookRoutes,
    rolloutRoutes,
  ])
    await app.register(routes(context));
  await app.register(openApiRoutes);
  return app;
}

/** Deletes audit events (and the webhook deliveries that mirror them) past the retention; logs, never throws. */
function retention(context: ApiContext, log: FastifyBaseLogger): () => Promise<void> {
  const { config, now } = context;
  return async () => {
    try {
      const cutoff = retentionCutoff(now(), config.auditRetentionDays);
      const deleted = await context.audit.deleteOlderThan(cutoff);
      // The delivery log is kept as long as the audit log it mirrors.
      await context.webhooks.deleteFinishedBefore(cutoff);
      if (deleted > 0) log.info({ deleted }, "audit retention: old events deleted");
    } catch (error) {
      log.error({ err: error }, "audit retention failed");
    }
  };
}

/** Retention and the sweeps of expired sessions and throttle entries: once now, then on their timers. */
function housekeeping(context: ApiContext, log: FastifyBaseLogger): Runnable {
  const enforceRetention = retention(context, log);
  const timers: NodeJS.Timeout[] = [];
  return {
    name: "housekeeping",
    start: async () => {
      await enforceRetention();
      timers.push(
        setInterval(() => {
          context.sessions.sweep();
          context.throttle.sweep();
        }, SWEEP_INTERVAL_MS).unref(),
        setInterval(() => void enforceRetention(), RETENTION_INTERVAL_MS).unref(),
      );
    },
    close: () => {
      for (const timer of timers) clearInterval(timer);
      return Promise.resolve();
    },
  };
}

/** A Fastify app listening on `host:port`; its value is its URL. */
function listening(name: string, app: FastifyInstance, host: string, port: number): Part<string> {
  return part(
    name,
    () => app.listen({ host, port }),
    () => app.close(),
  );
}

/** Builds the REST API server: database migrated, initial admin ensured, routes ready. */
export async function buildApiServer(config: ApiConfig, options: ApiServerOptions = {}): Promise<ApiServer> {
  const logger = apiLogger(config);
  const context = await openContext(config, options, logger);
  const timeouts = options.timeouts ?? DEFAULT_HTTP_TIMEOUTS;
  const app = await buildApp(context, logger, timeouts);
  const metricsApp = metricsServer(context.metrics, timeouts);
  installLingeringClose(metricsApp.server);
  const outbox = new OutboxWorker({
    repo: context.webhooks,
    config: config.webhooks,
    clusters: options.clusters,
    log: logger,
    now: context.now,
  });
  const rolloutSteps =
    context.clusters === undefined
      ? undefined
      : new RolloutStepRecorder({
          clusters: context.clusters,
          localClusterId: config.clusterId,
          systemNamespace: config.systemNamespace,
          audit: context.audit,
          log: app.log,
        });
  const metricsListener = listening("metrics server", metricsApp, config.metricsHost, config.metricsPort);
  const apiListener = listening("API server", app, config.host, config.port);
  // Closed in reverse: the workers stop, the API finishes its requests, then the metrics server.
  const groups: RunnableGroups = [
    [housekeeping(context, app.log)],
    [metricsListener],
    [apiListener],
    [
      {
        name: "webhook outbox",
        start: () => {
          outbox.start();
          return Promise.resolve();
        },
        close: () => outbox.stop(),
      },
      {
        name: "rollout step recorder",
        start: () => {
          rolloutSteps?.start();
          return Promise.resolve();
        },
        close: async () => rolloutSteps?.stop(),
      },
    ],
  ];
  let running: StartedGroups | undefined;
  return {
    app,
    context,
    rolloutSteps,
    async listen() {
      const started = startGroups(groups);
      running = started;
      await started.ready;
      return { url: apiListener.value, metricsUrl: metricsListener.value };
    },
    async close() {
      if (running === undefined) await Promise.all([app.close(), metricsApp.close()]);
      else await running.close();
      await context.store.close();
    },
  };
}

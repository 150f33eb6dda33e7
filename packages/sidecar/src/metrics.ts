// GET /metrics in the Prometheus text format. prom-client is loaded on the first scrape, so a
// sidecar nobody scrapes never pays for it; the values come from SidecarStats at scrape time.
import type { Registry } from "prom-client";
import type { SidecarStats } from "./stats.ts";
import { ROUTES } from "./stats.ts";

export interface MetricsSources {
  stats: SidecarStats;
  flags: () => number;
  subscribers: () => number;
}

export async function createRegistry(sources: MetricsSources): Promise<Registry> {
  const { Counter, Gauge, Registry, collectDefaultMetrics } = await import("prom-client");
  const { stats } = sources;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  const counter = (name: string, help: string, read: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  gauge("svc_sidecar_flags", "FeatureFlags held in memory", sources.flags);
  gauge("svc_sidecar_ready", "1 once the first list of FeatureFlags is done", () => Number(stats.ready));
  gauge("svc_sidecar_kubernetes_connected", "1 while the Kubernetes API answers", () =>
    Number(stats.kubernetesConnected),
  );
  gauge(
    "svc_sidecar_last_sync_timestamp_seconds",
    "When the flags were last confirmed by the API",
    () => stats.lastSyncSeconds,
  );
  gauge("svc_sidecar_stream_subscribers", "Open /flags/stream connections", sources.subscribers);
  counter("svc_sidecar_flag_changes_total", "Flag changes applied (and streamed)", () => stats.flagChanges);
  counter("svc_sidecar_streams_opened_total", "/flags/stream connections opened", () => stats.streamsOpened);
  counter(
    "svc_sidecar_stream_slow_dropped_total",
    "Stream subscribers cut off because they stopped reading",
    () => stats.slowStreamsDropped,
  );
  counter(
    "svc_sidecar_watch_failures_total",
    "Failed lists and watches of FeatureFlags",
    () => stats.watchFailures,
  );
  new Counter({
    name: "svc_sidecar_http_requests_total",
    help: "HTTP requests by route",
    labelNames: ["route"],
    registers: [registry],
    collect() {
      this.reset();
      for (const route of ROUTES) this.labels(route).inc(stats.requests[route]);
    },
  });
  return registry;
}

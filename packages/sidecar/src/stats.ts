// Counters kept as plain numbers on the request path (an increment costs nothing); prom-client
// reads them only when /metrics is scraped (metrics.ts).

export const ROUTES = [
  "flags",
  "flag",
  "value",
  "stream",
  "ofrep_single",
  "ofrep_bulk",
  "healthz",
  "metrics",
  "other",
] as const;
export type Route = (typeof ROUTES)[number];

export interface SidecarStats {
  requests: Record<Route, number>;
  flagChanges: number;
  streamsOpened: number;
  slowStreamsDropped: number;
  watchFailures: number;
  kubernetesConnected: boolean;
  ready: boolean;
  /** Unix time (s) of the last successful list or watch event. */
  lastSyncSeconds: number;
}

export function newStats(): SidecarStats {
  return {
    requests: Object.fromEntries(ROUTES.map((r) => [r, 0])) as Record<Route, number>,
    flagChanges: 0,
    streamsOpened: 0,
    slowStreamsDropped: 0,
    watchFailures: 0,
    kubernetesConnected: false,
    ready: false,
    lastSyncSeconds: 0,
  };
}

import type { ClusterView } from "@svc/core/browser";
import { relativeTime } from "../ui/time.ts";

const TONE: Record<ClusterView["status"], string> = { Connected: "ok", Disconnected: "warn", Error: "bad" };

/** The phase as a badge, with the reason beside it (not only in a tooltip) when not Connected. */
export function ClusterStatus({ cluster }: { cluster: ClusterView }) {
  return (
    <span className="cluster-status">
      <span className={`badge ${TONE[cluster.status]}`}>{cluster.status}</span>
      {cluster.message !== "" && <span className="cluster-message">{cluster.message}</span>}
    </span>
  );
}

export function LastSync({ cluster }: { cluster: ClusterView }) {
  return cluster.lastSyncTime === null ? (
    <span className="hint">never</span>
  ) : (
    <time dateTime={cluster.lastSyncTime} title={cluster.lastSyncTime}>
      {relativeTime(cluster.lastSyncTime)}
    </time>
  );
}

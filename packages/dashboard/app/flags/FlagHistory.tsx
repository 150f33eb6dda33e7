import type { FlagView } from "@svc/core/browser";
import { useQuery } from "@tanstack/react-query";
import { api } from "../api/client.ts";
import type { AuditEventView } from "../audit/audit-event.ts";
import { AuditTable } from "../audit/AuditTable.tsx";
import { EmptyState, QueryState } from "../ui/states.tsx";

/** How far back the history looks: the newest flag events of the cluster, then this flag's. */
const HISTORY_SCAN = 1000;

/**
 * The flag's audit history, newest first, with before/after of each change. The audit API
 * filters by resource type and cluster, not by name, so this asks for the cluster's newest flag
 * events and keeps this flag's.
 */
export function FlagHistory({ flag }: { flag: FlagView }) {
  const events = useQuery({
    // Asked again when the flag's definition changes (and on focus), not on a timer: each ask
    // reads up to HISTORY_SCAN events.
    queryKey: ["audit", "flag", flag.clusterId, flag.namespace, flag.name, flag.updatedAt],
    queryFn: ({ signal }) =>
      api<AuditEventView[]>("/api/v1/audit", {
        query: { resource: "flag", cluster: flag.clusterId, limit: HISTORY_SCAN },
        signal,
      }),
    select: (all) =>
      all.filter((event) => event.resourceName === flag.name && event.namespace === flag.namespace),
  });
  return (
    <QueryState query={events} what="the flag's history">
      {(mine) =>
        mine.length === 0 ? (
          <EmptyState title="No recorded changes">
            <p>
              Changes made through svc are recorded here; edits made with kubectl are not in svc's audit log.
            </p>
          </EmptyState>
        ) : (
          <AuditTable events={mine} />
        )
      }
    </QueryState>
  );
}

import type { AuditEventView, FlagView } from "@svc/core/browser";
import { useQuery } from "@tanstack/react-query";
import { api } from "../api/client.ts";
import { AuditTable } from "../audit/AuditTable.tsx";
import { EmptyState, QueryState } from "../ui/states.tsx";

/** The newest events shown: a flag's history is rarely longer, and the audit page has the rest. */
const HISTORY_LIMIT = 1000;

/** The flag's audit history, newest first, with before/after of each change, asked of the audit API by name. */
export function FlagHistory({ flag }: { flag: FlagView }) {
  const events = useQuery({
    // Asked again when the flag's definition changes (and on focus), not on a timer.
    queryKey: ["audit", "flag", flag.clusterId, flag.namespace, flag.name, flag.updatedAt],
    queryFn: ({ signal }) =>
      api<AuditEventView[]>("/api/v1/audit", {
        query: {
          resource: "flag",
          resourceName: flag.name,
          namespace: flag.namespace,
          cluster: flag.clusterId,
          limit: HISTORY_LIMIT,
        },
        signal,
      }),
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

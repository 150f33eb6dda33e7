import type { AuditEventView } from "@svc/core/browser";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api, LIVE_REFRESH_MS } from "../api/client.ts";
import { auditExportQuery, auditPageQuery, type AuditFilter, type AuditView } from "./audit-view.ts";

export const auditKeys = {
  all: ["audit"] as const,
  page: (view: AuditView) => ["audit", "page", view] as const,
};

/**
 * One page of the audit log (with one extra event, see `auditPageQuery`). The newest page
 * refreshes live; older pages hold still, so what the user is reading does not move. The
 * previous page stays on screen while the next loads.
 */
export function useAuditPage(view: AuditView) {
  return useQuery({
    queryKey: auditKeys.page(view),
    queryFn: ({ signal }) => api<AuditEventView[]>("/api/v1/audit", { query: auditPageQuery(view), signal }),
    refetchInterval: view.before === undefined ? LIVE_REFRESH_MS : false,
    placeholderData: keepPreviousData,
  });
}

/** The CSV of the newest events matching a filter, as the API writes it (RFC 4180). */
export function fetchAuditCsv(filter: AuditFilter, signal?: AbortSignal): Promise<string> {
  return api<string>("/api/v1/audit", { query: auditExportQuery(filter), accept: "text/csv", signal });
}

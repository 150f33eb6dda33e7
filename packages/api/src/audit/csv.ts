import type { AuditEventView } from "@svc/core";

const COLUMNS = [
  "id",
  "timestamp",
  "actor",
  "actorRole",
  "action",
  "resource",
  "resourceName",
  "namespace",
  "cluster",
  "outcome",
  "sourceIp",
  "details",
] as const;

/**
 * One RFC 4180 cell. A cell that a spreadsheet would run as a formula (=, +, -, @, tab, CR) is
 * prefixed with a quote: usernames and resource names come from users.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function auditCsv(events: readonly AuditEventView[]): string {
  const rows = events.map((e) =>
    COLUMNS.map((c) => csvCell(c === "details" ? JSON.stringify(e.details) : String(e[c]))).join(","),
  );
  return [COLUMNS.join(","), ...rows].join("\r\n") + "\r\n";
}

import type { AuditVisibility } from "@svc/core";
import type { ExpressionBuilder } from "kysely";
import type { Tables } from "../store/db.ts";

/**
 * core's AuditVisibility as SQL: a scoped user's own sessions, and each visible cluster's events
 * in every namespace or in the grants' namespaces ('*' patterns become LIKE: a namespace pattern
 * holds only [-a-z0-9*], so no other LIKE wildcard can slip in).
 */
export function visibleEvents(
  eb: ExpressionBuilder<Tables, "audit_events">,
  visibility: Extract<AuditVisibility, { all: false }>,
) {
  const ownSessions = eb.and([eb("actor", "=", visibility.username), eb("resource", "=", "session")]);
  const clusters = visibility.clusters.map(({ id, namespaces }) => {
    if (namespaces === undefined) return eb("cluster", "=", id);
    const inNamespaces = namespaces.map((pattern) =>
      pattern.includes("*")
        ? eb("namespace", "like", pattern.replaceAll("*", "%"))
        : eb("namespace", "=", pattern),
    );
    return eb.and([eb("cluster", "=", id), eb.or(inNamespaces)]);
  });
  return eb.or([ownSessions, ...clusters]);
}

// What a webhook is told about, where each event comes from, and which webhooks an event goes
// to. Pure: the caller passes the audit event, the clusters' cached objects and the clock.
import type { ClusterConnectionResource, FeatureFlagResource } from "@svc/core";
import type { WebhookEventType } from "@svc/core/basics";

export { WEBHOOK_EVENTS, type WebhookEventType } from "@svc/core/basics";

/** What an admin's test send carries: no webhook subscribes to it, it is sent on request only. */
export const TEST_EVENT = "webhook.test";

/** One event as the receiver gets it (the JSON format's body). */
export interface WebhookEvent {
  /** The idempotency key: the same event always carries the same id, on every attempt. */
  id: string;
  type: WebhookEventType | typeof TEST_EVENT;
  /** ISO 8601: when the change was made or the status changed. */
  occurredAt: string;
  cluster: string;
  /** "" for a cluster's own events. */
  namespace: string;
  /** The flag's name, or the cluster's id. */
  name: string;
  /** Who made the change through the API; "" for what the operator reported. */
  actor: string;
  /** For flag changes: {before, after} of the changed fields; for status events: {phase, message}. */
  details: Record<string, unknown>;
}

/** What the audit log records of a flag write, as far as webhooks need it. */
export interface AuditedChange {
  timestamp: string;
  actor: string;
  action: string;
  resource: string;
  resourceName: string;
  namespace: string;
  cluster: string;
  outcome: string;
  details: Record<string, unknown>;
}

const AUDIT_TYPES: Readonly<Record<string, WebhookEventType>> = {
  create: "flag.created",
  update: "flag.changed",
  toggle: "flag.changed",
  delete: "flag.deleted",
};

/**
 * The event of a flag write made through the API, from the audit event the API records of it
 * (so a webhook says what the audit log says, with the same actor and before/after). Only the
 * replica that served the write sees it, so a fresh random id is unique; undefined for anything
 * else than a successful flag write.
 */
export function eventOfAudit(change: AuditedChange, id: string): WebhookEvent | undefined {
  if (change.resource !== "flag" || change.outcome !== "success") return undefined;
  const type = AUDIT_TYPES[change.action];
  if (type === undefined) return undefined;
  return {
    id,
    type,
    occurredAt: change.timestamp,
    cluster: change.cluster,
    namespace: change.namespace,
    name: change.resourceName,
    actor: change.actor,
    details: change.details,
  };
}

/** What the status scan reads of one cluster's caches. */
export interface ClusterSnapshot {
  id: string;
  connection: ClusterConnectionResource | undefined;
  flags: readonly FeatureFlagResource[];
}

function readySince(conditions: readonly { type: string; lastTransitionTime: string }[] | undefined) {
  return conditions?.find((c) => c.type === "Ready")?.lastTransitionTime;
}

/**
 * The status events the operator's last status writes mean: a flag Degraded (a target cannot
 * get it), a ClusterConnection Disconnected or in Error. Every replica scans the same objects
 * and so computes the same ids (object uid, generation, the Ready condition's transition time):
 * the outbox keeps one row per id, so each event is enqueued once however many replicas see it,
 * and again only when the status really changes again.
 */
export function statusEvents(clusters: readonly ClusterSnapshot[]): WebhookEvent[] {
  const events: WebhookEvent[] = [];
  for (const cluster of clusters) {
    for (const flag of cluster.flags) {
      const status = flag.status;
      const since = readySince(status?.conditions);
      if (status?.phase !== "Degraded" || since === undefined) continue;
      const { namespace, name, uid = "", generation = 0 } = flag.metadata;
      events.push({
        id: `delivery.failed/${cluster.id}/${uid}/${generation}/${since}`,
        type: "delivery.failed",
        occurredAt: since,
        cluster: cluster.id,
        namespace,
        name,
        actor: "",
        details: { phase: status.phase, message: status.message ?? "" },
      });
    }
    const status = cluster.connection?.status;
    const since = readySince(status?.conditions);
    if (status?.phase === undefined || status.phase === "Connected" || since === undefined) continue;
    events.push({
      id: `cluster.disconnected/${cluster.id}/${cluster.connection?.metadata.uid ?? ""}/${since}`,
      type: "cluster.disconnected",
      occurredAt: since,
      cluster: cluster.id,
      namespace: "",
      name: cluster.id,
      actor: "",
      details: { phase: status.phase, message: status.message ?? "" },
    });
  }
  return events;
}

/** A webhook's subscription: which events, and optionally only some clusters and namespaces. */
export interface Subscription {
  events: readonly WebhookEventType[];
  /** Empty: every cluster. */
  clusters: readonly string[];
  /** Empty: every namespace. A cluster's own events have none and pass this filter. */
  namespaces: readonly string[];
  /** ISO 8601: events from before the webhook existed are not sent (no flood of old failures). */
  createdAt: string;
}

export function matches(subscription: Subscription, event: WebhookEvent): boolean {
  if (event.type === TEST_EVENT || !subscription.events.includes(event.type)) return false;
  if (subscription.clusters.length > 0 && !subscription.clusters.includes(event.cluster)) return false;
  if (event.namespace !== "" && subscription.namespaces.length > 0) {
    if (!subscription.namespaces.includes(event.namespace)) return false;
  }
  // Times compare as instants: the operator writes whole seconds, the API milliseconds.
  return Date.parse(event.occurredAt) >= Date.parse(subscription.createdAt) - 999;
}

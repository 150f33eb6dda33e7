// What a webhook is told about, where each event comes from, and which webhooks an event goes
// to. Pure: the caller passes the audit event, the clusters' cached objects and the clock.
import { touchesSpec, type ClusterConnectionResource, type FeatureFlagResource } from "@svc/core";
import type { WebhookEventType } from "@svc/core/webhooks/events";
import { changedFields } from "../audit/event.ts";
import { flagAuditFields } from "../flags/audit-fields.ts";

export { WEBHOOK_EVENTS, type WebhookEventType } from "@svc/core/webhooks/events";

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
  /**
   * Who made the change: the API's user; for a change seen in a cluster's cache, the field
   * manager of the latest spec change (e.g. kubectl-edit); "" when unknown (a deletion seen in
   * a cache, what the operator reported).
   */
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

type FlagEventType = "flag.created" | "flag.changed" | "flag.deleted";

const AUDIT_TYPES: Readonly<Record<string, FlagEventType>> = {
  create: "flag.created",
  update: "flag.changed",
  toggle: "flag.changed",
  delete: "flag.deleted",
};

/**
 * The idempotency key of a flag event, computed alike by the replica that served the write and
 * by every replica that sees the change in its cache: a change is one spec generation of one
 * object (uid) in one cluster, so the outbox keeps one row of it whoever enqueues it first.
 */
export function flagEventId(type: FlagEventType, cluster: string, uid: string, generation: number): string {
  return type === "flag.changed" ? `${type}/${cluster}/${uid}/${generation}` : `${type}/${cluster}/${uid}`;
}

/** A flag a write through the API made, changed or deleted: what its event's id is made of. */
export interface WrittenFlag {
  name: string;
  uid: string;
  /** metadata.generation after the write (of the deleted object, for a delete). */
  generation: number;
  /** metadata.generation before a change: a write that did not move it changed no spec field. */
  previousGeneration?: number | undefined;
  /** This flag's own before/after when one request wrote several (an import); else the audit's. */
  details?: Record<string, unknown> | undefined;
}

/** What a write handler tells of the flag it wrote (`before`: the object a change replaced). */
export function writtenFlag(
  flag: FeatureFlagResource,
  before?: FeatureFlagResource,
  details?: Record<string, unknown>,
): WrittenFlag {
  const { name, uid = "", generation = 0 } = flag.metadata;
  return { name, uid, generation, previousGeneration: before?.metadata.generation, details };
}

/**
 * The events of a flag write made through the API, from the audit event the API records of it
 * (so a webhook says what the audit log says, with the same actor and before/after) and the
 * objects written: one per flag, with the id a cache would give the same change. None for
 * anything else than a successful flag write, nor for a change that changed no spec field.
 */
export function eventsOfAudit(change: AuditedChange, written: readonly WrittenFlag[]): WebhookEvent[] {
  if (change.resource !== "flag" || change.outcome !== "success") return [];
  const type = AUDIT_TYPES[change.action];
  if (type === undefined) return [];
  return written
    .filter((flag) => type !== "flag.changed" || flag.previousGeneration !== flag.generation)
    .map((flag) => ({
      id: flagEventId(type, change.cluster, flag.uid, flag.generation),
      type,
      occurredAt: change.timestamp,
      cluster: change.cluster,
      namespace: change.namespace,
      name: flag.name,
      actor: change.actor,
      details: flag.details ?? change.details,
    }));
}

type ManagedFields = FeatureFlagResource["metadata"]["managedFields"];

/**
 * Who made the latest change of a flag's spec, from metadata.managedFields: the manager of the
 * newest entry owning spec fields (status and finalizer writes excepted). "" when none is
 * known or when two managers' entries share the newest time (their times are whole seconds).
 */
export function latestSpecManager(managedFields: ManagedFields): string {
  let latest: { manager: string; time: number } | undefined;
  let tie = false;
  for (const entry of (managedFields ?? []).filter(touchesSpec)) {
    const time = entry.time === undefined ? Number.NaN : new Date(entry.time).getTime();
    if (Number.isNaN(time) || (latest !== undefined && time < latest.time)) continue;
    tie = latest !== undefined && time === latest.time && latest.manager !== entry.manager;
    latest = { manager: entry.manager ?? "", time };
  }
  return latest === undefined || tie ? "" : latest.manager;
}

/** One add, update or delete a replica's flag cache of a cluster reported. */
export interface ObservedFlagChange {
  cluster: string;
  /**
   * Whether the cluster's caches had synced before: until then the cache is being filled by its
   * first list, whose objects are no changes (nor, after a restart, are they new).
   */
  synced: boolean;
  type: "upsert" | "delete";
  object: FeatureFlagResource;
  /** For an upsert: the object it replaced in the cache. */
  previous: FeatureFlagResource | undefined;
  /** ISO 8601: when this replica saw it. */
  at: string;
}

function observed(
  type: FlagEventType,
  change: ObservedFlagChange,
  flag: FeatureFlagResource,
  details: Record<string, unknown>,
): WebhookEvent {
  const { namespace, name, uid = "", generation = 0 } = flag.metadata;
  return {
    id: flagEventId(type, change.cluster, uid, generation),
    type,
    occurredAt: change.at,
    cluster: change.cluster,
    namespace,
    name,
    actor: type === "flag.deleted" ? "" : latestSpecManager(flag.metadata.managedFields),
    details,
  };
}

const deletedEvent = (change: ObservedFlagChange, flag: FeatureFlagResource) =>
  observed("flag.deleted", change, flag, changedFields(flagAuditFields(flag), {}));

/**
 * The flag events a change seen in a cluster's cache means, whoever made it (kubectl, a GitOps
 * tool, the API): created (a new uid), changed (the generation moved: the spec changed),
 * deleted (the object went, or its deletion began: finalizers may hold it a while). Their ids
 * are those the API gives its own writes' events, so the two never make two rows.
 */
export function eventsOfObservedChange(change: ObservedFlagChange): WebhookEvent[] {
  if (!change.synced) return [];
  const { object, previous } = change;
  if (change.type === "delete") return [deletedEvent(change, object)];
  // The name was reused: the old object went, a new one came (seen as one by a relist).
  if (previous !== undefined && previous.metadata.uid !== object.metadata.uid) {
    return [deletedEvent(change, previous), ...eventsOfObservedChange({ ...change, previous: undefined })];
  }
  if (object.metadata.deletionTimestamp !== undefined) {
    return previous?.metadata.deletionTimestamp === undefined ? [deletedEvent(change, object)] : [];
  }
  if (previous === undefined) {
    return [observed("flag.created", change, object, changedFields({}, flagAuditFields(object)))];
  }
  if ((object.metadata.generation ?? 0) <= (previous.metadata.generation ?? 0)) return [];
  const details = changedFields(flagAuditFields(previous), flagAuditFields(object));
  return [observed("flag.changed", change, object, details)];
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
  /** false: paused, no event is enqueued for it (docs/webhooks.md "Pausing"). */
  enabled: boolean;
  events: readonly WebhookEventType[];
  /** Empty: every cluster. */
  clusters: readonly string[];
  /** Empty: every namespace. A cluster's own events have none and pass this filter. */
  namespaces: readonly string[];
  /** ISO 8601: events from before the webhook existed are not sent (no flood of old failures). */
  createdAt: string;
  /** ISO 8601: when it was last resumed; events from before, made while paused, are not sent. */
  resumedAt?: string | null | undefined;
}

/** Whether `event` is enqueued for the webhook: a paused one gets nothing, not even later. */
export function matches(subscription: Subscription, event: WebhookEvent): boolean {
  if (!subscription.enabled) return false;
  if (event.type === TEST_EVENT || !subscription.events.includes(event.type)) return false;
  if (subscription.clusters.length > 0 && !subscription.clusters.includes(event.cluster)) return false;
  if (event.namespace !== "" && subscription.namespaces.length > 0) {
    if (!subscription.namespaces.includes(event.namespace)) return false;
  }
  // Times compare as instants: the operator writes whole seconds, the API milliseconds. A change
  // seen in a cache while paused is enqueued after its grace period, maybe once resumed: its
  // occurredAt (when it was seen) still tells it apart.
  const { createdAt, resumedAt } = subscription;
  const since = Math.max(Date.parse(createdAt), resumedAt ? Date.parse(resumedAt) : -Infinity);
  return Date.parse(event.occurredAt) >= since - 999;
}

// Leader election with a coordination.k8s.io Lease, as client-go's leaderelection does it: the
// holder renews the Lease every third of its duration; another replica takes it over only
// when it has not been renewed for a whole duration; every update is conditional on the
// resourceVersion read, so two replicas never both believe they hold it.
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger, ObjectWriter } from "@svc/kube";

export const LEASE_NAME = "svc-operator";

export interface LeaseJson {
  metadata: { name?: string; resourceVersion?: string; labels?: Record<string, string> };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    renewTime?: string;
    acquireTime?: string;
    leaseTransitions?: number;
  };
}

/** A Lease in the hub: its name, namespace and (for those listed by label) labels. */
export interface LeaseRef {
  name: string;
  namespace: string;
  labels?: Record<string, string>;
}

export interface LeaderElectionOptions {
  writer: ObjectWriter;
  namespace: string;
  identity: string;
  leaseDurationMs: number;
  now: () => Date;
  logger: Logger;
  signal: AbortSignal;
  /** Called once, when this replica becomes leader. */
  onStartedLeading: () => void;
  /** Called once, when a leader could not renew in time: it must stop acting at once. */
  onStoppedLeading: () => void;
}

/** metav1.MicroTime: RFC 3339 with microseconds. */
function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** When the holder's hold ends (ms): its last renewal plus the duration; undefined when nobody is named. */
export function heldUntil(lease: LeaseJson["spec"]): number | undefined {
  if (lease?.holderIdentity === undefined || lease.holderIdentity === "") return undefined;
  const renewed = Date.parse(lease.renewTime ?? "");
  return Number.isFinite(renewed) ? renewed + (lease.leaseDurationSeconds ?? 0) * 1000 : undefined;
}

/** Whether someone holds the Lease at `now`: a holder is named and renewed it within the duration. */
export function isHeld(lease: LeaseJson["spec"], now: Date): boolean {
  const until = heldUntil(lease);
  return until !== undefined && until >= now.getTime();
}

/** Whether the Lease may be taken by `identity` at `now`: it holds it, or nobody does. */
export function mayAcquire(lease: LeaseJson["spec"], identity: string, now: Date): boolean {
  return lease?.holderIdentity === identity || !isHeld(lease, now);
}

/** The Lease's reference for the writer (with its labels, for a create or apply). */
export function leaseObject(lease: LeaseRef) {
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: lease.name, namespace: lease.namespace, ...(lease.labels && { labels: lease.labels }) },
  };
}

/**
 * Takes or renews the Lease for `identity`: true when it holds it now, false when another
 * holder renewed it within its duration. Every update is conditional on the resourceVersion
 * read: a replica that read an older Lease gets a 409 (thrown), so two never both hold it.
 * With `onlyRenew`, a Lease that is missing or names another holder is left as it is (false).
 */
/** Whether `identity` holds the Lease after acquireLease; if not, until when its holder does (ms), when another does. */
export type LeaseAttempt = { held: true } | { held: false; othersUntil: number | undefined };

export async function acquireLease(
  writer: ObjectWriter,
  lease: LeaseRef,
  identity: string,
  leaseDurationMs: number,
  at: Date,
  { onlyRenew = false }: { onlyRenew?: boolean } = {},
): Promise<LeaseAttempt> {
  const ref = leaseObject(lease);
  const durationSeconds = Math.max(1, Math.round(leaseDurationMs / 1000));
  const current = await writer.read<LeaseJson>(ref);
  const notHeld = { held: false, othersUntil: heldUntil(current?.spec) } as const;
  if (onlyRenew && current?.spec?.holderIdentity !== identity) return notHeld;
  if (current === undefined) {
    const spec = {
      holderIdentity: identity,
      leaseDurationSeconds: durationSeconds,
      acquireTime: microTime(at),
      renewTime: microTime(at),
      leaseTransitions: 0,
    };
    // undefined: another replica created it first.
    return (await writer.create({ ...ref, spec })) !== undefined
      ? { held: true }
      : { held: false, othersUntil: undefined };
  }
  if (!mayAcquire(current.spec, identity, at)) return notHeld;
  const taking = current.spec?.holderIdentity !== identity;
  const spec = {
    holderIdentity: identity,
    leaseDurationSeconds: durationSeconds,
    acquireTime: taking ? microTime(at) : (current.spec?.acquireTime ?? microTime(at)),
    renewTime: microTime(at),
    leaseTransitions: (current.spec?.leaseTransitions ?? 0) + (taking ? 1 : 0),
  };
  await writer.apply(
    { ...ref, metadata: { ...ref.metadata, resourceVersion: current.metadata.resourceVersion }, spec },
    { force: true },
  );
  return { held: true };
}

/** Hands the Lease back (an empty holder) when `identity` holds it, so another takes it at once rather than after it expires. */
export async function releaseLease(
  writer: ObjectWriter,
  lease: LeaseRef,
  identity: string,
  at: Date,
): Promise<void> {
  const ref = leaseObject(lease);
  const current = await writer.read<LeaseJson>(ref);
  if (current?.spec?.holderIdentity !== identity) return;
  await writer.apply(
    {
      ...ref,
      metadata: { ...ref.metadata, resourceVersion: current.metadata.resourceVersion },
      spec: { ...current.spec, holderIdentity: "", renewTime: microTime(at) },
    },
    { force: true },
  );
}

export async function runLeaderElection(options: LeaderElectionOptions): Promise<void> {
  const { writer, namespace, identity, leaseDurationMs, now, logger, signal } = options;
  const lease = { name: LEASE_NAME, namespace };
  let leading = false;
  let lastRenew = 0;
  /** On shutdown the leader hands the Lease back, so a standby takes over at once rather than after it expires. */
  const release = async () => {
    try {
      await releaseLease(writer, lease, identity, now());
    } catch (error) {
      logger.warn({ err: error }, "leader election: the Lease could not be released; it expires by itself");
    }
  };
  while (!signal.aborted) {
    let held = false;
    try {
      ({ held } = await acquireLease(writer, lease, identity, leaseDurationMs, now()));
    } catch (error) {
      logger.warn({ err: error }, "leader election: the Lease could not be read or written");
    }
    const at = now().getTime();
    if (held) {
      lastRenew = at;
      if (!leading) {
        leading = true;
        logger.info({ identity }, "leader election: this replica leads");
        options.onStartedLeading();
      }
    } else if (leading && at - lastRenew >= leaseDurationMs * (2 / 3)) {
      // client-go's renew deadline: stop before another replica may take over.
      logger.error({ identity }, "leader election: the Lease could not be renewed; stopping");
      options.onStoppedLeading();
      return;
    }
    await sleep(leaseDurationMs / 3, undefined, { signal }).catch(() => undefined);
  }
  if (leading) await release();
}

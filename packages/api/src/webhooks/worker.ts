// The outbox worker every API replica runs: it claims due deliveries (a lease per row, so each
// is sent by one replica), sends them, records each outcome, scans the clusters' caches for
// status events and enqueues the flag changes they saw once their grace period is over. Nothing
// here runs on a request's path: a flag change only inserts rows.
import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { ClusterRegistry } from "@svc/kube";
import type { WebhookConfig } from "../config.ts";
import { isoTime } from "../time.ts";
import { parseNetwork, type Network } from "./address.ts";
import { statusEvents, type WebhookEvent } from "./events.ts";
import { FlagChangeObserver } from "./flag-observer.ts";
import { bodyOf, headersOf, retryAfterFailure } from "./payload.ts";
import { sendAttempt } from "./sender.ts";
import type { ClaimedDelivery, WebhooksRepo } from "./store.ts";

/** Rows claimed per poll: also how many attempts run at once per replica. */
const BATCH = 20;
/** A lease outlives an attempt by this much, so a slow database write does not let it lapse. */
const LEASE_MARGIN_MS = 30_000;
/** How often the clusters' caches are scanned for status events (delivery failed, disconnected). */
const STATUS_SCAN_EVERY_POLLS = 5;
const SEEN_MAX = 100_000;

export function allowedNetworks(config: WebhookConfig): Network[] {
  return config.allowedNetworks.flatMap((cidr) => parseNetwork(cidr) ?? []);
}

export interface OutboxWorkerOptions {
  repo: WebhooksRepo;
  config: WebhookConfig;
  clusters: ClusterRegistry | undefined;
  log: FastifyBaseLogger;
  now: () => number;
}

export class OutboxWorker {
  readonly #options: OutboxWorkerOptions;
  readonly #allowed: Network[];
  /** This replica's name on the leases it takes. */
  readonly #owner = randomUUID();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #observer: FlagChangeObserver | undefined;
  #timer: NodeJS.Timeout | undefined;
  #polls = 0;
  /** Status and flag events this replica enqueued already: not offered to the database again. */
  readonly #enqueued = new Set<string>();
  #stopped = false;

  constructor(options: OutboxWorkerOptions) {
    this.#options = options;
    this.#allowed = allowedNetworks(options.config);
    this.#observer =
      options.clusters === undefined
        ? undefined
        : new FlagChangeObserver(options.clusters, options.config.observedGraceMs, options.now);
  }

  start(): void {
    this.#observer?.start();
    this.#schedule(0);
  }

  /**
   * Stops polling and waits for the attempts under way (each bounded by the timeout). A row
   * whose outcome was not recorded is sent again after its lease: at least once, never lost.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#observer?.stop();
    await Promise.allSettled([...this.#inFlight]);
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#poll(), delayMs);
  }

  async #poll(): Promise<void> {
    const { repo, config, log, now } = this.#options;
    try {
      await this.#enqueueObserved();
      if (this.#polls++ % STATUS_SCAN_EVERY_POLLS === 0) await this.#scanStatus();
      const free = BATCH - this.#inFlight.size;
      const at = now();
      const leaseUntil = isoTime(at + config.timeoutMs + LEASE_MARGIN_MS);
      const claimed = free > 0 ? await repo.claim(this.#owner, isoTime(at), leaseUntil, free) : [];
      for (const delivery of claimed) {
        const attempt = this.#attempt(delivery).finally(() => this.#inFlight.delete(attempt));
        this.#inFlight.add(attempt);
      }
    } catch (error) {
      log.warn({ err: error }, "webhook outbox poll failed; trying again");
    }
    this.#schedule(config.pollIntervalMs);
  }

  async #attempt(delivery: ClaimedDelivery): Promise<void> {
    const { repo, config, log, now } = this.#options;
    const body = bodyOf(delivery.event, delivery.format);
    const headers = headersOf(delivery.event, body, delivery.secret, now());
    const outcome = await sendAttempt(delivery.url, body, headers, {
      timeoutMs: config.timeoutMs,
      allowed: this.#allowed,
    });
    const at = now();
    const decision = outcome.ok
      ? undefined
      : retryAfterFailure(
          delivery.attempts + 1,
          Date.parse(delivery.createdAt),
          at,
          config.retryMaxDelayMs,
          Math.random(),
        );
    const retryAt = decision?.retry === true ? isoTime(decision.atMs) : undefined;
    // The delivery's id and event only: the URL may carry a secret (Slack's does), the secret is one.
    const fields = { delivery: delivery.id, event: delivery.event.id, attempt: delivery.attempts + 1 };
    if (outcome.ok) log.debug(fields, "webhook delivered");
    else log.info({ ...fields, error: outcome.error, retryAt }, "webhook delivery failed");
    try {
      await repo.finish(delivery.id, this.#owner, outcome, isoTime(at), retryAt);
    } catch (error) {
      log.warn({ err: error, ...fields }, "could not record a webhook attempt; it is sent again");
    }
  }

  /** Enqueues the status events the caches show; a replica that already enqueued one is a no-op. */
  async #scanStatus(): Promise<void> {
    const { clusters } = this.#options;
    if (clusters === undefined) return;
    const snapshots = clusters.list().map((cluster) => ({
      id: cluster.id,
      connection: cluster.connection,
      flags: cluster.flags.list(),
    }));
    await this.#enqueueOnce(statusEvents(snapshots));
  }

  /** Enqueues the flag changes seen in the caches whose grace period is over; if that fails, they stay due. */
  async #enqueueObserved(): Promise<void> {
    const observer = this.#observer;
    if (observer === undefined) return;
    const due = observer.due(this.#options.now());
    await this.#enqueueOnce(due);
    for (const event of due) observer.forget(event.id);
  }

  async #enqueueOnce(events: readonly WebhookEvent[]): Promise<void> {
    const { repo, now } = this.#options;
    const fresh = events.filter((event) => !this.#enqueued.has(event.id));
    // Bounded: forgetting only costs a no-op insert.
    if (this.#enqueued.size + fresh.length > SEEN_MAX) this.#enqueued.clear();
    await repo.enqueue(fresh, isoTime(now()));
    for (const event of fresh) this.#enqueued.add(event.id);
  }
}

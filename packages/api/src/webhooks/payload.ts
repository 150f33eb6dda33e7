// What goes on the wire for one delivery, and when a failed one is tried again. Pure: the
// clock and randomness are passed in.
import { createHmac } from "node:crypto";
import { backoffDelay, type BackoffPolicy } from "@svc/core/backoff";
import type { WebhookFormat } from "@svc/core/webhooks/events";
import type { WebhookEvent } from "./events.ts";

export { WEBHOOK_FORMATS, type WebhookFormat } from "@svc/core/webhooks/events";

export const SIGNATURE_HEADER = "svc-signature";
export const EVENT_ID_HEADER = "svc-event-id";
export const EVENT_TYPE_HEADER = "svc-event-type";

function where(event: WebhookEvent): string {
  const object = event.namespace === "" ? event.name : `${event.namespace}/${event.name}`;
  return `${object} in cluster ${event.cluster}`;
}

/** One line for people (Slack's `text`): what happened, where, by whom. */
export function summaryOf(event: WebhookEvent): string {
  const by = event.actor === "" ? "" : ` by ${event.actor}`;
  const text = (key: string) => (typeof event.details[key] === "string" ? event.details[key] : "");
  const message = text("message") === "" ? "" : `: ${text("message")}`;
  switch (event.type) {
    case "flag.created":
      return `svc: flag ${where(event)} created${by}`;
    case "flag.changed":
      return `svc: flag ${where(event)} changed${by}`;
    case "flag.deleted":
      return `svc: flag ${where(event)} deleted${by}`;
    case "delivery.failed":
      return `svc: flag ${where(event)} cannot be delivered${message}`;
    case "cluster.disconnected":
      return `svc: cluster ${event.cluster} is ${text("phase") || "disconnected"}${message}`;
    case "webhook.test":
      return `svc: a test of webhook ${event.name}${by}`;
  }
}

/**
 * The request body: the event itself, or Slack's incoming-webhook shape (`{"text"}`, which
 * Mattermost, Rocket.Chat and Teams' Slack-compatible endpoints also accept).
 */
export function bodyOf(event: WebhookEvent, format: WebhookFormat): string {
  return JSON.stringify(format === "slack" ? { text: summaryOf(event) } : event);
}

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, as Stripe signs: the timestamp is
 * signed with the body, so a receiver that refuses old timestamps also refuses replays.
 */
export function signatureOf(secret: string, body: string, nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  const v1 = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
  return `t=${t},v1=${v1}`;
}

/** Every header of one attempt (the signature is new on each, with its own timestamp). */
export function headersOf(
  event: Pick<WebhookEvent, "id" | "type">,
  body: string,
  secret: string,
  nowMs: number,
): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": "svc-webhooks/1",
    [EVENT_ID_HEADER]: event.id,
    [EVENT_TYPE_HEADER]: event.type,
    [SIGNATURE_HEADER]: signatureOf(secret, body, nowMs),
  };
}

/** How long a delivery is retried before it is marked failed for good. */
export const GIVE_UP_AFTER_MS = 24 * 60 * 60 * 1000;

export type RetryDecision = { retry: true; atMs: number } | { retry: false };

/**
 * After failed attempt number `attempts` (1 for the first): when to try again (exponential,
 * jittered, capped at `maxDelayMs`), or to stop once the event is older than GIVE_UP_AFTER_MS.
 */
export function retryAfterFailure(
  attempts: number,
  createdAtMs: number,
  nowMs: number,
  maxDelayMs: number,
  random: number,
): RetryDecision {
  if (nowMs - createdAtMs >= GIVE_UP_AFTER_MS) return { retry: false };
  const policy: BackoffPolicy = {
    initialMs: Math.min(1000, maxDelayMs),
    maxMs: maxDelayMs,
    factor: 2,
    jitter: 0.2,
  };
  return { retry: true, atMs: nowMs + backoffDelay(policy, attempts - 1, random) };
}

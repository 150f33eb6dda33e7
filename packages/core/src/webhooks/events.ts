/**
 * The webhook vocabulary (docs/webhooks.md), the API and the dashboard alike: what a webhook may
 * subscribe to, the formats of its body, the states of its deliveries and the bounds of the
 * fields a user types.
 */
export const WEBHOOK_EVENTS = [
  "flag.created",
  "flag.changed",
  "flag.deleted",
  "delivery.failed",
  "cluster.disconnected",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
/** A webhook's body: the event as JSON, or Slack's `{"text"}`. */
export const WEBHOOK_FORMATS = ["json", "slack"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export const WEBHOOK_DELIVERY_STATES = ["pending", "delivered", "failed"] as const;
export type WebhookDeliveryState = (typeof WEBHOOK_DELIVERY_STATES)[number];

export const WEBHOOK_NAME_MAX = 100;
export const WEBHOOK_URL_MAX = 2048;
export const WEBHOOK_SECRET_MIN = 16;

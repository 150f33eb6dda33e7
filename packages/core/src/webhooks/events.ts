/** What a webhook may subscribe to (docs/webhooks.md "Events"): the API and the dashboard alike. */
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

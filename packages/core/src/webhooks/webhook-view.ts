// Webhooks as the REST API shows them (docs/webhooks.md), the bodies that create and replace one,
// and their delivery log and test sends: the one definition the API validates with and the
// dashboard reads (as types).
import Type from "typebox";
import {
  WEBHOOK_DELIVERY_STATES,
  WEBHOOK_EVENTS,
  WEBHOOK_FORMATS,
  WEBHOOK_NAME_MAX,
  WEBHOOK_SECRET_MIN,
  WEBHOOK_URL_MAX,
} from "./events.ts";

const FILTER_MAX = 100;

const Filter = (what: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
    maxItems: FILTER_MAX,
    uniqueItems: true,
    description: `Only events of these ${what}; empty or absent: all.`,
  });

const fields = {
  name: Type.String({
    minLength: 1,
    maxLength: WEBHOOK_NAME_MAX,
    description: "For people: what the webhook is for.",
  }),
  url: Type.String({
    minLength: 1,
    maxLength: WEBHOOK_URL_MAX,
    description: "http(s) URL; its address must not be loopback, link-local or private unless allowed.",
  }),
  events: Type.Array(Type.Enum([...WEBHOOK_EVENTS]), { minItems: 1, uniqueItems: true }),
  clusters: Type.Optional(Filter("clusters")),
  namespaces: Type.Optional(Filter("namespaces (a cluster's own events always pass)")),
  format: Type.Optional(
    Type.Enum([...WEBHOOK_FORMATS], { description: 'json (default): the event; slack: {"text"}.' }),
  ),
  enabled: Type.Optional(
    Type.Boolean({
      description:
        "false: paused, no event is enqueued for it and its pending deliveries wait until it is resumed. Absent: true on creation, unchanged on update.",
    }),
  ),
  secret: Type.Optional(
    Type.String({
      minLength: WEBHOOK_SECRET_MIN,
      maxLength: 256,
      description: "The HMAC-SHA256 key. Write-only; on creation, made up when absent and shown once.",
    }),
  ),
};

export const WebhookBody = Type.Object(fields, { additionalProperties: false });
export type WebhookBody = Type.Static<typeof WebhookBody>;

/** A PUT replaces the webhook; the read-only fields of its own view are accepted and ignored. */
export const WebhookUpdateBody = Type.Object(
  {
    ...fields,
    id: Type.Optional(Type.String({ maxLength: 64, description: "Read-only: ignored." })),
    createdAt: Type.Optional(Type.String({ maxLength: 64, description: "Read-only: ignored." })),
    updatedAt: Type.Optional(Type.String({ maxLength: 64, description: "Read-only: ignored." })),
  },
  { additionalProperties: false },
);
export type WebhookUpdateBody = Type.Static<typeof WebhookUpdateBody>;

/** A webhook as the API shows it: never its secret. */
export const WebhookView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.Enum([...WEBHOOK_EVENTS])),
  clusters: Type.Array(Type.String()),
  namespaces: Type.Array(Type.String()),
  format: Type.Enum([...WEBHOOK_FORMATS]),
  enabled: Type.Boolean({ description: "false: paused (docs/webhooks.md)." }),
  createdAt: Type.String({ format: "date-time" }),
  updatedAt: Type.String({ format: "date-time" }),
});
export type WebhookView = Type.Static<typeof WebhookView>;

/** The creation's answer: the only one that carries the secret. */
export const CreatedWebhook = Type.Object({
  ...WebhookView.properties,
  secret: Type.String({ description: "Shown here only: never returned again." }),
});
export type CreatedWebhook = Type.Static<typeof CreatedWebhook>;

export const WebhookDeliveryView = Type.Object({
  id: Type.Integer(),
  eventId: Type.String({ description: "The idempotency key (header svc-event-id)." }),
  eventType: Type.String(),
  state: Type.Enum([...WEBHOOK_DELIVERY_STATES]),
  attempts: Type.Integer(),
  createdAt: Type.String(),
  nextAttemptAt: Type.String(),
  lastStatus: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.String(),
  completedAt: Type.Union([Type.String(), Type.Null()]),
});
export type WebhookDeliveryView = Type.Static<typeof WebhookDeliveryView>;

/** A page of a webhook's delivery log, newest first. */
export const WebhookDeliveryPage = Type.Object({
  items: Type.Array(WebhookDeliveryView),
  nextBeforeId: Type.Optional(Type.Integer({ description: "Absent on the last page." })),
});
export type WebhookDeliveryPage = Type.Static<typeof WebhookDeliveryPage>;

/** How the receiver answered a test send. */
export const WebhookTestResult = Type.Object({
  ok: Type.Boolean(),
  status: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.String(),
  durationMs: Type.Integer(),
});
export type WebhookTestResult = Type.Static<typeof WebhookTestResult>;

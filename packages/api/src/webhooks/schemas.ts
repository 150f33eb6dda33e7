// The webhook routes' own plumbing; the bodies and views they carry are core's (webhook-view.ts),
// which the dashboard reads too.
import Type from "typebox";

export const WebhookParams = Type.Object(
  { id: Type.String({ maxLength: 64 }) },
  { additionalProperties: false },
);

export const DeliveriesQuery = Type.Object(
  {
    limit: Type.Optional(Type.String({ pattern: "^[0-9]{1,3}$", description: "1-200 (default 50)." })),
    beforeId: Type.Optional(
      Type.String({ pattern: "^[0-9]{1,15}$", description: "The next page: the last id of this one." }),
    ),
  },
  { additionalProperties: false },
);

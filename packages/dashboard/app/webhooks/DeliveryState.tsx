import type { WebhookDeliveryView } from "@svc/core/browser";

const TONE: Readonly<Record<WebhookDeliveryView["state"], string>> = {
  delivered: "badge ok",
  pending: "badge warn",
  failed: "badge bad",
};

/** A delivery's state as a badge, with the receiver's last HTTP status when there is one. */
export function DeliveryState({ delivery }: { delivery: Pick<WebhookDeliveryView, "state" | "lastStatus"> }) {
  return (
    <span className={TONE[delivery.state]}>
      {delivery.state}
      {delivery.lastStatus === null ? "" : ` (${delivery.lastStatus})`}
    </span>
  );
}

import type { DeliveryView } from "./queries.ts";

const TONE: Readonly<Record<DeliveryView["state"], string>> = {
  delivered: "badge ok",
  pending: "badge warn",
  failed: "badge bad",
};

/** A delivery's state as a badge, with the receiver's last HTTP status when there is one. */
export function DeliveryState({ delivery }: { delivery: Pick<DeliveryView, "state" | "lastStatus"> }) {
  return (
    <span className={TONE[delivery.state]}>
      {delivery.state}
      {delivery.lastStatus === null ? "" : ` (${delivery.lastStatus})`}
    </span>
  );
}

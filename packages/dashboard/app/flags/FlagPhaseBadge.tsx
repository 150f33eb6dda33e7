import type { FlagView } from "@svc/core/browser";

const TONE: Record<FlagView["status"]["phase"], string> = {
  Delivered: "ok",
  Pending: "warn",
  Degraded: "bad",
  NoTargets: "",
};

const LABEL: Record<FlagView["status"]["phase"], string> = {
  Delivered: "Delivered",
  Pending: "Pending",
  Degraded: "Degraded",
  NoTargets: "No targets",
};

/** The operator's delivery phase of a flag; the status message, when any, as its title. */
export function FlagPhaseBadge({ status }: { status: FlagView["status"] }) {
  return (
    <span
      className={`badge ${TONE[status.phase]}`}
      title={status.message === "" ? undefined : status.message}
    >
      {LABEL[status.phase]}
    </span>
  );
}

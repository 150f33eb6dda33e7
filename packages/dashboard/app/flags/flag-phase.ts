import type { FlagView } from "@svc/core/browser";

export interface FlagPhaseView {
  label: string;
  /** The badge's colour class. */
  tone: string;
  message: string;
}

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

/**
 * What the list and the flag page say of a flag's delivery. The operator's phase says whether
 * every target is as it should be; for a disabled flag that means its value is withdrawn
 * (docs/delivery.md), which "Delivered" beside the value misread as delivered. A disabled flag's
 * withdrawal still under way, or failing, keeps the operator's phase.
 */
export function flagPhaseView(flag: Pick<FlagView, "enabled" | "status">): FlagPhaseView {
  const { phase, message } = flag.status;
  if (!flag.enabled && (phase === "Delivered" || phase === "NoTargets")) {
    return {
      label: "Disabled",
      tone: "",
      message:
        phase === "Delivered"
          ? "the flag is off: its value is withdrawn from every target workload"
          : "the flag is off, and no workload matches its selector",
    };
  }
  return { label: LABEL[phase], tone: TONE[phase], message };
}

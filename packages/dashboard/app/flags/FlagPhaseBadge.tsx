import type { FlagView } from "@svc/core/browser";
import { flagPhaseView } from "./flag-phase.ts";

/** A flag's delivery (Disabled when it is off), with its message as the title. */
export function FlagPhaseBadge({ flag }: { flag: Pick<FlagView, "enabled" | "status"> }) {
  const view = flagPhaseView(flag);
  return (
    <span className={`badge ${view.tone}`} title={view.message === "" ? undefined : view.message}>
      {view.label}
    </span>
  );
}

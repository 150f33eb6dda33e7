// What the list and the flag page say of a flag's delivery: a disabled flag reads Disabled
// once its value is withdrawn, never "Delivered" beside its value.
import type { FlagView } from "@svc/core/browser";
import { describe, expect, it } from "vitest";
import { flagPhaseView } from "../app/flags/flag-phase.ts";

const status = (phase: FlagView["status"]["phase"], message = "operator's message"): FlagView["status"] => ({
  phase,
  message,
  targets: [],
});

describe("flagPhaseView", () => {
  it.each([
    ["Delivered", "Delivered", "ok"],
    ["Pending", "Pending", "warn"],
    ["Degraded", "Degraded", "bad"],
    ["NoTargets", "No targets", ""],
  ] as const)("an enabled flag keeps the operator's phase %s", (phase, label, tone) => {
    expect(flagPhaseView({ enabled: true, status: status(phase) })).toEqual({
      label,
      tone,
      message: "operator's message",
    });
  });

  it.each(["Delivered", "NoTargets"] as const)(
    "a disabled flag whose phase is %s reads Disabled",
    (phase) => {
      const view = flagPhaseView({ enabled: false, status: status(phase) });
      expect(view.label).toBe("Disabled");
      expect(view.message).toMatch(/^the flag is off/);
    },
  );

  it.each(["Pending", "Degraded"] as const)("a disabled flag whose withdrawal is %s says so", (phase) => {
    expect(flagPhaseView({ enabled: false, status: status(phase) }).label).toBe(phase);
  });
});

import { describe, expect, it } from "vitest";
import { holdsLead, nextOperatorState, type OperatorEvent, type OperatorState } from "../src/lifecycle.ts";

const run = (events: OperatorEvent[], from: OperatorState = "standby") =>
  events.reduce<OperatorState>((state, event) => nextOperatorState(state, event), from);

describe("nextOperatorState", () => {
  it("goes standby → starting → leading → closing → closed", () => {
    expect(run(["elected"])).toBe("starting");
    expect(run(["elected", "started"])).toBe("leading");
    expect(run(["elected", "started", "close"])).toBe("closing");
    expect(run(["elected", "started", "close", "closed"])).toBe("closed");
  });

  it("ends a start-up that a close or a lost Lease interrupted: finishing it later does not lead", () => {
    expect(run(["elected", "close", "started"])).toBe("closing");
    expect(run(["elected", "leadershipLost", "started"])).toBe("closing");
    expect(run(["elected", "close", "closed", "started"])).toBe("closed");
  });

  it("never starts again once closing or closed, and closes from any state but closed", () => {
    expect(run(["close", "elected"])).toBe("closing");
    expect(run(["close", "closed", "elected"])).toBe("closed");
    expect(run(["close"])).toBe("closing");
    expect(run(["close", "closed", "close"])).toBe("closed");
    expect(run(["closed"])).toBe("standby");
  });

  it("holds the lead while starting and leading only", () => {
    const states: OperatorState[] = ["standby", "starting", "leading", "closing", "closed"];
    expect(states.filter(holdsLead)).toEqual(["starting", "leading"]);
  });
});

import { describe, expect, it } from "vitest";
import {
  newerPosition,
  olderPosition,
  pageOf,
  stateOfTrail,
  trailFromState,
  type PagePosition,
} from "../app/audit/audit-paging.ts";

const events = (...ids: number[]) => ids.map((id) => ({ id }));

describe("pageOf", () => {
  it("shows a page and offers an older one when the extra event came back", () => {
    expect(pageOf(events(9, 8, 7), 2)).toEqual({ events: events(9, 8), olderCursor: 8 });
  });

  it("offers no older page when the extra event did not come back", () => {
    expect(pageOf(events(9, 8), 2)).toEqual({ events: events(9, 8), olderCursor: undefined });
    expect(pageOf([], 2)).toEqual({ events: [], olderCursor: undefined });
  });
});

describe("Older and Newer", () => {
  const first: PagePosition = { view: { filter: { actor: "a" }, pageSize: 2 }, trail: [] };

  it("walks back to exactly the pages it came from", () => {
    const second = olderPosition(first, 8);
    const third = olderPosition(second, 6);
    expect(third.view).toEqual({ filter: { actor: "a" }, pageSize: 2, before: 6 });
    const back = newerPosition(third);
    expect(back).toEqual(second);
    expect(newerPosition(back)).toEqual(first);
  });

  it("goes to the newest page when it does not know where it came from", () => {
    const lost: PagePosition = { view: { filter: {}, pageSize: 2, before: 40 }, trail: [] };
    expect(newerPosition(lost).view).toEqual({ filter: {}, pageSize: 2 });
  });

  it("keeps the trail in history state, ignoring state that is not one", () => {
    const trail = [undefined, 8, 6];
    expect(trailFromState(JSON.parse(JSON.stringify(stateOfTrail(trail))))).toEqual(trail);
    expect(trailFromState(null)).toEqual([]);
    expect(trailFromState({ auditTrail: ["8"] })).toEqual([]);
    expect(trailFromState({ other: 1 })).toEqual([]);
  });
});

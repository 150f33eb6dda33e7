// Which folders an earlier run left (an owner gone: its process ended, or its id now names
// another process), and the one line that reports what could not be removed.
import { describe, expect, it } from "vitest";
import { describeFailures, formatOwner, ownerGone, parseOwner, startTicksOf } from "../src/leftovers.ts";

describe("owner records", () => {
  it("reads back what was written", () => {
    expect(parseOwner(formatOwner({ pid: 4242, startTicks: 987654 }))).toEqual({
      pid: 4242,
      startTicks: 987654,
    });
  });

  it("reads nothing from a partly written or foreign file", () => {
    for (const text of ["", "4242", "4242 ", "pid 1", "4242 12 extra\n"])
      expect(parseOwner(text)).toBeUndefined();
  });

  it("takes the start time from field 22 of /proc/<pid>/stat, even when the name holds spaces and parentheses", () => {
    const stat =
      "12935 (node (svc) dev) S 12890 12890 5135 0 -1 4194304 127 0 0 0 0 0 0 0 20 0 1 0 24295 3133440 381";
    expect(startTicksOf(stat)).toBe(24295);
  });
});

describe("ownerGone", () => {
  const owner = { pid: 4242, startTicks: 1000 };

  it("is true when no process has the id any more", () => {
    expect(ownerGone(owner, undefined)).toBe(true);
  });

  it("is true when the id now names another process (started at another time)", () => {
    expect(ownerGone(owner, 5000)).toBe(true);
  });

  it("is false while the owner runs", () => {
    expect(ownerGone(owner, 1000)).toBe(false);
  });

  it("is false for a folder without a record: another run's being made, or an older harness's", () => {
    expect(ownerGone(undefined, undefined)).toBe(false);
  });
});

describe("describeFailures", () => {
  it("is empty when everything was removed", () => {
    expect(describeFailures([])).toBe("");
  });

  it("names everything left on one line", () => {
    const line = describeFailures([
      "EBUSY: resource busy or locked, rmdir '/x/run-1'",
      "the bridge svc-cni0",
    ]);
    expect(line.split("\n")).toHaveLength(1);
    expect(line).toBe(
      "svc: could not remove (remove by hand): EBUSY: resource busy or locked, rmdir '/x/run-1'; the bridge svc-cni0",
    );
  });
});

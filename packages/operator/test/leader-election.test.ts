import { describe, expect, it } from "vitest";
import { mayAcquire } from "../src/leader-election.ts";

const now = new Date("2026-11-22T09:00:30Z");

describe("mayAcquire", () => {
  it("lets the holder renew and anyone take a Lease nobody holds", () => {
    expect(
      mayAcquire(
        { holderIdentity: "a", renewTime: "2026-11-22T09:00:29.000000Z", leaseDurationSeconds: 15 },
        "a",
        now,
      ),
    ).toBe(true);
    expect(mayAcquire(undefined, "b", now)).toBe(true);
    expect(mayAcquire({ holderIdentity: "" }, "b", now)).toBe(true);
  });

  it("refuses another replica while the holder renewed within the duration, and allows it after", () => {
    const lease = { holderIdentity: "a", renewTime: "2026-11-22T09:00:20.000000Z", leaseDurationSeconds: 15 };
    expect(mayAcquire(lease, "b", now)).toBe(false);
    expect(mayAcquire(lease, "b", new Date("2026-11-22T09:00:35.001Z"))).toBe(true);
  });
});

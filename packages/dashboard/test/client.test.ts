import { describe, expect, it } from "vitest";
import { ApiError, apiUrl, errorForField } from "../app/api/client.ts";
import { relativeTime } from "../app/ui/time.ts";

describe("errorForField", () => {
  const error = new ApiError(
    400,
    "delivery.envVar.name: must be a C identifier; defaultValue: must be true or false",
  );

  it("finds the part of an API message about a field and its sub-fields", () => {
    expect(errorForField(error, "defaultValue")).toBe("defaultValue: must be true or false");
    expect(errorForField(error, "delivery")).toBe("delivery.envVar.name: must be a C identifier");
  });

  it("does not mistake a field for another that starts the same way", () => {
    expect(errorForField(new ApiError(400, "namespaces: bad"), "name")).toBeUndefined();
    expect(errorForField(new Error("name: x"), "name")).toBeUndefined();
  });
});

describe("apiUrl", () => {
  it("leaves out empty filters and encodes the rest", () => {
    expect(apiUrl("/api/v1/flags", { clusterId: "a b", namespace: "", x: undefined })).toBe(
      "/api/v1/flags?clusterId=a+b",
    );
    expect(apiUrl("/api/v1/flags")).toBe("/api/v1/flags");
  });
});

describe("relativeTime", () => {
  const now = Date.parse("2026-11-22T12:00:00Z");
  it("says how long ago, coarsely", () => {
    expect(relativeTime("2026-11-22T11:59:58Z", now)).toBe("just now");
    expect(relativeTime("2026-11-22T11:59:30Z", now)).toBe("30 s ago");
    expect(relativeTime("2026-11-22T11:30:00Z", now)).toBe("30 min ago");
    expect(relativeTime("2026-11-21T10:00:00Z", now)).toBe("1 d ago");
    expect(relativeTime("not a time", now)).toBe("never");
  });
});

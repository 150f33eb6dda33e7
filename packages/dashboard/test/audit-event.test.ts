import { describe, expect, it } from "vitest";
import { describeDetails, eventTarget } from "../app/audit/audit-event.ts";

describe("describeDetails", () => {
  it("lists each changed field with its value before and after", () => {
    expect(
      describeDetails({
        before: { enabled: true, defaultValue: "1" },
        after: { enabled: false, defaultValue: "2", selector: { app: "web" } },
      }),
    ).toEqual({
      kind: "changes",
      fields: [
        { field: "defaultValue", before: "1", after: "2" },
        { field: "enabled", before: "true", after: "false" },
        { field: "selector", before: undefined, after: '{"app":"web"}' },
      ],
      notes: [],
    });
  });

  it("shows a creation (no before) and a password change without any password", () => {
    expect(describeDetails({ before: {}, after: { username: "bob", role: "viewer" } })).toEqual({
      kind: "changes",
      fields: [
        { field: "role", before: undefined, after: "viewer" },
        { field: "username", before: undefined, after: "bob" },
      ],
      notes: [],
    });
    // What the API records for a password change: no field's value, a note that it changed.
    expect(describeDetails({ before: {}, after: {}, passwordChanged: true })).toEqual({
      kind: "changes",
      fields: [],
      notes: [{ field: "passwordChanged", value: "true" }],
    });
  });

  it("shows the status and error of a refused request", () => {
    expect(describeDetails({ status: 409, error: "user admin is the last admin" })).toEqual({
      kind: "refusal",
      status: "409",
      error: "user admin is the last admin",
    });
  });

  it("hides nothing it does not recognise, and says when there is nothing", () => {
    expect(describeDetails({ note: "x" })).toEqual({ kind: "other", json: '{\n  "note": "x"\n}' });
    expect(describeDetails({})).toEqual({ kind: "none" });
  });
});

describe("eventTarget", () => {
  it("names the resource and, when there is one, its namespace and name", () => {
    expect(eventTarget({ resource: "flag", resourceName: "checkout", namespace: "team-a" })).toBe(
      "flag team-a/checkout",
    );
    expect(eventTarget({ resource: "user", resourceName: "bob", namespace: "" })).toBe("user bob");
    expect(eventTarget({ resource: "session", resourceName: "", namespace: "" })).toBe("session");
  });
});

import { describe, expect, it } from "vitest";
import { auditCsv, csvCell } from "../src/audit/csv.ts";
import type { AuditEventView as AuditEvent } from "@svc/core";
import { changedFields, outcomeOf } from "../src/audit/event.ts";
import { parseAuditQuery, retentionCutoff } from "../src/audit/query.ts";
import { auditMediaType } from "../src/audit/routes.ts";

describe("changedFields", () => {
  it("keeps only what changed, on both sides", () => {
    expect(changedFields({ role: "viewer", name: "a" }, { role: "editor", name: "a" })).toEqual({
      before: { role: "viewer" },
      after: { role: "editor" },
    });
    expect(changedFields({}, { username: "a", role: "viewer" })).toEqual({
      before: {},
      after: { role: "viewer", username: "a" },
    });
    expect(changedFields({ role: "admin" }, {})).toEqual({ before: { role: "admin" }, after: {} });
    expect(changedFields({ labels: { a: "1" } }, { labels: { a: "1" } })).toEqual({ before: {}, after: {} });
  });
});

describe("outcomeOf", () => {
  it("maps statuses to success, denied and failure", () => {
    expect([200, 201, 403, 429, 400, 404, 409, 500].map(outcomeOf)).toEqual([
      "success",
      "success",
      "denied",
      "denied",
      "failure",
      "failure",
      "failure",
      "failure",
    ]);
  });
});

describe("parseAuditQuery", () => {
  it("passes a resource's name and namespace through, an empty namespace included", () => {
    expect(parseAuditQuery({ resource: "flag", resourceName: "dark-mode", namespace: "" })).toEqual({
      ok: true,
      value: { resource: "flag", resourceName: "dark-mode", namespace: "", limit: 100 },
    });
  });

  it("defaults the limit to 100 and normalises times to UTC", () => {
    expect(parseAuditQuery({})).toEqual({ ok: true, value: { limit: 100 } });
    expect(
      parseAuditQuery({
        since: "2026-01-31T13:00:00+01:00",
        until: "2026-02-01",
        before: "42",
        limit: "1000",
      }),
    ).toEqual({
      ok: true,
      value: {
        since: "2026-01-31T12:00:00.000Z",
        until: "2026-02-01T00:00:00.000Z",
        beforeId: 42,
        limit: 1000,
      },
    });
  });

  it("refuses dates and times that do not exist", () => {
    for (const since of [
      "2026-02-31",
      "2026-02-29",
      "2026-13-01",
      "2026-00-10",
      "2026-01-01T24:00:00Z",
      "2026-01-01T12:60:00Z",
      "2026-01-01T12:00:61Z",
      "2026-01-01T12:00:00+25:00",
    ]) {
      const result = parseAuditQuery({ since });
      expect(result.ok ? since : result.errors.map((e) => e.field)).toEqual(["query.since"]);
    }
    expect(parseAuditQuery({ since: "2028-02-29" })).toEqual({
      ok: true,
      value: { since: "2028-02-29T00:00:00.000Z", limit: 100 },
    });
    expect(parseAuditQuery({ since: "2026-01-31T12:00:59.5Z" }).ok).toBe(true);
    // Years below 100 are themselves, not 1900 + year: year 0 is a leap year, 1900 is not.
    expect(parseAuditQuery({ since: "0000-02-29" })).toEqual({
      ok: true,
      value: { since: "0000-02-29T00:00:00.000Z", limit: 100 },
    });
  });

  it("names each bad parameter", () => {
    const result = parseAuditQuery({ since: "May 5", limit: "0", before: "-1" });
    expect(result.ok ? [] : result.errors.map((e) => e.field)).toEqual([
      "query.since",
      "query.limit",
      "query.before",
    ]);
    expect(parseAuditQuery({ limit: "1001" }).ok).toBe(false);
  });

  it("cuts off events older than the retention", () => {
    expect(retentionCutoff(Date.parse("2026-12-31T00:00:00Z"), 365)).toBe("2025-12-31T00:00:00.000Z");
  });
});

describe("CSV", () => {
  it("quotes what needs quoting and defuses spreadsheet formulas", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell('a,"b"')).toBe('"a,""b"""');
    expect(csvCell("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csvCell("-1,2")).toBe(`"'-1,2"`);
  });

  it("writes a header and one row per event", () => {
    const event: AuditEvent = {
      id: 7,
      timestamp: "2026-01-01T00:00:00.000Z",
      actor: "ann",
      actorRole: "admin",
      action: "create",
      resource: "user",
      resourceName: "bob",
      namespace: "",
      cluster: "",
      outcome: "success",
      sourceIp: "127.0.0.1",
      details: { after: { role: "viewer" } },
    };
    expect(auditCsv([event]).split("\r\n")).toEqual([
      "id,timestamp,actor,actorRole,action,resource,resourceName,namespace,cluster,outcome,sourceIp,details",
      '7,2026-01-01T00:00:00.000Z,ann,admin,create,user,bob,,,success,127.0.0.1,"{""after"":{""role"":""viewer""}}"',
      "",
    ]);
  });

  it("is chosen by the Accept header's q-values, then its order", () => {
    expect(auditMediaType("text/csv")).toBe("text/csv");
    expect(auditMediaType("application/json, text/csv;q=0.5")).toBe("application/json");
    expect(auditMediaType("application/json;q=0.5, text/csv")).toBe("text/csv");
    expect(auditMediaType("application/json, text/csv")).toBe("application/json");
    expect(auditMediaType("text/csv, application/json")).toBe("text/csv");
    expect(auditMediaType(undefined)).toBe("application/json");
    expect(auditMediaType("*/*")).toBe("application/json");
    expect(auditMediaType("text/csvx")).toBeUndefined();
    expect(auditMediaType("text/csv;q=0")).toBeUndefined();
  });
});

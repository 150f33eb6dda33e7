import { describe, expect, it } from "vitest";
import { auditCsv, csvCell } from "../src/audit/csv.ts";
import { changedFields, outcomeOf, type AuditEvent } from "../src/audit/event.ts";
import { parseAuditQuery, retentionCutoff } from "../src/audit/query.ts";
import { wantsCsv } from "../src/audit/routes.ts";

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

  it("is chosen by an Accept header naming text/csv", () => {
    expect(wantsCsv("text/csv")).toBe(true);
    expect(wantsCsv("application/json, text/csv;q=0.5")).toBe(true);
    expect(wantsCsv(undefined)).toBe(false);
    expect(wantsCsv("application/json")).toBe(false);
    expect(wantsCsv("text/csvx")).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { apiUrl } from "../app/api/client.ts";
import {
  AUDIT_EXPORT_LIMIT,
  auditExportQuery,
  auditPageQuery,
  auditViewFromSearch,
  DEFAULT_AUDIT_PAGE_SIZE,
  exportFileName,
  hasFilter,
  isoToLocalInput,
  localInputToIso,
  searchFromAuditView,
  timeRangeProblem,
  withFilter,
  type AuditView,
} from "../app/audit/audit-view.ts";

describe("the audit view in the URL", () => {
  it("reads every filter, the page size and the cursor, and writes them back unchanged", () => {
    const search =
      "resource=flag&action=toggle&cluster=local&actor=alice&since=2026-11-01T00%3A00%3A00.000Z" +
      "&until=2026-11-02T00%3A00%3A00.000Z&pageSize=25&before=812";
    const view = auditViewFromSearch(new URLSearchParams(search));
    expect(view).toEqual({
      filter: {
        resource: "flag",
        action: "toggle",
        cluster: "local",
        actor: "alice",
        since: "2026-11-01T00:00:00.000Z",
        until: "2026-11-02T00:00:00.000Z",
      },
      pageSize: 25,
      before: 812,
    });
    expect(searchFromAuditView(view).toString()).toBe(search);
  });

  it("leaves out what a hand-edited link gets wrong instead of sending it to be refused", () => {
    const view = auditViewFromSearch(
      new URLSearchParams("resource=flags&action=rename&since=yesterday&pageSize=7&before=-3&actor=%20%20"),
    );
    expect(view).toEqual({ filter: {}, pageSize: DEFAULT_AUDIT_PAGE_SIZE });
  });

  it("keeps links short: the default page size and empty filters are not written", () => {
    expect(searchFromAuditView({ filter: { actor: "" }, pageSize: DEFAULT_AUDIT_PAGE_SIZE }).toString()).toBe(
      "",
    );
  });
});

describe("the audit queries", () => {
  const view: AuditView = { filter: { resource: "user", actor: "bob" }, pageSize: 50, before: 90 };

  it("asks for one event more than a page shows, older than the cursor", () => {
    expect(apiUrl("/api/v1/audit", auditPageQuery(view))).toBe(
      "/api/v1/audit?resource=user&actor=bob&limit=51&before=90",
    );
  });

  it("exports the filter, not the page, up to the API's largest page", () => {
    expect(apiUrl("/api/v1/audit", auditExportQuery(view.filter))).toBe(
      `/api/v1/audit?resource=user&actor=bob&limit=${AUDIT_EXPORT_LIMIT}`,
    );
  });

  it("starts again at the newest page when the filter changes, keeping the page size", () => {
    expect(withFilter(view, { action: "delete" })).toEqual({ filter: { action: "delete" }, pageSize: 50 });
  });

  it("knows when any filter is set", () => {
    expect(hasFilter({})).toBe(false);
    expect(hasFilter({ cluster: "" })).toBe(false);
    expect(hasFilter({ cluster: "local" })).toBe(true);
  });
});

describe("time range inputs", () => {
  it("turns a local datetime-local value into the same instant in UTC, and back", () => {
    const iso = localInputToIso("2026-11-22T14:30");
    expect(iso).toBe(new Date(2026, 10, 22, 14, 30).toISOString());
    expect(isoToLocalInput(iso)).toBe("2026-11-22T14:30");
    expect(isoToLocalInput(localInputToIso("2026-03-01T00:00:15"))).toBe("2026-03-01T00:00:15");
  });

  it("treats an empty or malformed input as no bound", () => {
    expect(localInputToIso("")).toBeUndefined();
    expect(localInputToIso("2026-11-22")).toBeUndefined();
    expect(localInputToIso("2026-13-45T99:99")).toBeUndefined();
    expect(isoToLocalInput(undefined)).toBe("");
    expect(isoToLocalInput("nonsense")).toBe("");
  });
});

describe("timeRangeProblem", () => {
  it("refuses an until that is not after since, since until is exclusive", () => {
    const since = "2026-11-22T10:00:00.000Z";
    expect(timeRangeProblem({ since, until: since })).toBe("must be later than Since");
    expect(timeRangeProblem({ since, until: "2026-11-22T09:00:00.000Z" })).toBe("must be later than Since");
    expect(timeRangeProblem({ since, until: "2026-11-22T10:01:00.000Z" })).toBeUndefined();
    expect(timeRangeProblem({ since })).toBeUndefined();
  });
});

describe("exportFileName", () => {
  it("dates the file by the user's calendar", () => {
    expect(exportFileName(new Date(2026, 0, 5, 23, 59))).toBe("svc-audit-2026-01-05.csv");
  });
});

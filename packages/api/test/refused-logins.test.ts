import { describe, expect, it } from "vitest";
import type { NewAuditEvent } from "../src/audit/event.ts";
import {
  addRefusal,
  OTHER_SOURCES,
  REFUSED_LOGIN_SOURCES_MAX,
  REFUSED_LOGIN_USERNAMES_MAX,
  REFUSED_LOGIN_WINDOW_MS,
  refusalSource,
  RefusedLoginLog,
  refusedLoginsEvent,
} from "../src/audit/refused-logins.ts";

function refusal(actor: string, sourceIp: string, status = 401): NewAuditEvent {
  return {
    timestamp: "2026-01-01T10:00:00.000Z",
    actor,
    actorRole: "",
    action: "login_failed",
    resource: "session",
    resourceName: actor,
    namespace: "",
    cluster: "",
    outcome: status === 429 ? "denied" : "failure",
    sourceIp,
    details: { status, error: `error ${status}` },
  };
}

describe("refused logins, aggregated", () => {
  it("count per row, by status, naming the first usernames tried", () => {
    let row = addRefusal(undefined, refusal("admin", "192.0.2.1"), "192.0.2.1");
    for (let i = 0; i < 30; i++)
      row = addRefusal(row, refusal(`user-${i % 15}`, "192.0.2.1", 429), "192.0.2.1");
    expect(row.refusals).toBe(31);
    expect(row.statuses).toEqual({ "401": 1, "429": 30 });
    expect(row.usernames).toHaveLength(REFUSED_LOGIN_USERNAMES_MAX);
    expect(row.usernames[0]).toBe("admin");
    const event = refusedLoginsEvent(row);
    expect(event).toMatchObject({ actor: "admin", sourceIp: "192.0.2.1", outcome: "failure" });
    expect(event.details).toMatchObject({
      status: 401,
      error: "error 401",
      summary: "31 refused logins from 192.0.2.1",
      lastStatus: 429,
    });
  });

  it("give the addresses past the first ones of an hour a row together", () => {
    const rows = new Set(Array.from({ length: REFUSED_LOGIN_SOURCES_MAX }, (_, i) => `198.51.100.${i}`));
    expect(refusalSource(rows, "198.51.100.3")).toBe("198.51.100.3");
    expect(refusalSource(rows, "203.0.113.1")).toBe(OTHER_SOURCES);
    const row = addRefusal(undefined, refusal("x", "203.0.113.1"), OTHER_SOURCES);
    expect(refusedLoginsEvent(row)).toMatchObject({
      sourceIp: "",
      details: { summary: "1 refused login from other addresses" },
    });
  });

  it("write each row under one key per hour, at most one write in flight and the last count always written", async () => {
    const written: { key: string; refusals: unknown }[] = [];
    const releases: (() => void)[] = [];
    const log = new RefusedLoginLog(async (event, key) => {
      await new Promise<void>((resolve) => releases.push(resolve));
      written.push({ key, refusals: event.details["refusals"] });
    }, "boot");
    const hour = 100 * REFUSED_LOGIN_WINDOW_MS;
    const done = Array.from({ length: 50 }, () => log.record(refusal("admin", "192.0.2.1"), hour));
    // One write in flight, one waiting: releasing two finishes them all, with the count of 50.
    for (let i = 0; i < 2; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      releases.shift()?.();
    }
    await Promise.all(done);
    expect(written.map((w) => w.refusals)).toEqual([1, 50]);
    expect(new Set(written.map((w) => w.key)).size).toBe(1);
    // The next hour, and SSO callbacks, get rows of their own.
    const next = log.record(refusal("admin", "192.0.2.1"), hour + REFUSED_LOGIN_WINDOW_MS);
    const sso = log.record(refusal("admin", "192.0.2.1"), hour + REFUSED_LOGIN_WINDOW_MS, "sso");
    for (let i = 0; i < 2; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      releases.shift()?.();
    }
    await Promise.all([next, sso]);
    expect(new Set(written.map((w) => w.key)).size).toBe(3);
  });
});

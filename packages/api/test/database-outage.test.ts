// An outage of the database (down, restarting, failing over) is told apart from a faulty query:
// the client gets 503 and may retry, and a change's audit event waits for the database instead of
// being dropped.
import { describe, expect, it } from "vitest";
import type { NewAuditEvent } from "../src/audit/event.ts";
import { appendSurvivingOutages, AUDIT_RETRY } from "../src/audit/recorder.ts";
import { databaseUnavailable } from "../src/store/db.ts";

const withCode = (code: string, message = "x") => Object.assign(new Error(message), { code });

describe("databaseUnavailable", () => {
  it("recognises a server that is down, restarting, shutting down or locked", () => {
    for (const error of [
      withCode("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"),
      withCode("ECONNRESET"),
      withCode("57P01", "terminating connection due to administrator command"),
      withCode("57P03", "the database system is starting up"),
      withCode("08006", "connection failure"),
      withCode("SQLITE_BUSY", "database is locked"),
      new Error("Connection terminated unexpectedly"),
      new Error("query failed", { cause: withCode("ECONNREFUSED") }),
    ])
      expect(databaseUnavailable(error), error.message).toBe(true);
  });

  it("does not take a faulty query, a constraint or a non-error for an outage", () => {
    for (const error of [
      withCode("23505", "duplicate key value violates unique constraint"),
      withCode("42P01", 'relation "nope" does not exist'),
      withCode("SQLITE_CONSTRAINT_UNIQUE"),
      new TypeError("cannot read properties of undefined"),
      "ECONNREFUSED",
      undefined,
    ])
      expect(databaseUnavailable(error)).toBe(false);
  });
});

describe("appendSurvivingOutages", () => {
  const event = (outcome: NewAuditEvent["outcome"]) => ({ outcome }) as NewAuditEvent;
  /** A clock that advances only when the code sleeps. */
  function fakeClock() {
    const clock = {
      t: 0,
      sleeps: [] as number[],
      now: () => clock.t,
      sleep: (ms: number) => {
        clock.sleeps.push(ms);
        clock.t += ms;
        return Promise.resolve();
      },
      random: () => 0.5,
    };
    return clock;
  }
  const failing = (times: number, error: Error) => {
    const calls: NewAuditEvent[] = [];
    return {
      calls,
      append: (e: NewAuditEvent) => {
        calls.push(e);
        return calls.length <= times ? Promise.reject(error) : Promise.resolve();
      },
    };
  };

  it("writes a success's event once the database is back, backing off meanwhile", async () => {
    const clock = fakeClock();
    const store = failing(3, withCode("ECONNREFUSED"));
    await appendSurvivingOutages(event("success"), store.append, clock);
    expect(store.calls).toHaveLength(4);
    expect(clock.sleeps).toEqual([200, 400, 800]);
  });

  it("gives up on a success's event after AUDIT_RETRY.forMs of outage", async () => {
    const clock = fakeClock();
    const store = failing(Infinity, withCode("57P03"));
    await expect(appendSurvivingOutages(event("success"), store.append, clock)).rejects.toThrow();
    expect(clock.t).toBeGreaterThanOrEqual(AUDIT_RETRY.forMs);
    expect(clock.t).toBeLessThan(AUDIT_RETRY.forMs + AUDIT_RETRY.maxMs * 1.2 + 1);
  });

  it("fails at once for a refusal's event, or for an error that is not an outage", async () => {
    const refusal = failing(1, withCode("ECONNREFUSED"));
    await expect(appendSurvivingOutages(event("denied"), refusal.append, fakeClock())).rejects.toThrow();
    expect(refusal.calls).toHaveLength(1);
    const faulty = failing(1, withCode("23505"));
    await expect(appendSurvivingOutages(event("success"), faulty.append, fakeClock())).rejects.toThrow();
    expect(faulty.calls).toHaveLength(1);
  });
});

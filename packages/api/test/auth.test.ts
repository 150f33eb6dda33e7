import { describe, expect, it } from "vitest";
import { PasswordHashing } from "../src/auth/passwords.ts";
import { bearerToken, isExpired, SESSION_LIFETIME_MS, SessionStore, tokenKey } from "../src/auth/sessions.ts";
import {
  LOGIN_FAILURE_LIMIT,
  LOGIN_FAILURE_WINDOW_MS,
  LoginThrottle,
  throttleDecision,
} from "../src/auth/throttle.ts";

describe("sessions", () => {
  it("issue 64-hex tokens, kept only under a key that is not itself a token", () => {
    let now = 1_000;
    const store = new SessionStore(() => now);
    const { token, session } = store.open("ann", "stamp");
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    // What the store keeps (a memory dump) does not work as a token.
    expect(store.lookup(tokenKey(token))).toEqual({ found: false, reason: "invalid" });
    expect(session.expiresAt - session.issuedAt).toBe(SESSION_LIFETIME_MS);
    expect(store.lookup(token)).toEqual({ found: true, session });
    now += SESSION_LIFETIME_MS - 1;
    expect(store.lookup(token).found).toBe(true);
    now += 1;
    expect(store.lookup(token)).toEqual({ found: false, reason: "expired" });
    store.sweep();
    expect(store.lookup(token)).toEqual({ found: false, reason: "invalid" });
    expect(store.size).toBe(0);
  });

  it("expire exactly 24 hours after issue", () => {
    const session = { username: "a", securityStamp: "s", issuedAt: 0, expiresAt: SESSION_LIFETIME_MS };
    expect(isExpired(session, SESSION_LIFETIME_MS - 1)).toBe(false);
    expect(isExpired(session, SESSION_LIFETIME_MS)).toBe(true);
  });

  it("end one token at logout, or all of a user's but one", () => {
    const store = new SessionStore(() => 0);
    const a = store.open("ann", "s").token;
    const b = store.open("ann", "s").token;
    const c = store.open("bob", "s").token;
    store.closeUserSessions("ann", b);
    expect([a, b, c].map((t) => store.lookup(t).found)).toEqual([false, true, true]);
    store.close(b);
    expect(store.lookup(b).found).toBe(false);
    store.restamp(c, "new");
    const found = store.lookup(c);
    expect(found.found && found.session.securityStamp).toBe("new");
  });

  it("read only well-formed bearer headers", () => {
    const token = "0123456789abcdef".repeat(4);
    expect(bearerToken(`Bearer ${token}`)).toBe(token);
    expect(bearerToken(`bearer ${token.toUpperCase()}`)).toBe(token);
    for (const header of [
      undefined,
      "",
      token,
      `Basic ${token}`,
      `Bearer ${token}0`,
      `Bearer ${token.slice(1)}`,
    ]) {
      expect(bearerToken(header)).toBeUndefined();
    }
  });
});

describe("login throttling", () => {
  const minute = 60_000;

  it("allows up to 9 recent failures and refuses at 10 until the oldest leaves the window", () => {
    const failures = Array.from({ length: LOGIN_FAILURE_LIMIT - 1 }, (_, i) => i * minute);
    expect(throttleDecision(failures, 9 * minute)).toEqual({ allowed: true });
    const full = [...failures, 9 * minute];
    expect(throttleDecision(full, 9 * minute)).toEqual({ allowed: false, retryAfterSeconds: 6 * 60 });
    expect(throttleDecision(full, LOGIN_FAILURE_WINDOW_MS - 1)).toEqual({
      allowed: false,
      retryAfterSeconds: 1,
    });
    expect(throttleDecision(full, LOGIN_FAILURE_WINDOW_MS)).toEqual({ allowed: true });
  });

  it("ignores failures older than 15 minutes", () => {
    const old = Array.from({ length: 20 }, () => 0);
    expect(throttleDecision(old, LOGIN_FAILURE_WINDOW_MS)).toEqual({ allowed: true });
  });

  it("counts per username, and a success clears the count", () => {
    let now = 0;
    const throttle = new LoginThrottle(() => now);
    for (let i = 0; i < LOGIN_FAILURE_LIMIT; i++) expect(throttle.attempt("ann").allowed).toBe(true);
    expect(throttle.attempt("ann").allowed).toBe(false);
    expect(throttle.attempt("bob").allowed).toBe(true);
    throttle.recordSuccess("ann");
    expect(throttle.attempt("ann").allowed).toBe(true);
    for (let i = 0; i < 50; i++) throttle.attempt("bob");
    now += LOGIN_FAILURE_WINDOW_MS;
    expect(throttle.attempt("bob").allowed).toBe(true);
  });

  it("counts an attempt when it is allowed, before its password is checked", () => {
    const throttle = new LoginThrottle(() => 0);
    // Simultaneous attempts: none has failed yet, and still only the limit gets through.
    const decisions = Array.from({ length: 30 }, () => throttle.attempt("ann").allowed);
    expect(decisions.filter(Boolean)).toHaveLength(LOGIN_FAILURE_LIMIT);
  });
});

describe("password hashing", () => {
  it("runs at most `concurrency` hashes at once, queues `queueMax`, and refuses more with 503", async () => {
    const hashing = new PasswordHashing({ concurrency: 2, queueMax: 3 });
    let running = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    const work = () =>
      new Promise<void>((resolve) => {
        running += 1;
        most = Math.max(most, running);
        releases.push(() => {
          running -= 1;
          resolve();
        });
      });
    const admitted = Array.from({ length: 5 }, () => hashing.run(work));
    expect(() => hashing.run(work)).toThrow(expect.objectContaining({ statusCode: 503 }) as Error);
    let error: unknown;
    try {
      hashing.ensureRoom();
    } catch (refusal) {
      error = refusal;
    }
    expect(error).toMatchObject({ statusCode: 503, headers: { "retry-after": "1" } });
    // Bounded: every admitted one runs, never more than two at a time.
    for (let i = 0; i < 5; i++) {
      await Promise.resolve();
      await new Promise((resolve) => setImmediate(resolve));
      releases.shift()?.();
    }
    await Promise.all(admitted);
    expect(most).toBe(2);
    expect(() => {
      hashing.ensureRoom();
    }).not.toThrow();
  });
});

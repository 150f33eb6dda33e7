import { describe, expect, it } from "vitest";
import {
  BCRYPT_COST,
  DUMMY_PASSWORD_HASH,
  hashPassword,
  PasswordHashing,
  verifyPassword,
} from "../src/auth/passwords.ts";
import { bearerToken, isExpired, SESSION_LIFETIME_MS, SessionStore, tokenKey } from "../src/auth/sessions.ts";
import {
  isLoopback,
  LOGIN_FAILURE_LIMIT,
  LOGIN_FAILURE_WINDOW_MS,
  loginDecision,
  LoginThrottle,
  SHARED_LIMITS,
  throttleDecision,
  throttleMessage,
  TRACKED_MAX,
} from "../src/auth/throttle.ts";

const A = "198.51.100.77";
const B = "203.0.113.77";

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
    expect(throttleDecision(full, 9 * minute)).toEqual({
      allowed: false,
      retryAfterSeconds: 6 * 60,
      bound: "pair",
    });
    expect(throttleDecision(full, LOGIN_FAILURE_WINDOW_MS - 1)).toEqual({
      allowed: false,
      retryAfterSeconds: 1,
      bound: "pair",
    });
    expect(throttleDecision(full, LOGIN_FAILURE_WINDOW_MS)).toEqual({ allowed: true });
  });

  it("ignores failures older than 15 minutes", () => {
    const old = Array.from({ length: 20 }, () => 0);
    expect(throttleDecision(old, LOGIN_FAILURE_WINDOW_MS)).toEqual({ allowed: true });
  });

  it("counts per username and source, and a success clears the count", () => {
    let now = 0;
    const throttle = new LoginThrottle(() => now);
    const ann = (source = A) => throttle.attempt("ann", source).allowed;
    for (let i = 0; i < LOGIN_FAILURE_LIMIT; i++) expect(ann()).toBe(true);
    expect(throttle.attempt("ann", A)).toMatchObject({ allowed: false, bound: "pair" });
    // The same username from another address, and another username from the same one, still try.
    expect(ann(B)).toBe(true);
    expect(throttle.attempt("bob", A).allowed).toBe(true);
    throttle.recordSuccess("ann", A);
    expect(ann()).toBe(true);
    for (let i = 0; i < 50; i++) throttle.attempt("bob", A);
    now += LOGIN_FAILURE_WINDOW_MS;
    expect(throttle.attempt("bob", A).allowed).toBe(true);
  });

  it("counts an attempt when it is allowed, before its password is checked", () => {
    const throttle = new LoginThrottle(() => 0);
    // Simultaneous attempts: none has failed yet, and still only the limit gets through.
    const decisions = Array.from({ length: 30 }, () => throttle.attempt("ann", A).allowed);
    expect(decisions.filter(Boolean)).toHaveLength(LOGIN_FAILURE_LIMIT);
  });

  it("bounds a guess spread over many addresses, except from a familiar address or loopback", () => {
    let now = 5 * LOGIN_FAILURE_WINDOW_MS;
    const throttle = new LoginThrottle(() => now);
    throttle.attempt("admin", "192.0.2.200");
    throttle.recordSuccess("admin", "192.0.2.200");
    // Nine guesses from each of many addresses: no pair reaches its limit, the username's does.
    let allowed = 0;
    for (let source = 0; source < 30; source++) {
      for (let i = 0; i < 9; i++) if (throttle.attempt("admin", `198.51.100.${source}`).allowed) allowed++;
    }
    expect(allowed).toBe(SHARED_LIMITS.username);
    expect(throttle.attempt("admin", "203.0.113.1")).toMatchObject({ allowed: false, bound: "username" });
    // Where admin logged in before, and through a port-forward, the right password still gets a try.
    expect(throttle.attempt("admin", "192.0.2.200").allowed).toBe(true);
    expect(throttle.attempt("admin", "127.0.0.1").allowed).toBe(true);
    expect(throttle.attempt("ann", "203.0.113.1").allowed).toBe(true);
    now += LOGIN_FAILURE_WINDOW_MS;
    expect(throttle.attempt("admin", "203.0.113.1").allowed).toBe(true);
  });

  it("bounds one address's guesses over many usernames, and everyone's overall", () => {
    const throttle = new LoginThrottle(() => 0, { username: 100, source: 20, all: 50 });
    const spray = Array.from({ length: 30 }, (_, i) => throttle.attempt(`user-${i}`, A).allowed);
    expect(spray.filter(Boolean)).toHaveLength(20);
    expect(throttle.attempt("user-99", A)).toMatchObject({ allowed: false, bound: "source" });
    for (let i = 0; i < 30; i++) throttle.attempt(`user-${i}`, `198.51.100.${i}`);
    expect(throttle.attempt("someone", "203.0.113.9")).toMatchObject({ allowed: false, bound: "all" });
  });

  it("takes back a successful login's attempt from the shared counts", () => {
    const throttle = new LoginThrottle(() => 0, { username: 3, source: 100, all: 100 });
    for (let i = 0; i < 10; i++) {
      expect(throttle.attempt("ann", `198.51.100.${i}`).allowed).toBe(true);
      throttle.recordSuccess("ann", `198.51.100.${i}`);
    }
    expect(throttle.attempt("ann", "203.0.113.1").allowed).toBe(true);
  });

  it("keeps a bounded number of entries whatever the usernames and addresses", () => {
    const throttle = new LoginThrottle(() => 0, { username: 1e9, source: 1e9, all: 1e9 });
    for (let i = 0; i < TRACKED_MAX + 500; i++) throttle.attempt(`u${i}`, `s${i % 7}`);
    expect(throttle.size).toBeLessThanOrEqual(2 * TRACKED_MAX + 7);
  });

  it("tells which address-independent bound was reached without naming the user", () => {
    expect(throttleMessage("pair")).toMatch(/from your address/);
    expect(throttleMessage("username")).not.toMatch(/user/);
    expect(isLoopback("127.0.0.2")).toBe(true);
    expect(isLoopback("::ffff:127.0.0.1")).toBe(true);
    expect(isLoopback("::1")).toBe(true);
    expect(isLoopback("10.0.0.1")).toBe(false);
    expect(isLoopback("::ffff:10.0.0.1")).toBe(false);
    expect(
      loginDecision(
        { pairFailures: [], usernameFailures: 0, sourceFailures: 0, allFailures: 0, familiar: false },
        0,
      ),
    ).toEqual({ allowed: true });
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

  it("verifies an unknown user against a hash of the same cost as every user's, which no password matches", async () => {
    // bcrypt's time is set by the cost in the hash: a malformed or cheaper dummy would answer
    // an unknown username faster than a wrong password, and so name the users that exist.
    const modularCrypt = /^\$2[aby]\$(\d{2})\$[./A-Za-z0-9]{53}$/;
    const userHash = await hashPassword("a password of someone");
    expect(userHash).toMatch(modularCrypt);
    expect(DUMMY_PASSWORD_HASH).toMatch(modularCrypt);
    expect(Number(modularCrypt.exec(DUMMY_PASSWORD_HASH)?.[1])).toBe(BCRYPT_COST);
    expect(DUMMY_PASSWORD_HASH.slice(0, 7)).toBe(userHash.slice(0, 7));
    const guesses = ["", "password", "a password of someone"];
    const matches = await Promise.all(guesses.map((guess) => verifyPassword(guess, DUMMY_PASSWORD_HASH)));
    expect(matches).toEqual(guesses.map(() => false));
  }, 30_000);
});

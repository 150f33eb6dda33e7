import { createHash, randomBytes } from "node:crypto";

/** SPEC.md: a token lives 24 hours from issue. */
export const SESSION_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface Session {
  username: string;
  /**
   * The user's security stamp at login. It changes with the password, so a session opened
   * before a password change (on any replica) stops matching the user and is refused.
   */
  securityStamp: string;
  issuedAt: number;
  expiresAt: number;
}

/** 32 bytes from the CSPRNG as 64 lowercase hex characters (SPEC.md "Session"). */
export function newToken(): string {
  return randomBytes(32).toString("hex");
}

/** Sessions are kept by a hash of their token, so a memory dump does not hand out live tokens. */
export function tokenKey(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function isExpired(session: Session, now: number): boolean {
  return now >= session.expiresAt;
}

/** The bearer token of an Authorization header, or undefined when there is none in that form. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer ([0-9a-f]{64})$/i.exec(header.trim());
  return match?.[1]?.toLowerCase();
}

export type SessionLookup =
  { found: true; session: Session } | { found: false; reason: "invalid" | "expired" };

/** In-memory sessions (SPEC.md: a restart of the API server ends them all). */
export class SessionStore {
  readonly #sessions = new Map<string, Session>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  open(username: string, securityStamp: string): { token: string; session: Session } {
    const token = newToken();
    const issuedAt = this.#now();
    const session = { username, securityStamp, issuedAt, expiresAt: issuedAt + SESSION_LIFETIME_MS };
    this.#sessions.set(tokenKey(token), session);
    return { token, session };
  }

  lookup(token: string): SessionLookup {
    const key = tokenKey(token);
    const session = this.#sessions.get(key);
    if (session === undefined) return { found: false, reason: "invalid" };
    // Kept until the sweep, so that every use of an expired token says why it is refused.
    if (isExpired(session, this.#now())) return { found: false, reason: "expired" };
    return { found: true, session };
  }

  close(token: string): void {
    this.#sessions.delete(tokenKey(token));
  }

  /** Ends every session of a user except the one with token `keep` (if given). */
  closeUserSessions(username: string, keep?: string): void {
    const kept = keep === undefined ? undefined : tokenKey(keep);
    for (const [key, session] of this.#sessions) {
      if (session.username === username && key !== kept) this.#sessions.delete(key);
    }
  }

  /** Re-stamps a user's surviving session after their own password change. */
  restamp(token: string, securityStamp: string): void {
    const session = this.#sessions.get(tokenKey(token));
    if (session !== undefined) session.securityStamp = securityStamp;
  }

  /** Drops expired sessions so that memory stays bounded by the live ones. */
  sweep(): void {
    const now = this.#now();
    for (const [key, session] of this.#sessions) if (isExpired(session, now)) this.#sessions.delete(key);
  }

  get size(): number {
    return this.#sessions.size;
  }
}

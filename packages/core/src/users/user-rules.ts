/**
 * Who may change or delete which user, and what such a change ends: the finer rules beside the
 * route-access table (access.ts), which lets every role reach PUT /api/v1/users/{username}.
 */
import type { Role } from "./access.ts";
import type { NO_GLOBAL_ROLE } from "./grants.ts";

/** A user's REST role: a global role, or "none" for a user whose access is grants only. */
export type UserRole = Role | typeof NO_GLOBAL_ROLE;

/** DESIGN.md §4 Users: 1–63 characters, a letter or digit first. */
export const USERNAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]*$";
export const USERNAME_MAX = 63;

export const PASSWORD_MIN_BYTES = 8;
/** bcrypt reads at most 72 bytes: a longer password would be silently truncated. */
export const PASSWORD_MAX_BYTES = 72;

/** A refusal with the HTTP status it maps to; the rules below return these instead of throwing. */
export interface Refusal {
  status: 400 | 403 | 404 | 409;
  error: string;
}

export interface Actor {
  username: string;
  /** The global role; undefined for a user whose access is grants only (grants.ts). */
  role: Role | undefined;
}

/**
 * What the schema cannot say: bcrypt's limit is in bytes, not characters; and a password must be
 * valid Unicode, or its lone surrogates would all hash as U+FFFD and two passwords would be one.
 */
export function passwordProblem(password: string): string | undefined {
  if (!password.isWellFormed()) return "password: must be valid Unicode (it holds a lone surrogate)";
  return new TextEncoder().encode(password).length > PASSWORD_MAX_BYTES
    ? `password: must be at most ${PASSWORD_MAX_BYTES} bytes of UTF-8`
    : undefined;
}

/**
 * The part of an update's permission that needs no stored state: a non-admin may change only
 * their own password, and never a role (not even their own).
 */
export function updatePermission(
  actor: Actor,
  target: string,
  change: { password?: unknown; role?: unknown; grants?: unknown },
): Refusal | undefined {
  if (actor.role === "admin") return undefined;
  const role = actor.role ?? "none";
  if (target !== actor.username) {
    return { status: 403, error: `role ${role} may change only its own password` };
  }
  if (change.role !== undefined) return { status: 403, error: `role ${role} may not change roles` };
  if (change.grants !== undefined) return { status: 403, error: `role ${role} may not change grants` };
  return undefined;
}

/** What an update body must hold beyond its schema: something to change, and no rename. */
export function updateBodyProblem(
  target: string,
  body: { password?: unknown; role?: unknown; grants?: unknown; username?: unknown },
): string | undefined {
  if (body.username !== undefined && body.username !== target) {
    return "username: must match the path: users cannot be renamed";
  }
  if (body.password === undefined && body.role === undefined && body.grants === undefined) {
    return "must hold password, role or grants: there is nothing to change";
  }
  return undefined;
}

export interface StoredUserState {
  /** The target's current role, or undefined when no such user exists. */
  targetRole: UserRole | undefined;
  /** How many admins exist now. */
  adminCount: number;
}

/** An update against the stored state: the user must exist and the last admin stays an admin. */
export function updateDecision(
  target: string,
  newRole: UserRole | undefined,
  state: StoredUserState,
): Refusal | undefined {
  if (state.targetRole === undefined) return { status: 404, error: `user ${target} not found` };
  if (state.targetRole === "admin" && newRole !== undefined && newRole !== "admin" && state.adminCount <= 1) {
    return { status: 409, error: `user ${target} is the last admin and cannot be demoted` };
  }
  return undefined;
}

/** DESIGN.md §4: nobody deletes themselves (400), unknown → 404, the last admin stays (409). */
export function deleteDecision(actor: Actor, target: string, state: StoredUserState): Refusal | undefined {
  if (target === actor.username) return { status: 400, error: "cannot delete yourself" };
  if (state.targetRole === undefined) return { status: 404, error: `user ${target} not found` };
  if (state.targetRole === "admin" && state.adminCount <= 1) {
    return { status: 409, error: `user ${target} is the last admin and cannot be deleted` };
  }
  return undefined;
}

/** Which sessions a user change ends (sessions of other users never end). */
export type SessionsEnded =
  | { end: "none" }
  /** Every session of the user. */
  | { end: "all" }
  /** Every session of the user but the caller's own, which carries on under the new password. */
  | { end: "all-but-callers" };

/**
 * A new password ends the user's sessions: stolen tokens stop working. When users change their
 * own password, the session they made the change with stays open. A role change ends nothing:
 * every request reads the current role. Deleting a user ends all of theirs.
 */
export function sessionsEndedBy(
  actor: Actor,
  target: string,
  change: { kind: "update"; passwordChanged: boolean } | { kind: "delete" },
): SessionsEnded {
  if (change.kind === "delete") return { end: "all" };
  if (!change.passwordChanged) return { end: "none" };
  return target === actor.username ? { end: "all-but-callers" } : { end: "all" };
}

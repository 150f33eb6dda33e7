import type { Role } from "@svc/core";
import { PASSWORD_MAX_BYTES } from "./schemas.ts";

/** A refusal with the HTTP status it maps to; the rules below return these instead of throwing. */
export interface Refusal {
  status: 400 | 403 | 404 | 409;
  error: string;
}

export interface Actor {
  username: string;
  role: Role;
}

/** What the schema cannot say: bcrypt's limit is in bytes, not characters. */
export function passwordProblem(password: string): string | undefined {
  return Buffer.byteLength(password, "utf8") > PASSWORD_MAX_BYTES
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
  change: { password?: unknown; role?: unknown },
): Refusal | undefined {
  if (actor.role === "admin") return undefined;
  if (target !== actor.username) {
    return { status: 403, error: `role ${actor.role} may change only its own password` };
  }
  if (change.role !== undefined) return { status: 403, error: `role ${actor.role} may not change roles` };
  return undefined;
}

/** What an update body must hold beyond its schema: something to change, and no rename. */
export function updateBodyProblem(
  target: string,
  body: { password?: unknown; role?: unknown; username?: unknown },
): string | undefined {
  if (body.username !== undefined && body.username !== target) {
    return "username: must match the path: users cannot be renamed";
  }
  if (body.password === undefined && body.role === undefined) {
    return "must hold password, role or both: there is nothing to change";
  }
  return undefined;
}

export interface StoredUserState {
  /** The target's current role, or undefined when no such user exists. */
  targetRole: Role | undefined;
  /** How many admins exist now. */
  adminCount: number;
}

/** An update against the stored state: the user must exist and the last admin stays an admin. */
export function updateDecision(
  target: string,
  newRole: Role | undefined,
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

import { passwordProblem } from "@svc/core";
import { hashPassword, verifyPassword } from "../auth/passwords.ts";
import { isoTime } from "../time.ts";
import type { NewAuditEvent } from "../audit/event.ts";
import { isUniqueViolation } from "../store/db.ts";
import type { UsersRepo } from "./store.ts";

/** DESIGN.md §4: the initial admin's username. */
export const INITIAL_ADMIN = "admin";

/** An audit event about the admin user written by the system itself (no request, no session). */
function adminAuditEvent(
  actor: string,
  action: "create" | "update",
  now: number,
  details: NewAuditEvent["details"],
): NewAuditEvent {
  return {
    timestamp: isoTime(now),
    actor,
    actorRole: "",
    action,
    resource: "user",
    resourceName: INITIAL_ADMIN,
    namespace: "",
    cluster: "",
    outcome: "success",
    sourceIp: "",
    details,
  };
}

function checkAdminPassword(password: string, source: string): void {
  const problem = passwordProblem(password);
  if (problem !== undefined) throw new Error(`${source}: ${problem}`);
}

/**
 * At start-up: creates `admin` from SVC_ADMIN_PASSWORD when it does not exist. An existing admin
 * keeps its password (it may have been changed through the API since). With no user at all
 * and no password, the server cannot be used, so it refuses to start.
 */
export async function ensureInitialAdmin(
  users: UsersRepo,
  password: string | undefined,
  now: number,
): Promise<"created" | "exists"> {
  if ((await users.find(INITIAL_ADMIN)) !== undefined) return "exists";
  if (password === undefined) {
    if ((await users.count()) > 0) return "exists";
    throw new Error(
      "no users exist yet: set SVC_ADMIN_PASSWORD to the initial admin password (8-72 bytes), " +
        "or run `svc reset-admin-password`",
    );
  }
  checkAdminPassword(password, "SVC_ADMIN_PASSWORD");
  const passwordHash = await hashPassword(password);
  try {
    return await users.withUserState(INITIAL_ADMIN, async (state, writer) => {
      // Another replica may have created it meanwhile, which is just as good.
      if (state.target !== undefined) return "exists";
      await writer.insert({ role: "admin", passwordHash }, isoTime(now));
      await writer.audit(
        adminAuditEvent("system", "create", now, {
          after: { username: INITIAL_ADMIN, role: "admin" },
          reason: "initial admin from SVC_ADMIN_PASSWORD",
        }),
      );
      return "created";
    });
  } catch (error) {
    if (isUniqueViolation(error)) return "exists";
    throw error;
  }
}

/**
 * `svc reset-admin-password`: gives `admin` a new password and the admin role back, creating
 * it if it was deleted. Its sessions end (new security stamp), on every replica.
 */
export async function resetAdminPassword(
  users: UsersRepo,
  password: string,
  now: number,
): Promise<"created" | "updated"> {
  checkAdminPassword(password, "new admin password");
  const passwordHash = await hashPassword(password);
  return users.withUserState(INITIAL_ADMIN, async (state, writer) => {
    const outcome = state.target === undefined ? "created" : "updated";
    if (state.target === undefined) await writer.insert({ role: "admin", passwordHash }, isoTime(now));
    else await writer.update({ role: "admin", passwordHash }, isoTime(now));
    await writer.audit(
      adminAuditEvent("svc reset-admin-password", outcome === "created" ? "create" : "update", now, {
        before: { role: state.target?.role },
        after: { role: "admin" },
        passwordChanged: true,
      }),
    );
    return outcome;
  });
}

/** Whether `password` is the admin's password now (for `svc dev`'s banner). */
export async function isAdminPassword(users: UsersRepo, password: string): Promise<boolean> {
  const admin = await users.find(INITIAL_ADMIN);
  return admin !== undefined && (await verifyPassword(password, admin.passwordHash));
}

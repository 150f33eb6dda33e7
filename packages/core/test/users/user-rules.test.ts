import { describe, expect, it } from "vitest";
import {
  deleteDecision,
  passwordProblem,
  sessionsEndedBy,
  updateBodyProblem,
  updateDecision,
  updatePermission,
} from "../../src/index.ts";

const admin = { username: "root", role: "admin" as const };
const editor = { username: "ed", role: "editor" as const };
const viewer = { username: "vi", role: "viewer" as const };

describe("who may change what", () => {
  it("lets an admin change anyone's password and role", () => {
    expect(updatePermission(admin, "ed", { password: "x", role: "viewer" })).toBeUndefined();
    expect(updatePermission(admin, "root", { role: "viewer" })).toBeUndefined();
  });

  it("lets others change only their own password, never a role", () => {
    for (const actor of [editor, viewer]) {
      expect(updatePermission(actor, actor.username, { password: "x" })).toBeUndefined();
      expect(updatePermission(actor, actor.username, { role: actor.role })?.status).toBe(403);
      expect(updatePermission(actor, "root", { password: "x" })?.status).toBe(403);
    }
  });
});

describe("changes against the stored users", () => {
  it("needs the user to exist", () => {
    expect(updateDecision("x", undefined, { targetRole: undefined, adminCount: 1 })).toEqual({
      status: 404,
      error: "user x not found",
    });
    expect(deleteDecision(admin, "x", { targetRole: undefined, adminCount: 1 })?.status).toBe(404);
  });

  it("keeps the last admin an admin", () => {
    expect(updateDecision("root", "editor", { targetRole: "admin", adminCount: 1 })?.status).toBe(409);
    expect(updateDecision("root", "admin", { targetRole: "admin", adminCount: 1 })).toBeUndefined();
    expect(updateDecision("root", undefined, { targetRole: "admin", adminCount: 1 })).toBeUndefined();
    expect(updateDecision("root", "viewer", { targetRole: "admin", adminCount: 2 })).toBeUndefined();
    expect(deleteDecision(admin, "other", { targetRole: "admin", adminCount: 1 })?.status).toBe(409);
    expect(deleteDecision(admin, "other", { targetRole: "admin", adminCount: 2 })).toBeUndefined();
  });

  it("refuses deleting yourself before anything else", () => {
    expect(deleteDecision(admin, "root", { targetRole: "admin", adminCount: 5 })).toEqual({
      status: 400,
      error: "cannot delete yourself",
    });
  });
});

describe("passwords", () => {
  it("are 8 to 72 bytes of UTF-8", () => {
    expect(passwordProblem("a".repeat(72))).toBeUndefined();
    expect(passwordProblem("a".repeat(73))).toMatch(/72 bytes/);
    expect(passwordProblem("é".repeat(36))).toBeUndefined();
    expect(passwordProblem("é".repeat(37))).toMatch(/72 bytes/);
  });

  it("are valid Unicode: a lone surrogate is refused, a pair is fine", () => {
    expect(passwordProblem("\ud800abcdefgh")).toMatch(/^password: must be valid Unicode/);
    expect(passwordProblem("abcdefgh\udc00")).toMatch(/^password: must be valid Unicode/);
    expect(passwordProblem("\ud83d\ude00abcdefgh")).toBeUndefined();
  });
});

describe("update bodies", () => {
  it("need a password or a role, and may carry the read-only fields back unchanged", () => {
    expect(updateBodyProblem("ann", {})).toMatch(/nothing to change/);
    expect(updateBodyProblem("ann", { username: "ann" })).toMatch(/nothing to change/);
    expect(updateBodyProblem("ann", { username: "ann", role: "viewer" })).toBeUndefined();
    expect(updateBodyProblem("ann", { username: "bob", role: "viewer" })).toMatch(/^username: /);
    expect(updateBodyProblem("ann", { password: "x" })).toBeUndefined();
  });
});

describe("which sessions a user change ends", () => {
  it("a new password ends the user's sessions, except the one that changed its own", () => {
    expect(sessionsEndedBy(admin, "ed", { kind: "update", passwordChanged: true })).toEqual({ end: "all" });
    expect(sessionsEndedBy(editor, "ed", { kind: "update", passwordChanged: true })).toEqual({
      end: "all-but-callers",
    });
  });

  it("a role change ends none: the next request reads the new role", () => {
    expect(sessionsEndedBy(admin, "ed", { kind: "update", passwordChanged: false })).toEqual({ end: "none" });
  });

  it("deleting a user ends all of theirs", () => {
    expect(sessionsEndedBy(admin, "ed", { kind: "delete" })).toEqual({ end: "all" });
  });
});

/**
 * The body of "New user" (POST /api/v1/users) from the dialog's fields, and what the API's schema
 * of it (compiled ahead of time) refuses that the password and access checks do not already say:
 * a username the API would refuse, say. The dialog sends nothing then.
 */
import {
  CreateUserBodyCheck,
  schemaRefusals,
  unexplainedRefusals,
  type CreateUserBody,
  type UserRole,
} from "@svc/core/browser";
import { grantFromForm, type GrantForm } from "./grant-form.ts";

/** What the dialog holds: the fields as typed, and whether their own checks pass. */
export interface NewUserDraft {
  username: string;
  password: string;
  passwordReady: boolean;
  role: UserRole;
  grants: readonly GrantForm[];
  accessProblem: string | undefined;
}

/** The body the dialog would send, and the refusals of it that no field's own check names. */
export function newUserRequest(draft: NewUserDraft): { body: CreateUserBody; refusals: Map<string, string> } {
  const body = newUserBody(draft.username, draft.password, draft.role, draft.grants);
  const explained = [
    ...(draft.passwordReady ? [] : ["password"]),
    ...(draft.accessProblem === undefined ? [] : ["role", "grants"]),
  ];
  return { body, refusals: newUserRefusals(body, explained) };
}

export function newUserBody(
  username: string,
  password: string,
  role: UserRole,
  grants: readonly GrantForm[],
): CreateUserBody {
  return {
    username,
    password,
    role,
    ...(grants.length === 0 ? {} : { grants: grants.map(grantFromForm) }),
  };
}

/**
 * "field: reason" by field ("" for the body as a whole), for each refusal no shown problem
 * explains (`explained`: the fields whose own check already complains). An empty username is
 * the input's own (`required`), not one of them.
 */
export function newUserRefusals(body: CreateUserBody, explained: readonly string[]): Map<string, string> {
  const untyped = body.username === "" ? ["username"] : [];
  const refusals = unexplainedRefusals(schemaRefusals(CreateUserBodyCheck, body), [...explained, ...untyped]);
  return new Map(refusals.map(([field, reason]) => [field, field === "" ? reason : `${field}: ${reason}`]));
}

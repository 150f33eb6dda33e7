/**
 * The checks a new password gets as it is typed, by the API's own rules (@svc/core/browser):
 * at least PASSWORD_MIN_BYTES characters, at most PASSWORD_MAX_BYTES bytes of UTF-8, valid
 * Unicode, the API's schema of the password, and a confirmation that matches.
 */
import { PASSWORD_MIN_BYTES, passwordProblem, schemaRefusals, UpdateUserBodyCheck } from "@svc/core/browser";

export interface NewPasswordCheck {
  /** Shown under the password field; undefined while nothing is wrong (or nothing is typed). */
  password: string | undefined;
  /** Shown under the confirmation field, once something is typed there. */
  confirmation: string | undefined;
  /** Whether the form may be sent. */
  ready: boolean;
}

/** The problem with a password alone, worded for the field it is shown under. */
export function newPasswordProblem(password: string): string | undefined {
  // The API counts the minimum in code points (JSON Schema minLength), as Array.from does.
  if (Array.from(password).length < PASSWORD_MIN_BYTES)
    return `must be at least ${PASSWORD_MIN_BYTES} characters`;
  // The same schema in a new user's body (CreateUserBody) and a change (UpdateUserBody).
  return (
    passwordProblem(password)?.replace(/^password: /, "") ??
    schemaRefusals(UpdateUserBodyCheck, { password })["password"]
  );
}

export function checkNewPassword(password: string, confirmation: string): NewPasswordCheck {
  const problem = newPasswordProblem(password);
  const mismatch = confirmation !== password ? "does not match the new password" : undefined;
  return {
    password: password === "" ? undefined : problem,
    confirmation: confirmation === "" ? undefined : mismatch,
    ready: problem === undefined && mismatch === undefined,
  };
}

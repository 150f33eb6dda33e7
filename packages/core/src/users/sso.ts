/**
 * Single sign-on decisions (docs/api.md "Single sign-on"): which role an identity provider's
 * claims give, which username they make, and whether a sign-in may create or update its user.
 * Pure: the API's SSO routes read the claims and the stored user, then apply the answer.
 */
import { ROLES, type Role } from "./access.ts";
import { updateDecision, USERNAME_MAX, USERNAME_PATTERN, type Refusal } from "./user-rules.ts";
import type { Grant } from "./grants.ts";
import { grantsFromGroups, type GroupGrant } from "./sso-grants.ts";

/** The claim values (usually group names) that give each role. */
export type RoleMapping = Readonly<Record<Role, readonly string[]>>;

/** A claim as a list of strings: one string, or an array's strings; anything else holds none. */
export function claimValues(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/**
 * The role a claim maps to. When its values map to several roles the highest wins (admin, then
 * editor, then viewer): a user in both an editors' and a viewers' group works as an editor, and
 * the order of the groups in the token, which providers do not define, never matters.
 */
export function roleFromClaim(value: unknown, mapping: RoleMapping): Role | undefined {
  const values = new Set(claimValues(value));
  return ROLES.find((role) => mapping[role].some((group) => values.has(group)));
}

const USERNAME = new RegExp(USERNAME_PATTERN);

/**
 * A username from a claim (preferred_username, email…) made to fit the users table's rule: each
 * run of other characters becomes "-" ("jane@example.com" → "jane-example.com"), leading
 * punctuation is dropped, and it is cut at 63 characters. Two identities that come out alike
 * cannot share the account: the user is bound to the first one's subject (ssoSignInDecision).
 */
export function usernameFromClaim(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const username = value
    .normalize("NFKC")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, USERNAME_MAX);
  return USERNAME.test(username) ? username : undefined;
}

/**
 * Whether `claims` vouch for their e-mail address (OpenID Connect's email_verified; some providers
 * send it as the string "true"): an address a user merely typed at the provider could be anyone's.
 */
export function emailVerified(claims: Readonly<Record<string, unknown>>): boolean {
  return claims["email_verified"] === true || claims["email_verified"] === "true";
}

/**
 * The username a sign-in's claims make: from `usernameClaim`, and from an e-mail address only
 * when the provider verified it. Undefined when there is none to take.
 */
export function ssoUsername(
  claims: Readonly<Record<string, unknown>>,
  usernameClaim: string,
): string | undefined {
  if (usernameClaim === "email" && !emailVerified(claims)) return undefined;
  return usernameFromClaim(claims[usernameClaim]);
}

/** The only user who may still log in with a password when password login is turned off. */
export const BREAK_GLASS_USER = "admin";

/** Why a sign-in is refused; the dashboard shows its own page for each. */
export const SSO_REFUSALS = [
  "no-username",
  "no-role",
  "password-user",
  "other-identity",
  "last-admin",
] as const;
export type SsoRefusalReason = (typeof SSO_REFUSALS)[number];

export interface SsoSignInInput {
  /** The ID token's claims. */
  claims: Readonly<Record<string, unknown>>;
  /** `issuer subject`: who the person is, whatever their username becomes. */
  identity: string;
  usernameClaim: string;
  roleClaim: string;
  mapping: RoleMapping;
  /** SVC_OIDC_GROUP_GRANTS: when set, the role claim's groups decide the user's grants at each sign-in. */
  groupGrants?: readonly GroupGrant[];
  /** The stored user of that username (undefined: none yet), and how many admins exist. */
  existing:
    { role: Role | undefined; ssoIdentity: string | undefined; grants?: readonly Grant[] } | undefined;
  adminCount: number;
}

export type SsoSignIn =
  /** role undefined: grants only; grants undefined: the stored ones stay. */
  | { outcome: "create" | "update"; username: string; role: Role | undefined; grants?: Grant[] }
  | { outcome: "refuse"; reason: SsoRefusalReason; username: string | undefined; message: string };

/**
 * Whether a signed-in identity may use svc, and as whom. A role claim that maps to a role sets
 * the user's role at each sign-in; one that maps to none keeps the stored role (an admin's
 * change stays). Refused: no usable username; no mapped role for a new user; a username that belongs to a password user (an identity provider must not take over a
 * local account, `admin` above all) or to another identity; and a demotion of the last admin.
 */
export function ssoSignInDecision(input: SsoSignInInput): SsoSignIn {
  const username = ssoUsername(input.claims, input.usernameClaim);
  if (username === undefined) {
    const unverified = input.usernameClaim === "email" && !emailVerified(input.claims);
    return {
      outcome: "refuse",
      reason: "no-username",
      username,
      message: unverified
        ? "the identity provider has not verified the e-mail address svc takes the username from"
        : `the identity provider's ${input.usernameClaim} claim holds no usable username`,
    };
  }
  const refuse = (reason: SsoRefusalReason, message: string): SsoSignIn => ({
    outcome: "refuse",
    reason,
    username,
    message,
  });
  // No mapped group: an existing user of this identity keeps the role an admin gave it.
  const kept = input.existing?.ssoIdentity === input.identity ? input.existing.role : undefined;
  const role = roleFromClaim(input.claims[input.roleClaim], input.mapping) ?? kept;
  // Group grants, when mapped, are the identity's grants at each sign-in; else an admin's stay.
  const mapped = (input.groupGrants ?? []).length > 0;
  const grants = mapped
    ? grantsFromGroups(claimValues(input.claims[input.roleClaim]), input.groupGrants ?? [])
    : undefined;
  const keptGrants = input.existing?.ssoIdentity === input.identity ? (input.existing.grants ?? []) : [];
  if (role === undefined && (grants ?? keptGrants).length === 0) {
    return refuse("no-role", `${username}'s ${input.roleClaim} claim maps to no role in svc`);
  }
  if (username === BREAK_GLASS_USER) {
    return refuse("password-user", `user ${username} is kept for password login (the break-glass admin)`);
  }
  const { existing } = input;
  const access = grants === undefined ? {} : { grants };
  if (existing === undefined) return { outcome: "create", username, role, ...access };
  if (existing.ssoIdentity === undefined) {
    return refuse("password-user", `user ${username} signs in with a password, not single sign-on`);
  }
  if (existing.ssoIdentity !== input.identity) {
    return refuse("other-identity", `user ${username} belongs to another single sign-on identity`);
  }
  const demotion = updateDecision(username, role ?? "none", {
    targetRole: existing.role ?? "none",
    adminCount: input.adminCount,
  });
  if (demotion !== undefined) return refuse("last-admin", demotion.error);
  return { outcome: "update", username, role, ...access };
}

/** Why a password login is refused before its password is checked, if it is. */
export function passwordLoginRefusal(
  username: string,
  passwordLogin: boolean,
  user: { ssoIdentity: string | undefined } | undefined,
): string | undefined {
  if (!passwordLogin && username !== BREAK_GLASS_USER) {
    return "password login is turned off: sign in with single sign-on";
  }
  if (user?.ssoIdentity !== undefined) {
    return `user ${username} signs in with single sign-on, not a password`;
  }
  return undefined;
}

/** A single sign-on user has no password in svc: setting one would make a second way in. */
export function passwordChangeRefusal(
  target: string,
  passwordGiven: boolean,
  ssoIdentity: string | undefined,
): Refusal | undefined {
  return passwordGiven && ssoIdentity !== undefined
    ? { status: 400, error: `user ${target} signs in with single sign-on and has no password in svc` }
    : undefined;
}

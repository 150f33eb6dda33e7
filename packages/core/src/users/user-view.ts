// Users and sessions as the REST API shows them (docs/api.md "Users", "Authentication"), and the
// bodies that create and change a user: the one definition the API validates with and the
// dashboard and the CLI read (as types).
import Type from "typebox";
import { ROLES } from "./access.ts";
import { GrantsSchema } from "./grant-schema.ts";
import { NO_GLOBAL_ROLE } from "./grants.ts";
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_BYTES, USERNAME_MAX, USERNAME_PATTERN } from "./user-rules.ts";

export const Username = Type.String({
  minLength: 1,
  maxLength: USERNAME_MAX,
  pattern: USERNAME_PATTERN,
  errorMessage: "must be 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit",
  description: "Unique user name.",
});

/** Characters bound the bytes only loosely; `passwordProblem` checks the exact UTF-8 length. */
export const Password = Type.String({
  minLength: PASSWORD_MIN_BYTES,
  maxLength: PASSWORD_MAX_BYTES,
  description: "8 to 72 bytes of UTF-8. Write-only: never returned.",
});

/** A user's global role, or "none" when grants alone give access (docs/access.md). */
export const UserRoleName = Type.Enum([...ROLES, NO_GLOBAL_ROLE], {
  description:
    'The global role: admin, editor or viewer; "none" (with at least one grant) for scoped access only.',
});

export const CreateUserBody = Type.Object(
  { username: Username, password: Password, role: UserRoleName, grants: Type.Optional(GrantsSchema) },
  { additionalProperties: false },
);
export type CreateUserBody = Type.Static<typeof CreateUserBody>;

/**
 * password and role change; username and createdAt are the read-only fields of the user's own
 * representation, accepted so that a client can GET, edit and PUT back (DESIGN.md §4 General).
 */
export const UpdateUserBody = Type.Object(
  {
    password: Type.Optional(Password),
    role: Type.Optional(UserRoleName),
    grants: Type.Optional(GrantsSchema),
    username: Type.Optional(Type.String({ maxLength: 1024, description: "Read-only: must match the path." })),
    createdAt: Type.Optional(Type.String({ maxLength: 64, description: "Read-only: ignored." })),
  },
  { additionalProperties: false },
);
export type UpdateUserBody = Type.Static<typeof UpdateUserBody>;

/** A user as GET /api/v1/users shows it: the password is write-only. */
export const UserView = Type.Object({
  username: Type.String(),
  role: UserRoleName,
  createdAt: Type.String({ format: "date-time" }),
  /** Only when the user holds grants: a global user is SPEC.md's {username, role, createdAt}. */
  grants: Type.Optional(GrantsSchema),
});
export type UserView = Type.Static<typeof UserView>;

/** The caller: global role ("none" when grants alone give access) and grants (docs/access.md). */
export const MeView = Type.Object({
  username: Type.String(),
  role: UserRoleName,
  grants: Type.Optional(GrantsSchema),
});
export type MeView = Type.Static<typeof MeView>;

/** A session as a login opens it: the token to send, when it ends, and who it is for. */
export const SessionView = Type.Object({
  token: Type.String({ description: "64 hex characters; send as 'Authorization: Bearer <token>'." }),
  expiresAt: Type.String({ format: "date-time" }),
  user: MeView,
});
export type SessionView = Type.Static<typeof SessionView>;

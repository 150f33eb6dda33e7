import {
  GrantsSchema,
  NO_GLOBAL_ROLE,
  PASSWORD_MAX_BYTES,
  PASSWORD_MIN_BYTES,
  ROLES,
  USERNAME_MAX,
  USERNAME_PATTERN,
} from "@svc/core";
import Type from "typebox";

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

export const RoleName = Type.Enum([...ROLES], { description: "admin, editor or viewer." });

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

export const UsernameParams = Type.Object(
  { username: Type.String({ maxLength: 1024 }) },
  {
    additionalProperties: false,
  },
);

export const UserView = Type.Object({
  username: Type.String(),
  role: UserRoleName,
  createdAt: Type.String({ format: "date-time" }),
  /** Only when the user holds grants: a global user is SPEC.md's {username, role, createdAt}. */
  grants: Type.Optional(GrantsSchema),
});
export type UserView = Type.Static<typeof UserView>;

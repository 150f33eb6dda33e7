import { ROLES, type Role } from "@svc/core/browser";
import { useState } from "react";
import { ApiError, errorForField } from "../api/client.ts";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Field } from "../ui/Field.tsx";
import { FormDialog } from "../ui/FormDialog.tsx";
import { PasswordFields, usePasswordPair } from "./PasswordFields.tsx";
import { useCreateUser } from "./queries.ts";

/** The API's complaint about the username: a field error, or the conflict of a taken name. */
function usernameError(error: unknown): string | undefined {
  if (error instanceof ApiError && error.status === 409) return error.message;
  return errorForField(error, "username");
}

/** "New user" (admins): username, password with confirmation, and role. */
export function CreateUserDialog({ onCreated }: { onCreated: (message: string) => void }) {
  const [open, setOpen] = useState(false);
  const [username, setUsername] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const passwords = usePasswordPair();
  const create = useCreateUser();

  const reset = () => {
    setUsername("");
    setRole("viewer");
    passwords.clear();
    create.reset();
  };

  const nameProblem = usernameError(create.error);
  const roleProblem = errorForField(create.error, "role");
  const shownByField =
    nameProblem !== undefined ||
    roleProblem !== undefined ||
    errorForField(create.error, "password") !== undefined;

  return (
    <FormDialog
      trigger={
        <button type="button" className="primary">
          New user
        </button>
      }
      title="New user"
      description="The user signs in with this username and password; the role decides what they may do."
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) reset();
      }}
      onSubmit={() => {
        create.mutate(
          { username, password: passwords.password, role },
          {
            onSuccess: (user) => {
              setOpen(false);
              reset();
              onCreated(`User ${user.username} created with role ${user.role}.`);
            },
          },
        );
      }}
      submitLabel={["Create user", "Creating…"]}
      pending={create.isPending}
      canSubmit={passwords.check.ready}
    >
      <Field
        label="Username"
        hint={'Letters, digits, ".", "_" or "-", starting with a letter or digit.'}
        problem={nameProblem}
      >
        {(control) => (
          <input
            {...control}
            name="username"
            autoComplete="off"
            required
            maxLength={63}
            value={username}
            onChange={(e) => {
              setUsername(e.target.value);
            }}
          />
        )}
      </Field>
      <PasswordFields label="Password" pair={passwords} apiError={create.error} />
      <Field label="Role" problem={roleProblem}>
        {(control) => (
          <select
            {...control}
            value={role}
            onChange={(e) => {
              setRole(e.target.value as Role);
            }}
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        )}
      </Field>
      {!shownByField && <ErrorMessage error={create.error} />}
    </FormDialog>
  );
}

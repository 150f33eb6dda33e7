import { ROLES, type Role } from "@svc/core/browser";
import { Dialog } from "radix-ui";
import { useId, useState, type SyntheticEvent } from "react";
import { ApiError, errorForField } from "../api/client.ts";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { PasswordFields, usePasswordPair } from "./PasswordFields.tsx";
import { useCreateUser } from "./queries.ts";

/** The API's complaint about the username: a field error, or the conflict of a taken name. */
function usernameError(error: unknown): string | undefined {
  if (error instanceof ApiError && error.status === 409) return error.message;
  return errorForField(error, "username");
}

/** "New user" (admins): username, password with confirmation, and role. */
export function CreateUserDialog({ onCreated }: { onCreated: (message: string) => void }) {
  const id = useId();
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

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    if (!passwords.check.ready) return;
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
  };

  const nameProblem = usernameError(create.error);
  const roleProblem = errorForField(create.error, "role");
  const shownElsewhere =
    nameProblem !== undefined ||
    roleProblem !== undefined ||
    errorForField(create.error, "password") !== undefined;

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) reset();
      }}
    >
      <Dialog.Trigger asChild>
        <button type="button" className="primary">
          New user
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog">
          <Dialog.Title>New user</Dialog.Title>
          <Dialog.Description className="hint">
            The user signs in with this username and password; the role decides what they may do.
          </Dialog.Description>
          <form onSubmit={submit} aria-label="New user">
            <div className="field">
              <label htmlFor={`${id}-username`}>Username</label>
              <input
                id={`${id}-username`}
                name="username"
                autoComplete="off"
                required
                maxLength={63}
                value={username}
                aria-invalid={nameProblem !== undefined}
                aria-describedby={`${id}-username-hint ${id}-username-problem`}
                onChange={(e) => {
                  setUsername(e.target.value);
                }}
              />
              <span className="hint" id={`${id}-username-hint`}>
                Letters, digits, &quot;.&quot;, &quot;_&quot; or &quot;-&quot;, starting with a letter or
                digit.
              </span>
              {nameProblem !== undefined && (
                <span className="field-problem" id={`${id}-username-problem`}>
                  {nameProblem}
                </span>
              )}
            </div>
            <PasswordFields
              label="Password"
              password={passwords.password}
              confirmation={passwords.confirmation}
              check={passwords.check}
              apiError={create.error}
              onPassword={passwords.setPassword}
              onConfirmation={passwords.setConfirmation}
            />
            <div className="field">
              <label htmlFor={`${id}-role`}>Role</label>
              <select
                id={`${id}-role`}
                value={role}
                aria-invalid={roleProblem !== undefined}
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
              {roleProblem !== undefined && <span className="field-problem">{roleProblem}</span>}
            </div>
            {!shownElsewhere && <ErrorMessage error={create.error} />}
            <div className="dialog-actions">
              <Dialog.Close asChild>
                <button type="button">Cancel</button>
              </Dialog.Close>
              <button type="submit" className="primary" disabled={create.isPending || !passwords.check.ready}>
                {create.isPending ? "Creating…" : "Create user"}
              </button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

import { useState } from "react";
import { ApiError, errorForField } from "../api/client.ts";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { Field } from "../ui/Field.tsx";
import { FormDialog } from "../ui/FormDialog.tsx";
import { NotSent } from "../ui/NotSent.tsx";
import { AccessFields, useAccessForm } from "./AccessFields.tsx";
import { newUserRequest } from "./new-user.ts";
import { PasswordFields, usePasswordPair } from "./PasswordFields.tsx";
import { useCreateUser } from "./queries.ts";

/** The API's complaint about the username: a field error, or the conflict of a taken name. */
function usernameError(error: unknown): string | undefined {
  if (error instanceof ApiError && error.status === 409) return error.message;
  return errorForField(error, "username");
}

function UsernameField({
  value,
  onChange,
  problem,
}: {
  value: string;
  onChange: (value: string) => void;
  problem: string | undefined;
}) {
  return (
    <Field
      label="Username"
      hint={'Letters, digits, ".", "_" or "-", starting with a letter or digit.'}
      problem={problem}
    >
      {(control) => (
        <input
          {...control}
          name="username"
          autoComplete="off"
          required
          maxLength={63}
          value={value}
          onChange={(e) => {
            onChange(e.target.value);
          }}
        />
      )}
    </Field>
  );
}

/** "New user" (admins): username, password with confirmation, and a global role and/or grants. */
export function CreateUserDialog({ onCreated }: { onCreated: (message: string) => void }) {
  const [open, setOpen] = useState(false);
  const [username, setUsername] = useState("");
  const access = useAccessForm();
  const passwords = usePasswordPair();
  const create = useCreateUser();

  const reset = () => {
    setUsername("");
    access.reset();
    passwords.clear();
    create.reset();
  };

  const { body, refusals } = newUserRequest({
    username,
    password: passwords.password,
    passwordReady: passwords.check.ready,
    role: access.role,
    grants: access.grants,
    accessProblem: access.problem,
  });
  const apiNameProblem = usernameError(create.error);
  const nameProblem = refusals.get("username") ?? apiNameProblem;
  const otherRefusals = [...refusals].filter(([field]) => field !== "username").map(([, text]) => text);
  const shownByField =
    apiNameProblem !== undefined ||
    errorForField(create.error, "role") !== undefined ||
    errorForField(create.error, "grants") !== undefined ||
    errorForField(create.error, "password") !== undefined;

  return (
    <FormDialog
      trigger={
        <button type="button" className="primary">
          New user
        </button>
      }
      title="New user"
      description="The user signs in with this username and password; the role, and any grants over clusters and namespaces, decide what they may do."
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) reset();
      }}
      onSubmit={() => {
        create.mutate(body, {
          onSuccess: (user) => {
            setOpen(false);
            reset();
            const grants = access.grants.length === 0 ? "" : ` and ${access.grants.length} grant(s)`;
            onCreated(`User ${user.username} created with role ${user.role}${grants}.`);
          },
        });
      }}
      submitLabel={["Create user", "Creating…"]}
      pending={create.isPending}
      canSubmit={passwords.check.ready && access.problem === undefined && refusals.size === 0}
    >
      <UsernameField value={username} onChange={setUsername} problem={nameProblem} />
      <PasswordFields label="Password" pair={passwords} apiError={create.error} />
      <AccessFields access={access} apiError={create.error} />
      <NotSent reasons={otherRefusals} />
      {!shownByField && <ErrorMessage error={create.error} />}
    </FormDialog>
  );
}

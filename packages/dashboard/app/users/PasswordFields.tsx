import { PASSWORD_MAX_BYTES, PASSWORD_MIN_BYTES } from "@svc/core/browser";
import { useState } from "react";
import { errorForField } from "../api/client.ts";
import { Field, type FieldControlProps } from "../ui/Field.tsx";
import { checkNewPassword } from "./password-check.ts";

/** The state behind PasswordFields: a new password, its confirmation, and their check. */
export function usePasswordPair() {
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  return {
    password,
    confirmation,
    setPassword,
    setConfirmation,
    check: checkNewPassword(password, confirmation),
    clear: () => {
      setPassword("");
      setConfirmation("");
    },
  };
}

export type PasswordPair = ReturnType<typeof usePasswordPair>;

function NewPasswordInput({
  control,
  value,
  onChange,
}: {
  control: FieldControlProps;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <input
      {...control}
      type="password"
      autoComplete="new-password"
      required
      value={value}
      onChange={(e) => {
        onChange(e.target.value);
      }}
    />
  );
}

/**
 * A new password and its confirmation, checked as they are typed by the API's rules; the API's
 * own complaint about the password (if it still has one) shows under the password field.
 */
export function PasswordFields({
  label,
  pair,
  apiError,
}: {
  label: string;
  pair: PasswordPair;
  apiError: unknown;
}) {
  return (
    <>
      <Field
        label={label}
        hint={`${PASSWORD_MIN_BYTES} characters to ${PASSWORD_MAX_BYTES} bytes.`}
        problem={pair.check.password ?? errorForField(apiError, "password")}
      >
        {(control) => (
          <NewPasswordInput control={control} value={pair.password} onChange={pair.setPassword} />
        )}
      </Field>
      <Field label={`Confirm ${label.toLowerCase()}`} problem={pair.check.confirmation}>
        {(control) => (
          <NewPasswordInput control={control} value={pair.confirmation} onChange={pair.setConfirmation} />
        )}
      </Field>
    </>
  );
}

import { PASSWORD_MAX_BYTES, PASSWORD_MIN_BYTES } from "@svc/core/browser";
import { useId, useState } from "react";
import { errorForField } from "../api/client.ts";
import { checkNewPassword, type NewPasswordCheck } from "./password-check.ts";

/**
 * A new password and its confirmation, checked as they are typed by the API's rules; the API's
 * own complaint about the password (if it still has one) shows under the password field.
 */
export function PasswordFields({
  label,
  password,
  confirmation,
  check,
  apiError,
  onPassword,
  onConfirmation,
}: {
  /** "Password" or "New password"; the confirmation is labelled "Confirm <label, lower case>". */
  label: string;
  password: string;
  confirmation: string;
  check: NewPasswordCheck;
  apiError: unknown;
  onPassword: (value: string) => void;
  onConfirmation: (value: string) => void;
}) {
  const id = useId();
  const passwordProblem = check.password ?? errorForField(apiError, "password");
  return (
    <>
      <div className="field">
        <label htmlFor={`${id}-password`}>{label}</label>
        <input
          id={`${id}-password`}
          type="password"
          autoComplete="new-password"
          required
          value={password}
          aria-invalid={passwordProblem !== undefined}
          aria-describedby={`${id}-hint ${id}-problem`}
          onChange={(e) => {
            onPassword(e.target.value);
          }}
        />
        <span className="hint" id={`${id}-hint`}>
          {PASSWORD_MIN_BYTES} characters to {PASSWORD_MAX_BYTES} bytes.
        </span>
        {passwordProblem !== undefined && (
          <span className="field-problem" id={`${id}-problem`}>
            {passwordProblem}
          </span>
        )}
      </div>
      <div className="field">
        <label htmlFor={`${id}-confirmation`}>Confirm {label.toLowerCase()}</label>
        <input
          id={`${id}-confirmation`}
          type="password"
          autoComplete="new-password"
          required
          value={confirmation}
          aria-invalid={check.confirmation !== undefined}
          aria-describedby={`${id}-confirmation-problem`}
          onChange={(e) => {
            onConfirmation(e.target.value);
          }}
        />
        {check.confirmation !== undefined && (
          <span className="field-problem" id={`${id}-confirmation-problem`}>
            {check.confirmation}
          </span>
        )}
      </div>
    </>
  );
}

/** The state behind PasswordFields. */
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

import { useState } from "react";
import { errorForField } from "../api/client.ts";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { FormDialog } from "../ui/FormDialog.tsx";
import { PasswordFields, usePasswordPair } from "./PasswordFields.tsx";
import { useUpdateUser } from "./queries.ts";

/** An admin sets another user's password; the API then ends every session of that user. */
export function ResetPasswordDialog({
  username,
  onDone,
}: {
  username: string;
  onDone: (message: string) => void;
}) {
  const [open, setOpen] = useState(false);
  const passwords = usePasswordPair();
  const update = useUpdateUser();

  return (
    <FormDialog
      trigger={
        <button type="button" aria-label={`Reset password of ${username}`}>
          Reset password
        </button>
      }
      title={`Reset the password of ${username}`}
      description={`${username} signs in with the new password; their open sessions end.`}
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) {
          passwords.clear();
          update.reset();
        }
      }}
      onSubmit={() => {
        update.mutate(
          { username, change: { password: passwords.password } },
          {
            onSuccess: () => {
              setOpen(false);
              passwords.clear();
              onDone(`Password of ${username} reset; their sessions have been signed out.`);
            },
          },
        );
      }}
      submitLabel={["Set password", "Saving…"]}
      pending={update.isPending}
      canSubmit={passwords.check.ready}
    >
      <PasswordFields label="New password" pair={passwords} apiError={update.error} />
      {errorForField(update.error, "password") === undefined && <ErrorMessage error={update.error} />}
    </FormDialog>
  );
}

import { Dialog } from "radix-ui";
import { useState, type SyntheticEvent } from "react";
import { errorForField } from "../api/client.ts";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
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

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    if (!passwords.check.ready) return;
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
  };

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) {
          passwords.clear();
          update.reset();
        }
      }}
    >
      <Dialog.Trigger asChild>
        <button type="button" aria-label={`Reset password of ${username}`}>
          Reset password
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog">
          <Dialog.Title>Reset the password of {username}</Dialog.Title>
          <Dialog.Description className="hint">
            {username} signs in with the new password; their open sessions end.
          </Dialog.Description>
          <form onSubmit={submit} aria-label={`New password for ${username}`}>
            <PasswordFields
              label="New password"
              password={passwords.password}
              confirmation={passwords.confirmation}
              check={passwords.check}
              apiError={update.error}
              onPassword={passwords.setPassword}
              onConfirmation={passwords.setConfirmation}
            />
            {errorForField(update.error, "password") === undefined && <ErrorMessage error={update.error} />}
            <div className="dialog-actions">
              <Dialog.Close asChild>
                <button type="button">Cancel</button>
              </Dialog.Close>
              <button type="submit" className="primary" disabled={update.isPending || !passwords.check.ready}>
                {update.isPending ? "Saving…" : "Set password"}
              </button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

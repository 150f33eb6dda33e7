import type { UserView } from "@svc/core/browser";
import { useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { FormDialog } from "../ui/FormDialog.tsx";
import { AccessFields, useAccessForm } from "./AccessFields.tsx";
import { grantFromForm } from "./grant-form.ts";
import { useUpdateUser } from "./queries.ts";

/** "Access" of a user (admins): the global role and the grants, saved together (PUT replaces both). */
export function EditAccessDialog({ user, onDone }: { user: UserView; onDone: (message: string) => void }) {
  const [open, setOpen] = useState(false);
  const access = useAccessForm(user);
  const update = useUpdateUser();
  return (
    <FormDialog
      trigger={
        <button type="button" aria-label={`Edit access of ${user.username}`}>
          Access
        </button>
      }
      title={`Access of ${user.username}`}
      description="A global role applies everywhere; each grant gives a role in the clusters and namespaces it names. The user holds the highest that applies."
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        // Opened again, the form starts from the user as the list shows them now.
        access.reset();
        update.reset();
      }}
      onSubmit={() => {
        const grants = access.grants.map(grantFromForm);
        update.mutate(
          { username: user.username, change: { role: access.role, grants } },
          {
            onSuccess: () => {
              setOpen(false);
              onDone(`Access of ${user.username} saved: role ${access.role}, ${grants.length} grant(s).`);
            },
          },
        );
      }}
      submitLabel={["Save access", "Saving…"]}
      pending={update.isPending}
      canSubmit={access.problem === undefined}
    >
      <AccessFields access={access} apiError={update.error} />
      <ErrorMessage error={update.error} />
    </FormDialog>
  );
}

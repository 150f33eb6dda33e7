import { NO_GLOBAL_ROLE, ROLES, type UserRole, type UserView } from "@svc/core/browser";
import { useState } from "react";
import { Link } from "react-router";
import { ConfirmDialog } from "../ui/ConfirmDialog.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { relativeTime } from "../ui/time.ts";
import { EditAccessDialog } from "./EditAccessDialog.tsx";
import { GrantList } from "./GrantList.tsx";
import { useDeleteUser, useUpdateUser } from "./queries.ts";
import { ResetPasswordDialog } from "./ResetPasswordDialog.tsx";

/** What the signed-in user may do to this row's user (from the API's own rules). */
export interface RowPermissions {
  changeRole: boolean;
  /** The global role and the grants together (admins, on others). */
  editAccess: boolean;
  resetPassword: boolean;
  remove: boolean;
}

/**
 * The role, changed in two steps: choose, then save. A select that saved on change would save
 * each role a keyboard user arrows past.
 */
function RoleSelect({ user, onDone }: { user: UserView; onDone: (message: string) => void }) {
  const update = useUpdateUser();
  const [chosen, setChosen] = useState<UserRole>();
  // "none" only for a user whose grants still give access (the API refuses it otherwise).
  const choices: readonly UserRole[] =
    (user.grants ?? []).length > 0 || user.role === NO_GLOBAL_ROLE ? [...ROLES, NO_GLOBAL_ROLE] : ROLES;
  const shown = chosen ?? user.role;
  const save = () => {
    update.mutate(
      { username: user.username, change: { role: shown } },
      {
        onSuccess: () => {
          setChosen(undefined);
          onDone(`${user.username} is now ${shown}.`);
        },
      },
    );
  };
  return (
    <>
      <div className="role-edit">
        <select
          aria-label={`Role of ${user.username}`}
          value={shown}
          disabled={update.isPending}
          aria-invalid={update.isError}
          onChange={(e) => {
            update.reset();
            setChosen(e.target.value === user.role ? undefined : (e.target.value as UserRole));
          }}
        >
          {choices.map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </select>
        {chosen !== undefined && (
          <>
            <button type="button" className="primary" disabled={update.isPending} onClick={save}>
              {update.isPending ? "Saving…" : "Save role"}
            </button>
            <button
              type="button"
              disabled={update.isPending}
              onClick={() => {
                update.reset();
                setChosen(undefined);
              }}
            >
              Cancel
            </button>
          </>
        )}
      </div>
      <ErrorMessage error={update.error} />
    </>
  );
}

export function UserRow({
  user,
  isMe,
  may,
  onDone,
}: {
  user: UserView;
  isMe: boolean;
  may: RowPermissions;
  onDone: (message: string) => void;
}) {
  const remove = useDeleteUser();
  return (
    <tr>
      <th scope="row" className="user-name">
        {user.username} {isMe && <span className="badge">you</span>}
      </th>
      <td>{may.changeRole ? <RoleSelect user={user} onDone={onDone} /> : user.role}</td>
      <td>
        <GrantList grants={user.grants ?? []} label={`Grants of ${user.username}`} />
      </td>
      <td className="user-created" title={new Date(user.createdAt).toLocaleString()}>
        {relativeTime(user.createdAt)}
      </td>
      <td>
        <div className="row-actions">
          {isMe && <Link to="/account">Change your password</Link>}
          {may.editAccess && <EditAccessDialog user={user} onDone={onDone} />}
          {may.resetPassword && <ResetPasswordDialog username={user.username} onDone={onDone} />}
          {may.remove && (
            <ConfirmDialog
              trigger={
                <button type="button" className="danger-outline" aria-label={`Delete ${user.username}`}>
                  Delete
                </button>
              }
              title={`Delete ${user.username}?`}
              description={
                <p>
                  {user.username} ({user.role}) can no longer sign in, and their open sessions end at once.
                  Their audit history stays.
                </p>
              }
              confirmLabel="Delete user"
              onConfirm={async () => {
                await remove.mutateAsync(user.username);
                onDone(`User ${user.username} deleted.`);
              }}
            />
          )}
        </div>
      </td>
    </tr>
  );
}

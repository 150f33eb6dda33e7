import { updatePermission } from "@svc/core/browser";
import { useState } from "react";
import { useAccess, useUser } from "../session/session.tsx";
import { PageHeader } from "../ui/PageHeader.tsx";
import { EmptyState, QueryState } from "../ui/states.tsx";
import { CreateUserDialog } from "./CreateUserDialog.tsx";
import { useUsers } from "./queries.ts";
import { UserRow, type RowPermissions } from "./UserRow.tsx";

/**
 * Every user, their global role and their grants. What the signed-in user may do comes from the API's route table
 * and its user rules, never from role names here: a viewer or editor sees the list only.
 */
export function UsersPage() {
  const me = useUser();
  const { can, principal } = useAccess();
  const users = useUsers();
  const [status, setStatus] = useState<string>();

  const mayUpdate = can("PUT /api/v1/users/{username}");
  const permissions = (target: string): RowPermissions => {
    const isMe = target === me.username;
    // Users are managed by global roles only; a user with grants alone manages nobody.
    const actor = principal.role === undefined ? undefined : { username: me.username, role: principal.role };
    const may = (change: { role?: string; password?: string }) =>
      actor !== undefined && mayUpdate && !isMe && updatePermission(actor, target, change) === undefined;
    return {
      // Your own role and password are not changed from this list: another admin changes your
      // role, and your password is changed on your account page (which keeps this session).
      changeRole: may({ role: "viewer" }),
      editAccess: may({ role: "viewer" }),
      resetPassword: may({ password: "" }),
      // The API refuses deleting yourself, so it is not offered.
      remove: can("DELETE /api/v1/users/{username}") && !isMe,
    };
  };

  return (
    <>
      <PageHeader
        title="Users"
        actions={can("POST /api/v1/users") ? <CreateUserDialog onCreated={setStatus} /> : undefined}
      />
      <p className="success" role="status">
        {status}
      </p>
      <QueryState query={users} what="users">
        {(list) =>
          list.length === 0 ? (
            <EmptyState title="No users" />
          ) : (
            <div className="table-wrap">
              <table aria-label="Users" className="users-table">
                <thead>
                  <tr>
                    <th scope="col">User</th>
                    <th scope="col">Role</th>
                    <th scope="col">Grants</th>
                    <th scope="col">Created</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((user) => (
                    <UserRow
                      key={user.username}
                      user={user}
                      isMe={user.username === me.username}
                      may={permissions(user.username)}
                      onDone={setStatus}
                    />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryState>
    </>
  );
}

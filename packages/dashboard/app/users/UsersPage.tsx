import { updatePermission } from "@svc/core/browser";
import { useState } from "react";
import { useCan, useUser } from "../session/session.tsx";
import { PageHeader } from "../ui/PageHeader.tsx";
import { EmptyState, QueryState } from "../ui/states.tsx";
import { CreateUserDialog } from "./CreateUserDialog.tsx";
import { useUsers } from "./queries.ts";
import { UserRow, type RowPermissions } from "./UserRow.tsx";

/**
 * Every user and their role. What the signed-in user may do comes from the API's route table
 * and its user rules, never from role names here: a viewer or editor sees the list only.
 */
export function UsersPage() {
  const me = useUser();
  const can = useCan();
  const users = useUsers();
  const [status, setStatus] = useState<string>();

  const mayUpdate = can("PUT /api/v1/users/{username}");
  const permissions = (target: string): RowPermissions => {
    const isMe = target === me.username;
    return {
      // Your own role and password are not changed from this list: another admin changes your
      // role, and your password is changed on your account page (which keeps this session).
      changeRole: mayUpdate && !isMe && updatePermission(me, target, { role: "viewer" }) === undefined,
      resetPassword: mayUpdate && !isMe && updatePermission(me, target, { password: "" }) === undefined,
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

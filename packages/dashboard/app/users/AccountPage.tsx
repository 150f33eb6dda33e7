import { useState, type SyntheticEvent } from "react";
import { errorForField } from "../api/client.ts";
import { useMe, useSession, useUser } from "../session/session.tsx";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { PageHeader } from "../ui/PageHeader.tsx";
import { QueryState } from "../ui/states.tsx";
import { PasswordFields, usePasswordPair } from "./PasswordFields.tsx";
import { GrantList } from "./GrantList.tsx";
import { useUpdateUser } from "./queries.ts";

/**
 * Your own password. The API does not ask for the current one (the session is the proof) and,
 * on a change, ends your other sessions while this one carries on (docs/api.md, Sessions), so
 * the page says so and keeps you signed in.
 */
function ChangePassword({ username }: { username: string }) {
  const passwords = usePasswordPair();
  const update = useUpdateUser();
  const [done, setDone] = useState(false);

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    if (!passwords.check.ready) return;
    setDone(false);
    update.mutate(
      { username, change: { password: passwords.password } },
      {
        onSuccess: () => {
          passwords.clear();
          setDone(true);
        },
      },
    );
  };

  return (
    <section className="card" aria-labelledby="change-password">
      <h2 id="change-password">Change your password</h2>
      <form onSubmit={submit} aria-label="Change your password" className="narrow-form">
        {/* Tells password managers whose password this is. */}
        <input
          type="text"
          name="username"
          autoComplete="username"
          value={username}
          readOnly
          className="visually-hidden"
          tabIndex={-1}
          aria-hidden="true"
        />
        <PasswordFields label="New password" pair={passwords} apiError={update.error} />
        {errorForField(update.error, "password") === undefined && <ErrorMessage error={update.error} />}
        <p className="success" role="status">
          {done &&
            passwords.password === "" &&
            "Password changed. Use it from now on; your other sessions have been signed out, this one stays signed in."}
        </p>
        <button type="submit" className="primary" disabled={update.isPending || !passwords.check.ready}>
          {update.isPending ? "Changing…" : "Change password"}
        </button>
      </form>
    </section>
  );
}

export function AccountPage() {
  const user = useUser();
  const { session, signOut } = useSession();
  const me = useMe();
  return (
    <>
      <PageHeader title="Your account" />
      <section className="card" aria-labelledby="who-am-i">
        <h2 id="who-am-i">Signed in as</h2>
        <QueryState query={me} what="your account">
          {(account) => (
            <>
              <dl className="facts">
                <dt>Username</dt>
                <dd>{account.username}</dd>
                <dt>Role</dt>
                <dd>{account.role}</dd>
                <dt>Grants</dt>
                <dd>
                  <GrantList grants={account.grants ?? []} />
                </dd>
                {session !== undefined && (
                  <>
                    <dt>Session ends</dt>
                    <dd>{new Date(session.expiresAt).toLocaleString()}</dd>
                  </>
                )}
              </dl>
              {/* The API applies a role change at once, and so do the pages' actions; the top bar shows the role of the sign-in. */}
              {account.role !== user.role && (
                <p className="notice">
                  An admin changed your role from {user.role} to {account.role}.{" "}
                  <button type="button" onClick={() => void signOut()}>
                    Sign in again
                  </button>{" "}
                  to see what it allows.
                </p>
              )}
            </>
          )}
        </QueryState>
      </section>
      <ChangePassword username={user.username} />
    </>
  );
}

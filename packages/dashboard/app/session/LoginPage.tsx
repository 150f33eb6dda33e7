import { useState, type SyntheticEvent } from "react";
import { Navigate, useLocation } from "react-router";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { useSession, type LoginState } from "./session.tsx";
import { rememberReturnPath, useSignInMethods } from "./sso.ts";

export function LoginPage() {
  const { session, endedBecause, signIn } = useSession();
  const location = useLocation();
  const state = (location.state ?? {}) as LoginState;
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<unknown>();
  const [pending, setPending] = useState(false);
  const methods = useSignInMethods().data;

  if (session !== undefined) return <Navigate to={state.from ?? "/flags"} replace />;

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    setPending(true);
    setError(undefined);
    try {
      await signIn(username, password);
    } catch (caught) {
      setError(caught);
      setPending(false);
    }
  };

  return (
    <main className="login">
      <form className="login-card" onSubmit={(event) => void submit(event)} aria-labelledby="login-title">
        <h1 id="login-title">svc feature flags</h1>
        {endedBecause !== undefined && error === undefined && (
          <p className="notice" role="status">
            {endedBecause}
          </p>
        )}
        <label className="field">
          <span>Username</span>
          <input
            name="username"
            autoComplete="username"
            required
            autoFocus
            value={username}
            onChange={(e) => {
              setUsername(e.target.value);
            }}
          />
        </label>
        <label className="field">
          <span>Password</span>
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => {
              setPassword(e.target.value);
            }}
          />
        </label>
        <ErrorMessage error={error} />
        {methods?.passwordLogin === false && (
          <p className="notice">Password sign-in is kept for the admin account only.</p>
        )}
        <button type="submit" className="primary" disabled={pending}>
          {pending ? "Signing in…" : "Sign in"}
        </button>
        {methods?.sso != null && (
          // A full navigation: the API redirects to the identity provider, which comes back to /sso.
          <a
            className="button"
            href={methods.sso.loginPath}
            onClick={() => {
              rememberReturnPath(state.from);
            }}
          >
            Sign in with {methods.sso.providerName}
          </a>
        )}
      </form>
    </main>
  );
}

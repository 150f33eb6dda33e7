import { useEffect, useRef, useState, type ReactNode } from "react";
import { Link, Navigate, useLocation } from "react-router";
import { api, ApiError } from "../api/client.ts";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { useSession, type Session } from "./session.tsx";
import { REFUSALS, takeReturnPath } from "./sso.ts";

function Card({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="login">
      <section className="login-card" aria-labelledby="sso-title">
        <h1 id="sso-title">{title}</h1>
        {children}
        <Link to="/login">Back to sign-in</Link>
      </section>
    </main>
  );
}

/**
 * Where the API's single sign-on callback sends the browser: `#code=…` is exchanged, once, for
 * the session (the fragment never reaches a server or an access log, and the code is good once
 * for a minute); `#error=…` is explained. The fragment is removed from the address bar at once.
 */
export function SsoPage() {
  const { session, acceptSession } = useSession();
  const location = useLocation();
  const [fragment] = useState(() => new URLSearchParams(location.hash.slice(1)));
  const [failure, setFailure] = useState<unknown>();
  const exchanged = useRef(false);
  const code = fragment.get("code");

  useEffect(() => {
    window.history.replaceState(window.history.state, "", "/sso");
    // Once: the code is good once (StrictMode runs effects twice in development).
    if (code === null || exchanged.current) return;
    exchanged.current = true;
    api<Session>("/api/v1/auth/sso/session", { method: "POST", body: { code } }).then(
      acceptSession,
      setFailure,
    );
  }, [code, acceptSession]);

  if (session !== undefined) return <Navigate to={takeReturnPath()} replace />;
  const error = fragment.get("error");
  if (error !== null) {
    const refusal = REFUSALS[error] ?? { title: "Sign-in refused", text: "Start again." };
    const user = fragment.get("user");
    return (
      <Card title={refusal.title}>
        {user !== null && (
          <p>
            Signed in at the identity provider as <strong>{user}</strong>.
          </p>
        )}
        <p>{refusal.text}</p>
      </Card>
    );
  }
  // The code is bound to the browser that started the sign-in: one from elsewhere is refused.
  if (failure instanceof ApiError && failure.status === 400) {
    const refusal = REFUSALS["handoff"] ?? { title: "Sign-in refused", text: "Start again." };
    return (
      <Card title={refusal.title}>
        <p>{refusal.text}</p>
      </Card>
    );
  }
  if (failure !== undefined || code === null) {
    return (
      <Card title="Sign-in failed">
        <ErrorMessage error={failure ?? new Error("no sign-in code in this address: start again")} />
      </Card>
    );
  }
  return (
    <main className="login">
      <p role="status">Signing in…</p>
    </main>
  );
}

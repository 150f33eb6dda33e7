import { useSyncExternalStore } from "react";
import { NavLink, Outlet } from "react-router";
import { apiReachability } from "../api/client.ts";
import { useCan, useSession, useUser } from "../session/session.tsx";
import { useTheme } from "./theme.ts";

const SECTIONS: readonly { to: string; label: string; route?: string }[] = [
  { to: "/flags", label: "Flags" },
  { to: "/rollouts", label: "Rollouts" },
  { to: "/clusters", label: "Clusters" },
  { to: "/audit", label: "Audit log" },
  { to: "/users", label: "Users" },
  // Shown only to the roles the API lets read it (admins), by its own access table.
  { to: "/webhooks", label: "Webhooks", route: "GET /api/v1/webhooks" },
];

function UnreachableBanner() {
  const message = useSyncExternalStore(
    (listener) => apiReachability.subscribe(listener),
    () => apiReachability.current(),
  );
  if (message === undefined) return null;
  return (
    <div className="banner" role="alert">
      <strong>API server unreachable.</strong> {message.replace(/\.?$/, ".")} What you see may be out of date;
      it refreshes when the server answers again.
    </div>
  );
}

/** The frame of every signed-in page: navigation, who is signed in, theme, sign-out. */
export function Shell() {
  const user = useUser();
  const can = useCan();
  // AccessProvider (around the shell) asks the API who is signed in every few seconds on every
  // page: a session ended elsewhere (expiry, sign-out in another place, user deleted) or an API
  // server gone is noticed even on a page that fetches nothing else.
  const { signOut } = useSession();
  const [theme, setTheme] = useTheme();
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">svc</span>
        <nav aria-label="Main">
          {SECTIONS.filter((section) => section.route === undefined || can(section.route)).map((section) => (
            <NavLink key={section.to} to={section.to}>
              {section.label}
            </NavLink>
          ))}
        </nav>
        <div className="topbar-user">
          <button
            type="button"
            className="icon"
            aria-label={theme === "dark" ? "Switch to light theme" : "Switch to dark theme"}
            onClick={() => {
              setTheme(theme === "dark" ? "light" : "dark");
            }}
          >
            {theme === "dark" ? "☀" : "☾"}
          </button>
          <NavLink to="/account" className="whoami" title="Your account">
            {user.username} <span className="role">{user.role === "none" ? "grants" : user.role}</span>
          </NavLink>
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <UnreachableBanner />
      <main id="main" className="content">
        <Outlet />
      </main>
    </div>
  );
}

import { useQueryClient } from "@tanstack/react-query";
import { authorizeRoute, ROUTE_RULES, type Role } from "@svc/core/browser";
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { api, setSessionToken } from "../api/client.ts";

export interface Session {
  token: string;
  expiresAt: string;
  user: { username: string; role: Role };
}

/** The login page's navigation state: where to go after signing in. */
export interface LoginState {
  from?: string;
}

interface SessionContextValue {
  session: Session | undefined;
  /** Why the last session ended, shown on the login page. */
  endedBecause: string | undefined;
  signIn: (username: string, password: string) => Promise<void>;
  /** Keeps a session the API opened another way (a single sign-on's, /sso). */
  acceptSession: (next: Session) => void;
  signOut: () => Promise<void>;
}

const STORAGE_KEY = "svc.session";
const SessionContext = createContext<SessionContextValue | undefined>(undefined);

function isSession(value: unknown): value is Session {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<Session>;
  return (
    typeof v.token === "string" && typeof v.expiresAt === "string" && typeof v.user?.username === "string"
  );
}

const EXPIRED = "Your session has expired. Sign in again to continue.";

/** The stored session, or `expired` when one is stored but past its time (then removed). */
function readStoredSession(): Session | "expired" | undefined {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "null");
    if (!isSession(value)) return undefined;
    if (Date.parse(value.expiresAt) > Date.now()) return value;
    localStorage.removeItem(STORAGE_KEY);
    return "expired";
  } catch {
    return undefined;
  }
}

function storedSession(): Session | undefined {
  const stored = readStoredSession();
  return stored === "expired" ? undefined : stored;
}

/**
 * Holds the signed-in user (kept in localStorage, so tabs and reloads share it). A session ends
 * by sign-out, by its expiry time, or when the API refuses its token; the user is then sent to
 * the login page with the reason, and brought back to the page they were on after signing in.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  // A session that expired while the app was closed is reported like one that expires in view.
  const [initial] = useState(readStoredSession);
  const [session, setSession] = useState<Session | undefined>(initial === "expired" ? undefined : initial);
  const [endedBecause, setEndedBecause] = useState<string | undefined>(
    initial === "expired" ? EXPIRED : undefined,
  );
  const queryClient = useQueryClient();

  // RequireSession then sends the user to /login, remembering the page they were on.
  const end = useCallback(
    (message: string) => {
      localStorage.removeItem(STORAGE_KEY);
      setEndedBecause(message);
      setSession(undefined);
      queryClient.clear();
    },
    [queryClient],
  );

  const expire = useCallback(() => {
    end(EXPIRED);
  }, [end]);

  // Registered synchronously so the very first request of a page carries the token.
  setSessionToken(session?.token, expire);

  useEffect(() => {
    if (session === undefined) return;
    const timer = setTimeout(expire, Math.max(0, Date.parse(session.expiresAt) - Date.now()));
    return () => {
      clearTimeout(timer);
    };
  }, [session, expire]);

  // Another tab signed in or out.
  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.key === STORAGE_KEY) setSession(storedSession());
    };
    window.addEventListener("storage", onStorage);
    return () => {
      window.removeEventListener("storage", onStorage);
    };
  }, []);

  const acceptSession = useCallback((next: Session) => {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(next));
    setEndedBecause(undefined);
    setSession(next);
  }, []);

  const signIn = useCallback(
    async (username: string, password: string) => {
      acceptSession(
        await api<Session>("/api/v1/auth/login", { method: "POST", body: { username, password } }),
      );
    },
    [acceptSession],
  );

  const signOut = useCallback(async () => {
    await api("/api/v1/auth/logout", { method: "POST" }).catch(() => undefined);
    end("You have signed out.");
  }, [end]);

  const value = useMemo(
    () => ({ session, endedBecause, signIn, acceptSession, signOut }),
    [session, endedBecause, signIn, acceptSession, signOut],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (value === undefined) throw new Error("useSession outside SessionProvider");
  return value;
}

/** The signed-in user; only for pages under RequireSession. */
export function useUser(): Session["user"] {
  const { session } = useSession();
  if (session === undefined) throw new Error("useUser outside RequireSession");
  return session.user;
}

/**
 * Whether the signed-in user's role may call a route, by the API's own access table, e.g.
 * `can("DELETE /api/v1/flags/{namespace}/{name}")`: actions the role may not take are not offered.
 */
export function useCan(): (routeKey: string) => boolean {
  const { role } = useUser();
  return useCallback(
    (routeKey: string) => authorizeRoute(ROUTE_RULES, routeKey, role).outcome === "allow",
    [role],
  );
}

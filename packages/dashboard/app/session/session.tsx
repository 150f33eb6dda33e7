import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { MeView, Principal, SessionView } from "@svc/core/browser";
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { api, LIVE_REFRESH_MS, setSessionToken } from "../api/client.ts";
import { useClusters } from "../clusters/queries.ts";
import { mayGlobally, mayIn, mayInEvery, maySomewhere, principalOf, type Where } from "./access-model.ts";

/** The API's answer to a login (or a single sign-on's exchange): `user.role` is "none" for grants only. */
export type Session = SessionView;

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
 * Who the API says the session belongs to, with their global role and grants; asked every few
 * seconds, so a role or grant changed by an admin applies without signing in again.
 */
export function useMe() {
  return useQuery({
    queryKey: ["session", "me"],
    queryFn: ({ signal }) => api<MeView>("/api/v1/auth/me", { signal }),
    refetchInterval: LIVE_REFRESH_MS,
  });
}

export interface Access {
  principal: Principal;
  /** By the global role alone: users, cluster registration and webhooks. */
  can: (route: string) => boolean;
  /** By the role held on a flag's cluster and namespace (global role and matching grants). */
  canIn: (route: string, where: Where) => boolean;
  /** By the role held in every one of them (a plan's clusters). */
  canInEvery: (route: string, wheres: readonly Where[]) => boolean;
  /** By the highest role held anywhere: whether to offer a form that then narrows the scope. */
  canSomewhere: (route: string) => boolean;
}

const AccessContext = createContext<Access | undefined>(undefined);

/**
 * Reads, once for every page under it, who the user is (/auth/me, polled) and the clusters'
 * labels (kept fresh by the pages that list clusters), and decides from them what each action
 * may do: rows and buttons ask it without a query of their own.
 */
export function AccessProvider({ children }: { children: ReactNode }) {
  const user = useUser();
  const me = useMe();
  const clusters = useClusters({ poll: false });
  const principal = useMemo(
    () => principalOf(me.data ?? { username: user.username, role: user.role }),
    [me.data, user.username, user.role],
  );
  const labels = useMemo(
    () => new Map((clusters.data ?? []).map((cluster) => [cluster.id, cluster.labels])),
    [clusters.data],
  );
  const access = useMemo((): Access => {
    const labelsOf = (id: string) => labels.get(id);
    return {
      principal,
      can: (route) => mayGlobally(principal, route),
      canIn: (route, where) => mayIn(principal, route, where, labelsOf),
      canInEvery: (route, wheres) => mayInEvery(principal, route, wheres, labelsOf),
      canSomewhere: (route) => maySomewhere(principal, route),
    };
  }, [principal, labels]);
  return <AccessContext.Provider value={access}>{children}</AccessContext.Provider>;
}

/**
 * What the signed-in user may do, by the API's own access table and core's scope rules: actions
 * that would be refused are not offered. Until /auth/me answers, the sign-in's global role alone.
 */
export function useAccess(): Access {
  const value = useContext(AccessContext);
  if (value === undefined) throw new Error("useAccess outside AccessProvider");
  return value;
}

/**
 * Whether the signed-in user's global role may call a route, by the API's own access table, e.g.
 * `can("DELETE /api/v1/clusters/{id}")`: actions the role may not take are not offered. Actions on
 * flags and plans depend on where they apply: `useAccess().canIn`.
 */
export function useCan(): (routeKey: string) => boolean {
  return useAccess().can;
}

import { useQuery } from "@tanstack/react-query";
import { api } from "../api/client.ts";

/** GET /api/v1/auth/methods: how users may sign in. */
export interface SignInMethods {
  passwordLogin: boolean;
  sso: { providerName: string; loginPath: string } | null;
}

export function useSignInMethods() {
  return useQuery({
    queryKey: ["auth-methods"],
    queryFn: ({ signal }) => api<SignInMethods>("/api/v1/auth/methods", { signal }),
    staleTime: Infinity,
  });
}

/**
 * Where to go after a single sign-on: the provider's round trip loses the router's state, so the
 * page the user asked for waits in this tab's sessionStorage.
 */
const RETURN_KEY = "svc.sso.from";

export function rememberReturnPath(from: string | undefined): void {
  sessionStorage.setItem(RETURN_KEY, from ?? "/flags");
}

export function takeReturnPath(): string {
  const from = sessionStorage.getItem(RETURN_KEY) ?? "/flags";
  sessionStorage.removeItem(RETURN_KEY);
  // Only a path of this app: never a URL elsewhere.
  return from.startsWith("/") && !from.startsWith("//") ? from : "/flags";
}

/** What each refusal of the API's callback (packages/api/src/sso/routes.ts) means to the user. */
export const REFUSALS: Readonly<Record<string, { title: string; text: string }>> = {
  "no-role": {
    title: "No role in svc",
    text: "You signed in, but none of your groups gives you a role in svc (admin, editor or viewer). Ask an administrator to add you to a group that svc maps to a role.",
  },
  // Not the callback's: POST /api/v1/auth/sso/session refused the code (400).
  handoff: {
    title: "Sign-in not started here",
    text: "This sign-in was started in another browser, was already used, or took too long. If you did not just sign in, someone may have sent you a link to their own sign-in: start your own.",
  },
  expired: {
    title: "Sign-in expired",
    text: "This sign-in was not started in this browser, was already used, or took longer than 10 minutes. Start again.",
  },
  provider: {
    title: "Sign-in refused",
    text: "The identity provider's answer could not be verified. Start again; if it happens again, an administrator finds the reason in the audit log.",
  },
  "password-user": {
    title: "Account uses a password",
    text: "An svc account of this name signs in with a password. Sign in with your password, or ask an administrator.",
  },
  "other-identity": {
    title: "Name already taken",
    text: "An svc account of this name belongs to another single sign-on identity. Ask an administrator.",
  },
  "no-username": {
    title: "No username",
    text: "The identity provider sent no name svc can use as a username. Ask an administrator.",
  },
  "last-admin": {
    title: "Last admin",
    text: "Your groups no longer make you an admin, but you are svc's last admin. Ask an administrator.",
  },
};

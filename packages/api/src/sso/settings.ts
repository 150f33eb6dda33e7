import { parseGroupGrants, type GroupGrant, type RoleMapping } from "@svc/core";
import type { SettingsReader } from "@svc/core/schema/settings";

/** The callback's path: the redirect URL the provider knows must lead here (through the dashboard). */
export const SSO_CALLBACK_PATH = "/api/v1/auth/sso/callback";

export interface SsoConfig {
  /** The OpenID provider's issuer URL, exactly as its discovery document states it. */
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
  /** The callback's public URL (the dashboard's origin + SSO_CALLBACK_PATH), registered at the provider. */
  redirectUrl: string;
  /** Shown on the dashboard's button: "Sign in with <providerName>". */
  providerName: string;
  scopes: string;
  usernameClaim: string;
  roleClaim: string;
  roles: RoleMapping;
  /** SVC_OIDC_GROUP_GRANTS: the grants the role claim's groups give (docs/access.md). */
  groupGrants?: GroupGrant[];
}

/** Hosts where plain http is accepted for the issuer: the same machine only (tests, `svc dev`). */
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

export function isLoopbackUrl(url: URL): boolean {
  return LOOPBACK.has(url.hostname);
}

function list(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/**
 * Single sign-on's settings (docs/api.md "Single sign-on"); undefined when SVC_OIDC_ISSUER_URL is
 * unset. Every variable is read either way, so that the help and docs/configuration.md list them.
 */
export function readSsoConfig(read: SettingsReader): SsoConfig | undefined {
  const issuerUrl = read.text("SVC_OIDC_ISSUER_URL", "", "an https:// URL (http:// only on loopback)");
  const clientId = read.text("SVC_OIDC_CLIENT_ID", "");
  const clientSecret = read.text("SVC_OIDC_CLIENT_SECRET", "");
  const redirectUrl = read.text("SVC_OIDC_REDIRECT_URL", "", `an http(s) URL ending in ${SSO_CALLBACK_PATH}`);
  const providerName = read.text("SVC_OIDC_PROVIDER_NAME", "single sign-on");
  const scopes = read.text("SVC_OIDC_SCOPES", "openid profile email", "scopes separated by spaces");
  const usernameClaim = read.text("SVC_OIDC_USERNAME_CLAIM", "preferred_username");
  const roleClaim = read.text("SVC_OIDC_ROLE_CLAIM", "groups");
  const roles: RoleMapping = {
    admin: list(read.text("SVC_OIDC_ADMIN_GROUPS", "", "claim values separated by commas")),
    editor: list(read.text("SVC_OIDC_EDITOR_GROUPS", "", "claim values separated by commas")),
    viewer: list(read.text("SVC_OIDC_VIEWER_GROUPS", "", "claim values separated by commas")),
  };
  const groupGrantsText = read.text(
    "SVC_OIDC_GROUP_GRANTS",
    "",
    'JSON [{"group": "...", "grant": {"role": "editor", "clusters": [...], "namespaces": [...]}}]',
  );
  const groupGrants = parseGroupGrants(groupGrantsText);
  if (issuerUrl === "") return undefined;
  if (!groupGrants.ok) read.problem("SVC_OIDC_GROUP_GRANTS", groupGrants.message);

  const issuer = URL.canParse(issuerUrl) ? new URL(issuerUrl) : undefined;
  if (issuer?.protocol !== "https:" && !(issuer?.protocol === "http:" && isLoopbackUrl(issuer))) {
    read.problem(
      "SVC_OIDC_ISSUER_URL",
      `must be an https:// URL (http:// only on loopback), got ${JSON.stringify(issuerUrl)}`,
    );
  }
  for (const [name, value] of [
    ["SVC_OIDC_CLIENT_ID", clientId],
    ["SVC_OIDC_CLIENT_SECRET", clientSecret],
  ] as const) {
    if (value === "") read.problem(name, "must be set when SVC_OIDC_ISSUER_URL is");
  }
  const redirect = URL.canParse(redirectUrl) ? new URL(redirectUrl) : undefined;
  const redirectOk =
    redirect !== undefined &&
    ["https:", "http:"].includes(redirect.protocol) &&
    redirect.pathname === SSO_CALLBACK_PATH &&
    redirect.search === "" &&
    redirect.hash === "";
  if (!redirectOk) {
    read.problem(
      "SVC_OIDC_REDIRECT_URL",
      `must be the dashboard's URL followed by ${SSO_CALLBACK_PATH}, got ${JSON.stringify(redirectUrl)}`,
    );
  }
  if (!scopes.split(" ").includes("openid")) read.problem("SVC_OIDC_SCOPES", "must include openid");
  if (Object.values(roles).every((groups) => groups.length === 0) && groupGrantsText.trim() === "") {
    read.problem(
      "SVC_OIDC_ADMIN_GROUPS",
      "at least one of SVC_OIDC_ADMIN_GROUPS, SVC_OIDC_EDITOR_GROUPS, SVC_OIDC_VIEWER_GROUPS, SVC_OIDC_GROUP_GRANTS must be set, or nobody could sign in",
    );
  }
  return {
    issuerUrl,
    clientId,
    clientSecret,
    redirectUrl,
    providerName,
    scopes,
    usernameClaim,
    roleClaim,
    roles,
    groupGrants: groupGrants.ok ? groupGrants.value : [],
  };
}

// A real OpenID provider for the single sign-on tests: oidc-provider (the OpenID-certified Node
// implementation) on 127.0.0.1, with its own development login pages (any password is taken;
// the login name picks the account) and two accounts: one in the `flags-editors` group, one in
// a group that svc maps to no role.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration, type KoaContextWithOIDC } from "oidc-provider";

export interface TestAccount {
  /** The provider's subject and the name typed on its login page. */
  id: string;
  preferred_username: string;
  email: string;
  /** Whether the provider vouches for the e-mail address (OpenID Connect's email_verified). */
  email_verified: boolean;
  groups: string[];
}

export const SSO_ACCOUNTS = {
  editor: {
    id: "jane",
    preferred_username: "jane",
    email: "jane@example.com",
    email_verified: true,
    groups: ["flags-editors", "staff"],
  },
  unmapped: {
    id: "sam",
    preferred_username: "sam",
    email: "sam@example.com",
    email_verified: true,
    groups: ["staff"],
  },
  /** An address the provider did not verify: anyone could have typed it. */
  unverified: {
    id: "una",
    preferred_username: "una",
    email: "jane@example.com",
    email_verified: false,
    groups: ["flags-editors"],
  },
  /** A viewer by group whose groups the tests change (setGroups). */
  changing: {
    id: "kim",
    preferred_username: "kim",
    email: "kim@example.com",
    email_verified: true,
    groups: ["flags-viewers"],
  },
} as const satisfies Record<string, TestAccount>;

export const SSO_CLIENT = { id: "svc", secret: "svc-test-client-secret" } as const;

/** The role mapping the tests configure svc with. */
export const SSO_ROLES = { admin: ["flags-admins"], editor: ["flags-editors"], viewer: ["flags-viewers"] };

export interface TestOidcProvider {
  issuer: string;
  /** Changes an account's groups for its next sign-in (a directory change at the provider). */
  setGroups: (id: string, groups: string[]) => void;
  close: () => Promise<void>;
}

/**
 * Starts a provider whose one client `svc` may redirect to `redirectUris`. Consent is granted
 * up front (a first-party client), so that a sign-in is the login page only.
 */
export async function startOidcProvider(
  redirectUris: string[],
  /**
   * "id-token": the scopes' claims in the ID token itself (as many providers are set up);
   * "userinfo": in the UserInfo answer only, as OpenID Connect has it for the code flow (the ID
   * token then carries `sub` and the protocol's claims).
   */
  claimsIn: "id-token" | "userinfo" = "id-token",
): Promise<TestOidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, TestAccount>(Object.values(SSO_ACCOUNTS).map((a) => [a.id, a]));
  const configuration: Configuration = {
    clients: [
      {
        client_id: SSO_CLIENT.id,
        client_secret: SSO_CLIENT.secret,
        redirect_uris: redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    claims: {
      openid: ["sub"],
      profile: ["preferred_username"],
      email: ["email", "email_verified"],
      groups: ["groups"],
    },
    conformIdTokenClaims: claimsIn === "userinfo",
    findAccount: (_ctx, id) => {
      const account = accounts.get(id);
      if (account === undefined) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          preferred_username: account.preferred_username,
          email: account.email,
          email_verified: account.email_verified,
          groups: account.groups,
        }),
      };
    },
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const accountId = ctx.oidc.session?.accountId;
      const clientId = ctx.oidc.client?.clientId;
      if (accountId === undefined || clientId === undefined) return undefined;
      const grant = new ctx.oidc.provider.Grant({ accountId, clientId });
      grant.addOIDCScope("openid profile email groups");
      await grant.save();
      return grant;
    },
    // Set, so that the provider does not print a notice for each default it uses.
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600 },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ["svc-test-cookie-key"] },
  };
  const provider = new Provider(issuer, configuration);
  const handle = provider.callback();
  server.on("request", (request, response) => {
    void handle(request, response);
  });
  return {
    issuer,
    setGroups: (id, groups) => {
      const account = accounts.get(id);
      if (account === undefined) throw new Error(`no test account ${id}`);
      accounts.set(id, { ...account, groups });
    },
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
      }),
  };
}

import * as oidc from "openid-client";
import { isLoopbackUrl, type SsoConfig } from "./settings.ts";

/** What a sign-in must bring back to its callback: kept server-side, never sent to the browser. */
export interface PendingSignIn {
  codeVerifier: string;
  nonce: string;
  /** The sign-in's browser cookie, hashed: the callback must come from the browser that started it. */
  browserKey: string;
}

/**
 * Plain http, only for a provider on this machine (settings.ts refuses it elsewhere): tests and
 * `svc dev`. openid-client marks it deprecated only to make it stand out.
 */
// eslint-disable-next-line @typescript-eslint/no-deprecated
const plainHttp = oidc.allowInsecureRequests;

/** Longest wait for the provider (discovery, token endpoint, keys), in seconds. */
const PROVIDER_TIMEOUT_S = 10;

/**
 * The relying party, through openid-client (OpenID-certified): discovery, the authorization URL
 * with state, nonce and PKCE (S256), and the code exchange, which checks the state, the `iss`
 * response parameter, the ID token's signature, issuer, audience, expiry and nonce.
 */
export class OidcClient {
  readonly #config: SsoConfig;
  #discovered: Promise<oidc.Configuration> | undefined;

  constructor(config: SsoConfig) {
    this.#config = config;
  }

  /**
   * Discovered on first use and kept, so that the API starts while the provider is down; a
   * failed discovery is tried again by the next sign-in.
   */
  #configuration(): Promise<oidc.Configuration> {
    this.#discovered ??= oidc
      .discovery(
        new URL(this.#config.issuerUrl),
        this.#config.clientId,
        this.#config.clientSecret,
        // client_secret_basic: OpenID Connect's default for a client with a secret.
        oidc.ClientSecretBasic(this.#config.clientSecret),
        {
          timeout: PROVIDER_TIMEOUT_S,
          ...(isLoopbackUrl(new URL(this.#config.issuerUrl)) ? { execute: [plainHttp] } : {}),
        },
      )
      .catch((error: unknown) => {
        this.#discovered = undefined;
        throw error;
      });
    return this.#discovered;
  }

  /** The provider's authorization URL for a new sign-in with `state`, and what its callback needs. */
  async start(state: string, browserKey: string): Promise<{ url: URL; pending: PendingSignIn }> {
    const configuration = await this.#configuration();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.#config.redirectUrl,
      scope: this.#config.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
      state,
      nonce,
    });
    return { url, pending: { codeVerifier, nonce, browserKey } };
  }

  /**
   * Exchanges the callback's code and returns the ID token's claims; throws when any check
   * fails (the provider's error, a wrong issuer, a code used before, a bad token). A provider
   * that follows OpenID Connect to the letter puts the scopes' claims (profile, groups) in its
   * UserInfo answer rather than in a code flow's ID token: when the username or role claim is
   * missing, they are read from UserInfo (its `sub` checked against the token's), and the ID
   * token's own claims win where both have one.
   */
  async finish(query: string, state: string, pending: PendingSignIn): Promise<Record<string, unknown>> {
    const configuration = await this.#configuration();
    const callbackUrl = new URL(this.#config.redirectUrl);
    callbackUrl.search = query;
    const tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedNonce: pending.nonce,
      expectedState: state,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (claims === undefined) throw new Error("the provider sent no ID token");
    const wanted = [this.#config.usernameClaim, this.#config.roleClaim];
    if (wanted.every((name) => claims[name] !== undefined)) return claims;
    if (configuration.serverMetadata().userinfo_endpoint === undefined) return claims;
    const userInfo = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
    return { ...userInfo, ...claims };
  }
}

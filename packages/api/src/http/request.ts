import type { Principal } from "@svc/core";
import type { WrittenFlag } from "../webhooks/events.ts";

/** What the auth and audit hooks learn about a request, for the handlers and for each other. */
declare module "fastify" {
  interface FastifyRequest {
    /** "METHOD /path/{param}": the request's row in core's ROUTE_RULES. */
    routeKey: string | undefined;
    /** The authenticated caller, with their grants (or, for a login, the user who just logged in). */
    actor: Principal | undefined;
    /** Set once a handler of a handler-scoped route checked or filtered by the caller's scope (http/scope.ts). */
    scopeChecked: boolean;
    /** The bearer token of an authenticated request. */
    sessionToken: string | undefined;
    /** Set by handlers: what the audit event records beyond what the hook derives. */
    auditNote: AuditNote | undefined;
    /** The `{error}` message sent, kept for the audit event of a refused request. */
    errorMessage: string | undefined;
    /**
     * The client's address, read when the request starts: once the client hangs up, the socket
     * no longer knows it, and the audit event still needs it.
     */
    sourceIp: string;
    /** Set once the handler wrote the request's audit event in its change's transaction. */
    auditRecorded: boolean;
    /** An admin's reason to write a protected cluster's flag directly (flags/protected-writes.ts), audited. */
    overrideReason: string | undefined;
    /** Set by the flag write handlers: the objects written, whose ids the webhook events carry. */
    flagsWritten: WrittenFlag[] | undefined;
  }
  /** A one-line description of the route, for the OpenAPI document. */
  interface FastifySchema {
    summary?: string;
  }
}

export interface AuditNote {
  /** For a failed login: the username that was tried. */
  attemptedActor?: string;
  resourceName?: string;
  /** Where the change happened, when the path and query do not say it (e.g. a create's body). */
  namespace?: string;
  cluster?: string;
  /** A dry run changed nothing: no event (a refusal of it is still recorded). */
  skip?: boolean;
  details?: Record<string, unknown>;
}

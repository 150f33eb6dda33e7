import { accessView, MeView, passwordLoginRefusal, passwordProblem, SessionView } from "@svc/core";
import type { FastifyInstance } from "fastify";
import Type from "typebox";
import { DUMMY_PASSWORD_HASH, verifyPassword } from "./passwords.ts";
import { throttleMessage } from "./throttle.ts";
import type { ApiContext } from "../context.ts";
import { isoTime } from "../time.ts";
import { HttpError } from "../http/errors.ts";
import { MessageBody } from "../http/schemas.ts";

/** Lengths only bound the work a login can cause; a name that cannot exist just fails (401). */
const LoginBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 253 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);
type LoginBody = Type.Static<typeof LoginBody>;

const INVALID_CREDENTIALS = "invalid username or password";

export function authRoutes(ctx: ApiContext) {
  return (app: FastifyInstance, _options: unknown, done: () => void) => {
    app.post<{ Body: LoginBody }>(
      "/api/v1/auth/login",
      { schema: { summary: "Log in", body: LoginBody, response: { 200: SessionView } } },
      async (request) => {
        const { username, password } = request.body;
        request.auditNote = { attemptedActor: username };
        const turnedOff = passwordLoginRefusal(username, ctx.config.passwordLogin, undefined);
        if (turnedOff !== undefined) {
          ctx.metrics.logins.inc({ outcome: "failure" });
          throw new HttpError(403, turnedOff);
        }
        try {
          ctx.hashing.ensureRoom();
        } catch (error) {
          ctx.metrics.logins.inc({ outcome: "busy" });
          throw error;
        }
        // Counted before the password is checked, so that simultaneous attempts count too.
        const throttle = ctx.throttle.attempt(username, request.sourceIp);
        if (!throttle.allowed) {
          ctx.metrics.logins.inc({ outcome: "throttled" });
          throw new HttpError(429, throttleMessage(throttle.bound), {
            "retry-after": String(throttle.retryAfterSeconds),
          });
        }
        const { found, matches } = await ctx.hashing.run(async () => {
          const stored = await ctx.users.find(username);
          // Unknown users cost a bcrypt comparison too: the timing does not tell who exists. A
          // single sign-on user has no hash to compare with (docs/api.md "Single sign-on").
          const passwordHash = stored?.ssoIdentity === undefined ? stored?.passwordHash : undefined;
          return {
            found: stored,
            matches: await verifyPassword(password, passwordHash ?? DUMMY_PASSWORD_HASH),
          };
        });
        const ssoUser = passwordLoginRefusal(username, ctx.config.passwordLogin, found);
        if (ssoUser !== undefined) {
          ctx.metrics.logins.inc({ outcome: "failure" });
          throw new HttpError(403, ssoUser);
        }
        const user = matches ? found : undefined;
        if (user === undefined || passwordProblem(password) !== undefined) {
          ctx.metrics.logins.inc({ outcome: "failure" });
          throw new HttpError(401, INVALID_CREDENTIALS);
        }
        ctx.throttle.recordSuccess(username, request.sourceIp);
        ctx.metrics.logins.inc({ outcome: "success" });
        const { token, session } = ctx.sessions.open(user.username, user.securityStamp);
        request.actor = { username: user.username, role: user.role, grants: user.grants };
        return {
          token,
          expiresAt: isoTime(session.expiresAt),
          user: { username: user.username, ...accessView(user.role, user.grants) },
        };
      },
    );

    app.post(
      "/api/v1/auth/logout",
      { schema: { summary: "Log out: the presented token stops working", response: { 200: MessageBody } } },
      (request) => {
        if (request.sessionToken !== undefined) ctx.sessions.close(request.sessionToken);
        return { message: "logged out" };
      },
    );

    app.get(
      "/api/v1/auth/me",
      { schema: { summary: "The caller's username, global role and grants", response: { 200: MeView } } },
      (request) =>
        request.actor === undefined
          ? undefined
          : { username: request.actor.username, ...accessView(request.actor.role, request.actor.grants) },
    );
    done();
  };
}

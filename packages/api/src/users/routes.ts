import {
  accessView,
  deleteDecision,
  globalRole,
  passwordChangeRefusal,
  passwordProblem,
  sessionsEndedBy,
  updateBodyProblem,
  updateDecision,
  updatePermission,
  restRole,
  userAccessProblem,
  grantsProblem,
  type Grant,
  type Actor,
  type Refusal,
  type SessionsEnded,
  CreateUserBody,
  UpdateUserBody,
  UserView,
  type CreateUserBody as CreateUser,
  type UpdateUserBody as UpdateUser,
} from "@svc/core";
import type { FastifyInstance, FastifyRequest } from "fastify";
import Type from "typebox";
import { changedFields } from "../audit/event.ts";
import { changeAuditEvent } from "../audit/recorder.ts";
import type { ApiContext } from "../context.ts";
import { isoTime } from "../time.ts";
import { HttpError } from "../http/errors.ts";
import { isUniqueViolation } from "../store/db.ts";
import { UsernameParams } from "./schemas.ts";
import { MessageBody } from "../http/schemas.ts";
import { markScopeChecked } from "../http/scope.ts";

function refuse(refusal: Refusal | undefined): void {
  if (refusal !== undefined) throw new HttpError(refusal.status, refusal.error);
}

/**
 * The grants' rules beyond their schema, and "none" only with a grant (400 naming the field).
 * The body's schema (GrantsSchema) was checked by Fastify, and stored grants when read.
 */
function checkAccess(role: CreateUser["role"], grants: readonly Grant[]): void {
  const problem = grantsProblem(grants) ?? userAccessProblem(role, grants);
  if (problem !== undefined) throw new HttpError(400, problem);
}

function checkPassword(password: string | undefined): void {
  const problem = password === undefined ? undefined : passwordProblem(password);
  if (problem !== undefined) throw new HttpError(400, problem);
}

/** The auth hook ran before any handler of these routes: a missing actor is a wiring bug. */
function actorOf(request: FastifyRequest): Actor {
  if (request.actor === undefined) throw new Error(`no authenticated actor on ${request.routeKey ?? "?"}`);
  return request.actor;
}

/** Applies core's decision of which sessions a change ends; the kept one takes the new stamp. */
function endSessions(
  ctx: ApiContext,
  request: FastifyRequest,
  target: string,
  ended: SessionsEnded,
  newStamp?: string,
): void {
  if (ended.end === "none") return;
  const kept = ended.end === "all-but-callers" ? request.sessionToken : undefined;
  ctx.sessions.closeUserSessions(target, kept);
  if (kept !== undefined && newStamp !== undefined) ctx.sessions.restamp(kept, newStamp);
}

/** GET /api/v1/users: every user, by username. */
function listUsers(app: FastifyInstance, ctx: ApiContext): void {
  app.get(
    "/api/v1/users",
    { schema: { summary: "Every user, by username", response: { 200: Type.Array(UserView) } } },
    async (request) => {
      const actor = actorOf(request);
      const users = await ctx.users.list();
      markScopeChecked(request);
      // SPEC.md: every role lists users. A user with grants only sees their own account:
      // the list of everyone's access is not theirs to read (docs/access.md).
      return actor.role === undefined ? users.filter((u) => u.username === actor.username) : users;
    },
  );
}

/** POST /api/v1/users: create a user (admin). */
function createUser(app: FastifyInstance, ctx: ApiContext): void {
  app.post<{ Body: CreateUser }>(
    "/api/v1/users",
    { schema: { summary: "Create a user (admin)", body: CreateUserBody, response: { 201: UserView } } },
    async (request, reply) => {
      const { username, password, role, grants = [] } = request.body;
      checkAccess(role, grants);
      checkPassword(password);
      // A cheap early answer; the primary key still decides between concurrent creations.
      if ((await ctx.users.find(username)) !== undefined) {
        throw new HttpError(409, `user ${username} already exists`);
      }
      const passwordHash = await ctx.hashing.hash(password);
      const createdAt = isoTime(ctx.now());
      request.auditNote = {
        resourceName: username,
        details: changedFields({}, { username, role, ...(grants.length === 0 ? {} : { grants }) }),
      };
      try {
        await ctx.users.withUserState(username, async (state, writer) => {
          if (state.target !== undefined) throw new HttpError(409, `user ${username} already exists`);
          await writer.insert({ role, grants, passwordHash }, createdAt);
          await writer.audit(changeAuditEvent(request, 201, ctx.now()));
        });
      } catch (error) {
        // Two creations of one name at once: the primary key lets one through.
        if (isUniqueViolation(error)) throw new HttpError(409, `user ${username} already exists`);
        throw error;
      }
      request.auditRecorded = true;
      return reply.code(201).send({ username, createdAt, ...accessView(globalRole(role), grants) });
    },
  );
}

/** PUT /api/v1/users/:username: change a password or role (admin: anyone; others: own password only). */
function updateUser(app: FastifyInstance, ctx: ApiContext): void {
  app.put<{ Params: { username: string }; Body: UpdateUser }>(
    "/api/v1/users/:username",
    {
      schema: {
        summary: "Change a password or role (admin: anyone; others: own password only)",
        params: UsernameParams,
        body: UpdateUserBody,
        response: { 200: MessageBody },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const target = request.params.username;
      const { password, role, grants } = request.body;
      const bodyProblem = updateBodyProblem(target, request.body);
      if (bodyProblem !== undefined) throw new HttpError(400, bodyProblem);
      refuse(updatePermission(actor, target, request.body));
      markScopeChecked(request);
      checkPassword(password);
      const passwordHash = password === undefined ? undefined : await ctx.hashing.hash(password);
      const stamp = await ctx.users.withUserState(target, async (state, writer) => {
        const before = state.target === undefined ? undefined : restRole(state.target.role);
        refuse(updateDecision(target, role, { targetRole: before, adminCount: state.adminCount }));
        if (state.target !== undefined)
          checkAccess(role ?? restRole(state.target.role), grants ?? state.target.grants);
        refuse(passwordChangeRefusal(target, password !== undefined, state.target?.ssoIdentity));
        const securityStamp = await writer.update(
          {
            ...(role === undefined ? {} : { role }),
            ...(grants === undefined ? {} : { grants }),
            ...(passwordHash === undefined ? {} : { passwordHash }),
          },
          isoTime(ctx.now()),
        );
        const diff = changedFields(
          { role: before, grants: state.target?.grants },
          { role: role ?? before, grants: grants ?? state.target?.grants },
        );
        request.auditNote = {
          details: { ...diff, ...(password === undefined ? {} : { passwordChanged: true }) },
        };
        await writer.audit(changeAuditEvent(request, 200, ctx.now()));
        return securityStamp;
      });
      request.auditRecorded = true;
      endSessions(
        ctx,
        request,
        target,
        sessionsEndedBy(actor, target, { kind: "update", passwordChanged: stamp !== undefined }),
        stamp,
      );
      return { message: `user ${target} updated` };
    },
  );
}

/** DELETE /api/v1/users/:username: delete a user (admin; not yourself, not the last admin). */
function deleteUser(app: FastifyInstance, ctx: ApiContext): void {
  app.delete<{ Params: { username: string } }>(
    "/api/v1/users/:username",
    {
      schema: {
        summary: "Delete a user (admin; not yourself, not the last admin)",
        params: UsernameParams,
        response: { 200: MessageBody },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      const target = request.params.username;
      await ctx.users.withUserState(target, async (state, writer) => {
        refuse(
          deleteDecision(actor, target, {
            targetRole: state.target === undefined ? undefined : restRole(state.target.role),
            adminCount: state.adminCount,
          }),
        );
        await writer.delete();
        request.auditNote = { details: changedFields({ username: target, role: state.target?.role }, {}) };
        await writer.audit(changeAuditEvent(request, 200, ctx.now()));
      });
      request.auditRecorded = true;
      endSessions(ctx, request, target, sessionsEndedBy(actor, target, { kind: "delete" }));
      return { message: `user ${target} deleted` };
    },
  );
}

export function userRoutes(ctx: ApiContext) {
  return (app: FastifyInstance, _options: unknown, done: () => void) => {
    for (const route of [listUsers, createUser, updateUser, deleteUser]) route(app, ctx);
    done();
  };
}

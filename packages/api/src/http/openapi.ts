import swagger from "@fastify/swagger";
import { ROUTE_RULES, routeKey } from "@svc/core";
import type { FastifyInstance, FastifySchema } from "fastify";
import { ErrorBody } from "./schemas.ts";

const ERROR_STATUSES: Readonly<Record<string, string>> = {
  "400": "Bad request: the message names the field",
  "401": "Missing, invalid, expired or ended token",
  "403": "The caller's role may not do this",
  "404": "Not found",
  "406": "The Accept header refuses every representation the route serves",
  "409": "Conflict",
  "413": "Body larger than 1 MiB",
  "414": "A path segment is longer than 253 characters",
  "415": "Body is not application/json",
  "429": "Too many failed logins (Retry-After)",
  "500": "Internal error",
  "502": "A cluster could not be reached, or refused svc's credentials (the message names it)",
  "503": "Too many passwords being hashed, or the server is shutting down (Retry-After)",
};

const ERROR_RESPONSES = Object.fromEntries(
  Object.entries(ERROR_STATUSES).map(([status, description]) => [status, { ...ErrorBody, description }]),
);

/** The document's view of a route: who may call it (from ROUTE_RULES) and every error it can answer. */
function documentedSchema(method: string, url: string, schema: FastifySchema): FastifySchema {
  const isPublic = ROUTE_RULES[routeKey(method, url)]?.access === "public";
  // Routes without a response schema (health) answer plain text.
  const success = schema.response
    ? Object.fromEntries(
        Object.entries(schema.response as Record<string, object>).map(([status, body]) => [
          status,
          { description: "Success", ...body },
        ]),
      )
    : { 200: { description: "Success", content: { "text/plain": { schema: { type: "string" } } } } };
  return {
    ...schema,
    response: { ...success, ...ERROR_RESPONSES },
    security: isPublic ? [] : [{ bearer: [] }],
  };
}

/**
 * OpenAPI 3.1 by @fastify/swagger from the very TypeBox schemas Fastify validates and serializes
 * with; served (authenticated, like every non-public route) at GET /api/v1/openapi.json.
 * Registered before the routes, so that it sees each of them.
 */
export async function installOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "svc REST API", version: "v1" },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    },
    transform: ({ schema, url, route }) => ({
      schema: documentedSchema([route.method].flat()[0] ?? "GET", url, schema),
      url,
    }),
  });
}

export function openApiRoutes(app: FastifyInstance, _options: unknown, done: () => void): void {
  app.get("/api/v1/openapi.json", { schema: { summary: "This document" } }, () => app.swagger());
  done();
}

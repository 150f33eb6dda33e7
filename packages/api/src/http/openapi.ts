import { ROUTE_RULES, routeKey } from "@svc/core";
import type { FastifyInstance, RouteOptions } from "fastify";
import { ErrorBody } from "./schemas.ts";

interface RouteDoc {
  method: string;
  url: string;
  schema: Readonly<Record<string, unknown>>;
}

type JsonSchema = Readonly<Record<string, unknown>>;

/** JSON Schema as plain data: TypeBox's symbol-keyed bookkeeping is dropped. */
function plain(schema: unknown): JsonSchema {
  return JSON.parse(JSON.stringify(schema)) as JsonSchema;
}

function parameters(schema: unknown, where: "path" | "query"): unknown[] {
  const properties = (plain(schema)["properties"] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((plain(schema)["required"] ?? []) as string[]);
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: where,
    required: where === "path" || required.has(name),
    schema: s,
    ...(typeof s["description"] === "string" ? { description: s["description"] } : {}),
  }));
}

const ERROR_STATUSES: Readonly<Record<string, string>> = {
  "400": "Bad request: the message names the field",
  "401": "Missing, invalid, expired or ended token",
  "403": "The caller's role may not do this",
  "404": "Not found",
  "409": "Conflict",
  "413": "Body larger than 1 MiB",
  "415": "Body is not application/json",
  "429": "Too many failed logins (Retry-After)",
  "500": "Internal error",
};

/** OpenAPI 3.1 from the very schemas Fastify validates and serializes with. */
export function openApiDocument(routes: readonly RouteDoc[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, url, schema } of routes) {
    const key = routeKey(method, url);
    const path = key.slice(key.indexOf(" ") + 1);
    const isPublic = ROUTE_RULES[key]?.access === "public";
    const responses: Record<string, unknown> = {};
    for (const [status, body] of Object.entries((schema["response"] ?? {}) as Record<string, unknown>)) {
      responses[status] = {
        description: "Success",
        content: { "application/json": { schema: plain(body) } },
      };
    }
    if (Object.keys(responses).length === 0) {
      responses["200"] = {
        description: "Success",
        content: { "text/plain": { schema: { type: "string" } } },
      };
    }
    for (const [status, description] of Object.entries(ERROR_STATUSES)) {
      responses[status] = { description, content: { "application/json": { schema: plain(ErrorBody) } } };
    }
    paths[path] ??= {};
    paths[path][method.toLowerCase()] = {
      ...(typeof schema["summary"] === "string" ? { summary: schema["summary"] } : {}),
      parameters: [
        ...(schema["params"] === undefined ? [] : parameters(schema["params"], "path")),
        ...(schema["querystring"] === undefined ? [] : parameters(schema["querystring"], "query")),
      ],
      ...(schema["body"] === undefined
        ? {}
        : {
            requestBody: {
              required: true,
              content: { "application/json": { schema: plain(schema["body"]) } },
            },
          }),
      responses,
      security: isPublic ? [] : [{ bearer: [] }],
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "svc REST API", version: "v1" },
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    paths,
  };
}

/** Collects every route as it is registered; serves the document built from them. */
export function openApiRoutes() {
  const routes: RouteDoc[] = [];
  let document: Record<string, unknown> | undefined;
  return {
    collect(route: RouteOptions): void {
      for (const method of [route.method].flat()) {
        routes.push({ method, url: route.url, schema: (route.schema ?? {}) as Record<string, unknown> });
      }
    },
    plugin: (app: FastifyInstance, _options: unknown, done: () => void) => {
      app.get("/api/v1/openapi.json", { schema: { summary: "This document" } }, () => {
        document ??= openApiDocument(routes);
        return document;
      });
      done();
    },
  };
}

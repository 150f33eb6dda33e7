import { describeErrors, schemaErrors } from "@svc/core";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { TSchema } from "typebox";
import Compile from "typebox/compile";
import { databaseUnavailable } from "../store/db.ts";
import { parseJsonBody } from "./json-body.ts";

/** An error with the status and the `{error}` message the client gets (SPEC.md "Errors"). */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(statusCode: number, message: string, headers: Readonly<Record<string, string>> = {}) {
    super(message);
    this.statusCode = statusCode;
    this.headers = headers;
  }
}

const PART_PREFIX: Readonly<Record<string, string>> = { body: "", querystring: "query", params: "path" };

/**
 * Fastify validates every route part with TypeBox's compiled checker; on failure the message is
 * core's `schemaErrors`, the same wording the CRD-side validation uses, naming each field.
 */
export function typeboxValidatorCompiler({ schema, httpPart }: { schema: TSchema; httpPart?: string }) {
  const validator = Compile(schema);
  const prefix = PART_PREFIX[httpPart ?? "body"] ?? httpPart ?? "";
  // No body means an empty object where an empty object is a valid body (e.g. a toggle).
  const emptyBodyValid = httpPart === "body" && validator.Check({});
  return (data: unknown) => {
    if (emptyBodyValid && (data === undefined || data === null)) return { value: {} };
    if (validator.Check(data)) return { value: data };
    const wantsObject = (schema as { type?: unknown }).type === "object";
    if (httpPart === "body" && wantsObject && Object.prototype.toString.call(data) !== "[object Object]") {
      return { error: new HttpError(400, "request body must be a JSON object") };
    }
    const message = describeErrors(schemaErrors(schema, data, prefix));
    return { error: new HttpError(400, message === "" ? `invalid ${httpPart ?? "input"}` : message) };
  };
}

/** The message a person reads for an error Fastify itself raises (parsing, size, media type). */
function clientMessage(error: FastifyError): string {
  if (error.code === "FST_ERR_CTP_INVALID_JSON_BODY") return "request body is not valid JSON";
  if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") return "request body is larger than 1 MiB";
  if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") return "request body must be application/json";
  return error.message;
}

/** Makes every error, whoever raises it, a JSON `{error}` with its status; 5xx never leak details. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    let status = typeof error.statusCode === "number" && error.statusCode >= 400 ? error.statusCode : 500;
    let message: string;
    if (request.raw.readableAborted || request.raw.socket.destroyed) {
      // The client went away mid-request (often mid-body): nothing of ours failed, and nobody
      // reads the answer; the status is what the audit log records.
      request.log.info({ code: error.code }, "client closed the connection before the request was complete");
      status = 400;
      message = "the request was not received in full: the client closed the connection";
    } else if (databaseUnavailable(error)) {
      // An outage, not a fault of the request or of ours: the client may retry.
      request.log.warn({ err: { message: error.message, code: error.code } }, "database unavailable");
      status = 503;
      message = "the database is unavailable: try again shortly";
      void reply.header("retry-after", "2");
    } else if (status >= 500 && !(error instanceof HttpError)) {
      // A fault of ours: logged, never shown. (A deliberate 502/503, such as an unreachable
      // cluster, is an HttpError whose message is meant for the client.)
      request.log.error({ err: error }, "request failed");
      message = "internal server error";
    } else {
      message = clientMessage(error);
    }
    if (error instanceof HttpError) void reply.headers(error.headers);
    request.errorMessage = message;
    return reply.code(status).type("application/json; charset=utf-8").send({ error: message });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: `no route ${request.method} ${request.url.split("?")[0] ?? ""}` }),
  );
  // Bodies are JSON only (DESIGN.md §4): anything else is 415, text/plain included. An empty
  // body is "no body", so a bodiless POST with a JSON content type gets the route's own message.
  app.removeContentTypeParser(["application/json", "text/plain"]);
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") {
      done(null, undefined);
      return;
    }
    const parsed = parseJsonBody(text);
    if (parsed.ok) done(null, parsed.value);
    else done(new HttpError(400, parsed.error), undefined);
  });
}

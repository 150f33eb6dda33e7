// OpenFeature Remote Evaluation Protocol (OFREP) answers for one flag. Flags here are static
// (no targeting), so the evaluation context is never needed: every answer depends on the flag
// alone and is rendered once per change.
import { createHash } from "node:crypto";
import { defaultValueProblem } from "@svc/core/basics";
import type { SidecarFlag } from "./sidecar-flag.ts";

/** An OFREP evaluation result as JSON text, with the HTTP status of a single evaluation. */
export interface OfrepEvaluation {
  status: 200 | 400;
  text: string;
}

/**
 * The JSON text of a flag's typed value: boolean and integer literals are copied digit for digit
 * (a signed 64-bit integer stays exact in the text, whatever the client's number type), json is
 * its own text, string is quoted. Undefined when the value does not parse as its type (only
 * possible for json: the CRD checks booleans and integers).
 */
export function typedValueText(flag: Pick<SidecarFlag, "type" | "value">): string | undefined {
  if (defaultValueProblem(flag.type, flag.value) !== undefined) return undefined;
  return flag.type === "string" ? JSON.stringify(flag.value) : flag.value.trim();
}

/**
 * A flag's evaluation. Enabled: reason STATIC and the typed value. Disabled: reason DISABLED and
 * no value, which OFREP defines as "use the code default" (DESIGN.md §5: a disabled flag is
 * withdrawn). A value that does not parse: PARSE_ERROR.
 */
export function evaluate(flag: SidecarFlag): OfrepEvaluation {
  const key = JSON.stringify(flag.name);
  if (flag.disabled) return { status: 200, text: `{"key":${key},"reason":"DISABLED"}` };
  const value = typedValueText(flag);
  if (value === undefined) {
    const details = JSON.stringify(`the value of flag ${flag.name} is not valid ${flag.type}`);
    return { status: 400, text: `{"key":${key},"errorCode":"PARSE_ERROR","errorDetails":${details}}` };
  }
  return { status: 200, text: `{"key":${key},"reason":"STATIC","value":${value}}` };
}

/** The 404 body for a key that names no flag of the namespace. */
export function flagNotFound(key: string, namespace: string): string {
  return evaluationFailure(key, "FLAG_NOT_FOUND", `flag ${key} not found in namespace ${namespace}`);
}

/** The bulk evaluation body: every flag's evaluation, in the given (name) order. */
export function bulkBody(evaluations: readonly string[]): string {
  return `{"flags":[${evaluations.join(",")}]}`;
}

/** A strong ETag from the body's content: equal bodies get equal tags, across restarts and replicas. */
export function etagOf(body: string | Buffer): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
}

/** Whether an If-None-Match header names `etag` (weak comparison, as RFC 9110 asks for it). */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const wanted = opaque(etag);
  return header.split(",").some((tag) => opaque(tag) === wanted);
}

/**
 * Why an evaluation request body is refused, or undefined when it is acceptable. OFREP's body is
 * `{"context": {...}}` with an optional context; the context itself is not read (no targeting),
 * but a body that is not such an object is a client error the caller should hear about. An
 * empty body counts as no context, as curl without `-d` sends it.
 */
export function evaluationRequestProblem(body: string): string | undefined {
  if (body.trim() === "") return undefined;
  let request: unknown;
  try {
    request = JSON.parse(body);
  } catch {
    return "the request body is not JSON";
  }
  if (!isObject(request)) return 'the request body must be a JSON object such as {"context": {}}';
  const context = (request as { context?: unknown }).context;
  return context === undefined || isObject(context) ? undefined : "context must be a JSON object";
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The OFREP error body of a refused request: `{key, errorCode, errorDetails}` for a single
 * evaluation, without `key` for the bulk one (OFREP's evaluationFailure and bulkEvaluationFailure).
 */
export function evaluationFailure(key: string | undefined, errorCode: string, errorDetails: string): string {
  return JSON.stringify(key === undefined ? { errorCode, errorDetails } : { key, errorCode, errorDetails });
}

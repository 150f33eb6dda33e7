// OpenFeature Remote Evaluation Protocol (OFREP) answers: flagd-core's evaluation of a flag
// (packages/core/src/targeting/flagd.ts) in OFREP's shapes, and the checks of an evaluation request.
// Static flags are evaluated once per change; targeted ones once per request (responses.ts).
import { createHash } from "node:crypto";
import { defaultValueProblem } from "@svc/core/flags/values";
import { contextProblem } from "@svc/core/targeting/evaluation-context";
import { STATIC_VARIANT, type Evaluation } from "@svc/core/targeting/flagd";
import type { EvaluationContext } from "@openfeature/core";
import type { SidecarFlag } from "./sidecar-flag.ts";

/** An OFREP evaluation result as JSON text, with the HTTP status of a single evaluation. */
export interface OfrepEvaluation {
  status: 200 | 400 | 404;
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
 * flagd's OFREP answer for an evaluation (flagd's core/pkg/service/ofrep): a success is
 * `{key, value, variant, reason, metadata}` (DISABLED: no value, "use the code default"); a
 * failure `{key, errorCode, errorDetails, metadata}`, 404 for FLAG_NOT_FOUND and 400 otherwise.
 * The value is the variant's stored text, so an integer keeps all its digits; a stored value that
 * does not parse as the flag's type answers PARSE_ERROR.
 */
export function renderEvaluation(flag: SidecarFlag, evaluation: Evaluation): OfrepEvaluation {
  const { key, metadata } = evaluation;
  if (evaluation.errorCode !== undefined) {
    const details = evaluation.errorDetails ?? evaluation.errorCode;
    return failure(key, evaluation.errorCode, details, metadata);
  }
  const head = `{"key":${JSON.stringify(key)}`;
  const tail = `,"reason":"${evaluation.reason}","metadata":${JSON.stringify(metadata)}}`;
  if (evaluation.value === undefined) return { status: 200, text: head + tail };
  const variant = evaluation.variant;
  const stored = variant === undefined ? undefined : storedValue(flag, variant);
  const value =
    stored === undefined
      ? JSON.stringify(evaluation.value)
      : typedValueText({ type: flag.type, value: stored });
  if (value === undefined) {
    return failure(key, "PARSE_ERROR", `the value of flag ${key} is not valid ${flag.type}`, metadata);
  }
  const named = variant === undefined ? "" : `,"variant":${JSON.stringify(variant)}`;
  return { status: 200, text: `${head},"value":${value}${named}${tail}` };
}

/** The text a variant holds (a flag without variants has one, STATIC_VARIANT: its defaultValue). */
function storedValue(flag: SidecarFlag, variant: string): string | undefined {
  if (flag.variants === undefined) return variant === STATIC_VARIANT ? flag.value : undefined;
  return Object.hasOwn(flag.variants, variant) ? flag.variants[variant] : undefined;
}

function failure(key: string, errorCode: string, errorDetails: string, metadata: object): OfrepEvaluation {
  return {
    status: errorCode === "FLAG_NOT_FOUND" ? 404 : 400,
    text: JSON.stringify({ key, errorCode, errorDetails, metadata }),
  };
}

/** The 404 body for a key that names no flag of the namespace. */
export function flagNotFound(key: string, namespace: string): string {
  return failure(key, "FLAG_NOT_FOUND", `flag ${key} not found in namespace ${namespace}`, {}).text;
}

/**
 * The bulk evaluation body: every flag's evaluation, in key order, and the OFREP event stream
 * (protocol ADR-0008) that tells a provider when to refetch, relative to its OFREP base URL.
 */
export function bulkBody(evaluations: readonly string[], eventsPath: string): string {
  const streams = JSON.stringify([{ type: "sse", endpoint: { requestUri: eventsPath } }]);
  return `{"flags":[${evaluations.join(",")}],"eventStreams":${streams}}`;
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

/** Bounds of an evaluation context: core's, which the API applies too. */
export { CONTEXT_LIMITS } from "@svc/core/targeting/evaluation-context";

export type EvaluationRequest = { context: EvaluationContext } | { problem: string };

/**
 * The context of an evaluation request body `{"context": {...}}`, or why it is refused (400
 * INVALID_CONTEXT). An empty body or an absent context is the empty context (curl without
 * `-d` sends nothing). A context is refused when flagd-core could not use it safely or as
 * meant: a targetingKey that is not a string, keys that reach a prototype, more nesting, values
 * or longer strings than CONTEXT_LIMITS.
 */
export function parseEvaluationRequest(body: string): EvaluationRequest {
  if (body.trim() === "") return { context: {} };
  let request: unknown;
  try {
    request = JSON.parse(body);
  } catch {
    return { problem: "the request body is not JSON" };
  }
  if (!isObject(request))
    return { problem: 'the request body must be a JSON object such as {"context": {}}' };
  const context = request["context"];
  if (context === undefined) return { context: {} };
  if (!isObject(context)) return { problem: "context must be a JSON object" };
  const targetingKey = context["targetingKey"];
  if (targetingKey !== undefined && typeof targetingKey !== "string") {
    return { problem: "context.targetingKey must be a string" };
  }
  const problem = contextProblem(context);
  return problem === undefined ? { context: context as EvaluationContext } : { problem };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The OFREP error body of a refused request: `{key, errorCode, errorDetails}` for a single
 * evaluation, without `key` for the bulk one (OFREP's evaluationFailure and bulkEvaluationFailure).
 */
export function evaluationFailure(key: string | undefined, errorCode: string, errorDetails: string): string {
  return JSON.stringify(key === undefined ? { errorCode, errorDetails } : { key, errorCode, errorDetails });
}

// Every response body the sidecar sends for a flag, rendered once when the flag changes, so a
// read only looks up a map and writes bytes it already has.
import { maxHeaderSize } from "node:http";
import { httpClientErrorAnswer } from "@svc/core/basics";
import { compileFlag, evaluateFlag, isTargeted, type CompiledFlag } from "@svc/core/flagd";
import type { EvaluationContext } from "@openfeature/core";
import { bulkBody, etagOf, renderEvaluation, type OfrepEvaluation } from "./ofrep.ts";
import { evaluatedSpecOf, type SidecarFlag } from "./sidecar-flag.ts";

/** A complete response: status, raw header list (name, value, name, value, ...) and body. */
export interface PreparedResponse {
  status: number;
  headers: string[];
  body: Buffer;
}

export const JSON_TYPE = "application/json; charset=utf-8";
export const TEXT_TYPE = "text/plain; charset=utf-8";

export function prepare(
  status: number,
  contentType: string,
  body: string,
  extraHeaders: string[] = [],
): PreparedResponse {
  const bytes = Buffer.from(body);
  return {
    status,
    headers: ["Content-Type", contentType, "Content-Length", String(bytes.length), ...extraHeaders],
    body: bytes,
  };
}

/** The `{error}` body of SPEC.md "Errors". */
export function errorResponse(
  status: number,
  message: string,
  extraHeaders: string[] = [],
): PreparedResponse {
  return prepare(status, JSON_TYPE, JSON.stringify({ error: message }), extraHeaders);
}

/**
 * The whole answer, written on the socket, to a request node:http's parser refused or that took
 * too long: a JSON {error} where node's own has an empty body; the connection then closes.
 */
export function clientErrorAnswer(error: { code?: string; message: string }): string {
  return httpClientErrorAnswer(error, maxHeaderSize);
}

/** The path of the OFREP event stream (protocol ADR-0008), advertised by the bulk evaluation. */
export const OFREP_EVENTS_PATH = "/ofrep/v1/events";

/** The OFREP side of a flag: its answer when no context can change it, else flagd-core's form. */
export type OfrepForm =
  | {
      /** Disabled, no targeting, or a rule flagd-core refused: evaluated once per change. */
      ofrepStatic: { evaluation: OfrepEvaluation; response: PreparedResponse };
      compiled?: undefined;
    }
  | {
      ofrepStatic?: undefined;
      /** A targeted flag, parsed once per change and evaluated per request. */
      compiled: CompiledFlag;
    };

export type RenderedFlag = OfrepForm & {
  /** The flag object's JSON text: the body of GET /flags/{name}, an element of GET /flags, stream data. */
  json: string;
  /** GET /flags/{name} */
  object: PreparedResponse;
  /** GET /flags/{name}/value: the raw value, or 404 while disabled (DESIGN.md §5). */
  value: PreparedResponse;
};

export function renderFlag(flag: SidecarFlag): RenderedFlag {
  const json = JSON.stringify({
    name: flag.name,
    type: flag.type,
    value: flag.value,
    disabled: flag.disabled,
  });
  const compiled = compileFlag(flag.key, evaluatedSpecOf(flag), false);
  const rendered = {
    json,
    object: prepare(200, JSON_TYPE, json),
    value: flag.disabled
      ? errorResponse(404, `flag ${flag.name} is disabled`)
      : prepare(200, TEXT_TYPE, flag.value),
  };
  if (!flag.disabled && compiled.ok && isTargeted(flag)) return { ...rendered, compiled };
  // A static flag keeps its answer only, not flagd-core's form (memory per flag).
  const evaluation = renderEvaluation(flag, evaluateFlag(flag.key, compiled, {}));
  return {
    ...rendered,
    ofrepStatic: { evaluation, response: prepare(evaluation.status, JSON_TYPE, evaluation.text) },
  };
}

/** A flag's OFREP evaluation for a context: precomputed when static, by flagd-core when targeted. */
export function ofrepEvaluation(
  entry: RenderedFlag & { flag: SidecarFlag },
  context: EvaluationContext,
): OfrepEvaluation {
  if (entry.ofrepStatic) return entry.ofrepStatic.evaluation;
  return renderEvaluation(entry.flag, evaluateFlag(entry.flag.key, entry.compiled, context));
}

/** POST /ofrep/v1/evaluate/flags/{key} for a context. */
export function ofrepSingle(
  entry: RenderedFlag & { flag: SidecarFlag },
  context: EvaluationContext,
): PreparedResponse {
  if (entry.ofrepStatic) return entry.ofrepStatic.response;
  const evaluation = ofrepEvaluation(entry, context);
  return prepare(evaluation.status, JSON_TYPE, evaluation.text);
}

/** GET /flags: every flag object, in name order. */
export function renderFlagList(entries: readonly Pick<RenderedFlag, "json">[]): PreparedResponse {
  return prepare(200, JSON_TYPE, `[${entries.map((e) => e.json).join(",")}]`);
}

/**
 * POST /ofrep/v1/evaluate/flags: every evaluation (JSON texts, in key order), with the ETag of
 * exactly this body: the tag follows the answer, so two contexts that get the same answers share
 * it and a context that changes an answer changes it.
 */
export function renderOfrepBulk(evaluations: readonly string[]): {
  response: PreparedResponse;
  etag: string;
} {
  const body = bulkBody(evaluations, OFREP_EVENTS_PATH);
  const etag = etagOf(body);
  return { response: prepare(200, JSON_TYPE, body, ["ETag", etag]), etag };
}

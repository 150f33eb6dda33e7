// Every response body the sidecar sends for a flag, rendered once when the flag changes, so a
// read only looks up a map and writes bytes it already has.
import { maxHeaderSize } from "node:http";
import { httpClientErrorAnswer } from "@svc/core/basics";
import { bulkBody, etagOf, evaluate } from "./ofrep.ts";
import type { SidecarFlag } from "./sidecar-flag.ts";

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

export interface RenderedFlag {
  /** The flag object's JSON text: the body of GET /flags/{name}, an element of GET /flags, stream data. */
  json: string;
  /** GET /flags/{name} */
  object: PreparedResponse;
  /** GET /flags/{name}/value: the raw value, or 404 while disabled (DESIGN.md §5). */
  value: PreparedResponse;
  /** The OFREP evaluation's JSON text (an element of the bulk body). */
  ofrepText: string;
  /** POST /ofrep/v1/evaluate/flags/{key} */
  ofrep: PreparedResponse;
}

export function renderFlag(flag: SidecarFlag): RenderedFlag {
  const json = JSON.stringify({
    name: flag.name,
    type: flag.type,
    value: flag.value,
    disabled: flag.disabled,
  });
  const evaluation = evaluate(flag);
  return {
    json,
    object: prepare(200, JSON_TYPE, json),
    value: flag.disabled
      ? errorResponse(404, `flag ${flag.name} is disabled`)
      : prepare(200, TEXT_TYPE, flag.value),
    ofrepText: evaluation.text,
    ofrep: prepare(evaluation.status, JSON_TYPE, evaluation.text),
  };
}

/** GET /flags: every flag object, in name order. */
export function renderFlagList(entries: readonly Pick<RenderedFlag, "json">[]): PreparedResponse {
  return prepare(200, JSON_TYPE, `[${entries.map((e) => e.json).join(",")}]`);
}

/** POST /ofrep/v1/evaluate/flags: every evaluation, with the ETag of exactly this body. */
export function renderOfrepBulk(entries: readonly Pick<RenderedFlag, "ofrepText">[]): {
  response: PreparedResponse;
  etag: string;
} {
  const body = bulkBody(entries.map((e) => e.ofrepText));
  const etag = etagOf(body);
  return { response: prepare(200, JSON_TYPE, body, ["ETag", etag]), etag };
}

// Every response body the sidecar sends for a flag, rendered once when the flag changes, so a
// read only looks up a map and writes bytes it already has.
import { maxHeaderSize } from "node:http";
import { httpClientErrorAnswer } from "@svc/core/http/refusals";
import {
  compileFlagLenient,
  evaluateFlag,
  isTargeted,
  staticEvaluation,
  type CompiledFlag,
  type Evaluation,
} from "@svc/core/targeting/flagd";
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

/**
 * A targeted flag in flagd-core's form, and the single-evaluation answers it gave: a successful
 * evaluation's answer follows from its reason and variant alone (the value is the variant's, the
 * key and metadata the flag's), so each is rendered once, at most reasons × variants of them.
 */
export interface CompiledRule {
  compiled: CompiledFlag;
  answers?: Map<string, PreparedResponse>;
}

/**
 * Targeted flags in flagd-core's form, compiled on their first evaluation and kept for the
 * `capacity` most recently evaluated: flagd-core keeps ~2 KB of heap per flag, and its parsing
 * leaves garbage whose pages Bun keeps, so a namespace's idle rules cost only their definition
 * (docs/sidecar.md, "Memory"). A bulk evaluation reaches every rule: past the capacity, it
 * compiles the rules it does not find and keeps none of them, so a scan neither evicts what
 * single evaluations use nor grows the cache.
 */
export class CompiledRules {
  readonly #capacity: number;
  // Insertion order is recency: a hit moves its flag to the end, the first is the least recent.
  readonly #compiled = new Map<SidecarFlag, CompiledRule>();

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#compiled.size;
  }

  /** The flag compiled; `keep: false` (a scan) adds it only while there is room. */
  of(flag: SidecarFlag, keep = true): CompiledRule {
    const found = this.#compiled.get(flag);
    if (found !== undefined) {
      this.#compiled.delete(flag);
      this.#compiled.set(flag, found);
      return found;
    }
    const rule: CompiledRule = { compiled: compileFlagLenient(flag.key, evaluatedSpecOf(flag)) };
    if (!keep && this.#compiled.size >= this.#capacity) return rule;
    this.#compiled.set(flag, rule);
    const oldest = this.#compiled.keys().next();
    if (this.#compiled.size > this.#capacity && !oldest.done) this.#compiled.delete(oldest.value);
    return rule;
  }

  /** Drops a flag that changed or went away. */
  forget(flag: SidecarFlag): void {
    this.#compiled.delete(flag);
  }
}

/** The OFREP side of a flag: its answer when no context can change it, else its rule's compiler. */
export type OfrepForm =
  | {
      /** Disabled, no targeting, or a rule flagd-core refused: evaluated once per change. */
      ofrepStatic: { evaluation: OfrepEvaluation; response: PreparedResponse };
      rules?: undefined;
    }
  | {
      ofrepStatic?: undefined;
      /** A targeted flag: evaluated per request, compiled through these rules. */
      rules: CompiledRules;
    };

export type RenderedFlag = OfrepForm & {
  /** The flag object's JSON text: the body of GET /flags/{name}, an element of GET /flags, stream data. */
  json: string;
  /** GET /flags/{name} */
  object: PreparedResponse;
  /** GET /flags/{name}/value: the raw value, or 404 while disabled (DESIGN.md §5). */
  value: PreparedResponse;
};

/**
 * Every response about a flag. A flag no context changes is answered without flagd-core
 * (staticEvaluation); an enabled targeted flag is compiled only when first evaluated, others
 * (disabled or odd definitions) are compiled once here for their fixed answer.
 */
export function renderFlag(flag: SidecarFlag, rules: CompiledRules): RenderedFlag {
  const json = JSON.stringify({
    name: flag.name,
    type: flag.type,
    value: flag.value,
    disabled: flag.disabled,
  });
  const rendered = {
    json,
    object: prepare(200, JSON_TYPE, json),
    value: flag.disabled
      ? errorResponse(404, `flag ${flag.name} is disabled`)
      : prepare(200, TEXT_TYPE, flag.value),
  };
  const spec = evaluatedSpecOf(flag);
  let fixed: Evaluation | undefined =
    flag.refused === undefined
      ? staticEvaluation(flag.key, spec)
      : { key: flag.key, reason: "ERROR", errorCode: "GENERAL", errorDetails: flag.refused, metadata: {} };
  if (fixed === undefined) {
    if (!flag.disabled && isTargeted(flag)) return { ...rendered, rules };
    fixed = evaluateFlag(flag.key, compileFlagLenient(flag.key, spec), {});
  }
  const evaluation = renderEvaluation(flag, fixed);
  return {
    ...rendered,
    ofrepStatic: { evaluation, response: prepare(evaluation.status, JSON_TYPE, evaluation.text) },
  };
}

/** A flag's OFREP evaluation for a context: precomputed when static, by flagd-core when targeted. */
export function ofrepEvaluation(
  entry: RenderedFlag & { flag: SidecarFlag },
  context: EvaluationContext,
  scan = false,
): OfrepEvaluation {
  if (entry.ofrepStatic) return entry.ofrepStatic.evaluation;
  const { compiled } = entry.rules.of(entry.flag, !scan);
  return renderEvaluation(entry.flag, evaluateFlag(entry.flag.key, compiled, context));
}

/**
 * POST /ofrep/v1/evaluate/flags/{key} for a context: a targeted flag's answer is rendered once
 * per reason and variant (CompiledRule), since a request renders it otherwise for every call.
 */
export function ofrepSingle(
  entry: RenderedFlag & { flag: SidecarFlag },
  context: EvaluationContext,
): PreparedResponse {
  if (entry.ofrepStatic) return entry.ofrepStatic.response;
  const rule = entry.rules.of(entry.flag);
  const evaluation = evaluateFlag(entry.flag.key, rule.compiled, context);
  const answered =
    evaluation.errorCode === undefined && evaluation.variant !== undefined
      ? `${evaluation.reason}/${evaluation.variant}`
      : undefined;
  const known = answered === undefined ? undefined : rule.answers?.get(answered);
  if (known !== undefined) return known;
  const rendered = renderEvaluation(entry.flag, evaluation);
  const response = prepare(rendered.status, JSON_TYPE, rendered.text);
  if (answered !== undefined) (rule.answers ??= new Map()).set(answered, response);
  return response;
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

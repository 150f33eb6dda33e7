// A measurement prototype for bench/sidecar/http-layer.ts, run by Bun: the sidecar's own flag
// state (FlagState, flagd-core's evaluation, the prepared responses) answered through
// `Bun.serve` instead of node:http, for the three routes the bench loads: GET
// /flags/{name}/value, POST /ofrep/v1/evaluate/flags/{key} and /healthz. It is not the
// sidecar: no watch (the FeatureFlags are read once from FLAGS_FILE), no stream, no limits or
// timeouts. It shows what the HTTP layer alone would save before the shell is written.
import { readFileSync } from "node:fs";
import { FlagState, type FeatureFlagObject } from "../../packages/sidecar/src/flags.ts";
import { evaluationFailure, flagNotFound, parseEvaluationRequest } from "../../packages/sidecar/src/ofrep.ts";
import {
  errorResponse,
  JSON_TYPE,
  ofrepSingle,
  prepare,
  type PreparedResponse,
} from "../../packages/sidecar/src/responses.ts";

/** The part of Bun's API used here (the project has no Bun type package). */
declare const Bun: {
  serve(options: {
    hostname: string;
    port: number;
    fetch: (request: Request) => Response | Promise<Response>;
  }): unknown;
};

const NAMESPACE = "bench";
const OFREP_PREFIX = "/ofrep/v1/evaluate/flags/";
const state = new FlagState();
state.replace(JSON.parse(readFileSync(process.env["FLAGS_FILE"] ?? "", "utf8")) as FeatureFlagObject[]);
const OK = prepare(200, "text/plain; charset=utf-8", "ok");
const NOT_FOUND = errorResponse(404, "not found");

/** A PreparedResponse as a fetch Response: the raw header list becomes name/value pairs. */
function answer(prepared: PreparedResponse): Response {
  const headers: [string, string][] = [];
  for (let i = 0; i < prepared.headers.length; i += 2) {
    headers.push([prepared.headers[i] ?? "", prepared.headers[i + 1] ?? ""]);
  }
  return new Response(prepared.body, { status: prepared.status, headers });
}

async function evaluateOfrep(request: Request, key: string): Promise<PreparedResponse> {
  const parsed = parseEvaluationRequest(await request.text());
  if ("problem" in parsed)
    return prepare(400, JSON_TYPE, evaluationFailure(key, "INVALID_CONTEXT", parsed.problem));
  const entry = state.byKey(key);
  return entry ? ofrepSingle(entry, parsed.context) : prepare(404, JSON_TYPE, flagNotFound(key, NAMESPACE));
}

Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.env["PORT"]),
  fetch: async (request) => {
    const url = request.url;
    const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
    if (path === "/healthz") return answer(OK);
    if (path.startsWith("/flags/") && path.endsWith("/value")) {
      const entry = state.get(path.slice("/flags/".length, -"/value".length));
      return answer(entry?.value ?? NOT_FOUND);
    }
    if (path.startsWith(OFREP_PREFIX) && request.method === "POST") {
      return answer(await evaluateOfrep(request, decodeURIComponent(path.slice(OFREP_PREFIX.length))));
    }
    return answer(NOT_FOUND);
  },
});

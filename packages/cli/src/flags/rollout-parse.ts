// The command lines of the plan verbs (`svc flags rollout <verb>`, `svc flags promote`) read into
// typed requests (pure: unit-tested). As for the other verbs every problem is named by its
// option, and the shell exits 2 on any; the API checks what a command line cannot (the clusters
// exist, the flag is in each, the value suits its type).
import {
  isDns1123Label,
  startAtError,
  type FieldError,
  type FlagRolloutSpec,
  type RolloutChange,
  type RolloutPhase,
  type Wave,
} from "@svc/core";
import { flagRef, noPositional, type OptionValues } from "./names.ts";
import type { RolloutVerb } from "./rollout-verbs.ts";
import { parseWaves, WAVE_SYNTAX } from "./waves.ts";

/** Where the waves go and when: what create's quick form and promote share. */
export interface WavesBody {
  name?: string;
  waves: Wave[];
  startAt?: string;
}

/** POST /api/v1/rollouts: a FlagRollout spec and, optionally, the plan's name. */
export type PlanBody = FlagRolloutSpec & { name?: string };

export const DEFAULT_WATCH_INTERVAL_MS = 2000;

export type NamedPlanVerb =
  | "rollout get"
  | "rollout pause"
  | "rollout resume"
  | "rollout abort"
  | "rollout skip-bake"
  | "rollout delete";

export type RolloutRequest =
  | { verb: "rollout create"; source: { kind: "file"; file: string } | { kind: "options"; body: PlanBody } }
  | { verb: "rollout list"; flag?: string; phase?: RolloutPhase }
  | { verb: NamedPlanVerb; name: string }
  | { verb: "rollout approve" | "rollout reject"; name: string; comment?: string }
  | { verb: "rollout watch"; name: string; intervalMs: number }
  | { verb: "promote"; flag: { namespace: string; name: string }; from: string; body: WavesBody };

const LABEL_RULE = "must be a DNS-1123 label (lowercase letters, digits and '-', at most 63)";

/** The one NAME a plan verb acts on. */
function planName(positional: string[], errors: FieldError[]): string {
  const [name, ...extra] = positional;
  if (extra.length > 0) errors.push({ field: extra[0] ?? "", message: "is one argument too many" });
  if (name === undefined) errors.push({ field: "NAME", message: "is required: the plan's name" });
  else if (!isDns1123Label(name))
    errors.push({ field: "NAME", message: `${LABEL_RULE}, got ${JSON.stringify(name)}` });
  return name ?? "";
}

/** --wave (one or more, in order), --start and --name. */
function wavesBody({ values, lists }: OptionValues, errors: FieldError[]): WavesBody {
  const texts = lists.get("--wave") ?? [];
  if (texts.length === 0)
    errors.push({ field: "--wave", message: `is required: one per wave, in order (${WAVE_SYNTAX})` });
  const { waves, errors: refused } = parseWaves(texts);
  for (const message of refused) errors.push({ field: "--wave", message });
  const body: WavesBody = { waves };
  const startAt = values.get("--start");
  if (startAt !== undefined) {
    const error = startAtError(startAt, "--start");
    if (error !== undefined) errors.push(error);
    body.startAt = startAt;
  }
  const name = values.get("--name");
  if (name !== undefined) {
    if (!isDns1123Label(name)) errors.push({ field: "--name", message: LABEL_RULE });
    body.name = name;
  }
  return body;
}

const QUICK_OPTIONS = ["--value", "--enabled", "--wave", "--start", "--name", "--namespace"];

function createRequest(options: OptionValues, errors: FieldError[]): RolloutRequest {
  const { values, positional } = options;
  const file = values.get("--filename");
  if (file !== undefined) {
    if (positional.length > 0)
      errors.push({ field: positional[0] ?? "", message: "is not taken with -f: the file names the flag" });
    for (const name of QUICK_OPTIONS.filter((o) => values.has(o)))
      errors.push({ field: name, message: "is not taken with -f: the file says it" });
    return { verb: "rollout create", source: { kind: "file", file } };
  }
  const { namespace, name } = flagRef(values, positional, errors);
  const change: RolloutChange = {};
  const value = values.get("--value");
  if (value !== undefined) change.defaultValue = value;
  const enabled = values.get("--enabled");
  if (enabled !== undefined) change.enabled = enabled === "true";
  if (value === undefined && enabled === undefined)
    errors.push({
      field: "--value",
      message: "or --enabled is required (or -f FILE): the change to roll out",
    });
  const body: PlanBody = { flag: { namespace, name }, change, ...wavesBody(options, errors) };
  return { verb: "rollout create", source: { kind: "options", body } };
}

function intervalOf(text: string | undefined, errors: FieldError[]): number {
  if (text === undefined) return DEFAULT_WATCH_INTERVAL_MS;
  const seconds = /^[0-9]{1,3}(\.[0-9]{1,3})?$/.test(text) ? Number(text) : Number.NaN;
  if (!(seconds >= 0.1 && seconds <= 300)) {
    errors.push({ field: "--interval", message: "must be seconds from 0.1 to 300" });
    return DEFAULT_WATCH_INTERVAL_MS;
  }
  return Math.round(seconds * 1000);
}

/** The request of a plan verb; problems go to `errors`. */
export function rolloutRequestOf(
  verb: RolloutVerb,
  options: OptionValues,
  errors: FieldError[],
): RolloutRequest {
  const { values, positional } = options;
  switch (verb) {
    case "rollout create":
      return createRequest(options, errors);
    case "promote": {
      const { namespace, name } = flagRef(values, positional, errors);
      const from = values.get("--from") ?? "";
      if (!values.has("--from")) errors.push({ field: "--from", message: "is required: the source cluster" });
      else if (!isDns1123Label(from))
        errors.push({ field: "--from", message: `${LABEL_RULE} (a cluster id)` });
      return { verb, flag: { namespace, name }, from, body: wavesBody(options, errors) };
    }
    case "rollout list": {
      noPositional(positional, errors);
      const flag = values.get("--flag");
      const phase = values.get("--phase") as RolloutPhase | undefined;
      if (flag !== undefined && !/^[^/]+\/[^/]+$/.test(flag))
        errors.push({ field: "--flag", message: `must be NAMESPACE/NAME, got ${JSON.stringify(flag)}` });
      return { verb, ...(flag === undefined ? {} : { flag }), ...(phase === undefined ? {} : { phase }) };
    }
    case "rollout watch":
      return {
        verb,
        name: planName(positional, errors),
        intervalMs: intervalOf(values.get("--interval"), errors),
      };
    case "rollout approve":
    case "rollout reject": {
      const comment = values.get("--comment");
      return { verb, name: planName(positional, errors), ...(comment === undefined ? {} : { comment }) };
    }
    default:
      return { verb, name: planName(positional, errors) };
  }
}

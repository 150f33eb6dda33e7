// The plan verbs (`svc flags rollout <verb>`, `svc flags promote`): each one or a few REST calls
// (docs/api.md "Rollouts"); the bodies come from rollout-parse.ts and rollout-file.ts, the
// output from rollout-render.ts (all pure).
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { apiRequest, ExitError } from "./client.ts";
import { EXIT, type Connection } from "./connection.ts";
import type { Output } from "./options.ts";
import { readStdin } from "./prompt.ts";
import { renderData } from "./render.ts";
import { parsePlanFile } from "./rollout-file.ts";
import type { PlanBody, RolloutRequest } from "./rollout-parse.ts";
import { renderRollouts, renderTimeline, type RolloutView } from "./rollout-render.ts";
import { watchPlan } from "./rollout-watch.ts";

type Request<V extends RolloutRequest["verb"]> = RolloutRequest & { verb: V };

/** Plans asked for per request, as flags are (docs/api.md "Paged lists"). */
export const PLAN_PAGE = 500;

const planPath = (name: string, suffix = "") => `/api/v1/rollouts/${encodeURIComponent(name)}${suffix}`;

/** The plan of -f FILE: read and checked whole before any request (a bad file: exit 1, nothing sent). */
async function planFromFile(file: string): Promise<PlanBody> {
  let text: string;
  try {
    text = file === "-" ? await readStdin() : await readFile(file, "utf8");
  } catch (error) {
    throw new ExitError(EXIT.error, `cannot read ${file}: ${(error as Error).message}`);
  }
  const parsed = parsePlanFile(text);
  if (parsed.ok) return parsed.value;
  const lines = parsed.errors.map((e) => `${file}: ${e.field === "" ? "" : `${e.field}: `}${e.message}`);
  throw new ExitError(EXIT.error, `no plan created:\n${lines.join("\n")}`);
}

async function create(connection: Connection, request: Request<"rollout create">, output: Output) {
  const { source } = request;
  const body = source.kind === "file" ? await planFromFile(source.file) : source.body;
  return renderRollouts(await apiRequest<RolloutView>(connection, "POST", "/api/v1/rollouts", body), output);
}

async function promote(connection: Connection, request: Request<"promote">, output: Output) {
  const { namespace, name } = request.flag;
  const query = new URLSearchParams({ clusterId: request.from }).toString();
  const path = `/api/v1/flags/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/promote?${query}`;
  return renderRollouts(await apiRequest<RolloutView>(connection, "POST", path, request.body), output);
}

interface PlanPage {
  items: RolloutView[];
  metadata: { continue?: string };
}

/** Every matching plan, newest first, walked page by page. */
async function list(connection: Connection, request: Request<"rollout list">, output: Output) {
  const query = new URLSearchParams({ limit: String(PLAN_PAGE) });
  if (request.flag !== undefined) query.set("flag", request.flag);
  if (request.phase !== undefined) query.set("phase", request.phase);
  const plans: RolloutView[] = [];
  for (;;) {
    const page = await apiRequest<PlanPage>(connection, "GET", `/api/v1/rollouts?${query.toString()}`);
    plans.push(...page.items);
    if (page.metadata.continue === undefined) return renderRollouts(plans, output);
    query.set("continue", page.metadata.continue);
  }
}

/** What the shell hands a verb besides its request: where watch prints, and what stops it. */
export interface RolloutIo {
  write: (text: string) => void;
  warn: (text: string) => void;
  signal: AbortSignal;
}

/** Runs one plan verb; returns what it prints last (watch prints as it goes). */
export async function runRolloutVerb(
  connection: Connection,
  request: RolloutRequest,
  output: Output,
  io: RolloutIo,
): Promise<string> {
  switch (request.verb) {
    case "rollout create":
      return create(connection, request, output);
    case "promote":
      return promote(connection, request, output);
    case "rollout list":
      return list(connection, request, output);
    case "rollout get": {
      const view = await apiRequest<RolloutView>(connection, "GET", planPath(request.name));
      return output === "table" ? renderTimeline(view) : renderData(view, output);
    }
    case "rollout watch":
      await watchPlan(request.name, output, request.intervalMs, {
        ...io,
        read: (signal) =>
          apiRequest<RolloutView>(connection, "GET", planPath(request.name), undefined, signal),
        sleep: (ms, signal) => sleep(ms, undefined, { signal }).catch(() => undefined),
        now: () => new Date(),
      });
      return "";
    case "rollout approve":
    case "rollout reject": {
      const body = request.comment === undefined ? {} : { comment: request.comment };
      const path = planPath(request.name, `/${request.verb.slice("rollout ".length)}`);
      return renderRollouts(await apiRequest<RolloutView>(connection, "POST", path, body), output);
    }
    case "rollout delete": {
      await apiRequest<unknown>(connection, "DELETE", planPath(request.name));
      const message = `plan ${request.name} deleted`;
      return output === "table" ? `${message}\n` : renderData({ message }, output);
    }
    default: {
      const path = planPath(request.name, `/${request.verb.slice("rollout ".length)}`);
      return renderRollouts(await apiRequest<RolloutView>(connection, "POST", path), output);
    }
  }
}

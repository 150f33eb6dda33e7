// list, get, create, set, toggle and delete: each one or two REST calls; the bodies come from
// edits.ts and the output from render.ts (both pure).
import type { FlagPreview, FlagView } from "@svc/core";
import { apiRequest, flagPath } from "./client.ts";
import type { Connection } from "./connection.ts";
import { createBody, setBody } from "./edits.ts";
import type { VerbRequest } from "./parse.ts";
import { definitionOf, fieldChanges, planFlag, type FlagPlan } from "./plan.ts";
import { renderData, renderFlags, renderPlans } from "./render.ts";
import type { Output } from "./verbs.ts";

type Request<V extends VerbRequest["verb"]> = VerbRequest & { verb: V };

/** Flags asked for per request: a fleet's list arrives in pages, never as one answer of every flag. */
export const LIST_PAGE = 500;

interface FlagPage {
  items: FlagView[];
  metadata: { continue?: string };
}

/** Every matching flag, walked page by page (docs/api.md "Paged lists"), in the unpaged order. */
export async function list(connection: Connection, request: Request<"list">, output: Output) {
  const query = new URLSearchParams({ limit: String(LIST_PAGE) });
  if (request.cluster !== undefined) query.set("clusterId", request.cluster);
  if (request.namespace !== undefined) query.set("namespace", request.namespace);
  if (request.prefix !== undefined) query.set("namePrefix", request.prefix);
  const flags: FlagView[] = [];
  for (;;) {
    const page = await apiRequest<FlagPage>(connection, "GET", `/api/v1/flags?${query.toString()}`);
    flags.push(...page.items);
    if (page.metadata.continue === undefined) return renderFlags(flags, output);
    query.set("continue", page.metadata.continue);
  }
}

export async function get(connection: Connection, request: Request<"get">, output: Output) {
  return renderFlags(await apiRequest<FlagView>(connection, "GET", flagPath(request.flag)), output);
}

/** A dry run shown as diff shows it: the fields it sets and the workloads it touches. */
function dryRunText(plan: FlagPlan, answer: FlagPreview, output: Output): string {
  return output === "table"
    ? renderPlans([{ ...plan, preview: answer.preview }], output)
    : renderData(answer, output);
}

export async function create(connection: Connection, request: Request<"create">, output: Output) {
  const body = createBody(request.flag, request.definition, request.enabled);
  if (request.dryRun) {
    const answer = await apiRequest<FlagPreview>(connection, "POST", "/api/v1/flags?dryRun=true", body);
    return dryRunText(
      planFlag({ ...body, defaultValue: answer.flag.defaultValue }, undefined),
      answer,
      output,
    );
  }
  return renderFlags(await apiRequest<FlagView>(connection, "POST", "/api/v1/flags", body), output);
}

export async function set(connection: Connection, request: Request<"set">, output: Output) {
  const current = await apiRequest<FlagView>(connection, "GET", flagPath(request.flag));
  const body = setBody(current, request.definition);
  if (request.dryRun) {
    const path = flagPath(request.flag, "", { dryRun: "true" });
    const answer = await apiRequest<FlagPreview>(connection, "PUT", path, body);
    const changes = fieldChanges(definitionOf(current, false), definitionOf(answer.flag, false));
    const plan: FlagPlan = {
      ...request.flag,
      action: changes.length === 0 ? "unchanged" : "update",
      changes,
    };
    return dryRunText(plan, answer, output);
  }
  return renderFlags(await apiRequest<FlagView>(connection, "PUT", flagPath(request.flag), body), output);
}

export async function toggle(connection: Connection, request: Request<"toggle">, output: Output) {
  const body = request.enabled === undefined ? {} : { enabled: request.enabled };
  return renderFlags(
    await apiRequest<FlagView>(connection, "POST", flagPath(request.flag, "/toggle"), body),
    output,
  );
}

export async function remove(connection: Connection, request: Request<"delete">, output: Output) {
  const answer = await apiRequest<{ message: string }>(connection, "DELETE", flagPath(request.flag));
  return output === "table" ? `${answer.message}\n` : renderData(answer, output);
}

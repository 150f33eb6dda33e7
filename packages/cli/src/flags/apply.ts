// apply -f and diff -f. Both read and validate the whole file first (a bad file: exit 1 naming
// the field, no request made), then plan every flag: read it, compare, and ask the API for a
// dry run of each change (its blast-radius preview, and its refusals: 400, 409). apply writes
// only once every flag has passed, so a file with one refused flag writes nothing.
import { readFile } from "node:fs/promises";
import type { FlagCreate, FlagPreview, FlagView } from "@svc/core";
import { parseApplyFile } from "./apply-file.ts";
import { ApiError, apiRequest, ExitError, flagPath } from "./client.ts";
import { EXIT, type Connection } from "./connection.ts";
import type { VerbRequest } from "./parse.ts";
import { planFlag, type FlagPlan } from "./plan.ts";
import { readStdin } from "./prompt.ts";
import { renderApplied, renderPlans, type ApplyResult } from "./render.ts";
import type { Output } from "./verbs.ts";

type FileRequest = VerbRequest & { verb: "apply" | "diff" };

interface Planned {
  plan: FlagPlan;
  desired: FlagCreate;
  current: FlagView | undefined;
}

async function fileFlags(request: FileRequest): Promise<FlagCreate[]> {
  let text: string;
  try {
    text = request.file === "-" ? await readStdin() : await readFile(request.file, "utf8");
  } catch (error) {
    throw new ExitError(EXIT.error, `cannot read ${request.file}: ${(error as Error).message}`);
  }
  const parsed = parseApplyFile(text, request.cluster);
  if (parsed.ok) return parsed.value;
  const lines = parsed.errors.map(
    (e) => `${request.file}: ${e.field === "" ? "" : `${e.field}: `}${e.message}`,
  );
  throw new ExitError(EXIT.error, `nothing applied:\n${lines.join("\n")}`);
}

/** A request's refusal, named by the flag it concerns. */
async function about<T>(flag: FlagCreate, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ApiError)
      throw new ApiError(
        error.status,
        `${flag.namespace}/${flag.name} (cluster ${flag.clusterId}): ${error.message}`,
      );
    throw error;
  }
}

const refOf = (flag: FlagCreate) => ({ cluster: flag.clusterId, namespace: flag.namespace, name: flag.name });

async function current(connection: Connection, flag: FlagCreate): Promise<FlagView | undefined> {
  try {
    return await apiRequest<FlagView>(connection, "GET", flagPath(refOf(flag)));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** The write a plan needs; a dry run when asked. An update carries the version read, so a change made since is a 409. */
function write(connection: Connection, { plan, desired, current }: Planned, dryRun: boolean) {
  const more: Record<string, string> = dryRun ? { dryRun: "true" } : {};
  if (plan.action === "create") {
    const query = dryRun ? "?dryRun=true" : "";
    return apiRequest<unknown>(connection, "POST", `/api/v1/flags${query}`, desired);
  }
  const body = { ...desired, resourceVersion: current?.resourceVersion };
  return apiRequest<unknown>(connection, "PUT", flagPath(refOf(desired), "", more), body);
}

async function planAll(connection: Connection, request: FileRequest): Promise<Planned[]> {
  const planned: Planned[] = [];
  for (const desired of await fileFlags(request)) {
    const stored = await about(desired, current(connection, desired));
    const plan = planFlag(desired, stored);
    const item = { plan, desired, current: stored };
    if (plan.action !== "unchanged") {
      const answer = await about(desired, write(connection, item, true));
      plan.preview = (answer as FlagPreview).preview;
    }
    planned.push(item);
  }
  return planned;
}

export async function diff(connection: Connection, request: FileRequest, output: Output): Promise<string> {
  return renderPlans(
    (await planAll(connection, request)).map((item) => item.plan),
    output,
  );
}

const RESULT = { create: "created", update: "configured", unchanged: "unchanged" } as const;

export async function apply(connection: Connection, request: FileRequest, output: Output): Promise<string> {
  const planned = await planAll(connection, request);
  const done: { plan: FlagPlan; result: ApplyResult }[] = [];
  for (const item of planned) {
    if (!request.dryRun && item.plan.action !== "unchanged") {
      try {
        await about(item.desired, write(connection, item, false));
      } catch (error) {
        // A write refused after its dry run passed (a change made meanwhile): say what is applied.
        const written = done
          .filter((d) => d.result !== "unchanged")
          .map((d) => `${d.plan.namespace}/${d.plan.name}`);
        if (error instanceof ApiError && written.length > 0)
          throw new ApiError(error.status, `${error.message} (already applied: ${written.join(", ")})`);
        throw error;
      }
    }
    done.push({ plan: item.plan, result: RESULT[item.plan.action] });
  }
  return renderApplied(done, request.dryRun, output);
}

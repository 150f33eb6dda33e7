// FlagRollout plans in the hub (the local cluster), in the system namespace: the Kubernetes reads
// and writes behind the rollout routes. The API writes a plan's spec (creation and the actions)
// and, of its status, only the approval; the operator writes the rest of the status, so the
// approval is written with a resourceVersion precondition and never overwrites the operator's.
import { setTimeout as sleep } from "node:timers/promises";
import {
  API_GROUP_VERSION,
  FLAG_ROLLOUT,
  ROLLOUT_AUTHOR_ANNOTATION,
  type FlagRolloutSpec,
  type FlagRolloutStatus,
} from "@svc/core";
import { KubeApiError, type ConnectedCluster } from "@svc/kube";
import { clusterCallError, registry } from "../clusters/reach.ts";
import type { ApiContext } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import type { Plan } from "./rules.ts";

/** How often a status write that lost a race with the operator is read and tried again. */
export const STATUS_WRITE_ATTEMPTS = 5;

/** Where plans live. */
export interface PlanStore {
  hub: ConnectedCluster;
  namespace: string;
}

export function planStore(ctx: ApiContext): PlanStore {
  const hub = registry(ctx)
    .list()
    .find((cluster) => cluster.local);
  if (hub === undefined) throw new Error("the cluster registry has no local cluster");
  return { hub, namespace: ctx.config.systemNamespace };
}

function planRef(store: PlanStore, name: string) {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: FLAG_ROLLOUT.kind,
    metadata: { namespace: store.namespace, name },
  };
}

const isStatus = (error: unknown, code: number) => error instanceof KubeApiError && error.status === code;

const notFound = (name: string) => new HttpError(404, `plan ${name} not found`);

/**
 * How long a call the hub answers 429 is tried again: the kube-apiserver answers so while it
 * throttles, and for about a second on the first FlagRollout request after it starts (it builds
 * a custom resource's storage on first use: "storage is (re)initializing"). Plans are read on
 * each request, not from a cache that would hide this; a request waits for it, briefly.
 */
export const HUB_BUSY_WAIT_MS = 3000;

async function hubCall<T>(store: PlanStore, call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + HUB_BUSY_WAIT_MS;
  for (let delayMs = 100; ; delayMs = Math.min(delayMs * 2, 1000)) {
    try {
      return await call();
    } catch (error) {
      if (!isStatus(error, 429)) throw error;
      if (Date.now() + delayMs > deadline)
        throw new HttpError(503, `cluster ${store.hub.id} is busy: try again shortly`, {
          "retry-after": "1",
        });
      await sleep(delayMs);
    }
  }
}

/** A failed call as the client's error: a missing plan is 404 by its name, the rest as for any cluster call. */
function planError(store: PlanStore, error: unknown, name: string): HttpError {
  if (isStatus(error, 404)) return notFound(name);
  return clusterCallError(store.hub, error, `plan ${name}`);
}

/** Every plan, in the order Kubernetes lists them. */
export async function listPlans(store: PlanStore): Promise<Plan[]> {
  try {
    return await hubCall(store, () =>
      store.hub.writer.list<Plan>(API_GROUP_VERSION, FLAG_ROLLOUT.kind, store.namespace, ""),
    );
  } catch (error) {
    throw clusterCallError(store.hub, error, `plans in ${store.namespace}`);
  }
}

export async function readPlan(store: PlanStore, name: string): Promise<Plan> {
  let plan: Plan | undefined;
  try {
    plan = await hubCall(store, () => store.hub.writer.read<Plan>(planRef(store, name)));
  } catch (error) {
    throw planError(store, error, name);
  }
  if (plan === undefined) throw notFound(name);
  return plan;
}

/** The FlagRollout a user creates: its spec, and its author for the approval rule. */
export function planManifest(store: PlanStore, name: string, author: string, spec: FlagRolloutSpec): Plan {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: FLAG_ROLLOUT.kind,
    metadata: { name, namespace: store.namespace, annotations: { [ROLLOUT_AUTHOR_ANNOTATION]: author } },
    spec,
  };
}

export async function createPlan(store: PlanStore, plan: Plan): Promise<Plan> {
  const name = plan.metadata.name;
  let created: Plan | undefined;
  try {
    created = await hubCall(store, () =>
      store.hub.writer.create<Plan>({
        ...plan,
        ...planRef(store, name),
        metadata: { ...plan.metadata },
      }),
    );
  } catch (error) {
    throw planError(store, error, name);
  }
  if (created === undefined) throw new HttpError(409, `plan ${name} already exists: choose another name`);
  return created;
}

/**
 * Sets spec fields with a merge patch, which touches no other field. The plan's uid is the
 * precondition: a plan deleted and created again under its name meanwhile is not patched.
 */
export async function patchPlanSpec(
  store: PlanStore,
  plan: Plan,
  spec: Partial<FlagRolloutSpec>,
): Promise<Plan> {
  const name = plan.metadata.name;
  try {
    return await hubCall(store, () =>
      store.hub.writer.mergePatch<Plan>(planRef(store, name), { metadata: { uid: plan.metadata.uid }, spec }),
    );
  } catch (error) {
    // The API server refuses a patch of another uid as a change of an immutable field (422).
    if (isStatus(error, 422) && (error as KubeApiError).statusMessage.includes("metadata.uid"))
      throw new HttpError(409, `plan ${name} was deleted and created again meanwhile: read it again`);
    throw planError(store, error, name);
  }
}

/**
 * Read, modify, write of status fields through the status subresource: `change` decides from the
 * plan as read (and throws to refuse); the write carries the resourceVersion read, so a status
 * the operator wrote meanwhile makes it 409 and it starts again from a new read. Only the fields
 * `change` returns are written (a merge patch); the operator's other fields stay as they are.
 */
export async function updatePlanStatus(
  store: PlanStore,
  name: string,
  change: (plan: Plan) => Partial<FlagRolloutStatus> | Promise<Partial<FlagRolloutStatus>>,
): Promise<{ before: Plan; after: Plan }> {
  for (let attempt = 1; ; attempt++) {
    const before = await readPlan(store, name);
    const status = await change(before);
    try {
      const body = { metadata: { resourceVersion: before.metadata.resourceVersion }, status };
      const after = await hubCall(store, () =>
        store.hub.writer.mergePatch<Plan>(planRef(store, name), body, { subresource: "status" }),
      );
      return { before, after };
    } catch (error) {
      if (!isStatus(error, 409)) throw planError(store, error, name);
      if (attempt >= STATUS_WRITE_ATTEMPTS)
        throw new HttpError(409, `plan ${name} kept changing while its status was written: try again`);
    }
  }
}

/** Deletes the plan read (its uid as precondition: never a newer plan of the same name). */
export async function deletePlan(store: PlanStore, plan: Plan): Promise<void> {
  const name = plan.metadata.name;
  let deleted: boolean;
  try {
    deleted = await hubCall(store, () =>
      store.hub.writer.remove(planRef(store, name), { uid: plan.metadata.uid }),
    );
  } catch (error) {
    throw planError(store, error, name);
  }
  if (!deleted) throw notFound(name);
}

// The checks a new plan passes before it is stored, beyond its shape: its waves against the
// registered clusters and its change against the flag in each of their clusters, so that what
// the operator would refuse later is refused now, with the field named (400).
import {
  changeErrors,
  describeErrors,
  localClusterConnection,
  planClusters,
  resolveWaves,
  validateRolloutSpec,
  workloadPercentErrors,
  type FieldError,
  type FlagRolloutSpec,
  type PlanCluster,
} from "@svc/core";
import { readyCluster, registry } from "../clusters/reach.ts";
import type { ApiContext } from "../context.ts";
import { HttpError } from "../http/errors.ts";

/** The registered clusters as plans see them (the local one has no labels until it is registered). */
export function registeredPlanClusters(ctx: ApiContext): Map<string, PlanCluster> {
  return planClusters(
    registry(ctx)
      .list()
      .map(
        (cluster) =>
          cluster.connection ??
          localClusterConnection({
            id: cluster.id,
            apiServer: "",
            systemNamespace: ctx.config.systemNamespace,
          }),
      ),
  );
}

/**
 * What a flag's change would break in one cluster (of wave `wave`), named under `change` (or the
 * wave) and the cluster.
 */
async function clusterErrors(
  ctx: ApiContext,
  spec: FlagRolloutSpec,
  id: string,
  wave: number,
): Promise<FieldError[]> {
  const cluster = await readyCluster(ctx, id, 400);
  const { namespace, name } = spec.flag;
  const flag = cluster.flags.get(namespace, name);
  if (flag === undefined)
    return [{ field: "flag", message: `${namespace}/${name} not found in cluster ${id}` }];
  return [
    ...workloadPercentErrors(flag.spec, spec.waves[wave], wave),
    ...changeErrors(flag.spec, spec.change, "change"),
  ].map((error) => ({
    field: error.field,
    message: `${error.message} (in cluster ${id})`,
  }));
}

/**
 * A plan's spec as the operator will find it valid, and its clusters in wave order; else 400
 * naming the field (502 when a cluster of its waves cannot be reached to check its flag).
 */
export async function checkedPlan(
  ctx: ApiContext,
  input: unknown,
): Promise<{ spec: FlagRolloutSpec; clusters: string[] }> {
  const validated = validateRolloutSpec(input);
  if (!validated.ok) throw new HttpError(400, describeErrors(validated.errors));
  const spec = validated.value;
  const resolved = resolveWaves(spec.waves, registeredPlanClusters(ctx));
  if (!resolved.ok) throw new HttpError(400, `${resolved.field}: ${resolved.message}`);
  const checks = resolved.waves.flatMap((ids, wave) => ids.map((id) => clusterErrors(ctx, spec, id, wave)));
  const errors = (await Promise.all(checks)).flat();
  if (errors.length > 0) throw new HttpError(400, describeErrors(errors));
  return { spec, clusters: resolved.waves.flat() };
}

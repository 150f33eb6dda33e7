/**
 * planWorkload: the desired svc-owned state of one workload given every FeatureFlag of its
 * namespace, what became of each matching flag there, and whether getting there restarts the
 * pods. The operator applies the plan; the API's preview compares two plans; neither decides
 * anything itself. Targeted flags are evaluated here, for this workload in this cluster: the
 * plan holds values, so a rule change that changes no value changes nothing.
 */
import { isEnabled } from "../flags/values.ts";
import { DEFAULT_SIDECAR_PORT } from "../vocabulary.ts";
import { configMapKeyTaken, configMapValue } from "./configmap-plan.ts";
import {
  deliveredValue,
  workloadIdentity,
  type DeliveredValue,
  type DeliveryCluster,
} from "./delivered-value.ts";
import {
  indexFlags,
  matchingFlags,
  type FlagIndex,
  type FlagMatch,
  type NamespaceFlags,
} from "./flag-index.ts";
import { flagForWorkload } from "../rollouts/rollout-canary.ts";
import {
  configMapMountPath,
  configMapVolumeName,
  flagContainers,
  flagsHash,
  observeDelivery,
  restartReasons,
  sameDelivery,
  type DeliveryState,
  type EnvValue,
} from "./delivery-state.ts";
import { deliveryKind, type DeliveryKind, type TargetOutcome } from "../flags/flag.ts";
import { flagEnvVarName, undeliverableReason, type FeatureFlagResource } from "../flags/flag-resource.ts";
import {
  DEFAULT_DELIVERY_SCOPE,
  policyRefusal,
  workloadExclusion,
  type DeliveryScope,
} from "./delivery-policy.ts";
import type { MatchedBy } from "./matching.ts";
import {
  compareStrings,
  FLAGS_HASH_ANNOTATION,
  MANAGED_ENV_ANNOTATION,
  workloadName,
  workloadNamespace,
  type Container,
  type Workload,
  type WorkloadKind,
} from "../kubernetes/workload.ts";

/** What became of one matching flag at this workload. */
export interface FlagOutcome {
  flag: string;
  delivery: DeliveryKind;
  matchedBy: MatchedBy;
  outcome: TargetOutcome;
  /** Empty when there is nothing to add to the outcome. */
  message: string;
  /** The variable of an envVar flag. */
  envVar?: string;
  /** The value an enabled envVar or configMap flag delivers here (its targeting evaluated). */
  value?: string;
}

export interface WorkloadPlan {
  kind: WorkloadKind;
  namespace: string;
  name: string;
  /** The env vars svc sets in every flag container (all but init containers and the sidecar), by name. */
  env: (EnvValue & { flag: string })[];
  /** svc.io/flags-hash of the workload and its pod template; undefined: no envVar flag, no annotation. */
  flagsHash: string | undefined;
  /** Annotations svc sets: on the workload's metadata and on its pod template. */
  annotations: { workload: Record<string, string>; podTemplate: Record<string, string> };
  /** The ConfigMap volumes of the pod spec, and their mounts in every flag container. */
  volumes: { name: string; configMap: { name: string } }[];
  volumeMounts: { name: string; mountPath: string; readOnly: true }[];
  /** The injected sidecar, when a sidecar flag matches. */
  sidecar: { port: number } | undefined;
  /** Whether applying the plan changes the pod template, and why. */
  restarts: { restarts: boolean; reasons: string[] };
  /** True when the workload already is as planned: nothing to write. */
  inSync: boolean;
  /** The desired state in the shape of observeDelivery, for comparing plans. */
  desired: DeliveryState;
  /** Every matching flag (being deleted excepted), by name. */
  flags: FlagOutcome[];
}

/** An env var svc sets, with the flag that sets it. */
type PlannedEnv = WorkloadPlan["env"][number];

/** The sidecar's port: the one it has when a flag still asks for it (no restart), else the lowest asked. */
function sidecarPort(asked: number[], current: number | undefined): number | undefined {
  if (asked.length === 0) return undefined;
  return current !== undefined && asked.includes(current) ? current : Math.min(...asked);
}

/**
 * Which flags apply to this workload: the namespace's matching flags, none when the scope
 * excludes the workload, each as the workload sees it (a wave's canary step holds the flag back
 * from the workloads outside its canary).
 */
function workloadMatches(index: FlagIndex, workload: Workload, scope: DeliveryScope): FlagMatch[] {
  const excluded = workloadExclusion(workload, scope) !== undefined;
  return (excluded ? [] : matchingFlags(index, workload)).map((m) => {
    const flag = flagForWorkload(m.flag, workload);
    return flag === m.flag ? m : { ...m, flag };
  });
}

/** What each enabled envVar or configMap flag delivers to this workload, by flag name. */
function deliveredValues(
  valid: readonly FlagMatch[],
  index: FlagIndex,
  cluster: DeliveryCluster,
  workload: Workload,
): Map<string, DeliveredValue> {
  const here = workloadIdentity(cluster, workload);
  const values = new Map<string, DeliveredValue>();
  for (const { flag } of valid.filter((m) => isEnabled(m.flag.spec))) {
    const { envVar, configMap } = flag.spec.delivery;
    if (envVar !== undefined) values.set(flag.metadata.name, deliveredValue(flag, index.compile, here));
    else if (configMap !== undefined)
      values.set(flag.metadata.name, configMapValue(flag, index.compile, cluster));
  }
  return values;
}

/**
 * The env vars svc sets, sorted by name, and why an envVar flag could not set its own: enabled
 * flags claim their variable in name order; a variable the workload defines itself (not listed
 * as ours) is never overwritten.
 */
function claimEnv(
  valid: readonly FlagMatch[],
  containers: readonly Container[],
  observed: DeliveryState,
  values: ReadonlyMap<string, DeliveredValue>,
): { env: PlannedEnv[]; envProblems: Map<string, string> } {
  const managed = new Set(observed.managedEnv);
  const env: PlannedEnv[] = [];
  const envProblems = new Map<string, string>();
  for (const { flag } of valid.filter((m) => m.flag.spec.delivery.envVar && isEnabled(m.flag.spec))) {
    const name = flagEnvVarName(flag) ?? "";
    const claimedBy = env.find((e) => e.name === name)?.flag;
    const definedBy = containers.find((c) => !managed.has(name) && c.env?.some((e) => e.name === name));
    if (claimedBy !== undefined)
      envProblems.set(flag.metadata.name, `flag ${claimedBy} already sets ${name}`);
    else if (definedBy !== undefined) {
      envProblems.set(
        flag.metadata.name,
        `container ${definedBy.name} defines ${name} itself; svc does not overwrite it`,
      );
    } else env.push({ name, value: values.get(flag.metadata.name)?.value ?? "", flag: flag.metadata.name });
  }
  env.sort((a, b) => compareStrings(a.name, b.name));
  return { env, envProblems };
}

/**
 * The ConfigMaps to mount and the sidecar's port: the plumbing stays while a matching flag uses
 * it, enabled or not, so that toggling such a flag never restarts the workload.
 */
function plannedPlumbing(
  valid: readonly FlagMatch[],
  observed: DeliveryState,
): { configMaps: string[]; port: number | undefined } {
  const configMaps = [
    ...new Set(valid.flatMap((m) => m.flag.spec.delivery.configMap?.configMapName ?? [])),
  ].sort(compareStrings);
  const askedPorts = valid.flatMap((m) => {
    const sidecar = m.flag.spec.delivery.sidecar;
    return sidecar === undefined ? [] : [sidecar.port ?? DEFAULT_SIDECAR_PORT];
  });
  return { configMaps, port: sidecarPort(askedPorts, observed.sidecarPort) };
}

/** The workload's desired delivery, in the shape of observeDelivery: the same env and mounts in every flag container. */
function desiredDelivery(
  containers: readonly Container[],
  env: readonly PlannedEnv[],
  configMaps: string[],
  port: number | undefined,
): DeliveryState {
  const hash = flagsHash(env);
  return {
    env: new Map(containers.map((c) => [c.name, new Map(env.map((e) => [e.name, e.value]))])),
    mounts: new Map(containers.map((c) => [c.name, configMaps])),
    configMapVolumes: configMaps,
    sidecarPort: port,
    templateHash: hash,
    workloadHash: hash,
    managedEnv: env.map((e) => e.name),
  };
}

/** What flagOutcome compares a flag against: the plan's decisions and what the workload has. */
interface OutcomeInputs {
  refusals: ReadonlyMap<FeatureFlagResource, string | undefined>;
  envProblems: ReadonlyMap<string, string>;
  index: FlagIndex;
  values: ReadonlyMap<string, DeliveredValue>;
  observed: DeliveryState;
  desired: DeliveryState;
}

/**
 * What became of one matching flag: invalid (refused), a conflict (its variable or ConfigMap key
 * taken), disabled, or delivered once the workload has what the plan gives it, pending until then.
 */
function flagOutcome(
  flag: FeatureFlagResource,
  { refusals, envProblems, index, values, observed, desired }: OutcomeInputs,
): { outcome: TargetOutcome; message: string } {
  const invalid = refusals.get(flag);
  if (invalid !== undefined) return { outcome: "invalid", message: invalid };
  const problem = envProblems.get(flag.metadata.name) ?? configMapKeyTaken(flag, index.configMapKeyWriters);
  if (problem !== undefined) return { outcome: "conflict", message: problem };
  const { envVar, configMap, sidecar } = flag.spec.delivery;
  const enabled = isEnabled(flag.spec);
  const value = values.get(flag.metadata.name);
  if (envVar !== undefined) {
    const name = flagEnvVarName(flag) ?? "";
    const observedValues = [...observed.env.values()].map((vars) => vars.get(name));
    if (enabled) {
      const there = observedValues.every((v) => v === value?.value);
      return { outcome: there ? "delivered" : "pending", message: value?.problem ?? "" };
    }
    const lingering = observedValues.some((v) => v !== undefined) && !desired.managedEnv.includes(name);
    return lingering
      ? { outcome: "pending", message: `waiting for ${name} to be removed` }
      : { outcome: "disabled", message: "" };
  }
  if (!enabled) return { outcome: "disabled", message: "" };
  if (configMap !== undefined) {
    const there =
      observed.configMapVolumes.includes(configMap.configMapName) &&
      [...observed.mounts.values()].every((m) => m.includes(configMap.configMapName));
    return { outcome: there ? "delivered" : "pending", message: value?.problem ?? "" };
  }
  const port = desired.sidecarPort;
  const asked = sidecar?.port ?? DEFAULT_SIDECAR_PORT;
  const message = asked === port ? "" : `served by the sidecar on port ${String(port)}`;
  return { outcome: observed.sidecarPort === port ? "delivered" : "pending", message };
}

/** A matching flag's report: its outcome, its variable, and the value it delivers unless in conflict. */
function flagReport({ flag, matchedBy }: FlagMatch, inputs: OutcomeInputs): FlagOutcome {
  const envVar = flagEnvVarName(flag);
  const result = flagOutcome(flag, inputs);
  const value = result.outcome === "conflict" ? undefined : inputs.values.get(flag.metadata.name)?.value;
  return {
    flag: flag.metadata.name,
    delivery: deliveryKind(flag.spec.delivery),
    matchedBy,
    ...result,
    ...(envVar === undefined ? {} : { envVar }),
    ...(value === undefined ? {} : { value }),
  };
}

/** The annotations svc sets: the flags hash on workload and pod template, the managed variables on the workload. */
function plannedAnnotations(
  env: readonly PlannedEnv[],
  hash: string | undefined,
): WorkloadPlan["annotations"] {
  return {
    workload: {
      ...(hash === undefined ? {} : { [FLAGS_HASH_ANNOTATION]: hash }),
      ...(env.length === 0 ? {} : { [MANAGED_ENV_ANNOTATION]: env.map((e) => e.name).join(",") }),
    },
    podTemplate: hash === undefined ? {} : { [FLAGS_HASH_ANNOTATION]: hash },
  };
}

/**
 * `flags` are every FeatureFlag of the workload's namespace; index them once with indexFlags
 * when planning many workloads against the same flags (each rule is then compiled once).
 * `scope`: where the installation delivers (delivery-policy.ts); a workload it excludes
 * matches no flag, so whatever svc set there before is withdrawn.
 */
export function planWorkload(
  workload: Workload,
  flags: NamespaceFlags,
  cluster: DeliveryCluster,
  scope: DeliveryScope = DEFAULT_DELIVERY_SCOPE,
): WorkloadPlan {
  const index = indexFlags(flags);
  const observed = observeDelivery(workload);
  const containers = flagContainers(workload);
  const matches = workloadMatches(index, workload, scope);
  // Why each matching flag is not delivered here, decided once per plan.
  const refusals = new Map(
    matches.map((m) => [m.flag, undeliverableReason(m.flag.spec) ?? policyRefusal(m.flag, scope)]),
  );
  const valid = matches.filter((m) => refusals.get(m.flag) === undefined);
  const values = deliveredValues(valid, index, cluster, workload);
  const { env, envProblems } = claimEnv(valid, containers, observed, values);
  const { configMaps, port } = plannedPlumbing(valid, observed);
  const desired = desiredDelivery(containers, env, configMaps, port);
  const hash = desired.templateHash;
  const inputs: OutcomeInputs = { refusals, envProblems, index, values, observed, desired };
  const reasons = restartReasons(observed, desired);
  return {
    kind: workload.kind,
    namespace: workloadNamespace(workload),
    name: workloadName(workload),
    env,
    flagsHash: hash,
    annotations: plannedAnnotations(env, hash),
    volumes: configMaps.map((name) => ({ name: configMapVolumeName(name), configMap: { name } })),
    volumeMounts: configMaps.map((name) => ({
      name: configMapVolumeName(name),
      mountPath: configMapMountPath(name),
      readOnly: true as const,
    })),
    sidecar: port === undefined ? undefined : { port },
    restarts: { restarts: reasons.length > 0, reasons },
    inSync: sameDelivery(observed, desired),
    desired,
    flags: matches.map((m) => flagReport(m, inputs)),
  };
}

/**
 * A FeatureFlag object as svc reads it from Kubernetes (an informer's cache, a GET, a test's
 * literal), and the facts about it that delivery, preview and the REST view share.
 */
import { defaultValueProblem } from "./values.ts";
import { ruleCostProblem } from "../targeting/targeting-cost.ts";
import { envVarNameProblem } from "../delivery/env-var-names.ts";
import type { ObjectMeta } from "../kubernetes/object-meta.ts";
import { defaultEnvVarName, type FeatureFlagSpec, type FeatureFlagStatus } from "./flag.ts";

export interface FeatureFlagResource {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata: ObjectMeta & { name: string; namespace: string };
  spec: FeatureFlagSpec;
  status?: FeatureFlagStatus | undefined;
}

/** The selector of the flag's one delivery kind. */
export function flagMatchLabels(spec: FeatureFlagSpec): Readonly<Record<string, string>> {
  const { envVar, configMap, sidecar } = spec.delivery;
  return (envVar ?? configMap ?? sidecar)?.selector.matchLabels ?? {};
}

/** The env var an envVar flag sets: its own name, or FLAG_<NAME>. Undefined for other kinds. */
export function flagEnvVarName(flag: FeatureFlagResource): string | undefined {
  const envVar = flag.spec.delivery.envVar;
  return envVar === undefined ? undefined : (envVar.name ?? defaultEnvVarName(flag.metadata.name));
}

/** A flag being deleted delivers nothing: its finalizer is withdrawing what it delivered. */
export function isBeingDeleted(flag: FeatureFlagResource): boolean {
  return flag.metadata.deletionTimestamp !== undefined;
}

/**
 * Why a stored flag cannot be delivered although the API server accepted it, or undefined.
 * The CRD's CEL rules cannot parse JSON, so a json flag written with kubectl may hold text
 * that is not JSON; the REST API refuses it, delivery reports it.
 */
export function undeliverableReason(spec: FeatureFlagSpec): string | undefined {
  // Asked per workload per matching flag when planning: measure each spec's rules once.
  const known = undeliverable.get(spec);
  if (known !== undefined) return known ?? undefined;
  const reason = specProblem(spec);
  undeliverable.set(spec, reason ?? null);
  return reason;
}

/** undeliverableReason by spec (null: deliverable); a spec read from the cluster is not mutated. */
const undeliverable = new WeakMap<FeatureFlagSpec, string | null>();

function specProblem(spec: FeatureFlagSpec): string | undefined {
  const problem = defaultValueProblem(spec.type, spec.defaultValue);
  if (problem !== undefined) return `defaultValue ${problem}; the flag is not delivered`;
  // A variable a runtime reads at start (NODE_OPTIONS, LD_PRELOAD…), applied with kubectl.
  const envName = spec.delivery.envVar?.name;
  const envProblem = envName === undefined ? undefined : envVarNameProblem(envName);
  if (envProblem !== undefined) return `delivery.envVar.name: ${envProblem}; the flag is not delivered`;
  // A rule that would cost without bound once expanded or evaluated, applied with kubectl.
  const cost = ruleCostProblem(spec.targeting, spec.evaluators);
  if (cost !== undefined) return `${cost.field} ${cost.message}; the flag is not delivered`;
  return undefined;
}

/**
 * Why the candidate may not be saved because another flag of its namespace already writes the
 * same ConfigMap key (the REST API answers 409), or undefined.
 */
export function configMapConflict(
  candidate: Pick<FeatureFlagResource, "metadata" | "spec">,
  namespaceFlags: readonly FeatureFlagResource[],
): string | undefined {
  const target = candidate.spec.delivery.configMap;
  if (target === undefined) return undefined;
  const writers = namespaceFlags
    .filter((f) => f.metadata.namespace === candidate.metadata.namespace)
    .filter((f) => f.metadata.name !== candidate.metadata.name)
    .filter((f) => {
      const other = f.spec.delivery.configMap;
      return other?.configMapName === target.configMapName && other.key === target.key;
    })
    .map((f) => f.metadata.name)
    .sort();
  return writers[0] === undefined
    ? undefined
    : `key ${target.key} of ConfigMap ${target.configMapName} is already written by flag ${writers[0]}`;
}

/**
 * The REST representation of a Deployment, StatefulSet or DaemonSet (DESIGN.md §4 Workloads):
 * what runs there, what it reads (ConfigMaps, Secrets: names only, never contents), and which
 * flags svc has injected. Literal env values are shown only to readers who may see them (editors
 * and admins in scope), and never when the name looks secret; what svc delivered is shown to all.
 */
import Type from "typebox";
import { planWorkload, type FlagOutcome } from "./delivery-plan.ts";
import { DEFAULT_DELIVERY_SCOPE, type DeliveryScope } from "./delivery-policy.ts";
import type { DeliveryCluster } from "./delivered-value.ts";
import { observeDelivery, type DeliveryState } from "./delivery-state.ts";
import { DELIVERY_KINDS, TARGET_OUTCOMES } from "../flags/flag.ts";
import type { NamespaceFlags } from "./flag-index.ts";
import {
  compareStrings,
  podSpecOf,
  readyReplicasOf,
  replicasOf,
  WORKLOAD_KINDS,
  workloadName,
  workloadNamespace,
  type Container,
  type EnvVar,
  type Workload,
} from "../kubernetes/workload.ts";

export const REDACTED = "<redacted>";
/** Env var names whose literal values are never shown (case-insensitive). */
const SECRET_LOOKING = /PASSWORD|PASSWD|SECRET|TOKEN|KEY|CREDENTIAL/i;

/**
 * What the reader may see of workloads' literal env values (DESIGN.md §10): editors and admins
 * in the workload's scope see them; viewers see the names only, since a workload's own values
 * (DATABASE_URL, SENTRY_DSN) often hold credentials. Values svc delivered are flags' values,
 * which every reader may read, and stay visible.
 */
export interface EnvReader {
  literalValues: boolean;
}

const Labels = Type.Record(Type.String(), Type.String());

const EnvView = Type.Object({
  name: Type.String(),
  value: Type.Optional(
    Type.String({
      description: `The literal value; ${REDACTED} when the name looks secret, or for a viewer unless svc delivered it.`,
    }),
  ),
  valueFrom: Type.Optional(
    Type.Unknown({
      description: "Where the value comes from (a ConfigMap or Secret key, a field): a reference only.",
    }),
  ),
});

const ContainerView = Type.Object({
  name: Type.String(),
  image: Type.String(),
  init: Type.Boolean({ description: "An init container (svc's native sidecar is one)." }),
  env: Type.Array(EnvView),
});

const InjectedFlag = Type.Object({
  name: Type.String(),
  delivery: Type.Enum([...DELIVERY_KINDS]),
  envVar: Type.Optional(Type.String()),
});

export const DiscoveredWorkload = Type.Object({
  clusterId: Type.String(),
  namespace: Type.String(),
  name: Type.String(),
  kind: Type.Enum([...WORKLOAD_KINDS]),
  labels: Labels,
  replicas: Type.Integer(),
  readyReplicas: Type.Integer(),
  containers: Type.Array(ContainerView),
  images: Type.Array(Type.String(), { description: "Every image, once, in container order." }),
  configMapRefs: Type.Array(Type.String(), {
    description: "ConfigMaps read through env or volumes, sorted.",
  }),
  secretRefs: Type.Array(Type.String(), { description: "Secrets read through env or volumes, sorted." }),
  injectedFlags: Type.Array(InjectedFlag, { description: "Flags svc has delivered to the workload." }),
  flagsHash: Type.Union([Type.String(), Type.Null()], {
    description: "svc.io/flags-hash of the pod template.",
  }),
});
export type DiscoveredWorkload = Type.Static<typeof DiscoveredWorkload>;

export const MatchingFlag = Type.Object({
  name: Type.String(),
  delivery: Type.Enum([...DELIVERY_KINDS]),
  matchedBy: Type.Enum(["labels", "podTemplateLabels"]),
  outcome: Type.Enum([...TARGET_OUTCOMES]),
  message: Type.String(),
  envVar: Type.Optional(Type.String()),
  value: Type.Optional(
    Type.String({
      description: "What an enabled envVar or configMap flag delivers here, targeting evaluated.",
    }),
  ),
});

export const WorkloadDetail = Type.Object({
  ...DiscoveredWorkload.properties,
  podTemplateLabels: Labels,
  flags: Type.Array(MatchingFlag, {
    description: "Every flag whose selector matches the workload, by name.",
  }),
});
export type WorkloadDetail = Type.Static<typeof WorkloadDetail>;

function envView(
  env: EnvVar,
  delivered: ReadonlySet<string>,
  reader: EnvReader,
): DiscoveredWorkload["containers"][number]["env"][number] {
  if (env.valueFrom !== undefined) return { name: env.name, valueFrom: env.valueFrom };
  const shown = !SECRET_LOOKING.test(env.name) && (reader.literalValues || delivered.has(env.name));
  return { name: env.name, value: shown ? (env.value ?? "") : REDACTED };
}

function containerView(container: Container, init: boolean, delivery: DeliveryState, reader: EnvReader) {
  const ours = new Set(delivery.env.get(container.name)?.keys() ?? []);
  return {
    name: container.name,
    image: container.image ?? "",
    init,
    env: (container.env ?? []).map((env) => envView(env, ours, reader)),
  };
}

const sortedUnique = (names: (string | undefined)[]) =>
  [...new Set(names.filter((n): n is string => n !== undefined && n !== ""))].sort(compareStrings);

/** The ConfigMaps and Secrets a pod reads, by name. */
function references(workload: Workload): { configMapRefs: string[]; secretRefs: string[] } {
  const pod = podSpecOf(workload);
  const containers = [...(pod.initContainers ?? []), ...pod.containers];
  const env = containers.flatMap((c) => c.env ?? []);
  const envFrom = containers.flatMap((c) => c.envFrom ?? []);
  const volumes = pod.volumes ?? [];
  const projected = volumes.flatMap((v) => v.projected?.sources ?? []);
  return {
    configMapRefs: sortedUnique([
      ...env.map((e) => e.valueFrom?.configMapKeyRef?.name),
      ...envFrom.map((e) => e.configMapRef?.name),
      ...volumes.map((v) => v.configMap?.name),
      ...projected.map((s) => s.configMap?.name),
    ]),
    secretRefs: sortedUnique([
      ...env.map((e) => e.valueFrom?.secretKeyRef?.name),
      ...envFrom.map((e) => e.secretRef?.name),
      ...volumes.map((v) => v.secret?.secretName),
      ...projected.map((s) => s.secret?.name),
    ]),
  };
}

function summarize(
  clusterId: string,
  workload: Workload,
  outcomes: FlagOutcome[],
  reader: EnvReader,
): DiscoveredWorkload {
  const pod = podSpecOf(workload);
  const delivery = observeDelivery(workload);
  const containers = [
    ...(pod.initContainers ?? []).map((c) => containerView(c, true, delivery, reader)),
    ...pod.containers.map((c) => containerView(c, false, delivery, reader)),
  ];
  return {
    clusterId,
    namespace: workloadNamespace(workload),
    name: workloadName(workload),
    kind: workload.kind,
    labels: { ...(workload.object.metadata?.labels ?? {}) },
    replicas: replicasOf(workload),
    readyReplicas: readyReplicasOf(workload),
    containers,
    images: [...new Set(containers.map((c) => c.image).filter((i) => i !== ""))],
    ...references(workload),
    injectedFlags: outcomes
      .filter((o) => o.outcome === "delivered")
      .map((o) => ({
        name: o.flag,
        delivery: o.delivery,
        ...(o.envVar === undefined ? {} : { envVar: o.envVar }),
      })),
    flagsHash: delivery.templateHash ?? null,
  };
}

/**
 * One workload as listed; `namespaceFlags` are the FeatureFlags of its namespace, planned with
 * the installation's delivery `scope` as the operator plans them (the default only in tests).
 */
export function discoveredWorkload(
  cluster: DeliveryCluster,
  workload: Workload,
  namespaceFlags: NamespaceFlags,
  reader: EnvReader,
  scope: DeliveryScope = DEFAULT_DELIVERY_SCOPE,
): DiscoveredWorkload {
  const outcomes = planWorkload(workload, namespaceFlags, cluster, scope).flags;
  return summarize(cluster.id, workload, outcomes, reader);
}

/** One workload in detail: also its pod template labels and every flag whose selector matches it. */
export function workloadDetail(
  cluster: DeliveryCluster,
  workload: Workload,
  namespaceFlags: NamespaceFlags,
  reader: EnvReader,
  scope: DeliveryScope = DEFAULT_DELIVERY_SCOPE,
): WorkloadDetail {
  const outcomes = planWorkload(workload, namespaceFlags, cluster, scope).flags;
  return {
    ...summarize(cluster.id, workload, outcomes, reader),
    podTemplateLabels: { ...(workload.object.spec?.template.metadata?.labels ?? {}) },
    flags: outcomes.map(({ flag, ...rest }) => ({ name: flag, ...rest })),
  };
}

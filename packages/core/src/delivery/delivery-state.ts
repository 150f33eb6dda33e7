/**
 * The part of a workload that svc owns (its env vars, ConfigMap mounts, sidecar and hash
 * annotations), read from the object or wanted by a plan, in one shape, so that "does this
 * workload need a write" and "will it restart" are one comparison for the operator and the
 * API's preview alike.
 */
import { createHash } from "node:crypto";
import { DEFAULT_SIDECAR_PORT } from "../vocabulary.ts";
import { isDns1123Label } from "../schema/names.ts";
import {
  compareStrings,
  CONFIGMAP_MOUNT_ROOT,
  FLAGS_HASH_ANNOTATION,
  MANAGED_ENV_ANNOTATION,
  podSpecOf,
  SIDECAR_CONTAINER_NAME,
  type Container,
  type Workload,
} from "../kubernetes/workload.ts";

export interface EnvValue {
  name: string;
  value: string;
}

export interface DeliveryState {
  /** svc's env vars (name → value) per container that receives flags. */
  env: Map<string, Map<string, string>>;
  /** ConfigMaps svc mounted (sorted names) per container that receives flags. */
  mounts: Map<string, string[]>;
  /** ConfigMaps with an svc volume in the pod spec, sorted. */
  configMapVolumes: string[];
  sidecarPort: number | undefined;
  templateHash: string | undefined;
  workloadHash: string | undefined;
  /** The env var names svc set, sorted (MANAGED_ENV_ANNOTATION). */
  managedEnv: string[];
}

/**
 * SHA-256 (hex) of the envVar flags on a workload, or undefined when it has none (so the
 * annotation goes away with the last flag). The sorted `name=value` strings are hashed as a
 * JSON array: no value can forge a separator.
 */
export function flagsHash(env: readonly EnvValue[]): string | undefined {
  if (env.length === 0) return undefined;
  const lines = env.map((e) => `${e.name}=${e.value}`).sort(compareStrings);
  return createHash("sha256").update(JSON.stringify(lines)).digest("hex");
}

/**
 * The volume that mounts a ConfigMap. A ConfigMap name is a DNS subdomain (dots, up to 253
 * characters) and a volume name a DNS label, so longer or dotted names get a hash suffix.
 */
export function configMapVolumeName(configMapName: string): string {
  const plain = `svc-flags-${configMapName}`;
  if (isDns1123Label(plain)) return plain;
  const digest = createHash("sha256").update(configMapName).digest("hex").slice(0, 8);
  const stem = configMapName.replaceAll(".", "-").slice(0, 40).replace(/-+$/, "");
  return `svc-flags-${stem}-${digest}`;
}

export function configMapMountPath(configMapName: string): string {
  return `${CONFIGMAP_MOUNT_ROOT}/${configMapName}`;
}

/** The containers that receive flags: all regular containers but our own sidecar. */
export function flagContainers(workload: Workload): readonly Container[] {
  return podSpecOf(workload).containers.filter((c) => c.name !== SIDECAR_CONTAINER_NAME);
}

/** The injected sidecar, as a native sidecar (init container) or a plain container. */
export function sidecarContainer(workload: Workload): Container | undefined {
  const pod = podSpecOf(workload);
  return [...(pod.initContainers ?? []), ...pod.containers].find((c) => c.name === SIDECAR_CONTAINER_NAME);
}

function parseManagedEnv(value: string | undefined): string[] {
  const names = (value ?? "").split(",").filter((n) => n !== "");
  return [...new Set(names)].sort(compareStrings);
}

/** What svc has delivered to a workload, as the object shows it. */
export function observeDelivery(workload: Workload): DeliveryState {
  const { object } = workload;
  const managedEnv = parseManagedEnv(object.metadata?.annotations?.[MANAGED_ENV_ANNOTATION]);
  const managed = new Set(managedEnv);
  const volumeToConfigMap = new Map<string, string>();
  for (const volume of podSpecOf(workload).volumes ?? []) {
    const configMapName = volume.configMap?.name;
    if (configMapName !== undefined && volume.name === configMapVolumeName(configMapName)) {
      volumeToConfigMap.set(volume.name, configMapName);
    }
  }
  const env = new Map<string, Map<string, string>>();
  const mounts = new Map<string, string[]>();
  for (const container of flagContainers(workload)) {
    const own = (container.env ?? []).filter((e) => managed.has(e.name));
    env.set(container.name, new Map(own.map((e) => [e.name, e.value ?? ""])));
    const mounted = (container.volumeMounts ?? []).flatMap((m) => {
      const configMapName = volumeToConfigMap.get(m.name);
      const exact = m.mountPath === configMapMountPath(configMapName ?? "") && m.readOnly === true;
      return configMapName !== undefined && exact ? [configMapName] : [];
    });
    mounts.set(container.name, mounted.sort(compareStrings));
  }
  const sidecar = sidecarContainer(workload);
  return {
    env,
    mounts,
    configMapVolumes: [...volumeToConfigMap.values()].sort(compareStrings),
    sidecarPort:
      sidecar === undefined ? undefined : (sidecar.ports?.[0]?.containerPort ?? DEFAULT_SIDECAR_PORT),
    templateHash: object.spec?.template.metadata?.annotations?.[FLAGS_HASH_ANNOTATION],
    workloadHash: object.metadata?.annotations?.[FLAGS_HASH_ANNOTATION],
    managedEnv,
  };
}

function keysOf<V>(...maps: Map<string, V>[]): string[] {
  return [...new Set(maps.flatMap((m) => [...m.keys()]))].sort(compareStrings);
}

/**
 * Why going from one state to the other changes the pod template (and so restarts the pods);
 * empty when it does not. Changes outside the pod template (the workload's own annotations,
 * a ConfigMap's contents, a flag served by the sidecar) restart nothing.
 */
export function restartReasons(from: DeliveryState, to: DeliveryState): string[] {
  const reasons: string[] = [];
  const empty = new Map<string, string>();
  for (const container of keysOf(from.env, to.env)) {
    const before = from.env.get(container) ?? empty;
    const after = to.env.get(container) ?? empty;
    for (const name of keysOf(before, after)) {
      const [was, will] = [before.get(name), after.get(name)];
      if (was === undefined && will !== undefined) reasons.push(`env var ${name} is added`);
      else if (was !== undefined && will === undefined) reasons.push(`env var ${name} is removed`);
      else if (was !== will) reasons.push(`env var ${name} changes value`);
    }
  }
  if (reasons.length === 0 && from.templateHash !== to.templateHash) {
    reasons.push(`annotation ${FLAGS_HASH_ANNOTATION} changes`);
  }
  const mounted = (s: DeliveryState) => new Set([...s.configMapVolumes, ...[...s.mounts.values()].flat()]);
  const [mountedBefore, mountedAfter] = [mounted(from), mounted(to)];
  const mountsOf = (s: DeliveryState, name: string) => {
    const containers = [...s.mounts].filter(([, m]) => m.includes(name)).map(([c]) => c);
    return `${s.configMapVolumes.includes(name)}:${containers.join(",")}`;
  };
  for (const name of [...new Set([...mountedBefore, ...mountedAfter])].sort(compareStrings)) {
    if (!mountedBefore.has(name)) reasons.push(`ConfigMap ${name} is mounted (first mount)`);
    else if (!mountedAfter.has(name)) reasons.push(`ConfigMap ${name} is unmounted`);
    else if (mountsOf(from, name) !== mountsOf(to, name)) reasons.push(`ConfigMap ${name} mounts change`);
  }
  if (from.sidecarPort === undefined && to.sidecarPort !== undefined) {
    reasons.push(`sidecar ${SIDECAR_CONTAINER_NAME} is injected (first sidecar)`);
  } else if (from.sidecarPort !== undefined && to.sidecarPort === undefined) {
    reasons.push(`sidecar ${SIDECAR_CONTAINER_NAME} is removed`);
  } else if (from.sidecarPort !== to.sidecarPort) {
    reasons.push(`sidecar port changes from ${String(from.sidecarPort)} to ${String(to.sidecarPort)}`);
  }
  return [...new Set(reasons)];
}

/** True when two states are the same: a workload in this state needs no write. */
export function sameDelivery(a: DeliveryState, b: DeliveryState): boolean {
  return (
    restartReasons(a, b).length === 0 &&
    a.workloadHash === b.workloadHash &&
    a.managedEnv.join(",") === b.managedEnv.join(",")
  );
}

// What a plan reads and writes in the clusters of its waves: the flag, the workloads its status
// names with their pods (read by each workload's selector, never every pod of a cluster), and
// the flag's changed fields. A plan's clusters need not be this replica's shard, so a cluster is
// reached with its ClusterConnection's own credentials (the local cluster: the hub's identity).
import {
  API_GROUP_VERSION,
  CANARY_ANNOTATION,
  canaryAnnotationValue,
  FEATURE_FLAG,
  observeWorkload,
  readCanary,
  type ClusterConnectionResource,
  type ClusterObservation,
  type FeatureFlagResource,
  type FieldTarget,
  type ObservedWorkload,
  type PodObject,
  type WorkloadKind,
  type WorkloadStatusObject,
} from "@svc/core";
import {
  clusterCredentials,
  KubeApiError,
  ObjectWriter,
  type JsonPatchOperation,
  type SecretJson,
} from "@svc/kube";
import type { PodScope } from "./rollout-pod-watches.ts";

export interface RolloutClustersOptions {
  hubWriter: ObjectWriter;
  systemNamespace: string;
  localClusterId: string;
  requestTimeoutMs: number;
  /** Told of every write to a cluster (metrics, tests). */
  onWrite: () => void;
}

/** One cluster as a plan read it this round: what the decision sees, and the flag to write over. */
export interface ClusterRead {
  observation: ClusterObservation;
  flag: FeatureFlagResource | undefined;
  /** Where the pods of the flag's target workloads are (the gate's watches). */
  pods: PodScope[];
}

export class RolloutClusters {
  readonly #options: RolloutClustersOptions;
  /** A writer per remote cluster, rebuilt when its ClusterConnection changes or its credentials fail. */
  readonly #writers = new Map<string, { version: string | undefined; writer: ObjectWriter }>();

  constructor(options: RolloutClustersOptions) {
    this.#options = options;
  }

  async read(
    connection: ClusterConnectionResource,
    flagRef: { namespace: string; name: string },
    signal: AbortSignal,
  ): Promise<ClusterRead> {
    const id = connection.metadata.name;
    try {
      const { writer } = await this.#access(connection, signal);
      const flag = await writer.read<FeatureFlagResource>(
        { apiVersion: API_GROUP_VERSION, kind: FEATURE_FLAG.kind, metadata: flagRef },
        { signal },
      );
      if (flag === undefined)
        return { observation: { reachable: true, flag: undefined, workloads: [] }, flag, pods: [] };
      const read = await Promise.all(
        (flag.status?.targets ?? []).map((target) =>
          this.#workload(writer, flagRef.namespace, target.kind, target.name, signal),
        ),
      );
      const workloads = read.flatMap((w) => (w === undefined ? [] : [w.observed]));
      const selectors = new Set(read.flatMap((w) => (w?.labelSelector ? [w.labelSelector] : [])));
      const pods = [...selectors].map((labelSelector) => ({
        clusterId: id,
        writer,
        namespace: flagRef.namespace,
        labelSelector,
      }));
      const { spec, metadata, status } = flag;
      return {
        observation: {
          reachable: true,
          flag: {
            spec,
            canary: readCanary(metadata.annotations),
            generation: metadata.generation ?? 0,
            observedGeneration: status?.observedGeneration,
            phase: status?.phase,
            message: status?.message,
          },
          workloads,
        },
        flag,
        pods,
      };
    } catch (error) {
      if (signal.aborted) throw error;
      this.#forgetOnAuthFailure(id, error);
      const message = error instanceof Error ? error.message : String(error);
      return { observation: { reachable: false, message }, flag: undefined, pods: [] };
    }
  }

  /**
   * Writes a target over the flag as it was read: a JSON patch whose resourceVersion test makes a
   * change made since then a 409 (the next round reads again), never a lost edit.
   */
  async write(
    connection: ClusterConnectionResource,
    flag: FeatureFlagResource,
    target: FieldTarget,
    signal: AbortSignal,
  ): Promise<void> {
    const operations: JsonPatchOperation[] = [
      ...Object.entries(target.set).map(([field, value]): JsonPatchOperation => ({
        op: "add",
        path: `/spec/${field}`,
        value,
      })),
      ...target.remove
        .filter((field) => flag.spec[field] !== undefined)
        .map((field): JsonPatchOperation => ({ op: "remove", path: `/spec/${field}` })),
      ...canaryOperations(flag.metadata.annotations, target),
    ];
    const { writer } = await this.#access(connection, signal);
    this.#options.onWrite();
    await writer.patch(
      { apiVersion: API_GROUP_VERSION, kind: FEATURE_FLAG.kind, metadata: flag.metadata },
      flag.metadata.resourceVersion ?? "",
      operations,
      { signal },
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.#writers.values()].map(({ writer }) => writer.close()));
    this.#writers.clear();
  }

  async #workload(
    writer: ObjectWriter,
    namespace: string,
    kind: WorkloadKind,
    name: string,
    signal: AbortSignal,
  ): Promise<{ observed: ObservedWorkload; labelSelector: string } | undefined> {
    const object = await writer.read<WorkloadStatusObject>(
      { apiVersion: "apps/v1", kind, metadata: { namespace, name } },
      { signal },
    );
    if (object === undefined) return undefined;
    const labelSelector = Object.entries(object.spec?.selector?.matchLabels ?? {})
      .map(([key, value]) => `${key}=${value}`)
      .join(",");
    // A selector of expressions only is not read: listing by no labels would read every pod.
    const pods =
      labelSelector === ""
        ? []
        : await writer.list<PodObject>("v1", "Pod", namespace, labelSelector, { signal });
    return { observed: observeWorkload(kind, object, pods), labelSelector };
  }

  async #access(
    connection: ClusterConnectionResource,
    signal: AbortSignal,
  ): Promise<{ writer: ObjectWriter }> {
    const { hubWriter, localClusterId, systemNamespace, requestTimeoutMs } = this.#options;
    const id = connection.metadata.name;
    if (id === localClusterId && connection.spec.credentialRef === undefined) return { writer: hubWriter };
    const version = connection.metadata.resourceVersion;
    const cached = this.#writers.get(id);
    if (cached !== undefined && cached.version === version) return cached;
    const ref = connection.spec.credentialRef;
    const secret =
      ref === undefined
        ? undefined
        : await hubWriter.read<SecretJson>(
            { apiVersion: "v1", kind: "Secret", metadata: { namespace: systemNamespace, name: ref.name } },
            { signal },
          );
    const credentials = clusterCredentials(connection, secret);
    if (!credentials.ok) throw new Error(credentials.message);
    await cached?.writer.close();
    const access = {
      version,
      writer: new ObjectWriter(credentials.kubeConfig, { timeoutMs: requestTimeoutMs }),
    };
    this.#writers.set(id, access);
    return access;
  }

  /** Credentials refused: the Secret may have been rotated; the next round reads it again. */
  #forgetOnAuthFailure(id: string, error: unknown): void {
    if (!(error instanceof KubeApiError) || (error.status !== 401 && error.status !== 403)) return;
    const cached = this.#writers.get(id);
    this.#writers.delete(id);
    void cached?.writer.close();
  }
}

/** The JSON patch operations that give a flag the target's canary annotation, or take it away. */
function canaryOperations(
  annotations: Readonly<Record<string, string>> | undefined,
  target: FieldTarget,
): JsonPatchOperation[] {
  // JSON Pointer escapes "/" as "~1" (the key has no "~").
  const path = `/metadata/annotations/${CANARY_ANNOTATION.replaceAll("/", "~1")}`;
  if (target.canary === undefined)
    return annotations?.[CANARY_ANNOTATION] === undefined ? [] : [{ op: "remove", path }];
  const value = canaryAnnotationValue(target.canary);
  return annotations === undefined
    ? [{ op: "add", path: "/metadata/annotations", value: { [CANARY_ANNOTATION]: value } }]
    : [{ op: "add", path, value }];
}

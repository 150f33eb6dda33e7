// The plans of one cluster's namespaces, memoised on the identity of the informer caches' list
// snapshots: a cache hands out the same list until something of that namespace changes (and one
// frozen empty list for a kind the namespace lacks), so a namespace is planned once per change,
// not once per flag reconcile. Within a change only what changed is planned again: a workload
// keeps its plan while its object and the namespace's flag index stay, and the index stays
// through flag writes that planning does not read (status). During a rollout each workload event
// then costs one plan, not one per workload of its namespace. Memos of a namespace left with no
// flag and no workload are pruned. Each namespace's delivery scope (the installation's policy,
// the namespace's labels, the ConfigMaps there that are not svc's) is one object per change,
// an input of the memo like the lists.
import {
  DEFAULT_DELIVERY_POLICY,
  deliveryCluster,
  flagPlanningKey,
  indexFlags,
  NAMESPACE_FLAGS_LABEL,
  planWorkload,
  WORKLOAD_KINDS,
  type FeatureFlagResource,
  type DeliveryPolicy,
  type DeliveryScope,
  type FlagIndex,
  type Workload,
  type WorkloadKind,
  type WorkloadObject,
  type WorkloadPlan,
} from "@svc/core";
import type { ConnectedCluster, InformerCache } from "@svc/kube";

/** What planning reads of a cluster. */
export type PlannedCluster = Pick<
  ConnectedCluster,
  "id" | "connection" | "flags" | "deployments" | "statefulSets" | "daemonSets" | "namespaces"
>;

export type WorkloadCache = InformerCache<
  WorkloadObject & { metadata?: { name?: string; namespace?: string; deletionTimestamp?: unknown } }
>;

export interface PlannedWorkload {
  workload: Workload;
  plan: WorkloadPlan;
}

export class NamespacePlans {
  readonly #cluster: PlannedCluster;
  readonly #onLookup: (result: "hit" | "miss") => void;
  /** Each namespace's flags indexed (their rules compiled) once per change of its flags. */
  readonly #flagIndexes = new Map<
    string,
    { flags: readonly FeatureFlagResource[]; keys: readonly string[]; index: FlagIndex }
  >();
  readonly #policy: DeliveryPolicy;
  /** Per namespace: ConfigMap name → its owner, for the ConfigMaps flags name that svc did not create. */
  readonly #foreign = new Map<string, ReadonlyMap<string, string>>();
  readonly #scopes = new Map<string, { label: string | undefined; foreign: unknown; scope: DeliveryScope }>();
  readonly #plans = new Map<
    string,
    { inputs: readonly unknown[]; plans: readonly PlannedWorkload[]; byObject: Map<unknown, PlannedWorkload> }
  >();

  /** `onLookup` is told whether each plans() call was answered from the memo. */
  constructor(
    cluster: PlannedCluster,
    onLookup: (result: "hit" | "miss") => void,
    policy: DeliveryPolicy = DEFAULT_DELIVERY_POLICY,
  ) {
    this.#cluster = cluster;
    this.#onLookup = onLookup;
    this.#policy = policy;
  }

  /**
   * Where the namespace's workloads may get flags: the same object until something of it changes.
   * Of the namespace, delivery reads its svc.io/flags label alone: another write to the namespace
   * (an annotation, another label) keeps the scope, and so every plan of the namespace.
   */
  scope(namespace: string): DeliveryScope {
    const labels = this.#cluster.namespaces.get("", namespace)?.metadata?.labels ?? {};
    const label = labels[NAMESPACE_FLAGS_LABEL];
    const foreign = this.#foreign.get(namespace);
    const memo = this.#scopes.get(namespace);
    if (memo !== undefined && memo.label === label && memo.foreign === foreign) return memo.scope;
    const scope: DeliveryScope = {
      policy: this.#policy,
      namespaceLabels: labels,
      ...(foreign === undefined ? {} : { foreignConfigMaps: foreign }),
    };
    this.#scopes.set(namespace, { label, foreign, scope });
    return scope;
  }

  /** Records whose a ConfigMap is (`owner` undefined: svc's, or absent); true when that changed. */
  setConfigMapOwner(namespace: string, name: string, owner: string | undefined): boolean {
    const current = this.#foreign.get(namespace);
    if (current?.get(name) === owner) return false;
    const next = new Map(current);
    if (owner === undefined) next.delete(name);
    else next.set(name, owner);
    if (next.size === 0) this.#foreign.delete(namespace);
    else this.#foreign.set(namespace, next);
    return true;
  }

  /** Namespaces with a memo (tests). */
  get namespaces(): number {
    return new Set([...this.#flagIndexes.keys(), ...this.#plans.keys()]).size;
  }

  workloadCache(kind: WorkloadKind): WorkloadCache {
    const cluster = this.#cluster;
    const caches = {
      Deployment: cluster.deployments,
      StatefulSet: cluster.statefulSets,
      DaemonSet: cluster.daemonSets,
    } as const;
    return caches[kind];
  }

  /**
   * The namespace's flags, indexed. A resync's thousands of workload reconciles share one
   * index and compile each targeted flag's rule once, not once per workload.
   */
  flagIndex(namespace: string): FlagIndex {
    const flags = this.#cluster.flags.list(namespace);
    const memo = this.#flagIndexes.get(namespace);
    if (memo?.flags === flags) return memo.index;
    const keys = flags.map(flagPlanningKey);
    if (
      memo !== undefined &&
      keys.length === memo.keys.length &&
      keys.every((key, i) => key === memo.keys[i])
    ) {
      this.#flagIndexes.set(namespace, { ...memo, flags });
      return memo.index;
    }
    const index = indexFlags(flags);
    this.#flagIndexes.set(namespace, { flags, keys, index });
    return index;
  }

  /** The plan of every workload of the namespace (every flag's status and the sidecar RBAC need them all). */
  plans(namespace: string): readonly PlannedWorkload[] {
    const cluster = this.#cluster;
    const workloadLists = WORKLOAD_KINDS.map((kind) => this.workloadCache(kind).list(namespace));
    // An empty namespace (its last flag just deleted) has nothing to plan nor to remember.
    if (cluster.flags.list(namespace).length === 0 && workloadLists.every((list) => list.length === 0)) {
      this.prune(namespace);
      return [];
    }
    const flags = this.flagIndex(namespace);
    // The connection carries the cluster's labels, which targeting rules may read.
    const scope = this.scope(namespace);
    const inputs = [cluster.connection, flags, scope, ...workloadLists];
    const memo = this.#plans.get(namespace);
    if (memo !== undefined && memo.inputs.every((input, i) => input === inputs[i])) {
      this.#onLookup("hit");
      return memo.plans;
    }
    this.#onLookup("miss");
    // Plans made with the same flags for the same cluster still hold for the objects unchanged.
    const reusable =
      memo !== undefined &&
      memo.inputs[0] === inputs[0] &&
      memo.inputs[1] === flags &&
      memo.inputs[2] === scope
        ? memo.byObject
        : undefined;
    const where = deliveryCluster(cluster);
    const byObject = new Map<unknown, PlannedWorkload>();
    const plans = WORKLOAD_KINDS.flatMap((kind, i) =>
      (workloadLists[i] ?? [])
        .filter((object) => object.metadata?.deletionTimestamp === undefined)
        .map((object) => {
          const planned = reusable?.get(object) ?? {
            workload: { kind, object },
            plan: planWorkload({ kind, object }, flags, where, scope),
          };
          byObject.set(object, planned);
          return planned;
        }),
    );
    this.#plans.set(namespace, { inputs, plans, byObject });
    return plans;
  }

  /** Forgets the namespace's memos once it holds no flag and no workload (called after deletions). */
  prune(namespace: string): void {
    const empty =
      this.#cluster.flags.list(namespace).length === 0 &&
      WORKLOAD_KINDS.every((kind) => this.workloadCache(kind).list(namespace).length === 0);
    if (!empty) return;
    this.#plans.delete(namespace);
    this.#flagIndexes.delete(namespace);
    this.#scopes.delete(namespace);
  }
}

// One cluster's delivery: its informer caches' events become keys of the operator's work
// queue; each key is reconciled level-triggered from the caches (a workload to its plan, a
// ConfigMap to its flags' keys, a flag's finalizer and status), and written only when it
// differs, by server-side apply under svc's field manager.
import {
  deliveryCluster,
  DELIVERY_FINALIZER,
  flagPlanningKey,
  flagStatus,
  foreignConfigMapOwner,
  foreignConfigMapRefusal,
  isBeingDeleted,
  namespaceExclusion,
  NAMESPACE_FLAGS_LABEL,
  phaseChangeEvent,
  sameStatus,
  statusIsCurrent,
  planConfigMaps,
  planWorkload,
  WORKLOAD_KINDS,
  type DeliveryPolicy,
  type FeatureFlagResource,
  type Workload,
  type WorkloadKind,
} from "@svc/core";
import {
  KubeApiError,
  TerminalError,
  type ConnectedCluster,
  type Logger,
  type ObjectWriter,
  type ReconcileResult,
  type QueuePriority,
  type WorkQueueKey,
} from "@svc/kube";
import { API_GROUP_VERSION, FEATURE_FLAG } from "@svc/core";
import { configMapAction, MANAGED_BY_LABEL, type ConfigMapJson } from "./configmap-apply.ts";
import {
  madeBySvc,
  roleBindingInSync,
  type RoleBindingJson,
  type RoleJson,
  roleInSync,
  sidecarRole,
  sidecarRoleBinding,
  sidecarServiceAccounts,
} from "./sidecar-rbac.ts";
import { controllerQueueKey, parseControllerKey, type ControllerKey } from "./controller-keys.ts";
import type { OperatorMetrics } from "./metrics.ts";
import { NamespacePlans, type WorkloadCache } from "./namespace-plans.ts";
import { supportsNativeSidecar, workloadApplyConfiguration, type SidecarSettings } from "./workload-apply.ts";

export interface ClusterControllerOptions {
  cluster: ConnectedCluster;
  writer: ObjectWriter;
  /** "low" for what is queued for everything at once (start-up, ready again, resync): changes go first. */
  enqueue: (key: string, delayMs: number, priority: QueuePriority) => void;
  sidecar: SidecarSettings;
  /** Where flags are never delivered, which env var names they may set (delivery-policy.ts). */
  delivery?: DeliveryPolicy | undefined;
  metrics: OperatorMetrics;
  logger: Logger;
  now: () => Date;
}

/** Coalescing of flag status updates after workload events. */
const FLAG_STATUS_DELAY_MS = 250;

/** How long a flag being deleted waits before looking again at workloads still carrying it. */
const WITHDRAW_RECHECK_MS = 2000;

export class ClusterController {
  readonly #options: ClusterControllerOptions;
  readonly #unsubscribe: (() => void)[] = [];
  /** The ConfigMap each configMap flag wrote last, so a flag moved to another ConfigMap withdraws from the old one. */
  readonly #configMapOfFlag = new Map<string, string>();
  readonly #plans: NamespacePlans;

  constructor(options: ClusterControllerOptions) {
    this.#options = options;
    this.#plans = new NamespacePlans(
      options.cluster,
      (result) => {
        options.metrics.planCache.inc({ result });
      },
      options.delivery,
    );
  }

  get id(): string {
    return this.#options.cluster.id;
  }

  start(): void {
    const { cluster } = this.#options;
    this.#unsubscribe.push(
      cluster.flags.onEvent(({ type, object, previous }) => {
        const gone = type === "delete";
        // A change planning does not read (the operator's own status writes, a few per second
        // while it delivers) leaves every workload's plan as it was: they are not queued again.
        const replan =
          gone || previous === undefined || flagPlanningKey(previous) !== flagPlanningKey(object);
        this.#flagChanged(object, gone, "normal", replan);
        if (gone) this.#plans.prune(object.metadata.namespace);
      }),
    );
    // A namespace's labels opt it in or out (svc.io/flags): its workloads are planned again.
    // Another change of the namespace (an annotation, another label) changes no plan.
    this.#unsubscribe.push(
      cluster.namespaces.onEvent(({ type, object, previous }) => {
        const label = (n: typeof object | undefined) => n?.metadata?.labels?.[NAMESPACE_FLAGS_LABEL];
        if (type === "upsert" && previous !== undefined && label(previous) === label(object)) return;
        this.#enqueueNamespace(object.metadata?.name ?? "");
      }),
    );
    for (const kind of WORKLOAD_KINDS) {
      this.#unsubscribe.push(
        this.#cache(kind).onEvent(({ type, object }) => {
          const namespace = object.metadata?.namespace ?? "";
          if (type === "delete") this.#plans.prune(namespace);
          this.#enqueue({ namespace, kind, name: object.metadata?.name ?? "" });
          // A flag's status plans every workload of its namespace: during a rollout's stream of
          // workload events it is brought up to date once per FLAG_STATUS_DELAY_MS, not per event.
          this.#enqueueFlags(namespace, FLAG_STATUS_DELAY_MS);
          this.#enqueueSidecarRbac(namespace);
        }),
      );
    }
  }

  stop(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  /**
   * Every key of the cluster: at start, when the cluster becomes ready again, and on each resync,
   * at low priority, so a change seen meanwhile is not queued behind the whole cluster. A flag
   * whose status lags its spec is a change nobody delivered yet (made while no operator held the
   * cluster: a replica died, the operator was down): it and what it reaches go at normal priority.
   */
  enqueueAll(): void {
    const { cluster } = this.#options;
    const flags = cluster.flags.list();
    for (const flag of flags) this.#flagChanged(flag, false, statusIsCurrent(flag) ? "low" : "normal");
    for (const namespace of new Set(flags.map((flag) => flag.metadata.namespace)))
      this.#enqueue({ namespace, kind: "ManagedConfigMaps" }, 0, "low");
    for (const kind of WORKLOAD_KINDS)
      for (const object of this.#cache(kind).list())
        this.#enqueue(
          { namespace: object.metadata?.namespace ?? "", kind, name: object.metadata?.name ?? "" },
          0,
          "low",
        );
  }

  /** `signal` ends the writes when the queue shuts down (shutdown, lost leadership). */
  async reconcile(key: WorkQueueKey, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    // Caches being filled (or stale after an outage) would make a wrong plan: the cluster's
    // return to ready enqueues everything again.
    if (this.#options.cluster.health().state !== "ready") return undefined;
    try {
      return await this.#dispatch(key, signal);
    } catch (error) {
      throw terminalWhenInvalid(error);
    }
  }

  async #dispatch(key: WorkQueueKey, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const parsed = parseControllerKey(key);
    switch (parsed.kind) {
      case FEATURE_FLAG.kind:
        return this.#reconcileFlag(parsed.namespace, parsed.name, signal);
      case "Deployment":
      case "StatefulSet":
      case "DaemonSet":
        await this.#reconcileWorkload(parsed.kind, parsed.namespace, parsed.name, signal);
        return undefined;
      case "ConfigMap":
        await this.#reconcileConfigMap(parsed.namespace, parsed.name, signal);
        return undefined;
      case "SidecarRBAC":
        await this.#reconcileSidecarRbac(parsed.namespace, signal);
        return undefined;
      case "ManagedConfigMaps":
        await this.#enqueueManagedConfigMaps(parsed.namespace, signal);
        return undefined;
    }
  }

  #enqueue(key: ControllerKey, delayMs = 0, priority: QueuePriority = "normal"): void {
    this.#options.enqueue(controllerQueueKey(this.id, key), delayMs, priority);
  }

  /** Every workload, flag and flag's ConfigMap of the namespace (what its delivery scope decides changed). */
  #enqueueNamespace(namespace: string): void {
    for (const kind of WORKLOAD_KINDS)
      for (const object of this.#cache(kind).list(namespace))
        this.#enqueue({ namespace, kind, name: object.metadata?.name ?? "" });
    this.#enqueueFlags(namespace, 0);
    const configMaps = this.#options.cluster.flags
      .list(namespace)
      .flatMap((f) => f.spec.delivery.configMap?.configMapName ?? []);
    for (const name of new Set(configMaps)) this.#enqueue({ namespace, kind: "ConfigMap", name });
  }

  #enqueueFlags(namespace: string, delayMs: number): void {
    for (const flag of this.#options.cluster.flags.list(namespace))
      this.#enqueue({ namespace, kind: FEATURE_FLAG.kind, name: flag.metadata.name }, delayMs);
  }

  /** The sidecar RBAC of a namespace, when a sidecar flag is there (or was: its event enqueues it too). */
  #enqueueSidecarRbac(namespace: string, force = false, priority: QueuePriority = "normal"): void {
    const sidecarFlag = this.#options.cluster.flags.list(namespace).some((f) => f.spec.delivery.sidecar);
    if (force || sidecarFlag) this.#enqueue({ namespace, kind: "SidecarRBAC" }, 0, priority);
  }

  #flagChanged(
    flag: FeatureFlagResource,
    gone = false,
    priority: QueuePriority = "normal",
    workloads = true,
  ): void {
    const { namespace, name } = flag.metadata;
    this.#enqueue({ namespace, kind: FEATURE_FLAG.kind, name }, 0, priority);
    if (flag.spec.delivery.sidecar !== undefined) this.#enqueueSidecarRbac(namespace, true, priority);
    if (workloads)
      for (const kind of WORKLOAD_KINDS)
        for (const object of this.#cache(kind).list(namespace))
          this.#enqueue({ namespace, kind, name: object.metadata?.name ?? "" }, 0, priority);
    const flagKey = `${namespace}/${name}`;
    const before = this.#configMapOfFlag.get(flagKey);
    const now = flag.spec.delivery.configMap?.configMapName;
    if (before !== undefined && before !== now)
      this.#enqueue({ namespace, kind: "ConfigMap", name: before }, 0, priority);
    if (gone) {
      this.#configMapOfFlag.delete(flagKey);
      if (now !== undefined) this.#enqueue({ namespace, kind: "ConfigMap", name: now }, 0, priority);
    } else if (now === undefined) this.#configMapOfFlag.delete(flagKey);
    else {
      this.#configMapOfFlag.set(flagKey, now);
      this.#enqueue({ namespace, kind: "ConfigMap", name: now }, 0, priority);
    }
  }

  #cache(kind: WorkloadKind): WorkloadCache {
    return this.#plans.workloadCache(kind);
  }

  async #reconcileWorkload(
    kind: WorkloadKind,
    namespace: string,
    name: string,
    signal: AbortSignal,
  ): Promise<void> {
    const object = this.#cache(kind).get(namespace, name);
    if (object === undefined || object.metadata?.deletionTimestamp !== undefined) return;
    const workload: Workload = { kind, object };
    const { cluster } = this.#options;
    const plan = planWorkload(
      workload,
      this.#plans.flagIndex(namespace),
      deliveryCluster(cluster),
      this.#plans.scope(namespace),
    );
    if (plan.inSync) return;
    const { writer, sidecar, metrics } = this.#options;
    const nativeSidecar = supportsNativeSidecar(cluster.health().kubernetesVersion);
    await writer.apply(workloadApplyConfiguration(workload, plan, sidecar, { nativeSidecar }), {
      force: true,
      signal,
    });
    metrics.deliveries.inc({ cluster: this.id, kind, restarts: String(plan.restarts.restarts) });
  }

  async #reconcileSidecarRbac(namespace: string, signal: AbortSignal): Promise<void> {
    const { writer } = this.#options;
    const planned = this.#plans.plans(namespace);
    const accounts = sidecarServiceAccounts(planned);
    const role = sidecarRole(namespace);
    const binding = sidecarRoleBinding(namespace, accounts);
    const [currentRole, currentBinding] = await Promise.all([
      writer.read<RoleJson>(role, { signal }),
      writer.read<RoleBindingJson>(binding, { signal }),
    ]);
    if (accounts.length === 0) {
      if (madeBySvc(currentBinding)) await writer.remove(binding, undefined, { signal });
      if (madeBySvc(currentRole)) await writer.remove(role, undefined, { signal });
      return;
    }
    if (!roleInSync(currentRole)) await writer.apply(role, { force: true, signal });
    if (!roleBindingInSync(currentBinding, namespace, accounts))
      await writer.apply(binding, { force: true, signal });
  }

  async #enqueueManagedConfigMaps(namespace: string, signal: AbortSignal): Promise<void> {
    const managed = await this.#options.writer.list<ConfigMapJson>(
      "v1",
      "ConfigMap",
      namespace,
      `${MANAGED_BY_LABEL}=svc`,
      { signal },
    );
    for (const configMap of managed)
      this.#enqueue({ namespace, kind: "ConfigMap", name: configMap.metadata.name ?? "" });
  }

  async #reconcileConfigMap(namespace: string, name: string, signal: AbortSignal): Promise<void> {
    const { writer, cluster } = this.#options;
    // A namespace that gets no flags gets no ConfigMap either: svc's writes there are withdrawn.
    const excluded = namespaceExclusion(namespace, this.#plans.scope(namespace)) !== undefined;
    const plan = excluded
      ? undefined
      : planConfigMaps(cluster.flags.list(namespace), deliveryCluster(cluster)).find(
          (p) => p.configMapName === name,
        );
    const ref = { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace } };
    const current = await writer.read<ConfigMapJson>(ref, { signal });
    // A ConfigMap a flag names that svc did not create is left as it is, and its flags and
    // workloads learn it (Degraded, not mounted).
    const owner = plan === undefined ? undefined : foreignConfigMapOwner(current);
    if (this.#plans.setConfigMapOwner(namespace, name, owner)) this.#enqueueNamespace(namespace);
    const action = configMapAction(namespace, name, plan, current);
    if (action.action === "apply") await writer.apply(action.configuration, { force: true, signal });
    else if (action.action === "delete")
      await writer.remove(ref, { resourceVersion: action.resourceVersion }, { signal });
  }

  /** Why the flag is refused as a whole: its namespace gets no flags, or its ConfigMap is not svc's. */
  #refusal(flag: FeatureFlagResource): string | undefined {
    const { namespace } = flag.metadata;
    const scope = this.#plans.scope(namespace);
    return namespaceExclusion(namespace, scope) ?? foreignConfigMapRefusal(flag, scope);
  }

  async #reconcileFlag(
    namespace: string,
    name: string,
    signal: AbortSignal,
  ): Promise<ReconcileResult | undefined> {
    const { cluster, writer } = this.#options;
    const flag = cluster.flags.get(namespace, name);
    if (flag === undefined) return undefined;
    // The uid makes every write below a precondition on this very flag: an apply that reaches
    // a flag deleted meanwhile (or re-created) fails with 409 instead of creating one.
    const uid = flag.metadata.uid;
    const ref = {
      apiVersion: API_GROUP_VERSION,
      kind: FEATURE_FLAG.kind,
      metadata: { name, namespace, ...(uid === undefined ? {} : { uid }) },
    };
    const finalized = flag.metadata.finalizers?.includes(DELIVERY_FINALIZER) === true;
    const plans = this.#plans.plans(namespace);
    if (isBeingDeleted(flag)) {
      if (!finalized) return undefined;
      // The plans leave a flag being deleted out: once every workload is as planned, the flag
      // is withdrawn everywhere and may go.
      const carrying = plans.filter((p) => !p.plan.inSync);
      for (const { plan } of carrying) this.#enqueue({ namespace, kind: plan.kind, name: plan.name });
      const configMap = flag.spec.delivery.configMap?.configMapName;
      if (configMap !== undefined) await this.#reconcileConfigMap(namespace, configMap, signal);
      if (carrying.length > 0) return { requeueAfterMs: WITHDRAW_RECHECK_MS };
      // svc's apply of the flag states only the finalizer: stating nothing removes it.
      await writer.apply(ref, { force: true, signal });
      return undefined;
    }
    if (!finalized)
      await writer.apply(
        { ...ref, metadata: { ...ref.metadata, finalizers: [DELIVERY_FINALIZER] } },
        { force: true, signal },
      );
    const status = flagStatus(
      flag,
      plans.map((p) => p.plan),
      this.#options.now(),
      this.#refusal(flag),
    );
    if (sameStatus(flag.status, status)) return undefined;
    await writer.apply({ ...ref, status }, { force: true, subresource: "status", signal });
    const event = phaseChangeEvent(flag, status, this.#options.now());
    // An event is a courtesy to the reader: failing to record one never fails the reconcile.
    if (event !== undefined)
      await writer.create(event, { signal }).catch((error: unknown) => {
        this.#options.logger.warn({ flag: `${namespace}/${name}`, err: error }, "event not recorded");
      });
    return undefined;
  }
}

/**
 * A write the API server refused as malformed (400) or invalid (422) fails the same way until
 * the workload or flag changes, and that change queues the key again: not retried.
 */
export function terminalWhenInvalid(error: unknown): unknown {
  if (error instanceof KubeApiError && (error.status === 400 || error.status === 422))
    return new TerminalError(error.message, { cause: error });
  return error;
}

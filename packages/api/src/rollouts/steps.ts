// The operator's steps on FlagRollouts into the audit log (docs/safe-changes.md "Audit"): every
// API replica watches the plans and records the steps their status shows; each step's key makes
// the second sighting (another replica, a restart, a later status) a no-op.
import {
  API_GROUP_VERSION,
  FLAG_ROLLOUT,
  rolloutSteps,
  type FlagRolloutResource,
  type RolloutStep,
} from "@svc/core";
import { CollectionWatch, type ClusterRegistry } from "@svc/kube";
import type { FastifyBaseLogger } from "fastify";
import type { AuditRepo } from "../audit/store.ts";

/** The actor of the operator's steps. */
export const OPERATOR_ACTOR = "svc-operator";
/** Keys recorded by this replica, so that a status seen again costs no query (bounded). */
const REMEMBERED_MAX = 100_000;
const REQUEST_TIMEOUT_MS = 5000;

export interface RolloutStepRecorderOptions {
  clusters: ClusterRegistry;
  localClusterId: string;
  systemNamespace: string;
  audit: AuditRepo;
  log: FastifyBaseLogger;
}

export class RolloutStepRecorder {
  readonly #options: RolloutStepRecorderOptions;
  readonly #recorded = new Set<string>();
  #watch: CollectionWatch<FlagRolloutResource> | undefined;
  #stopWaiting: (() => void) | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(options: RolloutStepRecorderOptions) {
    this.#options = options;
  }

  /** Watches the hub's plans, from when the registry knows the hub (the local cluster). */
  start(): void {
    if (this.#begin()) return;
    this.#stopWaiting = this.#options.clusters.onChange(() => {
      if (this.#begin()) this.#stopWaiting?.();
    });
  }

  /** Resolves once the steps seen so far are recorded (tests). */
  settled(): Promise<void> {
    return this.#writing;
  }

  async stop(): Promise<void> {
    this.#stopWaiting?.();
    await this.#watch?.stop();
    await this.#writing;
  }

  #begin(): boolean {
    const { clusters, localClusterId, systemNamespace, log } = this.#options;
    const hub = clusters.get(localClusterId);
    if (hub === undefined || this.#watch !== undefined) return this.#watch !== undefined;
    this.#watch = new CollectionWatch<FlagRolloutResource>({
      kubeConfig: hub.kubeConfig,
      path: `/apis/${API_GROUP_VERSION}/namespaces/${systemNamespace}/${FLAG_ROLLOUT.plural}`,
      namespace: systemNamespace,
      description: `list FlagRollouts in ${systemNamespace}`,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      logger: log,
    });
    this.#watch.cache.onEvent(({ type, object }) => {
      if (type === "upsert") this.#writing = this.#writing.then(() => this.#record(object));
    });
    this.#watch.start();
    return true;
  }

  async #record(plan: FlagRolloutResource): Promise<void> {
    for (const step of rolloutSteps(plan)) {
      if (this.#recorded.has(step.key)) continue;
      try {
        await this.#options.audit.appendOnce(stepEvent(plan, step), step.key);
        if (this.#recorded.size >= REMEMBERED_MAX) this.#recorded.clear();
        this.#recorded.add(step.key);
      } catch (error) {
        // The next status of the plan brings the step again.
        this.#options.log.warn(
          { err: error, rollout: plan.metadata.name, step: step.key },
          "rollout step not audited",
        );
      }
    }
  }
}

function stepEvent(plan: FlagRolloutResource, step: RolloutStep) {
  const clusters = [...new Set((plan.status?.waves ?? []).flatMap((w) => w.clusters.map((c) => c.id)))];
  return {
    timestamp: new Date(step.at).toISOString(),
    actor: OPERATOR_ACTOR,
    actorRole: "",
    action: "step" as const,
    resource: "rollout" as const,
    resourceName: plan.metadata.name,
    namespace: plan.spec.flag.namespace,
    cluster: clusters.join(",").slice(0, 1024),
    outcome:
      step.step === "WaveFailed" || step.step === "RolledBack" || step.step === "Failed"
        ? ("failure" as const)
        : ("success" as const),
    sourceIp: "",
    details: {
      step: step.step,
      message: step.message,
      flag: `${plan.spec.flag.namespace}/${plan.spec.flag.name}`,
      ...(step.wave === undefined ? {} : { wave: step.wave }),
    },
  };
}

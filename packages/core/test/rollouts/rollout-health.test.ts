import { describe, expect, it } from "vitest";
import { observeWorkload, restartsBefore, workloadHealth, type ObservedWorkload } from "../../src/index.ts";

const base: ObservedWorkload = {
  kind: "Deployment",
  name: "web",
  generation: 3,
  observedGeneration: 3,
  desired: 2,
  updated: 2,
  ready: 2,
  progressDeadlineExceeded: false,
  pods: [
    { name: "web-a", ready: true, restarts: 0 },
    { name: "web-b", ready: true, restarts: 4 },
  ],
};

describe("a workload's health after a change", () => {
  it("is healthy when rolled out and ready, whatever restarts its pods had before", () => {
    expect(workloadHealth(base, restartsBefore(base))).toEqual({
      state: "Healthy",
      message: "Deployment web: 2 of 2 ready",
    });
    expect(restartsBefore(base)).toEqual({ "web-b": 4 });
  });

  it("is unhealthy on a restart since the change, or a pod that cannot run", () => {
    const restarted = {
      ...base,
      pods: [
        { name: "web-a", ready: true, restarts: 0 },
        { name: "web-b", ready: true, restarts: 5 },
      ],
    };
    expect(workloadHealth(restarted, { "web-b": 4 })).toEqual({
      state: "Unhealthy",
      message: "web-b: restarted 1 time after the change",
    });
    const fresh = {
      ...base,
      pods: [{ name: "web-c", ready: false, restarts: 0, waitingReason: "CrashLoopBackOff" }],
    };
    expect(workloadHealth(fresh, {}).message).toBe("web-c: CrashLoopBackOff after the change");
    const config = {
      ...base,
      pods: [{ name: "web-c", ready: false, restarts: 0, waitingReason: "CreateContainerConfigError" }],
    };
    expect(workloadHealth(config, {}).state).toBe("Unhealthy");
    expect(workloadHealth({ ...base, progressDeadlineExceeded: true }, { "web-b": 4 }).message).toBe(
      "Deployment web: ProgressDeadlineExceeded",
    );
  });

  it("is progressing while the rollout or readiness is incomplete; a pod merely starting is not a failure", () => {
    expect(workloadHealth({ ...base, observedGeneration: 2 }, { "web-b": 4 }).state).toBe("Progressing");
    expect(workloadHealth({ ...base, updated: 1 }, { "web-b": 4 }).message).toBe(
      "Deployment web: 1 of 2 updated",
    );
    const starting = {
      ...base,
      pods: [...base.pods, { name: "web-c", ready: false, restarts: 0, waitingReason: "ContainerCreating" }],
    };
    expect(workloadHealth(starting, { "web-b": 4 })).toEqual({
      state: "Progressing",
      message: "Deployment web: 2 of 2 ready (web-c not ready)",
    });
  });

  it("reads Kubernetes objects: DaemonSet counts, container restarts summed, deleted pods left out", () => {
    const observed = observeWorkload(
      "DaemonSet",
      {
        metadata: { name: "agent", generation: 4 },
        status: {
          observedGeneration: 4,
          desiredNumberScheduled: 3,
          updatedNumberScheduled: 2,
          numberReady: 3,
        },
      },
      [
        {
          metadata: { name: "agent-1" },
          status: {
            conditions: [{ type: "Ready", status: "True" }],
            initContainerStatuses: [{ restartCount: 1 }],
            containerStatuses: [
              { restartCount: 2 },
              { restartCount: 0, state: { waiting: { reason: "CrashLoopBackOff" } } },
            ],
          },
        },
        { metadata: { name: "agent-0", deletionTimestamp: "2026-11-27T10:00:00Z" }, status: {} },
      ],
    );
    expect(observed).toEqual({
      kind: "DaemonSet",
      name: "agent",
      generation: 4,
      observedGeneration: 4,
      desired: 3,
      updated: 2,
      ready: 3,
      progressDeadlineExceeded: false,
      pods: [{ name: "agent-1", ready: true, restarts: 3, waitingReason: "CrashLoopBackOff" }],
      matchLabels: {},
    });
    const deployment = observeWorkload(
      "Deployment",
      {
        metadata: { name: "web", generation: 2 },
        spec: { replicas: 3, selector: { matchLabels: { app: "web" } } },
        status: {
          conditions: [{ type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded" }],
        },
      },
      [],
    );
    expect(deployment).toMatchObject({
      desired: 3,
      updated: 0,
      progressDeadlineExceeded: true,
      matchLabels: { app: "web" },
    });
  });
});

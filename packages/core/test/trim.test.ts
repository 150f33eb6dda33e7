// The informer caches keep workloads trimmed (trim.ts): over random workloads as the API server
// sends them (managedFields, kubectl's copy, probes, foreign volumes and annotations, svc's own
// earlier deliveries) and random flags (targeted ones among them), every plan, view, preview
// and what the operator's apply reads are the same from the trimmed object as from the full one.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  discoveredWorkload,
  flagContainers,
  flagUpdatedAt,
  LAST_APPLIED_ANNOTATION,
  planWorkload,
  podSpecOf,
  previewFlag,
  trimFlag,
  trimWorkload,
  workloadDetail,
  type Container,
  type DeliveryCluster,
  type FeatureFlagResource,
  type Volume,
  type Workload,
  type WorkloadObject,
} from "../src/index.ts";
import { deliveries, flagLists, labels, WORKLOAD_RULES } from "./support/arbitraries.ts";
import { applyPlan, flag, workload } from "./support/workloads.ts";

const flags = flagLists({
  names: ["a", "b", "c", "d"],
  values: ["1", '{"x":1}'],
  delivery: deliveries(["SHARED", "API_KEY"], ["k"]),
  rules: WORKLOAD_RULES,
});

const cluster: DeliveryCluster = { id: "east", labels: { region: "eu" } };

/** What the API server and other writers put on a container, none of which svc reads. */
const containerNoise = {
  command: ["/bin/app", "--serve"],
  resources: { requests: { cpu: "100m", memory: "64Mi" } },
  readinessProbe: { httpGet: { path: "/healthz", port: 8080 } },
  ports: [{ containerPort: 8080, name: "http", protocol: "TCP" }],
  imagePullPolicy: "IfNotPresent",
  terminationMessagePath: "/dev/termination-log",
};

const userContainer: fc.Arbitrary<Container> = fc.record({
  name: fc.constantFrom("app", "log"),
  image: fc.constantFrom("shop/web:1", "shop/log:2"),
  env: fc.array(
    fc.oneof(
      fc.record({
        name: fc.constantFrom("SHARED", "MODE", "DB_PASSWORD", "API_KEY"),
        value: fc.constantFrom("x", ""),
      }),
      fc.constant({
        name: "FROM_CM",
        valueFrom: { configMapKeyRef: { name: "settings", key: "mode", optional: true } },
      }),
      fc.constant({ name: "FROM_SECRET", valueFrom: { secretKeyRef: { name: "creds", key: "pw" } } }),
    ),
    { maxLength: 3 },
  ),
  envFrom: fc.constantFrom(
    [],
    [{ configMapRef: { name: "shared" }, prefix: "S_" }],
    [{ secretRef: { name: "tokens" } }],
  ),
  volumeMounts: fc.constantFrom(
    [],
    [{ name: "data", mountPath: "/data" }],
    [{ name: "svc-flags-cm-a", mountPath: "/x" }],
  ),
});

const userVolumes: fc.Arbitrary<Volume[]> = fc.subarray([
  { name: "data", emptyDir: {} } as Volume,
  { name: "settings", configMap: { name: "settings", defaultMode: 420 } } as Volume,
  { name: "creds", secret: { secretName: "creds" } },
  {
    name: "all",
    projected: {
      sources: [{ configMap: { name: "p-cm" } }, { secret: { name: "p-s" } }, { downwardAPI: {} }],
    },
  } as Volume,
  // Named like svc's volume of cm-a, but someone else's (another ConfigMap).
  { name: "svc-flags-cm-a", configMap: { name: "other" } },
]);

/** A workload as the API server sends it, after svc delivered `earlier` flags to it (or never). */
const fullWorkloads = fc
  .uniqueArray(
    fc.record({
      name: fc.constantFrom("w1", "w2", "w3"),
      kind: fc.constantFrom("Deployment" as const, "StatefulSet" as const, "DaemonSet" as const),
      labels,
      templateLabels: labels,
      containers: fc.uniqueArray(userContainer, { selector: (c) => c.name, minLength: 1, maxLength: 2 }),
      volumes: userVolumes,
      earlier: fc.option(flags, { nil: undefined }),
      deleting: fc.boolean(),
      status: fc.record(
        {
          replicas: fc.nat(3),
          readyReplicas: fc.nat(3),
          numberReady: fc.nat(3),
          desiredNumberScheduled: fc.nat(3),
        },
        { requiredKeys: [] },
      ),
    }),
    { selector: (w) => w.name, maxLength: 3 },
  )
  .map((list) =>
    list.map((w): Workload => {
      const base = workload(w.name, {
        kind: w.kind,
        labels: w.labels,
        templateLabels: w.templateLabels,
        containers: w.containers,
        volumes: w.volumes,
        annotations: {
          "deployment.kubernetes.io/revision": "3",
          [LAST_APPLIED_ANNOTATION]: '{"kind":"Deployment"}',
        },
        templateAnnotations: { "kubectl.kubernetes.io/restartedAt": "2026-11-20T10:00:00Z" },
      });
      const delivered =
        w.earlier === undefined ? base : applyPlan(base, planWorkload(base, w.earlier, cluster));
      return { kind: w.kind, object: withApiNoise(delivered.object, w.status, w.deleting) };
    }),
  );

/** The fields the API server adds that no reader reads, on every level of the object. */
function withApiNoise(object: WorkloadObject, status: object, deleting: boolean): WorkloadObject {
  const { metadata, spec } = object;
  const pod = spec?.template.spec ?? { containers: [] };
  const noisy = {
    apiVersion: "apps/v1",
    metadata: {
      ...metadata,
      uid: "6b1f0c1e-0000-4000-8000-000000000001",
      resourceVersion: "42",
      generation: 3,
      creationTimestamp: "2026-11-20T10:00:00Z",
      ...(deleting ? { deletionTimestamp: "2026-11-21T10:00:00Z", finalizers: ["example.com/hold"] } : {}),
      managedFields: [{ manager: "kubectl", operation: "Apply", fieldsV1: { "f:spec": {} } }],
    },
    spec: {
      ...spec,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%" } },
      revisionHistoryLimit: 10,
      template: {
        ...spec?.template,
        spec: {
          ...pod,
          serviceAccountName: "shop",
          dnsPolicy: "ClusterFirst",
          containers: pod.containers.map((c) => ({ ...containerNoise, ...c })),
          initContainers: (pod.initContainers ?? []).map((c) => ({ ...containerNoise, ...c })),
        },
      },
    },
    status: {
      ...status,
      observedGeneration: 3,
      conditions: [{ type: "Available", status: "True", message: "ok" }],
    },
  };
  return noisy as WorkloadObject;
}

/** Everything svc derives from a workload: plan, views, and what the operator's apply and RBAC read. */
function readings(target: Workload, all: FeatureFlagResource[]) {
  return {
    plan: planWorkload(target, all, cluster),
    // As an editor reads them: every literal value the trimmed cache must keep.
    listed: discoveredWorkload(cluster, target, all, { literalValues: true }),
    detail: workloadDetail(cluster, target, all, { literalValues: true }),
    apply: {
      containers: flagContainers(target).map((c) => c.name),
      resourceVersion: target.object.metadata?.resourceVersion,
      deleting: target.object.metadata?.deletionTimestamp !== undefined,
      serviceAccount: podSpecOf(target).serviceAccountName,
    },
  };
}

const trimmed = (w: Workload): Workload => ({
  kind: w.kind,
  object: trimWorkload(structuredClone(w.object)),
});

describe("trimmed caches", () => {
  it("plan, list, detail and apply the same from a trimmed workload as from the full one", () => {
    fc.assert(
      fc.property(fullWorkloads, flags, (targets, all) => {
        for (const target of targets) expect(readings(trimmed(target), all)).toEqual(readings(target, all));
      }),
    );
  });

  it("preview a flag the same over trimmed workloads as over full ones", () => {
    fc.assert(
      fc.property(fullWorkloads, flags, flags, (targets, stored, candidates) => {
        const candidate = candidates[0];
        if (candidate === undefined) return;
        const preview = (workloads: Workload[]) =>
          previewFlag({ candidate, workloads, namespaceFlags: stored, cluster });
        expect(preview(targets.map(trimmed))).toEqual(preview(targets));
      }),
    );
  });

  it("drop what no reader reads, and nothing more when trimmed again", () => {
    const unread = ["managedFields", LAST_APPLIED_ANNOTATION, "readinessProbe", "conditions", "strategy"];
    fc.assert(
      fc.property(fullWorkloads, (targets) => {
        for (const target of targets) {
          const once = trimWorkload(structuredClone(target.object));
          for (const field of unread) expect(JSON.stringify(once)).not.toContain(field);
          expect(trimWorkload(structuredClone(once))).toEqual(once);
        }
      }),
    );
  });

  it("keep a flag's spec writers and their times, so its updatedAt stays", () => {
    const full = flag("f", { envVar: { selector: { matchLabels: { app: "web" } } } });
    full.metadata = {
      ...full.metadata,
      creationTimestamp: "2026-11-01T00:00:00Z",
      annotations: { [LAST_APPLIED_ANNOTATION]: "{}", team: "a" },
      managedFields: [
        {
          manager: "svc-api",
          operation: "Apply",
          time: "2026-11-02T00:00:00Z",
          fieldsV1: { "f:spec": { "f:x": {} } },
        },
        {
          manager: "svc-operator",
          subresource: "status",
          time: "2026-11-03T00:00:00Z",
          fieldsV1: { "f:status": {} },
        },
      ],
    };
    const cached = trimFlag(structuredClone(full));
    expect(flagUpdatedAt(cached.metadata)).toBe(flagUpdatedAt(full.metadata));
    expect(cached.metadata.annotations).toEqual({ team: "a" });
    expect(cached.metadata.managedFields?.map((e) => e.manager)).toEqual(["svc-api"]);
    expect(cached.spec).toEqual(full.spec);
  });
});

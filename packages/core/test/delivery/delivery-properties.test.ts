// Properties of delivery over random workloads, flags (targeted ones among them) and clusters:
// what the operator applies converges in one step, withdraws exactly, and the API's preview
// agrees with it, down to the value each workload gets.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  flagMatchesWorkload,
  indexFlags,
  observeDelivery,
  planConfigMaps,
  planWorkload,
  previewFlag,
  workloadName,
  type DeliveryCluster,
  type FeatureFlagResource,
  type Workload,
} from "../../src/index.ts";
import { deliveries, flagLists, labels, WORKLOAD_RULES } from "../support/arbitraries.ts";
import { applyPlan, flag, workload } from "../support/workloads.ts";

const delivery = deliveries(["SHARED", "OTHER"], ["k1", "k2"]);

/** Rules over every field of a workload's context, choosing variant "on" or "off". */
const rules: Record<string, unknown>[] = [
  { if: [{ "==": [{ var: "cluster" }, "east"] }, "on", "off"] },
  { if: [{ "==": [{ var: "clusterLabels.region" }, "eu"] }, "on", "off"] },
  ...WORKLOAD_RULES,
];

const flags = flagLists({
  names: ["a", "b", "c", "d", "e"],
  values: ["1", "2", '{"x":1}', "{broken"],
  delivery,
  rules,
});

/** An enabled, targeted flag: the candidate whose per-workload values the preview must show. */
const targetedFlag = fc
  .record({
    name: fc.constantFrom("a", "b", "c"),
    delivery,
    value: fc.constantFrom("1", '{"x":1}'),
    targeting: fc.constantFrom(...rules),
  })
  .map((f) =>
    flag(f.name, f.delivery, {
      type: "json",
      defaultValue: f.value,
      variants: { on: '"on"', off: f.value },
      defaultVariant: "off",
      targeting: f.targeting,
    }),
  );

const clusters: fc.Arbitrary<DeliveryCluster> = fc.record({
  id: fc.constantFrom("local", "east"),
  labels: fc.constantFrom<Record<string, string>>({}, { region: "eu" }),
});

const workloads = fc
  .uniqueArray(
    fc.record({
      name: fc.constantFrom("w1", "w2", "w3"),
      kind: fc.constantFrom("Deployment" as const, "StatefulSet" as const, "DaemonSet" as const),
      labels,
      templateLabels: labels,
      userEnv: fc.constantFrom(undefined, "SHARED", "FLAG_A"),
    }),
    { selector: (w) => w.name, maxLength: 3 },
  )
  .map((list) =>
    list.map((w) =>
      workload(w.name, {
        kind: w.kind,
        labels: w.labels,
        templateLabels: w.templateLabels,
        containers: [
          { name: "app", ...(w.userEnv === undefined ? {} : { env: [{ name: w.userEnv, value: "user" }] }) },
          { name: "log" },
        ],
      }),
    ),
  );

const deliver = (target: Workload, all: FeatureFlagResource[], cluster: DeliveryCluster) =>
  applyPlan(target, planWorkload(target, all, cluster));

describe("delivery properties", () => {
  it("converges in one apply: then in sync, nothing restarts, nothing pending", () => {
    fc.assert(
      fc.property(clusters, workloads, flags, (cluster, targets, all) => {
        for (const target of targets) {
          const delivered = deliver(target, all, cluster);
          const again = planWorkload(delivered, all, cluster);
          expect(again.inSync).toBe(true);
          expect(again.restarts.restarts).toBe(false);
          expect(again.flags.filter((f) => f.outcome === "pending")).toEqual([]);
          expect(deliver(delivered, all, cluster)).toEqual(delivered);
        }
      }),
    );
  });

  it("plans the same from a list of flags and from their index", () => {
    fc.assert(
      fc.property(clusters, workloads, flags, (cluster, targets, all) => {
        const index = indexFlags(all);
        for (const target of targets)
          expect(planWorkload(target, index, cluster)).toEqual(planWorkload(target, all, cluster));
      }),
    );
  });

  it("withdraws exactly: without its flags a workload is as it was before", () => {
    fc.assert(
      fc.property(clusters, workloads, flags, (cluster, targets, all) => {
        for (const target of targets)
          expect(deliver(deliver(target, all, cluster), [], cluster)).toEqual(target);
      }),
    );
  });

  it("delivers only what matching, enabled, valid flags say, never a user's own variable", () => {
    fc.assert(
      fc.property(clusters, workloads, flags, (cluster, targets, all) => {
        for (const target of targets) {
          const plan = planWorkload(target, all, cluster);
          for (const env of plan.env) {
            const source = all.find((f) => f.metadata.name === env.flag);
            expect(source && flagMatchesWorkload(source, target)).toBeTruthy();
            expect(source?.spec.enabled).toBe(true);
            expect(source?.spec.defaultValue).not.toBe("{broken");
            const userVars = target.object.spec?.template.spec?.containers.flatMap((c) => c.env ?? []) ?? [];
            expect(userVars.map((e) => e.name)).not.toContain(env.name);
          }
        }
      }),
    );
  });

  it("previews exactly the workloads delivery changes and restarts", () => {
    fc.assert(
      fc.property(clusters, workloads, flags, flags, (cluster, targets, stored, candidates) => {
        const candidate = candidates[0];
        if (candidate === undefined) return;
        const converged = targets.map((t) => deliver(t, stored, cluster));
        const preview = previewFlag({
          candidate,
          workloads: converged,
          namespaceFlags: stored,
          cluster: cluster,
        });
        const after = [...stored.filter((f) => f.metadata.name !== candidate.metadata.name), candidate];
        const previous = stored.find((f) => f.metadata.name === candidate.metadata.name);
        for (const target of converged) {
          const plan = planWorkload(target, after, cluster);
          const entry = preview.find((e) => e.kind === target.kind && e.name === plan.name);
          const reached =
            flagMatchesWorkload(candidate, target) !== undefined ||
            (previous !== undefined && flagMatchesWorkload(previous, target) !== undefined);
          expect(entry !== undefined).toBe(reached);
          // The operator restarts a converged workload exactly when the preview says so.
          expect(entry?.restarts ?? false).toBe(plan.restarts.restarts);
          if (entry) expect(entry.reasons).toEqual(plan.restarts.reasons);
        }
      }),
    );
  });

  it("previews per workload the value that delivery then gives it, targeting evaluated", () => {
    fc.assert(
      fc.property(clusters, workloads, flags, targetedFlag, (cluster, targets, stored, candidate) => {
        const converged = targets.map((t) => deliver(t, stored, cluster));
        const preview = previewFlag({ candidate, workloads: converged, namespaceFlags: stored, cluster });
        const after = [...stored.filter((f) => f.metadata.name !== candidate.metadata.name), candidate];
        const configMaps = planConfigMaps(after, cluster);
        for (const target of converged) {
          const entry = preview.find((e) => e.kind === target.kind && e.name === workloadName(target));
          const delivered = planWorkload(target, after, cluster);
          const outcome = delivered.flags.find((f) => f.flag === candidate.metadata.name);
          expect(entry?.value).toBe(outcome?.value);
          if (outcome?.value === undefined) continue;
          if (outcome.envVar !== undefined) {
            // What the operator writes into every flag container's environment.
            for (const vars of observeDelivery(applyPlan(target, delivered)).env.values())
              expect(vars.get(outcome.envVar)).toBe(entry?.value);
          }
          const configMap = candidate.spec.delivery.configMap;
          if (configMap !== undefined) {
            // What the operator writes into the ConfigMap the workload mounts.
            const written = configMaps.find((c) => c.configMapName === configMap.configMapName);
            expect(written?.data[configMap.key]).toBe(entry?.value);
          }
        }
      }),
    );
  });
});

// Properties of delivery over random workloads and flags: what the operator applies converges
// in one step, withdraws exactly, and the API's preview agrees with it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  flagMatchesWorkload,
  indexFlags,
  planWorkload,
  previewFlag,
  type FeatureFlagResource,
  type FeatureFlagSpec,
  type Workload,
} from "../src/index.ts";
import { applyPlan, flag, workload } from "./support/workloads.ts";

const labels = fc.dictionary(fc.constantFrom("app", "tier"), fc.constantFrom("web", "api"), { maxKeys: 2 });
const selector = fc
  .dictionary(fc.constantFrom("app", "tier"), fc.constantFrom("web", "api"), { minKeys: 1, maxKeys: 2 })
  .map((matchLabels) => ({ matchLabels }));

const delivery: fc.Arbitrary<FeatureFlagSpec["delivery"]> = fc.oneof(
  fc.record({
    envVar: fc.record({ name: fc.constantFrom("SHARED", "OTHER"), selector }, { requiredKeys: ["selector"] }),
  }),
  fc.record({
    configMap: fc.record({
      configMapName: fc.constantFrom("cm-a", "cm.b"),
      key: fc.constantFrom("k1", "k2"),
      selector,
    }),
  }),
  fc.record({
    sidecar: fc.record({ port: fc.constantFrom(8514, 9000), selector }, { requiredKeys: ["selector"] }),
  }),
);

const flags = fc
  .uniqueArray(
    fc.record({
      name: fc.constantFrom("a", "b", "c", "d", "e"),
      delivery,
      enabled: fc.boolean(),
      value: fc.constantFrom("1", "2", '{"x":1}', "{broken"),
    }),
    { selector: (f) => f.name, maxLength: 5 },
  )
  .map((list) =>
    list.map((f) => flag(f.name, f.delivery, { type: "json", defaultValue: f.value, enabled: f.enabled })),
  );

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

const deliver = (target: Workload, all: FeatureFlagResource[]) =>
  applyPlan(target, planWorkload(target, all));

describe("delivery properties", () => {
  it("converges in one apply: then in sync, nothing restarts, nothing pending", () => {
    fc.assert(
      fc.property(workloads, flags, (targets, all) => {
        for (const target of targets) {
          const delivered = deliver(target, all);
          const again = planWorkload(delivered, all);
          expect(again.inSync).toBe(true);
          expect(again.restarts.restarts).toBe(false);
          expect(again.flags.filter((f) => f.outcome === "pending")).toEqual([]);
          expect(deliver(delivered, all)).toEqual(delivered);
        }
      }),
    );
  });

  it("plans the same from a list of flags and from their index", () => {
    fc.assert(
      fc.property(workloads, flags, (targets, all) => {
        const index = indexFlags(all);
        for (const target of targets) expect(planWorkload(target, index)).toEqual(planWorkload(target, all));
      }),
    );
  });

  it("withdraws exactly: without its flags a workload is as it was before", () => {
    fc.assert(
      fc.property(workloads, flags, (targets, all) => {
        for (const target of targets) expect(deliver(deliver(target, all), [])).toEqual(target);
      }),
    );
  });

  it("delivers only what matching, enabled, valid flags say, never a user's own variable", () => {
    fc.assert(
      fc.property(workloads, flags, (targets, all) => {
        for (const target of targets) {
          const plan = planWorkload(target, all);
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
      fc.property(workloads, flags, flags, (targets, stored, candidates) => {
        const candidate = candidates[0];
        if (candidate === undefined) return;
        const converged = targets.map((t) => deliver(t, stored));
        const preview = previewFlag({ candidate, workloads: converged, namespaceFlags: stored });
        const after = [...stored.filter((f) => f.metadata.name !== candidate.metadata.name), candidate];
        const previous = stored.find((f) => f.metadata.name === candidate.metadata.name);
        for (const target of converged) {
          const plan = planWorkload(target, after);
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
});

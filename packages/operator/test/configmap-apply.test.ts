import { planConfigMaps } from "@svc/core";
import { describe, expect, it } from "vitest";
import { CLUSTER, configMapFlag } from "../../core/test/support/workloads.ts";
import { configMapAction, svcOwnedKeys, type ConfigMapJson } from "../src/configmap-apply.ts";

const theme = { ...configMapFlag("theme", "ui", { app: "web" }) };
theme.metadata = { ...theme.metadata, uid: "uid-theme" };
const [plan] = planConfigMaps([theme], CLUSTER);

const svcEntry = (keys: string[]) => ({
  manager: "svc",
  operation: "Apply",
  fieldsV1: { "f:data": Object.fromEntries(keys.map((k) => [`f:${k}`, {}])) },
});

function stored(
  data: Record<string, string>,
  managers: object[],
  extra: Partial<ConfigMapJson["metadata"]> = {},
): ConfigMapJson {
  return {
    metadata: {
      name: "ui",
      namespace: "shop",
      resourceVersion: "7",
      labels: { "app.kubernetes.io/managed-by": "svc" },
      ownerReferences: [{ kind: "FeatureFlag", name: "theme", uid: "uid-theme" }],
      managedFields: managers,
      ...extra,
    },
    data,
  };
}

describe("configMapAction", () => {
  it("creates the ConfigMap with the key, the managed label and the flag as owner", () => {
    expect(configMapAction("shop", "ui", plan, undefined)).toEqual({
      action: "apply",
      configuration: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name: "ui",
          namespace: "shop",
          labels: { "app.kubernetes.io/managed-by": "svc" },
          ownerReferences: [
            { apiVersion: "svc.io/v1alpha1", kind: "FeatureFlag", name: "theme", uid: "uid-theme" },
          ],
        },
        data: { theme: "on" },
      },
    });
  });

  it("does nothing when the ConfigMap already holds exactly svc's keys, whatever else others wrote", () => {
    const current = stored({ theme: "on", other: "x" }, [
      svcEntry(["theme"]),
      { manager: "kubectl", operation: "Update" },
    ]);
    expect(configMapAction("shop", "ui", plan, current)).toEqual({ action: "none" });
  });

  it("applies when a value differs or svc still owns a key no flag writes", () => {
    expect(configMapAction("shop", "ui", plan, stored({ theme: "off" }, [svcEntry(["theme"])])).action).toBe(
      "apply",
    );
    expect(
      configMapAction("shop", "ui", plan, stored({ theme: "on", old: "1" }, [svcEntry(["theme", "old"])]))
        .action,
    ).toBe("apply");
  });

  it("deletes a ConfigMap only svc wrote once no flag writes it, at the version read", () => {
    expect(configMapAction("shop", "ui", undefined, stored({ theme: "on" }, [svcEntry(["theme"])]))).toEqual({
      action: "delete",
      resourceVersion: "7",
    });
  });

  it("withdraws only svc's keys from a ConfigMap someone else also writes, and leaves foreign ones alone", () => {
    const shared = stored({ theme: "on", other: "x" }, [
      svcEntry(["theme"]),
      { manager: "kubectl", operation: "Update" },
    ]);
    expect(configMapAction("shop", "ui", undefined, shared)).toEqual({
      action: "apply",
      configuration: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ui", namespace: "shop" } },
    });
    const foreign = stored({ other: "x" }, [{ manager: "kubectl", operation: "Update" }]);
    expect(configMapAction("shop", "ui", undefined, foreign)).toEqual({ action: "none" });
  });

  it("writes nothing into a ConfigMap svc did not create, even with a flag naming it", () => {
    const helm = stored({ theme: "dark" }, [{ manager: "helm", operation: "Update" }], {
      labels: { "app.kubernetes.io/managed-by": "Helm" },
      ownerReferences: [],
    });
    expect(configMapAction("shop", "ui", plan, helm)).toEqual({ action: "none" });
    const unlabelled = stored({}, [{ manager: "kubectl-create", operation: "Update" }], { labels: {} });
    expect(configMapAction("shop", "ui", plan, unlabelled)).toEqual({ action: "none" });
  });

  it("reads svc's keys from managedFields", () => {
    expect(
      svcOwnedKeys(
        stored({}, [
          svcEntry(["a", "b"]),
          { manager: "x", operation: "Apply", fieldsV1: { "f:data": { "f:c": {} } } },
        ]),
      ),
    ).toEqual(["a", "b"]);
  });
});

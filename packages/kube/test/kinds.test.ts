import { describe, expect, it } from "vitest";
import { DEPLOYMENTS, FLAGS, withoutManagedFields } from "../src/registry/kinds.ts";

const managedFields = [
  { manager: "kubectl", operation: "Apply", fieldsType: "FieldsV1", fieldsV1: { "f:spec": {} } },
];

describe("cached kinds", () => {
  it("keep workloads without managedFields, and everything else of them", () => {
    const deployment = DEPLOYMENTS.decode({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: "web",
        namespace: "shop",
        resourceVersion: "7",
        labels: { app: "web" },
        managedFields,
      },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: { spec: { containers: [{ name: "web" }] } },
      },
    });
    expect(deployment.metadata?.managedFields).toBeUndefined();
    expect(deployment.metadata).toMatchObject({
      name: "web",
      namespace: "shop",
      resourceVersion: "7",
      labels: { app: "web" },
    });
    expect(deployment.spec?.template.spec?.containers[0]?.name).toBe("web");
  });

  it("keep flags' managedFields: a flag's updatedAt is read from them", () => {
    const flag = FLAGS.decode({ metadata: { name: "f", namespace: "shop", managedFields }, spec: {} });
    expect(flag.metadata.managedFields).toEqual(managedFields);
  });

  it("leave objects without managedFields as they are", () => {
    const raw = { metadata: { name: "x" } };
    expect(withoutManagedFields(raw)).toBe(raw);
    expect(withoutManagedFields(null)).toBeNull();
  });
});

import { flagUpdatedAt } from "@svc/core";
import { describe, expect, it } from "vitest";
import { DEPLOYMENTS, FLAGS, NAMESPACES } from "../src/registry/kinds.ts";

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
const managedFields = [
  {
    manager: "kubectl",
    operation: "Apply",
    time: "2026-11-20T10:00:00Z",
    fieldsType: "FieldsV1",
    fieldsV1: { "f:spec": { "f:defaultValue": {} } },
  },
  {
    manager: "svc-operator",
    operation: "Apply",
    subresource: "status",
    time: "2026-11-21T10:00:00Z",
    fieldsType: "FieldsV1",
    fieldsV1: { "f:status": {} },
  },
];

describe("cached kinds", () => {
  it("cache workloads trimmed: what svc reads, not managedFields, kubectl's copy or probes", () => {
    const deployment = DEPLOYMENTS.decode({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: "web",
        namespace: "shop",
        resourceVersion: "7",
        labels: { app: "web" },
        annotations: { [LAST_APPLIED]: "{…}", "svc.io/flags-hash": "abc" },
        managedFields,
      },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: {
          spec: {
            containers: [{ name: "web", image: "shop/web:1", readinessProbe: { httpGet: { port: 80 } } }],
          },
        },
      },
      status: { readyReplicas: 1, conditions: [{ type: "Available", status: "True" }] },
    });
    expect(deployment).toEqual({
      metadata: {
        name: "web",
        namespace: "shop",
        resourceVersion: "7",
        labels: { app: "web" },
        annotations: { "svc.io/flags-hash": "abc" },
      },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: { spec: { containers: [{ name: "web", image: "shop/web:1" }] } },
      },
      status: { readyReplicas: 1 },
    });
  });

  it("cache flags with the managers of their spec (their updatedAt), without the rest of managedFields", () => {
    const raw = { metadata: { name: "f", namespace: "shop", managedFields }, spec: {} };
    const flag = FLAGS.decode(raw);
    expect(flag.metadata.managedFields).toEqual([
      { manager: "kubectl", operation: "Apply", time: "2026-11-20T10:00:00Z", fieldsV1: { "f:spec": {} } },
    ]);
    expect(flagUpdatedAt(flag.metadata)).toBe(flagUpdatedAt(FLAGS.decode(structuredClone(raw)).metadata));
    expect(flagUpdatedAt(flag.metadata)).toBe("2026-11-20T10:00:00.000Z");
  });

  it("cache namespaces without managedFields and kubectl's copy", () => {
    const namespace = NAMESPACES.decode({
      metadata: {
        name: "shop",
        labels: { team: "a" },
        annotations: { [LAST_APPLIED]: "{…}" },
        managedFields,
      },
    });
    expect(namespace.metadata).toEqual({ name: "shop", labels: { team: "a" } });
  });
});

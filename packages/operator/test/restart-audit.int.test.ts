// The strongest proof that a restart with nothing changed writes nothing: the kube-apiserver's
// own audit log, on a control plane of this file's own, records no write by anyone but
// Kubernetes' own controllers while a second operator starts and settles.
import { readFile } from "node:fs/promises";
import type { KubeConfig } from "@kubernetes/client-node";
import { startLocalControlPlane, type LocalControlPlane } from "@svc/localkube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, testNamespace } from "../../../test/support/kube.ts";
import type { RunningOperator } from "../src/index.ts";
import {
  createWorkloads,
  flagClient,
  operatorScope,
  startOperator,
  type OperatorScope,
} from "./support/operator.ts";

interface AuditEvent {
  verb: string;
  userAgent?: string;
  stage: string;
  objectRef?: { resource?: string; namespace?: string; name?: string; subresource?: string };
}

let controlPlane: LocalControlPlane;
let kc: KubeConfig;
let scope: OperatorScope;
let operator: RunningOperator | undefined;

async function auditedWrites(): Promise<AuditEvent[]> {
  const text = await readFile(controlPlane.auditLogPath ?? "", "utf8");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as AuditEvent)
    .filter((e) => e.stage === "ResponseComplete");
}

/** Writes not made by kube-controller-manager or the API server itself. */
const byClients = (events: AuditEvent[]) =>
  events.filter((e) => !/^kube-(controller-manager|apiserver)\//.test(e.userAgent ?? ""));
const describeEvent = (e: AuditEvent) =>
  `${e.verb} ${e.objectRef?.resource ?? ""}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ""} ${e.objectRef?.namespace ?? ""}/${e.objectRef?.name ?? ""} by ${e.userAgent ?? ""}`;

beforeAll(async () => {
  controlPlane = await startLocalControlPlane({ auditLog: true });
  kc = controlPlane.kubeConfig();
  const ns = await testNamespace(kc, "op-audit");
  scope = await operatorScope(kc, "op-audit", [ns]);
  await createWorkloads(kc, ns, [
    { kind: "Deployment", name: "web", labels: { app: "shop" } },
    { kind: "StatefulSet", name: "db", labels: { app: "shop" } },
    { kind: "DaemonSet", name: "agent", labels: { app: "shop" } },
  ]);
  const flags = flagClient(kc, ns);
  await flags.create("fast-path", {
    type: "boolean",
    defaultValue: "true",
    delivery: { envVar: { selector: { matchLabels: { app: "shop" } } } },
  });
  await flags.create("banner", {
    type: "string",
    defaultValue: "hello",
    delivery: {
      configMap: { configMapName: "shop-flags", key: "banner", selector: { matchLabels: { app: "shop" } } },
    },
  });
  await flags.create("limits", {
    type: "json",
    defaultValue: "{}",
    delivery: { sidecar: { selector: { matchLabels: { app: "shop" } } } },
  });
  operator = await startOperator(scope);
  for (const name of ["fast-path", "banner", "limits"])
    await eventually(
      () => flags.get(name),
      (f) => f.status?.phase === "Delivered",
      `${name} Delivered`,
    );
  await operator.idle();
}, 240_000);

afterAll(async () => {
  await operator?.close();
  await controlPlane.stop();
});

describe("operator restart, audited", () => {
  it("sends no write to the API server when nothing changed", async () => {
    // The first run's writes are in the log under the operator's user agent: the filter sees them.
    expect(byClients(await auditedWrites()).filter((e) => e.userAgent === "svc").length).toBeGreaterThan(0);
    await operator?.close();
    const mark = (await auditedWrites()).length;
    operator = await startOperator(scope);
    await operator.idle();
    // The controllers' own writes (ReplicaSets, status) may go on; nobody else writes.
    const after = byClients((await auditedWrites()).slice(mark));
    expect(after.map(describeEvent)).toEqual([]);
  });
});

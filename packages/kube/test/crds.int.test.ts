import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import {
  API_GROUP,
  API_VERSION,
  CLUSTER_CONNECTION,
  clusterConnectionFromRegistration,
  describeErrors,
  FEATURE_FLAG,
  FLAG_ROLLOUT,
  SYSTEM_NAMESPACE,
  validateClusterRegistration,
  type FeatureFlagSpec,
} from "@svc/core";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { ensureNamespace, installCrds } from "../src/index.ts";
import {
  invalidFlagCases,
  invalidFlagNames,
  validFlagSpec,
  validFlagSpecs,
} from "../../../test/support/flag-cases.ts";
import {
  invalidClusterCases,
  invalidClusterIds,
  validClusterSpec,
  validClusterSpecs,
} from "../../../test/support/cluster-cases.ts";
import { invalidRolloutCases, validRolloutSpecs } from "../../../test/support/rollout-cases.ts";
import { rejection, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";

interface FlagObject {
  metadata: { name: string; generation?: number };
  spec: FeatureFlagSpec;
  status?: Record<string, unknown>;
}

const kc = testKubeConfig();
const custom = kc.makeApiClient(CustomObjectsApi);
let namespace = "";

const flags = { group: API_GROUP, version: API_VERSION, plural: FEATURE_FLAG.plural };
const connections = { group: API_GROUP, version: API_VERSION, plural: CLUSTER_CONNECTION.plural };

function createFlag(name: string, spec: unknown) {
  return custom.createNamespacedCustomObject({
    ...flags,
    namespace,
    body: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: FEATURE_FLAG.kind, metadata: { name }, spec },
  }) as Promise<FlagObject>;
}

beforeAll(async () => {
  await installCrds(kc);
  // Installing again is a no-op, as for an operator restart or a second replica.
  await installCrds(kc);
  namespace = await testNamespace(kc, "crds");
});

describe("FeatureFlag CRD in the real API server", () => {
  it("stores a valid flag and reads it back, defaulting enabled to true", async () => {
    const created = await createFlag("new-checkout", validFlagSpec);
    expect(created.spec).toEqual({ ...validFlagSpec, enabled: true });
    const read = (await custom.getNamespacedCustomObject({
      ...flags,
      namespace,
      name: "new-checkout",
    })) as FlagObject;
    expect(read.spec).toEqual({ ...validFlagSpec, enabled: true });
    expect(read.metadata.generation).toBe(1);
  });

  it("accepts every valid spec the TypeScript validator accepts", async () => {
    for (const [i, spec] of validFlagSpecs.entries()) {
      const created = await createFlag(`valid-${i}`, spec);
      expect(created.spec).toMatchObject(spec);
    }
  });

  // The cases the CRD cannot check (JSON Logic contents, variant values) are refused by the API only.
  const crdCases = invalidFlagCases.filter((c) => c.apiOnly !== true);
  it.each(crdCases.map((c) => [c.why, c] as const))("rejects a flag with %s", async (_why, c) => {
    const { code, message } = await rejection(createFlag("invalid", c.spec));
    expect(code).toBe(422);
    // The API server names the field the same way our validator does (spec.<field>).
    const topField = c.field.split(".").slice(0, 2).join(".");
    expect(message).toContain(`spec.${topField}`);
  });

  it.each(invalidFlagNames)("rejects the flag name %j", async (name) => {
    const { code, message } = await rejection(createFlag(name, validFlagSpec));
    expect(code).toBe(422);
    expect(message).toContain("metadata.name");
  });

  it("keeps status in its own subresource", async () => {
    await createFlag("with-status", validFlagSpec);
    const status = {
      observedGeneration: 1,
      phase: "Delivered",
      delivery: "envVar",
      targets: [{ kind: "Deployment", name: "web", delivered: true, outcome: "delivered", hash: "abc" }],
    };
    await custom.patchNamespacedCustomObjectStatus(
      { ...flags, namespace, name: "with-status", body: { status } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    const read = (await custom.getNamespacedCustomObject({
      ...flags,
      namespace,
      name: "with-status",
    })) as FlagObject;
    expect(read.status).toEqual(status);
    // A status written through the main resource is ignored.
    await custom.patchNamespacedCustomObject(
      { ...flags, namespace, name: "with-status", body: { status: { phase: "Degraded" } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    const after = (await custom.getNamespacedCustomObject({
      ...flags,
      namespace,
      name: "with-status",
    })) as FlagObject;
    expect(after.status?.["phase"]).toBe("Delivered");
    // An invalid phase is refused by the status schema.
    const { code } = await rejection(
      custom.patchNamespacedCustomObjectStatus(
        { ...flags, namespace, name: "with-status", body: { status: { phase: "Exploded" } } },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      ),
    );
    expect(code).toBe(422);
  });
});

describe("ClusterConnection CRD in the real API server", () => {
  // svc-system is shared by the whole run: names are unique to this file, and removed after it.
  const suffix = randomBytes(3).toString("hex");
  const created: string[] = [];
  const create = (name: string, spec: unknown) => {
    const call = custom.createNamespacedCustomObject({
      ...connections,
      namespace: SYSTEM_NAMESPACE,
      body: {
        apiVersion: `${API_GROUP}/${API_VERSION}`,
        kind: CLUSTER_CONNECTION.kind,
        metadata: { name },
        spec,
      },
    }) as Promise<{ spec: Record<string, unknown> }>;
    created.push(name);
    return call;
  };

  beforeAll(async () => {
    // svc-system is shared by the whole run: created when missing, never deleted.
    await ensureNamespace(kc, SYSTEM_NAMESPACE);
  });

  afterAll(async () => {
    for (const name of created) {
      await custom
        .deleteNamespacedCustomObject({ ...connections, namespace: SYSTEM_NAMESPACE, name })
        .catch(() => undefined);
    }
  });

  it("stores a valid connection with the default resync period", async () => {
    const spec = { ...validClusterSpec, resyncPeriod: undefined };
    const stored = await create(`default-${suffix}`, spec);
    expect(stored.spec).toEqual({ ...spec, resyncPeriod: "300s" });
  });

  it("accepts every valid spec the TypeScript validator accepts", async () => {
    for (const [i, spec] of validClusterSpecs.entries()) {
      const stored = await create(`valid-${i}-${suffix}`, spec);
      expect(stored.spec).toMatchObject(spec);
    }
  });

  it.each(invalidClusterCases.map((c) => [c.why, c] as const))(
    "rejects a connection with %s",
    async (_why, c) => {
      const { code, message } = await rejection(create(`invalid-${suffix}`, c.spec));
      expect(code).toBe(422);
      // The API server names the field the same way our validator does (spec.<field>).
      expect(message).toContain(`spec.${c.field.split(".")[0] ?? ""}`);
    },
  );

  it("accepts a registration's ClusterConnection and credentials Secret as core builds them", async () => {
    const registration = validateClusterRegistration({
      id: `registered-${suffix}`,
      displayName: "Registered",
      apiServer: "https://10.0.0.2:6443",
      token: "t0k3n",
      caData: Buffer.from("-----BEGIN CERTIFICATE-----\n").toString("base64"),
      labels: { region: "eu" },
    });
    if (!registration.ok) throw new Error(describeErrors(registration.errors));
    const { connection, secret } = clusterConnectionFromRegistration(registration.value, SYSTEM_NAMESPACE);
    if (secret === undefined) throw new Error("an inline token must give a Secret");
    const core = kc.makeApiClient(CoreV1Api);
    const { name, namespace, labels, data } = secret;
    const storedSecret = await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name, labels }, data },
    });
    onTestFinished(async () => {
      await core.deleteNamespacedSecret({ name, namespace });
    });
    expect(Buffer.from(storedSecret.data?.["token"] ?? "", "base64").toString()).toBe("t0k3n");
    const stored = await create(connection.metadata.name, connection.spec);
    expect(stored.spec).toEqual({ ...connection.spec, resyncPeriod: "300s" });
  });

  it.each(invalidClusterIds)("rejects the cluster id %j", async (id) => {
    const { code, message } = await rejection(create(id, validClusterSpec));
    expect(code).toBe(422);
    expect(message).toContain("metadata.name");
  });
});

describe("FlagRollout CRD in the real API server", () => {
  const rollouts = { group: API_GROUP, version: API_VERSION, plural: FLAG_ROLLOUT.plural };
  const create = (name: string, spec: unknown) =>
    custom.createNamespacedCustomObject({
      ...rollouts,
      namespace,
      body: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: FLAG_ROLLOUT.kind, metadata: { name }, spec },
      // As kubectl apply sends it: an unknown field is refused, not dropped.
      fieldValidation: "Strict",
    }) as Promise<{ spec: Record<string, unknown> }>;

  it("accepts every valid spec the TypeScript validator accepts, defaulting bake times", async () => {
    for (const [i, spec] of validRolloutSpecs.entries()) {
      const stored = await create(`valid-${i}`, spec);
      expect(stored.spec).toMatchObject(spec);
      const waves = stored.spec["waves"] as { bakeSeconds: number }[];
      expect(waves.every((w) => Number.isInteger(w.bakeSeconds))).toBe(true);
    }
  });

  it.each(invalidRolloutCases.map((c, i) => [c.why, c, i] as const))(
    "rejects a plan with %s",
    async (_why, c, i) => {
      const { code, message } = await rejection(create(`invalid-${i}`, c.spec));
      // 400 for a field the schema does not know (strict decoding), 422 for a value it refuses.
      expect(code).toBe(c.unknownField === true ? 400 : 422);
      expect(message).toContain(`spec.${c.field.split(".")[0] ?? ""}`);
    },
  );
});

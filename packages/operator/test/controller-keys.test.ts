// The controller's queue keys: each kind written and read back, a namespace's parts named as
// such, and a key of no known kind refused for good.
import { parseWorkQueueKey, TerminalError } from "@svc/kube";
import { describe, expect, it } from "vitest";
import { controllerQueueKey, parseControllerKey, type ControllerKey } from "../src/controller-keys.ts";

describe("controller keys", () => {
  it.each<ControllerKey>([
    { kind: "FeatureFlag", namespace: "shop", name: "beta" },
    { kind: "Deployment", namespace: "shop", name: "web" },
    { kind: "StatefulSet", namespace: "shop", name: "db" },
    { kind: "DaemonSet", namespace: "shop", name: "agent" },
    { kind: "ConfigMap", namespace: "shop", name: "settings" },
    { kind: "SidecarRBAC", namespace: "shop" },
    { kind: "ManagedConfigMaps", namespace: "shop" },
  ])("reads back $kind", (key) => {
    const queued = controllerQueueKey("east", key);
    expect(parseWorkQueueKey(queued).cluster).toBe("east");
    expect(parseControllerKey(parseWorkQueueKey(queued))).toEqual(key);
  });

  it("names a namespace's sidecar RBAC and managed ConfigMaps by their own kinds, not an object's", () => {
    expect(controllerQueueKey("east", { kind: "SidecarRBAC", namespace: "shop" })).toBe(
      "east/shop/SidecarRBAC/",
    );
    expect(controllerQueueKey("east", { kind: "ManagedConfigMaps", namespace: "shop" })).toBe(
      "east/shop/ManagedConfigMaps/",
    );
  });

  it("refuses a key of no known kind for good (retrying cannot give it a reconciler)", () => {
    expect(() => parseControllerKey(parseWorkQueueKey("east/shop/RoleBinding/svc-flags-reader"))).toThrow(
      TerminalError,
    );
  });
});

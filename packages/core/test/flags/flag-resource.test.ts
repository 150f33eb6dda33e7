import { describe, expect, it } from "vitest";
import { configMapConflict, flagEnvVarName, flagMatchLabels, undeliverableReason } from "../../src/index.ts";
import { configMapFlag, envFlag, flag, sidecarFlag } from "../support/workloads.ts";

const web = { app: "web" };

describe("configMapConflict", () => {
  it("names the flag that already writes the same key of the same ConfigMap", () => {
    const stored = [configMapFlag("z-limit", "web-flags", web), configMapFlag("limit", "web-flags", web)];
    const candidate = flag("burst", {
      configMap: { configMapName: "web-flags", key: "limit", selector: { matchLabels: web } },
    });
    expect(configMapConflict(candidate, stored)).toBe(
      "key limit of ConfigMap web-flags is already written by flag limit",
    );
  });

  it("allows another key, another ConfigMap, another namespace, and the flag itself", () => {
    const stored = [configMapFlag("limit", "web-flags", web)];
    const sameKey = (name: string, configMapName: string, namespace = "shop") =>
      flag(
        name,
        { configMap: { configMapName, key: "limit", selector: { matchLabels: web } } },
        {},
        namespace,
      );
    expect(configMapConflict(configMapFlag("burst", "web-flags", web), stored)).toBeUndefined();
    expect(configMapConflict(sameKey("burst", "api-flags"), stored)).toBeUndefined();
    expect(configMapConflict(sameKey("burst", "web-flags", "other"), stored)).toBeUndefined();
    expect(configMapConflict(sameKey("limit", "web-flags"), stored)).toBeUndefined();
    expect(configMapConflict(envFlag("limit", web), stored)).toBeUndefined();
  });
});

describe("flag facts", () => {
  it("reads the selector of any delivery kind and the env var name", () => {
    expect(flagMatchLabels(sidecarFlag("a", web).spec)).toEqual(web);
    expect(flagEnvVarName(envFlag("new-checkout", web))).toBe("FLAG_NEW_CHECKOUT");
    expect(flagEnvVarName(sidecarFlag("a", web))).toBeUndefined();
  });

  it("finds a json value that is not JSON undeliverable", () => {
    expect(undeliverableReason(envFlag("a", web, { type: "json", defaultValue: "{" }).spec)).toContain(
      "JSON",
    );
    expect(
      undeliverableReason(envFlag("a", web, { type: "json", defaultValue: "[1]" }).spec),
    ).toBeUndefined();
  });
});

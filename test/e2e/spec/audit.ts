// SPEC.md's Audit section: the log is listable by every role and filtered by resource type,
// action and cluster. The event's fields are not shown by SPEC.md: those filtered on are
// DESIGN.md §4's (resource, action, cluster).
import { expect } from "vitest";
import { expectError, expectJson, tokensByRole, type SpecApi } from "./api.ts";

interface AuditEvent {
  resource: string;
  action: string;
  cluster: string | null;
  resourceName: string;
}

export async function walkAudit(api: SpecApi, adminToken: string): Promise<void> {
  const tokens = await tokensByRole(api, adminToken, "spec-audit");
  const flag = {
    name: "spec-audited",
    namespace: "demo",
    clusterId: "local",
    type: "integer",
    defaultValue: "1",
    description: "audit walk",
    delivery: { envVar: { selector: { matchLabels: { app: "spec-none" } } } },
  };
  expect((await api.call("POST", "/api/v1/flags", tokens.editor, flag)).status).toBe(201);
  const at = "/api/v1/flags/demo/spec-audited?clusterId=local";
  expect((await api.call("POST", at.replace("?", "/toggle?"), tokens.editor)).status).toBe(200);
  expect((await api.call("DELETE", at, adminToken)).status).toBe(200);

  const list = async (query: string, token = tokens.viewer) => {
    const events = expectJson(await api.call("GET", `/api/v1/audit${query}`, token), 200) as AuditEvent[];
    expect(Array.isArray(events)).toBe(true);
    return events;
  };
  for (const token of Object.values(tokens)) expect((await list("", token)).length).toBeGreaterThan(0);

  const toggles = await list("?resource=flag&action=toggle&cluster=local");
  expect(toggles.map((e) => e.resourceName)).toContain("spec-audited");
  expect(toggles.every((e) => e.resource === "flag" && e.action === "toggle" && e.cluster === "local")).toBe(
    true,
  );

  const flagEvents = await list("?resource=flag");
  expect(new Set(flagEvents.map((e) => e.resource))).toEqual(new Set(["flag"]));
  expect(flagEvents.filter((e) => e.resourceName === "spec-audited").map((e) => e.action)).toEqual(
    expect.arrayContaining(["create", "toggle", "delete"]),
  );
  const userCreations = await list("?resource=user&action=create");
  expect(userCreations.every((e) => e.resource === "user" && e.action === "create")).toBe(true);
  expect(userCreations.map((e) => e.resourceName)).toContain("spec-audit-viewer");
  const deletions = await list("?action=delete");
  expect(deletions.length).toBeGreaterThan(0);
  expect(deletions.every((e) => e.action === "delete")).toBe(true);
  expect(await list("?cluster=nowhere")).toEqual([]);
  const localFlagEvents = await list("?resource=flag&cluster=local");
  expect(localFlagEvents.every((e) => e.resource === "flag" && e.cluster === "local")).toBe(true);
  expect(localFlagEvents.map((e) => e.resourceName)).toContain("spec-audited");
  expectError(await api.call("GET", "/api/v1/audit?nonsense=1", tokens.viewer), 400, /nonsense/);
  expectError(await api.call("GET", "/api/v1/audit?resource=bogus", tokens.viewer), 400, /resource/);
  expectError(await api.call("GET", "/api/v1/audit?action=bogus", tokens.viewer), 400, /action/);
}

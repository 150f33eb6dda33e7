// Issue 37 item 6: viewers see the names, not the values, of workloads' literal environment
// variables; the values svc delivered stay visible to all; editors and admins see them.
import { describe, expect, it } from "vitest";
import { discoveredWorkload, planWorkload, REDACTED, workloadDetail } from "../../src/index.ts";
import { CLUSTER, applyPlan, envFlag, workload } from "../support/workloads.ts";

const web = { app: "web" };
const databaseUrl = { name: "DATABASE_URL", value: "postgres://shop:s3cret@db:5432/shop" };
const ownEnv = [
  databaseUrl,
  { name: "SENTRY_DSN", value: "https://key@sentry.example/1" },
  { name: "FLAG_LOOKALIKE", value: "set by the workload, not by svc" },
  { name: "EMPTY" },
  { name: "API_TOKEN", value: "t" },
  { name: "DB_URL", valueFrom: { secretKeyRef: { name: "db", key: "url" } } },
];
const bare = workload("web", {
  labels: web,
  containers: [{ name: "app", image: "shop/web:1", env: ownEnv }],
  initContainers: [{ name: "migrate", image: "shop/migrate:1", env: [databaseUrl] }],
});
const flags = [
  envFlag("checkout", web, { defaultValue: "true" }),
  envFlag("theme", web, { type: "string", defaultValue: "dark" }),
];
// The workload as svc left it: FLAG_CHECKOUT and FLAG_THEME injected into its containers (not init ones).
const delivered = applyPlan(bare, planWorkload(bare, flags, CLUSTER));

const VIEWER = { literalValues: false };
const EDITOR = { literalValues: true };

const envOf = (view: { containers: { name: string; env: unknown[] }[] }, container: string) =>
  view.containers.find((c) => c.name === container)?.env;

describe("what a reader sees of literal env values", () => {
  it("shows a viewer each name, but no value svc did not deliver", () => {
    const view = discoveredWorkload(CLUSTER, delivered, flags, VIEWER);
    expect(envOf(view, "app")).toEqual([
      { name: "DATABASE_URL", value: REDACTED },
      { name: "SENTRY_DSN", value: REDACTED },
      { name: "FLAG_LOOKALIKE", value: REDACTED },
      { name: "EMPTY", value: REDACTED },
      { name: "API_TOKEN", value: REDACTED },
      { name: "DB_URL", valueFrom: { secretKeyRef: { name: "db", key: "url" } } },
      { name: "FLAG_CHECKOUT", value: "true" },
      { name: "FLAG_THEME", value: "dark" },
    ]);
    expect(envOf(view, "migrate")).toEqual([{ name: "DATABASE_URL", value: REDACTED }]);
    const text = JSON.stringify(workloadDetail(CLUSTER, delivered, flags, VIEWER));
    for (const secret of ["s3cret", "sentry.example", "set by the workload"])
      expect(text).not.toContain(secret);
  });

  it("shows an editor (or admin) the literal values, secret-looking names still redacted", () => {
    const view = workloadDetail(CLUSTER, delivered, flags, EDITOR);
    expect(envOf(view, "app")).toEqual([
      { name: "DATABASE_URL", value: "postgres://shop:s3cret@db:5432/shop" },
      { name: "SENTRY_DSN", value: "https://key@sentry.example/1" },
      { name: "FLAG_LOOKALIKE", value: "set by the workload, not by svc" },
      { name: "EMPTY", value: "" },
      { name: "API_TOKEN", value: REDACTED },
      { name: "DB_URL", valueFrom: { secretKeyRef: { name: "db", key: "url" } } },
      { name: "FLAG_CHECKOUT", value: "true" },
      { name: "FLAG_THEME", value: "dark" },
    ]);
  });
});

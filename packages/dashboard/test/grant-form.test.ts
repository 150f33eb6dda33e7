// The users page's access form: grants typed as comma-separated lists, read into core's Grant,
// and refused as typed by core's bounds and patterns (the field the API would name).
import { UpdateUserBody } from "@svc/core";
import { describeGrant, GRANTS_MAX } from "@svc/core/browser";
import Compile from "typebox/compile";
import { describe, expect, it } from "vitest";
import {
  accessProblem,
  emptyGrant,
  formFromGrant,
  grantFormProblems,
  grantFromForm,
} from "../app/users/grant-form.ts";

describe("grantFromForm and formFromGrant", () => {
  it("reads lists, labels and blanks (all) and writes them back", () => {
    const form = {
      role: "editor" as const,
      clusters: " staging, prod,",
      clusterLabels: "env=prod, team = shop",
      namespaces: "shop-*",
    };
    const grant = grantFromForm(form);
    expect(grant).toEqual({
      role: "editor",
      clusters: ["staging", "prod"],
      clusterLabels: { env: "prod", team: "shop" },
      namespaces: ["shop-*"],
    });
    expect(grantFromForm(formFromGrant(grant))).toEqual(grant);
    expect(grantFromForm(emptyGrant())).toEqual({ role: "editor" });
  });
});

describe("grantFormProblems", () => {
  it.each([
    ["clusters", "Staging", /not a cluster id/],
    ["clusters", "a, a", /twice/],
    ["clusterLabels", "env", /not key=value/],
    ["clusterLabels", "env=no good", /not key=value/],
    ["namespaces", "Shop_*", /not a namespace or pattern/],
    ["namespaces", "shop, shop", /twice/],
  ] as const)("%s %j", (field, text, message) => {
    expect(grantFormProblems({ ...emptyGrant(), [field]: text })[field]).toMatch(message);
  });

  it("accepts names, patterns and labels the API accepts", () => {
    expect(
      grantFormProblems({
        role: "viewer",
        clusters: "local",
        clusterLabels: "svc.io/env=prod",
        namespaces: "*-shop, a*b",
      }),
    ).toEqual({});
  });
});

describe("accessProblem", () => {
  it('refuses "none" without a grant, too many grants, and a grant with a bad field', () => {
    expect(accessProblem("viewer", [])).toBeUndefined();
    expect(accessProblem("none", [])).toMatch(/at least one grant/);
    expect(accessProblem("none", [emptyGrant()])).toBeUndefined();
    expect(accessProblem("none", Array.from({ length: GRANTS_MAX + 1 }, emptyGrant))).toMatch(/at most/);
    expect(accessProblem("editor", [{ ...emptyGrant(), clusters: "NO" }])).toMatch(/correct the grants/);
  });

  it("refuses access whose body the API's schema refuses", () => {
    const grants = [{ ...emptyGrant(), namespaces: "shop, Shop_1" }];
    const body = { role: "none", grants: grants.map(grantFromForm) };
    expect(Compile(UpdateUserBody).Check(body)).toBe(false);
    expect(accessProblem("none", grants)).toBeDefined();
    const fine = [{ ...emptyGrant(), namespaces: "shop, shop-*" }];
    expect(Compile(UpdateUserBody).Check({ role: "none", grants: fine.map(grantFromForm) })).toBe(true);
    expect(accessProblem("none", fine)).toBeUndefined();
  });
});

it("describeGrant (core) says what a grant allows in one line", () => {
  expect(describeGrant({ role: "editor", clusters: ["staging"], namespaces: ["shop", "shop-*"] })).toBe(
    "editor in cluster staging, namespace shop, shop-*",
  );
  expect(describeGrant({ role: "viewer", clusterLabels: { env: "prod" } })).toBe(
    "viewer in every cluster labelled env=prod, every namespace",
  );
});

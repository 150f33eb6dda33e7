import { ClusterRegistrationBody } from "@svc/core";
import Compile from "typebox/compile";
import { describe, expect, it } from "vitest";
import { envSource } from "../app/clusters/env-source.ts";
import {
  EMPTY_REGISTER_FORM,
  registerBody,
  registerProblems,
  registerRefusals,
  type RegisterForm,
} from "../app/clusters/register-model.ts";

const base: RegisterForm = {
  ...EMPTY_REGISTER_FORM,
  id: "prod-eu",
  displayName: "Production EU",
  apiServer: "https://10.0.0.1:6443",
  kubeconfig: "apiVersion: v1\nkind: Config\n",
};

describe("registerBody", () => {
  it("sends only the credential of the chosen kind", () => {
    expect(registerBody(base)).toEqual({
      id: "prod-eu",
      displayName: "Production EU",
      apiServer: "https://10.0.0.1:6443",
      authMethod: "kubeconfig",
      kubeconfig: "apiVersion: v1\nkind: Config\n",
    });
    expect(registerBody({ ...base, authMethod: "oidc", token: " t0k ", caData: "" })).toEqual({
      id: "prod-eu",
      displayName: "Production EU",
      apiServer: "https://10.0.0.1:6443",
      authMethod: "oidc",
      token: "t0k",
    });
    expect(
      registerBody({ ...base, authMethod: "serviceaccount", source: "secret", secretName: "creds" }),
    ).toMatchObject({
      authMethod: "serviceaccount",
      credentialRef: { name: "creds", key: "token" },
    });
  });

  it("reads namespaces, resync period and labels", () => {
    expect(
      registerBody({
        ...base,
        namespaces: "shop, payments  web",
        resyncPeriod: "5m",
        labels: "region=eu\n\ntier = prod",
      }),
    ).toMatchObject({
      namespaces: ["shop", "payments", "web"],
      resyncPeriod: "5m",
      labels: { region: "eu", tier: "prod" },
    });
  });
});

describe("registerProblems", () => {
  it("accepts a complete form", () => {
    expect(registerProblems(base)).toEqual({});
  });

  it("names each bad field as the API would", () => {
    const problems = registerProblems({
      ...base,
      id: "Prod",
      apiServer: "10.0.0.1:6443",
      kubeconfig: " ",
      namespaces: "Shop",
      resyncPeriod: "5 minutes",
      labels: "bad key=x",
    });
    expect(Object.keys(problems).sort()).toEqual([
      "apiServer",
      "id",
      "kubeconfig",
      "labels",
      "namespaces",
      "resyncPeriod",
    ]);
  });

  it("refuses http://, whose credentials would travel unencrypted (insecure options are for the API)", () => {
    expect(registerProblems({ ...base, apiServer: "http://10.0.0.1:8080" })["apiServer"]).toMatch(
      /unencrypted/,
    );
  });

  it("sends trustSystemCAs only when the box is ticked", () => {
    const token = { ...base, authMethod: "serviceaccount" as const, token: "t" };
    expect(registerBody(token)).not.toHaveProperty("trustSystemCAs");
    expect(registerBody({ ...token, trustSystemCAs: true })).toMatchObject({ trustSystemCAs: true });
  });

  it("asks for a token or a Secret name according to the source", () => {
    expect(registerProblems({ ...base, authMethod: "oidc" })["token"]).toBeDefined();
    expect(registerProblems({ ...base, source: "secret" })["credentialRef.name"]).toBeDefined();
  });
});

describe("registerRefusals", () => {
  it("is empty for a body the API's schema takes", () => {
    expect(Compile(ClusterRegistrationBody).Check(registerBody(base))).toBe(true);
    expect(registerRefusals(base)).toEqual([]);
    expect(registerRefusals(EMPTY_REGISTER_FORM)).toEqual([]);
  });

  it("refuses a body the API's schema refuses, naming the field", () => {
    const form = { ...base, authMethod: "oidc" as const, token: "t0k", caData: "not base64!" };
    expect(Compile(ClusterRegistrationBody).Check(registerBody(form))).toBe(false);
    expect(registerProblems(form)).toEqual({});
    expect(registerRefusals(form)).toEqual([
      "caData: refused by the API's schema: must be base64 of the API server's PEM CA certificate (as certificate-authority-data)",
    ]);
  });
});

describe("envSource", () => {
  it("names the reference, never a value", () => {
    expect(envSource({ secretKeyRef: { name: "db", key: "password" } })).toBe("from Secret db, key password");
    expect(envSource({ configMapKeyRef: { name: "cfg", key: "mode" } })).toBe("from ConfigMap cfg, key mode");
    expect(envSource({ fieldRef: { fieldPath: "metadata.name" } })).toBe("from field metadata.name");
    expect(envSource("odd")).toBe("from a reference");
  });
});

import { describe, expect, it } from "vitest";
import { decideHealth, describeFailure } from "../src/registry/health.ts";
import { KubeApiError } from "@svc/kube-wire";

const synced = { synced: true };
const unreachable = { synced: true, failure: { kind: "unreachable" as const, message: "cannot reach" } };
const rejected = { synced: false, failure: { kind: "error" as const, message: "401" } };

describe("decideHealth", () => {
  it("is syncing until every source has synced, then ready", () => {
    expect(decideHealth({ sources: [synced, { synced: false }] })).toEqual({ state: "syncing" });
    expect(decideHealth({ sources: [synced, synced] })).toEqual({ state: "ready" });
  });

  it("is unreachable when any source's latest attempt failed to reach the API server", () => {
    expect(decideHealth({ sources: [synced, unreachable] })).toEqual({
      state: "unreachable",
      message: "cannot reach",
    });
  });

  it("prefers an error (someone must act) over an outage", () => {
    expect(decideHealth({ sources: [unreachable, rejected] })).toEqual({ state: "error", message: "401" });
  });

  it("is an error when the credentials cannot be used at all", () => {
    expect(decideHealth({ configError: "Secret x not found", sources: [synced] })).toEqual({
      state: "error",
      message: "Secret x not found",
    });
  });
});

function networkError(code: string, message: string) {
  return new TypeError("fetch failed", { cause: Object.assign(new Error(message), { code }) });
}

describe("describeFailure", () => {
  it("calls network failures and timeouts unreachable", () => {
    expect(
      describeFailure(networkError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:1"), "list x").kind,
    ).toBe("unreachable");
    expect(describeFailure(new DOMException("timed out", "TimeoutError"), "list x")).toEqual({
      kind: "unreachable",
      message: "the API server did not answer list x in time",
    });
    expect(describeFailure(new KubeApiError(503, "etcd down"), "list x").kind).toBe("unreachable");
  });

  it("calls rejected credentials, refused permissions and TLS failures errors", () => {
    expect(describeFailure(new KubeApiError(401, "Unauthorized"), "list x")).toEqual({
      kind: "error",
      message: "the API server rejected the credentials (401 Unauthorized)",
    });
    expect(describeFailure(new KubeApiError(403, "forbidden: user u"), "list deployments")).toEqual({
      kind: "error",
      message: "the credentials may not list deployments: forbidden: user u",
    });
    expect(
      describeFailure(networkError("SELF_SIGNED_CERT_IN_CHAIN", "self-signed certificate"), "x").kind,
    ).toBe("error");
    expect(describeFailure(networkError("ERR_TLS_CERT_ALTNAME_INVALID", "altname"), "x").kind).toBe("error");
  });

  it("tells a 410 Gone apart: list again, no failure", () => {
    expect(describeFailure(new KubeApiError(410, "too old resource version"), "watch x").kind).toBe("gone");
  });
});

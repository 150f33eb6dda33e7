import { describe, expect, it } from "vitest";
import { parseDashboardConfig } from "../src/config.ts";
import { upstreamHeaders } from "../src/headers.ts";

describe("the dashboard as the API's proxy", () => {
  it("sends the API its proxy secret, and never one a browser sent", () => {
    const sent = { "x-svc-proxy-secret": "guessed", "x-forwarded-for": "203.0.113.1" };
    expect(upstreamHeaders("POST", sent, "198.51.100.2")).toEqual({ "x-forwarded-for": "198.51.100.2" });
    expect(upstreamHeaders("POST", sent, "198.51.100.2", "s".repeat(48))).toEqual({
      "x-forwarded-for": "198.51.100.2",
      "x-svc-proxy-secret": "s".repeat(48),
    });
  });

  it("believes X-Forwarded-For only from the proxies listed in SVC_TRUSTED_PROXIES", () => {
    const listed = parseDashboardConfig({ SVC_TRUSTED_PROXIES: "10.42.0.0/16, 192.0.2.1,fd00::/8" });
    expect(listed.ok && listed.value.trustedProxies).toEqual(["10.42.0.0/16", "192.0.2.1", "fd00::/8"]);
    const none = parseDashboardConfig({});
    expect(none.ok && none.value.trustedProxies).toBeUndefined();
    const bad = parseDashboardConfig({ SVC_TRUSTED_PROXIES: "ingress-nginx,10.0.0.0/33" });
    expect(bad.ok ? [] : bad.errors).toEqual([
      { field: "SVC_TRUSTED_PROXIES", message: "not an address or CIDR: ingress-nginx, 10.0.0.0/33" },
    ]);
  });
});

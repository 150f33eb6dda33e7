import { describe, expect, it } from "vitest";
import { clientAddress, PROXY_SECRET_HEADER } from "../src/http/client-address.ts";

describe("clientAddress", () => {
  const secret = "a".repeat(48);

  it("takes the last X-Forwarded-For entry only with the proxy secret", () => {
    const forwarded = { "x-forwarded-for": "203.0.113.5, 198.51.100.9" };
    expect(clientAddress("10.1.2.3", { ...forwarded, [PROXY_SECRET_HEADER]: secret }, secret)).toBe(
      "198.51.100.9",
    );
    expect(clientAddress("10.1.2.3", forwarded, secret)).toBe("10.1.2.3");
    expect(clientAddress("10.1.2.3", { ...forwarded, [PROXY_SECRET_HEADER]: `${secret}b` }, secret)).toBe(
      "10.1.2.3",
    );
    expect(clientAddress("10.1.2.3", { ...forwarded, [PROXY_SECRET_HEADER]: "" }, undefined)).toBe(
      "10.1.2.3",
    );
  });

  it("keeps the connection's address when the forwarded one is not an address", () => {
    const headers = { [PROXY_SECRET_HEADER]: secret, "x-forwarded-for": "<script>" };
    expect(clientAddress("10.1.2.3", headers, secret)).toBe("10.1.2.3");
    expect(clientAddress("10.1.2.3", { [PROXY_SECRET_HEADER]: secret }, secret)).toBe("10.1.2.3");
  });
});

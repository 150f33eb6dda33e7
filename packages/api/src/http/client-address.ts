import { timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";

/**
 * svc's own dashboard proves it is the proxy in front of the API with this header (the secret
 * both get from one Secret, SVC_PROXY_SECRET): its pod's address is not known in advance, so it
 * cannot be listed in SVC_TRUSTED_PROXIES as an ingress controller's can.
 */
export const PROXY_SECRET_HEADER = "x-svc-proxy-secret";

function sameSecret(given: string, secret: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The client's address for the audit log and the login throttle: the last X-Forwarded-For entry
 * when the request carries the proxy secret (the dashboard replaces the header with the one
 * address it saw), else `address` (the connection's, or Fastify's reading of SVC_TRUSTED_PROXIES).
 */
export function clientAddress(
  address: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  secret: string | undefined,
): string {
  const given = headers[PROXY_SECRET_HEADER];
  if (secret === undefined || typeof given !== "string" || !sameSecret(given, secret)) return address;
  const forwarded = headers["x-forwarded-for"];
  const last = (typeof forwarded === "string" ? forwarded : "").split(",").at(-1)?.trim() ?? "";
  return isIP(last) === 0 ? address : last;
}

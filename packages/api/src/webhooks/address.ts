// SSRF: a webhook URL must not reach the API's own host, the cloud's metadata service or the
// cluster's internal network unless the configuration says so. The check is on the resolved
// address (a name may point anywhere), at creation and again at every connection, which is
// made to the address that was checked (a name re-resolved later could point elsewhere).
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

/** 16 bytes; IPv4 as its IPv4-mapped IPv6 form, so one table covers both. */
type Bytes = readonly number[];

function v4Bytes(ip: string): number[] {
  return ip.split(".").map(Number);
}

/** The 16 bytes of an IPv6 address in any textual form (`::`, an embedded dotted quad). */
function v6Bytes(ip: string): number[] {
  let text = ip.toLowerCase().replace(/%.*$/, "");
  const tail: number[] = [];
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1] !== undefined) {
    tail.push(...v4Bytes(dotted[1]));
    text = `${text.slice(0, dotted.index)}:0:0`;
  }
  const [head = "", rest] = text.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = all.flatMap((g) => [g >> 8, g & 0xff]);
  return tail.length === 4 ? [...bytes.slice(0, 12), ...tail] : bytes;
}

function bytesOf(ip: string): Bytes | undefined {
  const family = isIP(ip);
  if (family === 4) return [...Array<number>(10).fill(0), 0xff, 0xff, ...v4Bytes(ip)];
  return family === 6 ? v6Bytes(ip) : undefined;
}

export interface Network {
  bytes: Bytes;
  bits: number;
}

/** `a.b.c.d/n` or `v6/n` (a bare address is /32 or /128); undefined when malformed. */
export function parseNetwork(cidr: string): Network | undefined {
  const [ip = "", bitsText] = cidr.trim().split("/");
  const bytes = bytesOf(ip);
  if (bytes === undefined) return undefined;
  const v4 = isIP(ip) === 4;
  const max = v4 ? 32 : 128;
  const bits = bitsText === undefined ? max : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : NaN;
  if (!(bits >= 0 && bits <= max)) return undefined;
  return { bytes, bits: v4 ? bits + 96 : bits };
}

function contains(network: Network, bytes: Bytes): boolean {
  for (let bit = 0; bit < network.bits; bit++) {
    const mask = 0x80 >> (bit % 8);
    if (((network.bytes[bit >> 3] ?? 0) & mask) !== ((bytes[bit >> 3] ?? 0) & mask)) return false;
  }
  return true;
}

/** Addresses a webhook may not reach by default, each with what it is. */
const REFUSED: readonly (readonly [string, string])[] = [
  ["127.0.0.0/8", "a loopback address"],
  ["::1/128", "a loopback address"],
  ["169.254.0.0/16", "a link-local address (cloud metadata services live there)"],
  ["fe80::/10", "a link-local address"],
  ["10.0.0.0/8", "a private address"],
  ["172.16.0.0/12", "a private address"],
  ["192.168.0.0/16", "a private address"],
  ["fc00::/7", "a private (unique local) address"],
  ["100.64.0.0/10", "a shared (carrier-grade NAT) address"],
  ["0.0.0.0/8", "an unspecified address"],
  ["::/128", "an unspecified address"],
  ["224.0.0.0/4", "a multicast address"],
  ["ff00::/8", "a multicast address"],
  ["240.0.0.0/4", "a reserved address"],
  ["192.0.0.0/24", "a reserved address"],
  ["198.18.0.0/15", "a reserved (benchmarking) address"],
];
const REFUSED_NETWORKS = REFUSED.map(([cidr, what]) => ({ network: parseNetwork(cidr), what }));

/**
 * Why `ip` may not be a webhook's destination, or undefined when it may: a public address, or
 * one inside a network the configuration allows (SVC_WEBHOOK_ALLOWED_NETWORKS).
 */
export function addressRefusal(ip: string, allowed: readonly Network[]): string | undefined {
  const bytes = bytesOf(ip);
  if (bytes === undefined) return "not an IP address";
  if (allowed.some((network) => contains(network, bytes))) return undefined;
  return REFUSED_NETWORKS.find(({ network }) => network !== undefined && contains(network, bytes))?.what;
}

export type Resolution = { ok: true; address: string; family: 4 | 6 } | { ok: false; error: string };

/**
 * The address to connect to for `hostname`: every address it resolves to must be allowed (an
 * attacker's name may hold a public and a private one, and the connection may pick either).
 */
export async function resolveAllowed(
  hostname: string,
  allowed: readonly Network[],
  resolve: (host: string) => Promise<{ address: string; family: number }[]> = (host) =>
    lookup(host, { all: true, order: "verbatim" }),
): Promise<Resolution> {
  const host = hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(host) === 0 ? await resolve(host) : [{ address: host, family: isIP(host) }];
  } catch {
    return { ok: false, error: `${host} does not resolve` };
  }
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, allowed);
    if (refusal !== undefined) {
      const which = address === host ? "" : ` resolves to ${address}, which`;
      return {
        ok: false,
        error: `${host}${which} is ${refusal}: refused (SVC_WEBHOOK_ALLOWED_NETWORKS allows chosen networks)`,
      };
    }
  }
  const first = addresses[0];
  if (first === undefined) return { ok: false, error: `${host} does not resolve` };
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}

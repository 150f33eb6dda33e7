// The dashboard as the edge over real HTTP on loopback: what it tells the API about the browser.
// X-Forwarded-For from a listed ingress controller names the browser; from anyone else it is
// replaced by the address that connected; the proxy secret goes along, a browser's never.
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CSP_NONCE_PLACEHOLDER, PRODUCTION_STAMP } from "../src/build-output.ts";
import { buildDashboardServer, type DashboardServer } from "../src/index.ts";

const SECRET = "p".repeat(48);
let dist: string;
let upstream: Server;
let dashboard: DashboardServer;
let dashboardUrl = "";
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  dist = await mkdtemp(join(tmpdir(), "svc-dashboard-dist-"));
  await mkdir(join(dist, "assets"));
  await writeFile(join(dist, "index.html"), `<meta property="csp-nonce" nonce="${CSP_NONCE_PLACEHOLDER}">`);
  await writeFile(join(dist, PRODUCTION_STAMP), "production build\n");
  // Stands in for the API server: records the headers the dashboard passes on.
  upstream = createServer((req, res) => {
    seen.push(req.headers);
    res.setHeader("content-type", "application/json");
    res.end("{}");
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const apiUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  dashboard = await buildDashboardServer(
    {
      host: "127.0.0.1",
      port: 0,
      apiUrl,
      apiTimeoutMs: 5000,
      logLevel: "silent",
      trustedProxies: ["127.0.0.2"],
      proxySecret: SECRET,
    },
    { distDir: dist },
  );
  dashboardUrl = (await dashboard.listen()).url;
});

afterAll(async () => {
  await dashboard.close();
  await new Promise((resolve) => upstream.close(resolve));
  await rm(dist, { recursive: true, force: true });
});

/** A GET of /api/v1/auth/methods from `localAddress`; the headers the API got for it. */
async function passedOn(localAddress: string, headers: Record<string, string>): Promise<IncomingHttpHeaders> {
  const before = seen.length;
  await new Promise<void>((resolve, reject) => {
    const req = request(`${dashboardUrl}/api/v1/auth/methods`, { localAddress, headers }, (res) => {
      res.resume();
      res.on("end", resolve);
    });
    req.on("error", reject);
    req.end();
  });
  const got = seen[before];
  if (got === undefined) throw new Error("the request did not reach the API");
  return got;
}

describe("the dashboard's X-Forwarded-For", () => {
  it("names the browser behind a listed ingress controller", async () => {
    const headers = await passedOn("127.0.0.2", { "x-forwarded-for": "203.0.113.8" });
    expect(headers["x-forwarded-for"]).toBe("203.0.113.8");
    expect(headers["x-svc-proxy-secret"]).toBe(SECRET);
  });

  it("is the connecting address for anyone else, whatever they send", async () => {
    const headers = await passedOn("127.0.0.3", {
      "x-forwarded-for": "203.0.113.8",
      "x-svc-proxy-secret": "guessed",
    });
    expect(headers["x-forwarded-for"]).toBe("127.0.0.3");
    expect(headers["x-svc-proxy-secret"]).toBe(SECRET);
  });
});

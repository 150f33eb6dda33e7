// `svc dashboard` itself, through Fastify's inject: what it serves, what it passes to the API,
// its headers, and what the browser gets when the API server is not there.
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CSP_NONCE_PLACEHOLDER, PRODUCTION_STAMP } from "../src/build-output.ts";
import { buildDashboardServer, parseDashboardConfig, type DashboardServer } from "../src/index.ts";

let dist: string;
let server: DashboardServer;
const ASSET = "/assets/index-AbCd1234.js";

beforeAll(async () => {
  dist = await mkdtemp(join(tmpdir(), "svc-dashboard-dist-"));
  await mkdir(join(dist, "assets"));
  await writeFile(
    join(dist, "index.html"),
    `<meta property="csp-nonce" nonce="${CSP_NONCE_PLACEHOLDER}"><div id="root"></div>`,
  );
  await writeFile(join(dist, ASSET), "console.log(1)");
  await writeFile(join(dist, `${ASSET}.gz`), gzipSync("console.log(1)"));
  await writeFile(join(dist, PRODUCTION_STAMP), "production build\n");
  // Nothing listens on port 1 of loopback: the API server is unreachable.
  server = await buildDashboardServer(
    { host: "127.0.0.1", port: 0, apiUrl: "http://127.0.0.1:1", apiTimeoutMs: 2000, logLevel: "silent" },
    { distDir: dist },
  );
});

afterAll(async () => {
  await server.close();
  await rm(dist, { recursive: true, force: true });
});

describe("svc dashboard", () => {
  it("serves the app with its security headers, and the app for its own routes", async () => {
    for (const url of ["/", "/flags/local/shop/new-checkout"]) {
      const reply = await server.app.inject({ url });
      expect(reply.statusCode).toBe(200);
      expect(reply.body).toContain('<div id="root">');
      expect(reply.headers["cache-control"]).toBe("no-cache");
      expect(reply.headers["content-security-policy"]).toContain("script-src 'self'");
      expect(reply.headers["content-security-policy"]).not.toContain("unsafe-inline");
      expect(reply.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
      expect(reply.headers["x-frame-options"]).toBe("DENY");
      expect(reply.headers["x-content-type-options"]).toBe("nosniff");
      expect(reply.headers["referrer-policy"]).toBe("no-referrer");
    }
  });

  it("allows each page one fresh nonce for styles, the one in its <meta property=csp-nonce>", async () => {
    const nonces = await Promise.all(
      [1, 2].map(async () => {
        const reply = await server.app.inject({ url: "/flags" });
        const nonce = /nonce="([^"]+)"/.exec(reply.body)?.[1];
        expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
        expect(reply.headers["content-security-policy"]).toContain(`style-src 'self' 'nonce-${nonce}';`);
        return nonce;
      }),
    );
    expect(nonces[0]).not.toBe(nonces[1]);
  });

  it("sends an asset precompressed when the browser takes it, and says it varies", async () => {
    const gzipped = await server.app.inject({ url: ASSET, headers: { "accept-encoding": "gzip, br" } });
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(gzipped.headers.vary).toContain("accept-encoding");
    expect(gzipped.rawPayload).toEqual(gzipSync("console.log(1)"));
    const plain = await server.app.inject({ url: ASSET, headers: { "accept-encoding": "identity" } });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body).toBe("console.log(1)");
  });

  it("answers a missing asset 404 with a JSON error, not with the app", async () => {
    for (const url of ["/assets/index-Gone1234.js", "/assets/nested/x.css", "/assets/", "/.production"]) {
      const reply = await server.app.inject({ url });
      expect([url, reply.statusCode]).toEqual([url, url === "/.production" ? 200 : 404]);
      if (url !== "/.production") expect(reply.json()).toEqual({ error: `no route GET ${url}` });
      else expect(reply.body).toContain('<div id="root">');
    }
  });

  it("lets browsers keep hashed assets for good", async () => {
    const reply = await server.app.inject({ url: ASSET });
    expect(reply.statusCode).toBe(200);
    expect(reply.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });

  it("answers 502 with a JSON error, and its headers, when the API server is unreachable", async () => {
    for (const method of ["GET", "POST"] as const) {
      const reply = await server.app.inject({
        method,
        url: "/api/v1/flags",
        payload: method === "POST" ? "{}" : undefined,
      });
      expect(reply.statusCode).toBe(502);
      expect(reply.json()).toEqual({
        error: "the API server at http://127.0.0.1:1 is unreachable (ECONNREFUSED)",
      });
      expect(reply.headers["x-content-type-options"]).toBe("nosniff");
      expect(reply.headers["cache-control"]).toBe("no-store");
    }
  });

  it("passes only /api/ to the API server", async () => {
    const reply = await server.app.inject({ url: "/apix/v1/flags" });
    expect(reply.statusCode).toBe(200);
    expect(reply.body).toContain('<div id="root">');
  });

  it("refuses to start without a production build, saying how to make one", async () => {
    // A build without the stamp is one not made for production (production-build.ts).
    const empty = await mkdtemp(join(tmpdir(), "svc-dashboard-empty-"));
    await writeFile(join(empty, "index.html"), '<div id="root"></div>');
    await expect(
      buildDashboardServer(
        { host: "127.0.0.1", port: 0, apiUrl: "http://127.0.0.1:1", apiTimeoutMs: 1000, logLevel: "silent" },
        { distDir: empty },
      ),
    ).rejects.toThrow(/make dashboard/);
    await rm(empty, { recursive: true, force: true });
  });
});

describe("parseDashboardConfig", () => {
  it("has the documented defaults", () => {
    expect(parseDashboardConfig({})).toEqual({
      ok: true,
      value: {
        host: "0.0.0.0",
        port: 8080,
        apiUrl: "http://127.0.0.1:8090",
        apiTimeoutMs: 30_000,
        logLevel: "info",
      },
    });
  });

  it("names each bad variable", () => {
    const result = parseDashboardConfig({
      SVC_API_URL: "ftp://x",
      SVC_DASHBOARD_PORT: "80a",
      SVC_API_TIMEOUT: "forever",
    });
    expect(result.ok ? [] : result.errors.map((e) => e.field)).toEqual([
      "SVC_DASHBOARD_PORT",
      "SVC_API_URL",
      "SVC_API_TIMEOUT",
    ]);
    const withPath = parseDashboardConfig({ SVC_API_URL: "http://api:8090/v1" });
    expect(withPath.ok).toBe(false);
    expect(parseDashboardConfig({ SVC_API_URL: "https://api.example.com/" }).ok).toBe(true);
  });
});

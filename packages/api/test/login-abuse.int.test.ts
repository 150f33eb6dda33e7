// Refused logins from strangers, over real HTTP on loopback: a flood from one address adds a
// bounded number of audit rows and does not lock `admin` out from another address; the
// X-Forwarded-For header is believed only from a configured proxy.
import { Agent, request } from "node:http";
import { describe, expect, it } from "vitest";
import { REFUSED_LOGIN_SOURCES_MAX } from "../src/audit/refused-logins.ts";
import { ADMIN_PASSWORD, BACKENDS, TestApi, testConfig, type Reply } from "./support/harness.ts";

const sqlite = BACKENDS.find((backend) => backend.name === "sqlite");

interface AuditRow {
  actor: string;
  action: string;
  sourceIp: string;
  details: Record<string, unknown>;
}

/** A POST from `localAddress` (any of 127.0.0.0/8 reaches a server on 127.0.0.1). */
function post(
  url: string,
  path: string,
  body: unknown,
  options: { localAddress?: string; agent?: Agent; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url + path,
      {
        method: "POST",
        agent: options.agent,
        localAddress: options.localAddress,
        timeout: 30_000,
        headers: {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(text)),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          const reply = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(reply);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: new Headers(), text: reply, json });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`POST ${path}: no answer in 30 s`)));
    req.on("error", reject);
    req.end(text);
  });
}

async function loginEvents(api: TestApi, token: string): Promise<AuditRow[]> {
  const reply = await api.call("GET", "/api/v1/audit?resource=session&limit=1000", { token });
  expect(reply.status).toBe(200);
  return reply.json as AuditRow[];
}

async function withApi<T>(
  trustProxy: boolean | readonly string[],
  work: (api: TestApi) => Promise<T>,
): Promise<T> {
  if (sqlite === undefined) throw new Error("no SQLite backend");
  const db = await sqlite.open();
  const api = await TestApi.start({ ...testConfig(db.database), trustProxy });
  try {
    return await work(api);
  } finally {
    await api.close();
    await db.remove();
  }
}

describe("refused logins", () => {
  it("10,000 from one address add a bounded number of audit rows, and admin still logs in from another", async () => {
    await withApi(false, async (api) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 32 });
      const total = 10_000;
      const statuses = new Map<number, number>();
      let next = 0;
      // 32 clients at a time, each sending its next login as soon as the last one is answered.
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < total) {
            next += 1;
            const reply = await post(
              api.url,
              "/api/v1/auth/login",
              { username: "admin", password: `guess-${next}` },
              { agent },
            );
            statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
          }
        }),
      );
      agent.destroy();
      expect([...statuses.keys()].sort()).toEqual([401, 429]);

      // From another address, the right password works at once.
      const admin = await post(
        api.url,
        "/api/v1/auth/login",
        { username: "admin", password: ADMIN_PASSWORD },
        { localAddress: "127.0.0.2" },
      );
      expect(admin.status).toBe(200);
      const token = (admin.json as { token: string }).token;

      const refused = (await loginEvents(api, token)).filter((e) => e.action === "login_failed");
      // One row per source and hour (two if the hour turned during the flood).
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(refused.length).toBeLessThanOrEqual(2);
      expect(refused.every((e) => e.sourceIp === "127.0.0.1" && e.actor === "admin")).toBe(true);
      const counted = refused.reduce((sum, e) => sum + Number(e.details["refusals"]), 0);
      expect(counted).toBe(total);
      expect(refused[0]?.details["summary"]).toMatch(/^\d+ refused logins? from 127\.0\.0\.1$/);
    });
  });

  it("from many addresses and usernames stay within a bounded number of rows per hour", async () => {
    await withApi(false, async (api) => {
      const sources = REFUSED_LOGIN_SOURCES_MAX + 30;
      for (let i = 0; i < sources; i++) {
        const reply = await post(
          api.url,
          "/api/v1/auth/login",
          // Malformed (no password): refused at once, without a password hash to wait for.
          { username: `nobody-${i}` },
          { localAddress: `127.0.1.${i + 1}` },
        );
        expect(reply.status).toBe(400);
      }
      const token = await api.login("admin", ADMIN_PASSWORD);
      const refused = (await loginEvents(api, token)).filter((e) => e.action === "login_failed");
      expect(refused.length).toBeLessThanOrEqual(2 * (REFUSED_LOGIN_SOURCES_MAX + 1));
      const counted = refused.reduce((sum, e) => sum + Number(e.details["refusals"]), 0);
      expect(counted).toBe(sources);
      const others = refused.filter((e) => e.sourceIp === "");
      expect(others.length).toBeGreaterThanOrEqual(1);
      expect(others[0]?.details["summary"]).toMatch(/^\d+ refused logins? from other addresses$/);
    });
  });
});

describe("X-Forwarded-For", () => {
  it("is not believed from an address that is not a configured proxy", async () => {
    await withApi(["127.0.0.2/32"], async (api) => {
      const forged = { "x-forwarded-for": "203.0.113.7" };
      const fromStranger = await post(
        api.url,
        "/api/v1/auth/login",
        { username: "admin", password: "a-wrong-password" },
        { localAddress: "127.0.0.3", headers: forged },
      );
      expect(fromStranger.status).toBe(401);
      const viaProxy = await post(
        api.url,
        "/api/v1/auth/login",
        { username: "admin", password: "a-wrong-password" },
        { localAddress: "127.0.0.2", headers: { "x-forwarded-for": "198.51.100.4" } },
      );
      expect(viaProxy.status).toBe(401);
      const token = await api.login("admin", ADMIN_PASSWORD);
      const sources = (await loginEvents(api, token))
        .filter((e) => e.action === "login_failed")
        .map((e) => e.sourceIp)
        .sort();
      expect(sources).toEqual(["127.0.0.3", "198.51.100.4"]);
    });
  });
});

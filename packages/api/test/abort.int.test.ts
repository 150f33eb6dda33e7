// Clients that hang up mid-request, on SQLite and on PostgreSQL: every change that is applied is
// audited, because the change and its audit event are one transaction and the audit's facts
// (the source address) are taken when the request starts.
import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../../test/support/kube.ts";
import { ADMIN_PASSWORD, BACKENDS, serverForSuite, type TestApi, userWithRole } from "./support/harness.ts";

interface AuditRow {
  action: string;
  actor: string;
  resourceName: string;
  outcome: string;
  sourceIp: string;
  details: Record<string, unknown>;
}

/** Sends a whole request, or its first `partial` bytes, then closes the socket after `afterMs`. */
async function sendAndHangUp(
  url: string,
  request: { method: string; path: string; token?: string; body: unknown },
  options: { afterMs: number; partial?: number },
): Promise<void> {
  const { port, hostname } = new URL(url);
  const body = JSON.stringify(request.body);
  const text =
    `${request.method} ${request.path} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
    (request.token === undefined ? "" : `Authorization: Bearer ${request.token}\r\n`) +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const socket = connect({ host: hostname, port: Number(port) });
  socket.on("error", () => undefined);
  socket.write(options.partial === undefined ? text : text.slice(0, options.partial));
  await sleep(options.afterMs);
  socket.destroy();
}

/** Whether the change becomes visible within 5 s (false: it never happened). */
function visible(check: () => Promise<boolean>): Promise<boolean> {
  return eventually(check, Boolean, "the change", 5000).then(
    () => true,
    () => false,
  );
}

describe.each(BACKENDS)("clients that hang up, on $name", (backend) => {
  const server = serverForSuite(backend);
  let admin = "";

  beforeAll(async () => {
    admin = await server().login("admin", ADMIN_PASSWORD);
  });

  async function auditEvents(api: TestApi): Promise<AuditRow[]> {
    const reply = await api.call("GET", "/api/v1/audit?limit=1000", { token: admin });
    return reply.json as AuditRow[];
  }

  async function sessionEnded(api: TestApi, token: string): Promise<boolean> {
    return (await api.call("GET", "/api/v1/auth/me", { token })).status === 401;
  }

  it("creating a user leaves the user and its audit event, or neither", async () => {
    const api = server();
    await sendAndHangUp(
      api.url,
      {
        method: "POST",
        path: "/api/v1/users",
        token: admin,
        body: { username: "gone-create", password: "gone-create-password", role: "admin" },
      },
      { afterMs: 30 },
    );
    const created = await visible(async () => {
      const users = (await api.call("GET", "/api/v1/users", { token: admin })).json as { username: string }[];
      return users.some((u) => u.username === "gone-create");
    });
    const event = (await auditEvents(api)).find(
      (e) => e.action === "create" && e.resourceName === "gone-create",
    );
    expect({ created, audited: event !== undefined }).toEqual({ created, audited: created });
    if (event !== undefined)
      expect(event).toMatchObject({ outcome: "success", actor: "admin", sourceIp: "127.0.0.1" });
  });

  it("changing a password leaves the change and its audit event, or neither", async () => {
    const api = server();
    const target = await userWithRole(api, "viewer");
    await sendAndHangUp(
      api.url,
      {
        method: "PUT",
        path: `/api/v1/users/${target.username}`,
        token: admin,
        body: { password: "changed-password" },
      },
      { afterMs: 30 },
    );
    const changed = await visible(() => sessionEnded(api, target.token));
    const event = (await auditEvents(api)).find(
      (e) => e.action === "update" && e.resourceName === target.username && e.outcome === "success",
    );
    expect({ changed, audited: event !== undefined }).toEqual({ changed, audited: changed });
    if (event !== undefined)
      expect(event).toMatchObject({ sourceIp: "127.0.0.1", details: { passwordChanged: true } });
  });

  it("deleting a user leaves the deletion and its audit event, or neither", async () => {
    const api = server();
    const target = await userWithRole(api, "viewer");
    await sendAndHangUp(
      api.url,
      { method: "DELETE", path: `/api/v1/users/${target.username}`, token: admin, body: {} },
      { afterMs: 0 },
    );
    const deleted = await visible(() => sessionEnded(api, target.token));
    const event = (await auditEvents(api)).find(
      (e) => e.action === "delete" && e.resourceName === target.username,
    );
    expect({ deleted, audited: event !== undefined }).toEqual({ deleted, audited: deleted });
    if (event !== undefined) expect(event.sourceIp).toBe("127.0.0.1");
  });

  it("records a login whose body never finishes as a failed login", async () => {
    const api = server();
    await sendAndHangUp(
      api.url,
      {
        method: "POST",
        path: "/api/v1/auth/login",
        body: { username: "half-sent", password: "x".repeat(40) },
      },
      { afterMs: 100, partial: 150 },
    );
    const recorded = await visible(async () =>
      (await auditEvents(api)).some((e) => e.action === "login_failed" && e.details["status"] === 400),
    );
    expect(recorded).toBe(true);
    const event = (await auditEvents(api)).find(
      (e) => e.action === "login_failed" && e.details["status"] === 400,
    );
    expect(event).toMatchObject({ sourceIp: "127.0.0.1", outcome: "failure" });
  });
});

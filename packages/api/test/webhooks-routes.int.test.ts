// The webhook routes over real HTTP with the default configuration: admin only, the secret shown
// once and never again (nor in the audit log), and URLs that reach loopback, link-local (the
// cloud metadata address) or private addresses refused with a 400 naming the field.
import { beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, serverForSuite, userWithRole } from "./support/harness.ts";

const body = { name: "ops", url: "https://93.184.215.14/hook", events: ["flag.changed"] };

describe("webhook routes", () => {
  const api = serverForSuite(BACKENDS[0] ?? { name: "sqlite", open: () => Promise.reject(new Error()) });
  let admin = "";

  beforeAll(async () => {
    admin = (await userWithRole(api(), "admin")).token;
  });

  it.each([
    ["http://127.0.0.1:8090/x", "127.0.0.1 is a loopback address"],
    ["http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"],
    ["http://[::1]:8080/", "::1 is a loopback address"],
    ["http://localhost:9090/metrics", "localhost resolves to 127.0.0.1, which is a loopback address"],
    ["http://10.0.0.1/", "10.0.0.1 is a private address"],
    ["http://[::ffff:169.254.169.254]/", "is a link-local address"],
    ["ftp://example.com/", "url: must be http:// or https://"],
    ["https://user:pw@example.com/", "url: must not carry a user or password"],
  ])("refuses %s", async (url, message) => {
    const reply = await api().call("POST", "/api/v1/webhooks", { token: admin, body: { ...body, url } });
    expect(reply.status).toBe(400);
    const error = (reply.json as { error: string }).error;
    expect(error).toMatch(/^url: /);
    expect(error).toContain(message);
  });

  it("is for admins only", async () => {
    for (const role of ["editor", "viewer"] as const) {
      const { token } = await userWithRole(api(), role);
      expect((await api().call("GET", "/api/v1/webhooks", { token })).status).toBe(403);
      expect((await api().call("POST", "/api/v1/webhooks", { token, body })).status).toBe(403);
    }
  });

  it("shows the secret once, keeps it on update, and never writes it to the audit log", async () => {
    const created = await api().call("POST", "/api/v1/webhooks", { token: admin, body });
    expect(created.status, created.text).toBe(201);
    const { id, secret } = created.json as { id: string; secret: string };
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const newSecret = "a-secret-set-by-the-admin";
    const answers = [
      await api().call("GET", "/api/v1/webhooks", { token: admin }),
      await api().call("GET", `/api/v1/webhooks/${id}`, { token: admin }),
      await api().call("PUT", `/api/v1/webhooks/${id}`, {
        token: admin,
        body: { ...body, events: ["flag.deleted"], format: "slack", secret: newSecret },
      }),
      await api().call("GET", `/api/v1/webhooks/${id}/deliveries`, { token: admin }),
      await api().call("GET", "/api/v1/audit?resource=webhook", { token: admin }),
      await api().call("GET", "/api/v1/audit", { token: admin, headers: { accept: "text/csv" } }),
    ];
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(200);
      expect(answer.text).not.toContain(secret);
      expect(answer.text).not.toContain(newSecret);
    }
    expect(answers[1]?.json).toMatchObject({ id, url: body.url, format: "json", namespaces: [] });
    expect(answers[2]?.json).toMatchObject({ events: ["flag.deleted"], format: "slack" });
    // The refusals above are audited too; these are the successes.
    const events = (
      answers[4]?.json as { action: string; outcome: string; details: Record<string, unknown> }[]
    ).filter((e) => e.outcome === "success");
    expect(events.map((e) => e.action)).toEqual(["update", "create"]);
    expect(events[0]?.details).toMatchObject({ secretChanged: true, after: { format: "slack" } });
    expect((await api().call("DELETE", `/api/v1/webhooks/${id}`, { token: admin })).status).toBe(200);
    expect((await api().call("GET", `/api/v1/webhooks/${id}`, { token: admin })).status).toBe(404);
  });
});

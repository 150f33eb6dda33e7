// The webhooks page in a real Chromium against the real API server: an admin creates a webhook
// to a real receiver on 127.0.0.1 (let through by the SSRF guard's allowed networks), sees its
// secret once, sends a test and reads the receiver's answer, and sees a flag change delivered in
// the delivery log; pauses a webhook from the list (nothing is sent for a flag change meanwhile)
// and resumes it from its Edit dialog; an editor neither sees the page in the navigation nor gets
// it by its URL.
import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDashboardHarness, type DashboardHarness } from "./support/harness.ts";

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let h: DashboardHarness;
let receiver: Server;
let receiverUrl = "";
const received: Received[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({
        path: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      response.writeHead(202, { "content-type": "text/plain" }).end("accepted");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/svc`;
  h = await startDashboardHarness("dash-webhooks", {
    api: {
      webhooks: {
        allowedNetworks: ["127.0.0.1/32"],
        timeoutMs: 5000,
        retryMaxDelayMs: 1000,
        pollIntervalMs: 200,
        observedGraceMs: 5000,
      },
    },
  });
});

afterAll(async () => {
  await h.close();
  await new Promise((resolve) => receiver.close(resolve));
});

/** Whether `signature` (svc-signature: t=…,v1=…) signs `body` with `secret` (docs/webhooks.md). */
function signs(signature: string, body: string, secret: string): boolean {
  const parts = new Map(signature.split(",").map((part) => part.split("=") as [string, string]));
  const expected = createHmac("sha256", secret)
    .update(`${parts.get("t") ?? ""}.${body}`)
    .digest("hex");
  return parts.get("v1") === expected;
}

describe("webhooks page", () => {
  it("an admin creates a webhook, sees its secret once, tests it and sees a flag change delivered", async () => {
    const page = await h.newPage();
    await h.login(page, "admin");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("heading", { name: "Webhooks" }).waitFor();

    await page.getByRole("button", { name: "New webhook" }).click();
    const dialog = page.getByRole("dialog", { name: "New webhook" });
    await dialog.getByLabel("Name", { exact: true }).fill("ops");
    // The API's refusal shows under the field it names.
    await dialog.getByLabel("URL", { exact: true }).fill("http://10.0.0.1/hook");
    await dialog.getByRole("button", { name: "Create webhook" }).click();
    const url = dialog.getByLabel("URL", { exact: true });
    await expect.poll(() => url.getAttribute("aria-invalid")).toBe("true");
    const problemId = ((await url.getAttribute("aria-describedby")) ?? "").split(" ")[1] ?? "";
    expect(await page.locator(`[id="${problemId}"]`).textContent()).toMatch(
      /^url: 10\.0\.0\.1 is a private address/,
    );

    await url.fill(receiverUrl);
    await dialog.getByLabel("flag.deleted").uncheck();
    await dialog.getByLabel("Namespaces").fill(h.namespace);
    await dialog.getByRole("button", { name: "Create webhook" }).click();
    const secretBox = page.getByRole("textbox", { name: "Signing secret" });
    await secretBox.waitFor();
    await page.getByText("you will not see it again").waitFor();
    const secret = await secretBox.inputValue();
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    await page.getByRole("button", { name: "Done" }).click();
    await secretBox.waitFor({ state: "detached" });

    const row = page.getByRole("row").filter({ hasText: "ops" });
    await row.getByText("none yet").waitFor();
    expect(await row.textContent()).toContain(new URL(receiverUrl).origin);
    expect(await row.textContent()).not.toContain("/hooks/svc");
    await row.getByRole("link", { name: "ops" }).click();
    await page.getByRole("heading", { name: "Webhook ops" }).waitFor();

    await page.getByRole("button", { name: "Send test" }).click();
    await page.getByText(/^Delivered — the receiver answered HTTP 202 in \d+ ms$/).waitFor();
    const test = received.find((r) => r.headers["svc-event-type"] === "webhook.test");
    expect(test).toBeDefined();
    // The secret shown is the one svc signs with.
    expect(signs(String(test?.headers["svc-signature"]), test?.body ?? "", secret)).toBe(true);

    const created = await h.api("editor").fetch("/api/v1/flags", {
      method: "POST",
      body: JSON.stringify({
        name: "hooked",
        namespace: h.namespace,
        clusterId: h.clusterId,
        type: "boolean",
        defaultValue: "true",
        delivery: { sidecar: { selector: { matchLabels: { app: "web" } } } },
      }),
    });
    expect(created.status).toBe(201);
    const log = page.getByRole("table", { name: "Deliveries" });
    const delivery = log.getByRole("row").filter({ hasText: "flag.created" });
    await delivery.getByText("delivered (202)").waitFor({ timeout: 15_000 });
    const event = received.find((r) => r.headers["svc-event-type"] === "flag.created");
    expect(await delivery.textContent()).toContain(String(event?.headers["svc-event-id"]));

    // Never again: not on the webhook's page, nor on the list, nor in any answer the page read.
    expect(await page.content()).not.toContain(secret);
    await page.goto(`${h.url}/webhooks`);
    await page.getByRole("row").filter({ hasText: "ops" }).getByText("delivered (202)").waitFor();
    expect(await page.content()).not.toContain(secret);
    await page.close();
  });

  it("an admin pauses a webhook from the list, and resumes it in its Edit dialog", async () => {
    const admin = h.api("admin");
    const hookUrl = receiverUrl.replace("/hooks/svc", "/hooks/pausable");
    const made = await admin.fetch("/api/v1/webhooks", {
      method: "POST",
      body: JSON.stringify({
        name: "pausable",
        url: hookUrl,
        events: ["flag.changed"],
        namespaces: [h.namespace],
      }),
    });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: string };
    const mine = () => received.filter((r) => r.path === "/hooks/pausable");
    const flag = await h.api("editor").fetch("/api/v1/flags", {
      method: "POST",
      body: JSON.stringify({
        name: "pausable-flag",
        namespace: h.namespace,
        clusterId: h.clusterId,
        type: "boolean",
        defaultValue: "true",
        enabled: false,
        delivery: { sidecar: { selector: { matchLabels: { app: "web" } } } },
      }),
    });
    expect(flag.status).toBe(201);
    const toggle = async (enabled: boolean) => {
      const reply = await h
        .api("editor")
        .fetch(`/api/v1/flags/${h.namespace}/pausable-flag/toggle?clusterId=${h.clusterId}`, {
          method: "POST",
          body: JSON.stringify({ enabled }),
        });
      expect(reply.status).toBe(200);
    };

    const page = await h.newPage();
    await h.login(page, "admin");
    await page.goto(`${h.url}/webhooks`);
    const row = page.getByRole("row").filter({ hasText: "pausable" });
    const active = row.getByRole("switch", { name: "Active pausable" });
    expect(await active.isChecked()).toBe(true);
    await active.click();
    await page.getByRole("status").getByText("Webhook pausable paused.").waitFor();
    await row.getByText("paused", { exact: true }).waitFor();
    expect(await active.isChecked()).toBe(false);
    expect(
      ((await (await admin.fetch(`/api/v1/webhooks/${id}`)).json()) as { enabled: boolean }).enabled,
    ).toBe(false);

    await toggle(true);
    // Several polls (200 ms): nothing is enqueued for it, nothing arrives.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(mine()).toEqual([]);

    await row.getByRole("button", { name: "Edit pausable" }).click();
    const dialog = page.getByRole("dialog", { name: "Edit webhook pausable" });
    const checkbox = dialog.getByRole("checkbox", { name: /^Active/ });
    expect(await checkbox.isChecked()).toBe(false);
    await checkbox.check();
    await dialog.getByRole("button", { name: "Save webhook" }).click();
    await dialog.waitFor({ state: "detached" });
    await row.getByText("active", { exact: true }).waitFor();

    await toggle(false);
    await expect
      .poll(() => mine().map((r) => r.headers["svc-event-type"]), { timeout: 15_000 })
      .toEqual(["flag.changed"]);
    expect(JSON.parse(mine()[0]?.body ?? "{}")).toMatchObject({
      name: "pausable-flag",
      details: { before: { enabled: true }, after: { enabled: false } },
    });
    await page.close();
  });

  it("an editor has no webhooks page: not in the navigation, refused by its URL", async () => {
    const page = await h.newPage();
    await h.login(page, "editor");
    const nav = page.getByRole("navigation", { name: "Main" });
    await nav.getByRole("link", { name: "Flags" }).waitFor();
    expect(await nav.getByRole("link", { name: "Webhooks" }).count()).toBe(0);
    const asked: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/v1/webhooks")) asked.push(request.url());
    });
    await page.goto(`${h.url}/webhooks`);
    await page.getByText("Your role (editor) cannot manage webhooks").waitFor();
    expect(await page.getByRole("button", { name: "New webhook" }).count()).toBe(0);
    expect(asked).toEqual([]);
    await page.close();
  });
});

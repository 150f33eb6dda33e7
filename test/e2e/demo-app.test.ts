// The demo application (deploy/demo-app): its pure part, and its server run as a child process
// on a loopback port with a temporary folder laid out like Kubernetes' ConfigMap volumes in
// place of /etc/svc-flags, and a stand-in sidecar. Needs no control plane.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  envFlags,
  escapeHtml,
  isFlagEntry,
  renderPage,
  sidecarPort,
  takeEvents,
} from "../../deploy/demo-app/flags.ts";

const SERVER = resolve(import.meta.dirname, "../../deploy/demo-app/server.ts");

describe("demo app: pure part", () => {
  it("keeps only FLAG_* variables, sorted", () => {
    expect(
      envFlags({ PATH: "/bin", FLAG_B: "2", FLAG_A: "1", XFLAG_C: "3", flag_d: "4", FLAG_E: undefined }),
    ).toEqual({
      FLAG_A: "1",
      FLAG_B: "2",
    });
    expect(Object.keys(envFlags({ FLAG_Z: "", FLAG_A: "" }))).toEqual(["FLAG_A", "FLAG_Z"]);
  });

  it("skips a ConfigMap volume's dot entries", () => {
    expect(
      ["..data", "..2026_11_23_19_00_00.123", ".hidden", "color", "max-items"].filter(isFlagEntry),
    ).toEqual(["color", "max-items"]);
  });

  it("splits server-sent events at blank lines, drops heartbeats and keeps a partial record", () => {
    expect(
      takeEvents(
        'id: 1\nevent: snapshot\ndata: {"name":"a"}\n\n: heartbeat\n\nid: 2\nevent: change\ndata: {"na',
      ),
    ).toEqual({ events: ['snapshot {"name":"a"}'], rest: 'id: 2\nevent: change\ndata: {"na' });
    expect(takeEvents('id: 2\nevent: change\ndata: {"name":"b"}\n\n')).toEqual({
      events: ['change {"name":"b"}'],
      rest: "",
    });
  });

  it("reads the sidecar's port, and refuses a bad one", () => {
    expect(sidecarPort(undefined)).toBeUndefined();
    expect(sidecarPort("")).toBeUndefined();
    expect(sidecarPort("8181")).toBe(8181);
    expect(() => sidecarPort("http")).toThrow(/SVC_SIDECAR_PORT/);
    expect(() => sidecarPort("70000")).toThrow(/SVC_SIDECAR_PORT/);
  });

  it("renders the page with every value escaped", () => {
    const page = renderPage({
      env: { FLAG_BANNER: "<b>hi</b>" },
      files: { "demo-flags/color": "blue & green" },
      sidecar: null,
      stream: null,
      hostname: "pod-1",
      startedAt: "2026-11-23T19:00:00.000Z",
    });
    expect(page).toContain("<th>FLAG_BANNER</th><td><pre>&lt;b&gt;hi&lt;/b&gt;</pre></td>");
    expect(page).toContain("<th>demo-flags/color</th><td><pre>blue &amp; green</pre></td>");
    expect(page).toContain("no sidecar");
    expect(page).not.toContain("<b>hi</b>");
    expect(escapeHtml(`"'`)).toBe("&quot;&#39;");
  });
});

interface Running {
  child: ChildProcess;
  base: string;
}

const children: ChildProcess[] = [];
let work = "";
let flagsDir = "";
let sidecar: Server;
let sidecarFlags: unknown = { flags: { checkout: { value: true } } };

/** Starts the server on a free loopback port (PORT=0; it prints the port it got). */
async function startDemo(env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, [SERVER], {
    env: { PATH: process.env.PATH ?? "", PORT: "0", HOST: "127.0.0.1", SVC_FLAGS_DIR: flagsDir, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`the demo app did not start: ${output}`));
    }, 10_000);
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /listening on port (\d+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolvePort(Number(match[1]));
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the demo app exited with ${String(code)}: ${output}`));
    });
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

async function flagsJson(base: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}/flags.json`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/json");
  return (await response.json()) as Record<string, unknown>;
}

/** A ConfigMap volume as the kubelet lays it out: keys linked through ..data to a timestamped folder. */
async function configMapVolume(name: string, data: Record<string, string>, stamp: string): Promise<void> {
  const dir = join(flagsDir, name);
  await mkdir(join(dir, stamp), { recursive: true });
  for (const [key, value] of Object.entries(data)) await writeFile(join(dir, stamp, key), value);
  await rm(join(dir, "..data_tmp"), { force: true });
  await symlink(stamp, join(dir, "..data_tmp"));
  await rename(join(dir, "..data_tmp"), join(dir, "..data"));
  for (const key of Object.keys(data))
    await symlink(join("..data", key), join(dir, key)).catch(() => undefined);
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "svc-demo-app-"));
  flagsDir = join(work, "svc-flags");
  await mkdir(flagsDir);
  sidecar = createServer((request, response) => {
    if (request.url === "/flags") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(sidecarFlags));
    } else {
      response.writeHead(404).end();
    }
  });
  sidecar.listen(0, "127.0.0.1");
  await once(sidecar, "listening");
});

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  sidecar.close();
  await rm(work, { recursive: true, force: true });
});

describe("demo app: server", () => {
  it("shows FLAG_* variables, ConfigMap files read on every request, and the sidecar's flags", async () => {
    const sidecarPortNumber = (sidecar.address() as AddressInfo).port;
    await configMapVolume("demo-flags", { color: "blue", "max-items": "10" }, "..2026_11_23_19_00_00.1");
    const { base } = await startDemo({
      FLAG_COLOR: "red",
      NOT_A_FLAG: "x",
      SVC_SIDECAR_PORT: String(sidecarPortNumber),
    });

    const first = await flagsJson(base);
    expect(first.env).toEqual({ FLAG_COLOR: "red" });
    expect(first.files).toEqual({ "demo-flags/color": "blue", "demo-flags/max-items": "10" });
    expect(first.sidecar).toEqual({ flags: { checkout: { value: true } } });
    expect(first.hostname).toBe(hostname());
    expect(Date.parse(String(first.startedAt))).not.toBeNaN();

    // The kubelet swaps ..data to a new folder: the next request sees the new values.
    await configMapVolume("demo-flags", { color: "green", "max-items": "10" }, "..2026_11_23_19_01_00.2");
    await configMapVolume("other", { banner: "hello" }, "..2026_11_23_19_01_00.3");
    sidecarFlags = { flags: { checkout: { value: false } } };
    const second = await flagsJson(base);
    expect(second.files).toEqual({
      "demo-flags/color": "green",
      "demo-flags/max-items": "10",
      "other/banner": "hello",
    });
    expect(second.sidecar).toEqual({ flags: { checkout: { value: false } } });
    expect(second.startedAt).toBe(first.startedAt);

    const page = await fetch(`${base}/`);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await page.text();
    expect(html).toContain("<th>FLAG_COLOR</th><td><pre>red</pre></td>");
    expect(html).toContain("<th>other/banner</th><td><pre>hello</pre></td>");
    expect(html).toContain("&quot;checkout&quot;");

    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/nothing`)).status).toBe(404);
  });

  it("says null with no sidecar, an error when the sidecar is down, and nothing without a flags folder", async () => {
    const none = await startDemo({ SVC_FLAGS_DIR: join(work, "missing") });
    const alone = await flagsJson(none.base);
    expect(alone.sidecar).toBeNull();
    expect(alone.files).toEqual({});
    expect(alone.env).toEqual({});

    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const deadPort = (closed.address() as AddressInfo).port;
    closed.close();
    const down = await startDemo({ SVC_SIDECAR_PORT: String(deadPort) });
    const result = await flagsJson(down.base);
    expect(result.sidecar).toEqual({ error: expect.stringContaining("fetch failed") as unknown });
  });

  it("exits promptly and cleanly on SIGTERM, even with a connection open", async () => {
    const { child, base } = await startDemo({});
    const keptOpen = await fetch(`${base}/healthz`, { headers: { connection: "keep-alive" } });
    expect(keptOpen.status).toBe(200);
    const started = Date.now();
    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("exits 1 at start when FLAG_CRASH_ON_START is true (the bad value of docs/safe-changes.md), and runs when false", async () => {
    const child = spawn(process.execPath, [SERVER], {
      env: { PATH: process.env.PATH ?? "", PORT: "0", HOST: "127.0.0.1", FLAG_CRASH_ON_START: "true" },
      stdio: "pipe",
    });
    children.push(child);
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(1);
    expect(stderr).toContain("FLAG_CRASH_ON_START=true: exiting");
    const running = await startDemo({ FLAG_CRASH_ON_START: "false" });
    expect((await fetch(`${running.base}/healthz`)).status).toBe(200);
  });

  it("exits 2 on a bad setting", async () => {
    const child = spawn(process.execPath, [SERVER], {
      env: { PATH: process.env.PATH ?? "", PORT: "http" },
      stdio: "pipe",
    });
    children.push(child);
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(2);
  });
});

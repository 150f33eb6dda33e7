import { spawn } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { join } from "node:path";
import { OFREPProvider } from "@openfeature/ofrep-provider";
import { OpenFeature } from "@openfeature/server-sdk";
import { freeLoopbackPort, installCrds } from "@svc/kube";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { runSidecar } from "../src/index.ts";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { flagWriter, type FlagWriter } from "./support/flags-api.ts";
import { rawConnection } from "./support/raw-client.ts";
import { openStream, poll, type StreamRecording } from "./support/sse-client.ts";

const kc = testKubeConfig();
const kubeconfigPath = inject("kubeconfigPath");
const BUN = join(import.meta.dirname, "../../../node_modules/@oven/bun-linux-x64/bin/bun");
let namespace: string;
let flags: FlagWriter;

async function get(path: string): Promise<{ status: number; text: string; type: string | null }> {
  const response = await fetch(sidecar.url + path);
  return { status: response.status, text: await response.text(), type: response.headers.get("content-type") };
}

async function ofrep(key?: string, headers: Record<string, string> = {}) {
  const response = await fetch(
    `${sidecar.url}/ofrep/v1/evaluate/flags${key === undefined ? "" : `/${key}`}`,
    {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify({ context: { targetingKey: "user-1" } }),
    },
  );
  const text = await response.text();
  return {
    status: response.status,
    etag: response.headers.get("etag"),
    body: text === "" ? undefined : (JSON.parse(text) as Record<string, unknown>),
  };
}

const flagObject = async (name: string) => {
  const response = await get(`/flags/${name}`);
  return response.status === 200 ? (JSON.parse(response.text) as Record<string, unknown>) : response.status;
};

/** The sidecar under test: in this process, or as the command on another runtime. */
interface SidecarUnderTest {
  url: string;
  port: number;
  /** The stream counters it exports: read in this process, or scraped from its /metrics. */
  streamCounters: () => Promise<StreamCounters>;
  close: () => Promise<void>;
}
let sidecar: SidecarUnderTest;

interface StreamCounters {
  opened: number;
  slowDropped: number;
}

/** The stream counters in a sidecar's /metrics, as a Prometheus server would read them. */
async function scrapeStreamCounters(url: string): Promise<StreamCounters> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (name: string) => {
    const line = text.split("\n").find((l) => l.startsWith(`${name} `));
    if (line === undefined) throw new Error(`${name} missing from /metrics`);
    return Number(line.slice(name.length + 1));
  };
  return {
    opened: read("svc_sidecar_streams_opened_total"),
    slowDropped: read("svc_sidecar_stream_slow_dropped_total"),
  };
}

/** `svc sidecar` on Bun, the runtime of the sidecar image (deploy/Dockerfile). */
async function startOnBun(): Promise<SidecarUnderTest> {
  const port = await freeLoopbackPort();
  const child = spawn(BUN, [join(import.meta.dirname, "../../cli/src/main.ts"), "sidecar"], {
    env: {
      PATH: process.env["PATH"] ?? "",
      POD_NAMESPACE: namespace,
      KUBECONFIG: kubeconfigPath,
      SVC_SIDECAR_HOST: "127.0.0.1",
      SVC_SIDECAR_PORT: String(port),
      SVC_SIDECAR_HEARTBEAT_MS: "200",
      SVC_LOG_LEVEL: "silent",
    },
    stdio: "ignore",
  });
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.status,
    (status) => status === 200 || child.exitCode !== null,
    "the sidecar on Bun listed its flags",
  );
  expect(child.exitCode).toBeNull();
  return {
    url,
    port,
    streamCounters: () => scrapeStreamCounters(url),
    close: async () => {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
    },
  };
}

async function startInProcess(): Promise<SidecarUnderTest> {
  const running = await runSidecar({
    namespace,
    port: 0,
    host: "127.0.0.1",
    remoteReads: false,
    kubeconfigPath,
    heartbeatMs: 200,
    logLevel: "silent",
    log: pino({ level: "silent" }),
    maxStreamBacklogBytes: 1024 * 1024,
  });
  await running.ready;
  const { stats } = running;
  return {
    url: running.url,
    port: running.port,
    streamCounters: () =>
      Promise.resolve({ opened: stats.streamsOpened, slowDropped: stats.slowStreamsDropped }),
    close: () => running.close(),
  };
}

beforeAll(async () => {
  await installCrds(kc);
});

const RUNTIMES = [
  ["Node, in this process", startInProcess],
  ["Bun, the sidecar image's runtime, as the svc sidecar command", startOnBun],
] as const;

describe.each(RUNTIMES)("svc sidecar against a real API server, on %s", (_runtime, start) => {
  beforeAll(async () => {
    namespace = await testNamespace(kc, "sidecar");
    flags = flagWriter(kc, namespace);
    sidecar = await start();
  });

  afterAll(async () => {
    await sidecar.close();
  });

  it("is healthy once listed, and serves an empty namespace", async () => {
    expect(await get("/healthz")).toMatchObject({ status: 200, text: "ok" });
    expect(JSON.parse((await get("/flags")).text)).toEqual([]);
    expect((await ofrep()).body).toEqual({
      flags: [],
      eventStreams: [{ type: "sse", endpoint: { requestUri: "/ofrep/v1/events" } }],
    });
  });

  it("follows a flag created, changed, toggled and deleted on every endpoint and stream, in order", async () => {
    const streams = [await openStream(sidecar.url), await openStream(sidecar.url)];
    const flag = "new-checkout";

    await flags.create(flag, "boolean", "true");
    await eventually(
      () => flagObject(flag),
      (f) => typeof f === "object",
      "the created flag",
    );
    expect(await flagObject(flag)).toEqual({ name: flag, type: "boolean", value: "true", disabled: false });
    expect(await get(`/flags/${flag}/value`)).toEqual({
      status: 200,
      text: "true",
      type: "text/plain; charset=utf-8",
    });
    expect(JSON.parse((await get("/flags")).text)).toEqual([
      { name: flag, type: "boolean", value: "true", disabled: false },
    ]);
    expect((await ofrep(flag)).body).toEqual({
      key: flag,
      reason: "STATIC",
      value: true,
      variant: "default",
      metadata: {},
    });

    await flags.setValue(flag, "false");
    await eventually(
      () => get(`/flags/${flag}/value`),
      (r) => r.text === "false",
      "the changed value",
    );
    expect((await ofrep(flag)).body).toEqual({
      key: flag,
      reason: "STATIC",
      value: false,
      variant: "default",
      metadata: {},
    });

    await flags.setEnabled(flag, false);
    await eventually(
      () => flagObject(flag),
      (f) => typeof f === "object" && f["disabled"] === true,
      "the toggle",
    );
    expect(await get(`/flags/${flag}/value`)).toMatchObject({ status: 404 });
    expect(JSON.parse((await get(`/flags/${flag}/value`)).text)).toEqual({
      error: `flag ${flag} is disabled`,
    });
    expect((await ofrep(flag)).body).toEqual({ key: flag, reason: "DISABLED", metadata: {} });
    expect((await ofrep()).body).toEqual({
      flags: [{ key: flag, reason: "DISABLED", metadata: {} }],
      eventStreams: [{ type: "sse", endpoint: { requestUri: "/ofrep/v1/events" } }],
    });

    await flags.remove(flag);
    await eventually(
      () => flagObject(flag),
      (f) => f === 404,
      "the deletion",
    );
    expect((await get(`/flags/${flag}/value`)).status).toBe(404);
    expect(await ofrep(flag)).toMatchObject({
      status: 404,
      body: { key: flag, errorCode: "FLAG_NOT_FOUND" },
    });
    expect(JSON.parse((await get("/flags")).text)).toEqual([]);

    for (const stream of streams) {
      await eventually(
        poll(() => stream.events.length),
        (n) => n >= 4,
        "four stream events",
      );
      expect(stream.events.map((e) => [e.event, e.data])).toEqual([
        ["update", { name: flag, type: "boolean", value: "true", disabled: false }],
        ["update", { name: flag, type: "boolean", value: "false", disabled: false }],
        ["update", { name: flag, type: "boolean", value: "false", disabled: true }],
        ["delete", { name: flag }],
      ]);
      const revisions = stream.events.map((e) => Number(e.id?.split(".")[1]));
      expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
      expect(new Set(revisions).size).toBe(4);
      stream.close();
    }
  });

  it("sends the current state on connect, heartbeats, and resumes from Last-Event-ID", async () => {
    await flags.create("alpha", "string", "a");
    await flags.create("beta", "integer", "2");
    await eventually(
      () => flagObject("beta"),
      (f) => typeof f === "object",
      "both flags",
    );

    const first = await openStream(sidecar.url);
    await eventually(
      poll(() => first.events.length),
      (n) => n >= 2,
      "the snapshot",
    );
    expect(first.events.map((e) => e.data)).toEqual([
      { name: "alpha", type: "string", value: "a", disabled: false },
      { name: "beta", type: "integer", value: "2", disabled: false },
    ]);
    await eventually(
      poll(() => first.comments.length),
      (n) => n >= 1,
      "a heartbeat",
    );
    const lastId = first.events.at(-1)?.id ?? "";
    first.close();

    // Changes while the client is away are replayed, not the whole state.
    await flags.setValue("alpha", "b");
    await flags.remove("beta");
    await eventually(
      () => flagObject("beta"),
      (f) => f === 404,
      "the deletion",
    );
    const resumed = await openStream(sidecar.url, { "Last-Event-ID": lastId });
    await eventually(
      poll(() => resumed.events.length),
      (n) => n >= 2,
      "the missed events",
    );
    expect(resumed.events.map((e) => [e.event, e.data])).toEqual([
      ["update", { name: "alpha", type: "string", value: "b", disabled: false }],
      ["delete", { name: "beta" }],
    ]);
    resumed.close();

    // An id the sidecar does not know (another process's) gets the whole state again.
    const stranger = await openStream(sidecar.url, { "Last-Event-ID": "deadbeef.1" });
    await eventually(
      poll(() => stranger.events.length),
      (n) => n >= 1,
      "the snapshot",
    );
    expect(stranger.events.map((e) => e.data)).toEqual([
      { name: "alpha", type: "string", value: "b", disabled: false },
    ]);
    stranger.close();
    await flags.remove("alpha");
  });

  it("answers OFREP bulk requests with an ETag, 304 while unchanged, 200 after a change", async () => {
    await flags.create("gamma", "json", '{"colour": "blue"}');
    await eventually(
      () => flagObject("gamma"),
      (f) => typeof f === "object",
      "the flag",
    );
    const first = await ofrep();
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      flags: [
        { key: "gamma", reason: "STATIC", value: { colour: "blue" }, variant: "default", metadata: {} },
      ],
      eventStreams: [{ type: "sse", endpoint: { requestUri: "/ofrep/v1/events" } }],
    });
    expect(first.etag).toMatch(/^".+"$/);
    expect(await ofrep(undefined, { "If-None-Match": first.etag ?? "" })).toMatchObject({
      status: 304,
      body: undefined,
      etag: first.etag,
    });
    await flags.setValue("gamma", '{"colour": "red"}');
    await eventually(
      () => ofrep(undefined, { "If-None-Match": first.etag ?? "" }),
      (r) => r.status === 200,
      "a new ETag",
    );
    expect((await ofrep()).etag).not.toBe(first.etag);
    await flags.remove("gamma");
  });

  it("evaluates a targeted flag per request context under its flagd key, tags the bulk answer per context and tells OFREP providers to refetch", async () => {
    const events = await openStream(sidecar.url, {}, undefined, "/ofrep/v1/events");
    // A first connection is told to refetch at once: it may have missed a change since its fetch.
    await eventually(
      poll(() => events.events.length),
      (n) => n >= 1,
      "the connect-time refetch",
    );
    expect(events.events[0]).toMatchObject({ event: "message", data: { type: "refetchEvaluation" } });
    const evaluate = async (path: string, context: Record<string, unknown>, headers = {}) => {
      const response = await fetch(`${sidecar.url}/ofrep/v1/evaluate/flags${path}`, {
        method: "POST",
        headers,
        body: JSON.stringify({ context }),
      });
      const text = await response.text();
      return {
        status: response.status,
        etag: response.headers.get("etag"),
        body: text === "" ? undefined : (JSON.parse(text) as Record<string, unknown>),
      };
    };
    await flags.createWith("tiered", "string", "basic", {
      key: "Plan.Tier X",
      variants: { basic: "basic", pro: "pro" },
      defaultVariant: "basic",
      targeting: { if: [{ ends_with: [{ var: "email" }, "@acme.com"] }, "pro"] },
      metadata: { owner: "billing" },
    });
    await eventually(
      () => evaluate("/Plan.Tier%20X", {}),
      (r) => r.status === 200,
      "the flag under its key",
    );
    expect((await evaluate("/Plan.Tier%20X", { email: "a@acme.com" })).body).toEqual({
      key: "Plan.Tier X",
      value: "pro",
      variant: "pro",
      reason: "TARGETING_MATCH",
      metadata: { owner: "billing" },
    });
    expect((await evaluate("/Plan.Tier%20X", { email: "b@other.io" })).body).toMatchObject({
      value: "basic",
      variant: "basic",
      reason: "DEFAULT",
    });
    expect((await evaluate("/tiered", {})).status).toBe(404);

    const pro = await evaluate("", { email: "a@acme.com" });
    const basic = await evaluate("", { email: "b@other.io" });
    expect(pro.body?.["flags"]).toEqual([expect.objectContaining({ key: "Plan.Tier X", value: "pro" })]);
    expect(pro.etag).not.toBe(basic.etag);
    expect((await evaluate("", {})).etag).toBe(basic.etag);
    expect(await evaluate("", { email: "c@acme.com" }, { "If-None-Match": pro.etag })).toMatchObject({
      status: 304,
      etag: pro.etag,
    });
    expect((await evaluate("", { email: "c@other.io" }, { "If-None-Match": pro.etag })).status).toBe(200);

    // The creation was announced; a client resuming from it hears of the next change only.
    await eventually(
      poll(() => events.events.length),
      (n) => n >= 2,
      "the creation's refetch",
    );
    const seen = events.events[events.events.length - 1];
    expect(seen).toMatchObject({
      event: "message",
      data: { type: "refetchEvaluation", etag: expect.any(String) as string },
    });
    events.close();
    const resumed = await openStream(
      sidecar.url,
      { "Last-Event-ID": seen?.id ?? "" },
      undefined,
      "/ofrep/v1/events",
    );
    const stale = await openStream(
      sidecar.url,
      { "Last-Event-ID": "deadbeef.1" },
      undefined,
      "/ofrep/v1/events",
    );
    await flags.setSpec("tiered", "targeting", {
      if: [{ ends_with: [{ var: "email" }, "@other.io"] }, "pro"],
    });
    await eventually(
      poll(() => resumed.events.length),
      (n) => n >= 1,
      "the change's refetch",
    );
    const [next] = resumed.events;
    expect(next?.id).not.toBe(seen?.id);
    expect((next?.data as { etag?: string }).etag).not.toBe((seen?.data as { etag?: string }).etag);
    await eventually(
      poll(() => stale.events.length),
      (n) => n >= 1,
      "the stale client's refetch",
    );
    expect(stale.events[0]).toMatchObject({ id: seen?.id, data: { type: "refetchEvaluation" } });
    resumed.close();
    stale.close();
    await flags.remove("tiered");
  });

  it("serves flags to the OpenFeature SDK through the OFREP provider", async () => {
    await flags.create("of-bool", "boolean", "true");
    await flags.create("of-int", "integer", "42");
    await flags.create("of-string", "string", "blue");
    await flags.create("of-json", "json", '{"tiers": [1, 2]}');
    await flags.create("of-off", "boolean", "true", false);
    await eventually(
      () => flagObject("of-off"),
      (f) => typeof f === "object",
      "the flags",
    );

    await OpenFeature.setProviderAndWait(new OFREPProvider({ baseUrl: sidecar.url }));
    const client = OpenFeature.getClient();
    try {
      expect(await client.getBooleanDetails("of-bool", false)).toMatchObject({
        value: true,
        reason: "STATIC",
      });
      expect(await client.getNumberValue("of-int", 0)).toBe(42);
      expect(await client.getStringValue("of-string", "none")).toBe("blue");
      expect(await client.getObjectValue("of-json", {})).toEqual({ tiers: [1, 2] });
      expect(await client.getBooleanDetails("missing", false)).toMatchObject({
        value: false,
        errorCode: "FLAG_NOT_FOUND",
      });
      // Disabled: the application gets its own code default, not the withdrawn value.
      expect(await client.getBooleanValue("of-off", false)).toBe(false);
      expect(await client.getStringDetails("of-int", "x")).toMatchObject({
        value: "x",
        errorCode: "TYPE_MISMATCH",
      });
    } finally {
      await OpenFeature.close();
    }
  });

  it("answers pipelined reads, then a POST sent byte by byte, on one connection", async () => {
    await flags.create("piped", "string", "yes");
    await eventually(
      () => flagObject("piped"),
      (f) => typeof f === "object",
      "the flag",
    );
    const client = await rawConnection(sidecar.port);
    // Two reads in one packet.
    await client.send(
      "GET /flags/piped/value HTTP/1.1\r\nHost: x\r\n\r\nGET /flags/nope HTTP/1.1\r\nHost: x\r\n\r\n",
    );
    await eventually(poll(client.statuses), (s) => s.length >= 2, "two answers");
    expect(client.received()).toMatch(
      /^HTTP\/1\.1 200 OK\r\n.*Content-Length: 3\r\nDate: [^\r]+ GMT\r\n.*\r\n\r\nyes/s,
    );
    expect(client.statuses()).toEqual([200, 404]);
    // A POST with a body, sent one byte per packet, on the same connection.
    await client.trickle(
      "POST /ofrep/v1/evaluate/flags/piped HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
      1,
      5,
    );
    await client.send("GET /flags/piped/value HTTP/1.1\r\nHost: x\r\n\r\n");
    await eventually(poll(client.statuses), (s) => s.length >= 4, "two more answers on the same connection");
    expect(client.statuses()).toEqual([200, 404, 200, 200]);
    expect(client.received()).toContain(
      '{"key":"piped","value":"yes","variant":"default","reason":"STATIC","metadata":{}}',
    );
    expect(client.received().endsWith("yes")).toBe(true);
    client.socket.destroy();
    await flags.remove("piped");
  });

  it("keeps a stream that stops reading from holding back the others, and cuts it off", async () => {
    await flags.create("big", "string", "0");
    await eventually(
      () => flagObject("big"),
      (f) => typeof f === "object",
      "the flag",
    );
    const before = await sidecar.streamCounters();
    const reader = await openStream(sidecar.url);
    // A subscriber that never reads: the kernel buffers fill, then the sidecar's backlog grows.
    const stalled = connect(sidecar.port, "127.0.0.1");
    stalled.write("GET /flags/stream HTTP/1.1\r\nHost: x\r\n\r\n");
    stalled.pause();
    await eventually(
      () => sidecar.streamCounters(),
      (c) => c.opened >= before.opened + 2,
      "the stall",
    );

    const dropped = (await sidecar.streamCounters()).slowDropped;
    const big = "x".repeat(60_000);
    let writes = 0;
    // Bounded: the backlog limit (1 MiB in this process, the default 8 MiB on Bun) is reached
    // well within it.
    while ((await sidecar.streamCounters()).slowDropped === dropped && writes < 600) {
      writes++;
      await flags.setValue("big", `${writes}${big}`);
    }
    expect((await sidecar.streamCounters()).slowDropped).toBe(dropped + 1);
    // The one cut off is the stalled stream: the reader is still connected.
    expect(reader.ended()).toBe(false);
    await eventually(
      poll(() => reader.events.at(-1)?.data),
      (d) => (d as { value?: string } | undefined)?.value?.startsWith(`${writes}x`) === true,
      "the reader to see the last write",
    );
    // The reader saw every value, in order: one watch event, hence one stream event, per write.
    const values = reader.events
      .filter((e) => (e.data as { name: string }).name === "big")
      .slice(1)
      .map((e) => Number.parseInt((e.data as { value: string }).value, 10));
    expect(values).toEqual(Array.from({ length: writes }, (_, i) => i + 1));
    reader.close();
    stalled.destroy();
    await flags.remove("big");
  });
});

describe("svc sidecar (the command)", () => {
  beforeAll(async () => {
    namespace = await testNamespace(kc, "sidecar-command");
    flags = flagWriter(kc, namespace);
  });

  it("starts from the environment, serves, and shuts down on SIGTERM ending its streams", async () => {
    await flags.create("cli-flag", "string", "hello");
    const port = await freeLoopbackPort();
    const child = spawn(process.execPath, [join(import.meta.dirname, "../../cli/src/main.ts"), "sidecar"], {
      env: {
        ...process.env,
        POD_NAMESPACE: namespace,
        KUBECONFIG: kubeconfigPath,
        SVC_SIDECAR_PORT: String(port),
        SVC_SIDECAR_HOST: "127.0.0.1",
        SVC_LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "inherit", "inherit"],
    });
    const exited = once(child, "exit");
    try {
      const url = `http://127.0.0.1:${port}`;
      await eventually(
        () =>
          fetch(`${url}/flags/cli-flag/value`).then(
            (r) => r.text(),
            () => "",
          ),
        (text) => text === "hello" || child.exitCode !== null,
        "the command to serve the flag",
        30_000,
      );
      expect(child.exitCode).toBeNull();
      const stream: StreamRecording = await openStream(url);
      await eventually(
        poll(() => stream.events.length),
        (n) => n >= 1,
        "the snapshot",
      );
      child.kill("SIGTERM");
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
      await eventually(
        poll(() => stream.ended()),
        (ended) => ended,
        "the stream to end",
      );
    } finally {
      child.kill("SIGKILL");
      await flags.remove("cli-flag");
    }
  });
});

describe("svc sidecar before its first list (API unreachable from the start)", () => {
  it("answers 503 on flag endpoints and health, yet accepts streams, and routes the rest", async () => {
    const unreachable = await runSidecar({
      namespace: "nowhere",
      port: 0,
      host: "127.0.0.1",
      remoteReads: false,
      kubeconfigPath: undefined,
      heartbeatMs: 1000,
      logLevel: "silent",
      log: pino({ level: "silent" }),
      // Port 1 on loopback refuses connections: the list fails and is retried.
      connection: { server: "https://127.0.0.1:1", rejectUnauthorized: true, token: () => undefined },
    });
    try {
      const at = (path: string, init?: RequestInit) => fetch(unreachable.url + path, init);
      for (const path of ["/healthz", "/flags", "/flags/a", "/flags/a/value"]) {
        const response = await at(path);
        expect(response.status, path).toBe(503);
        expect(response.headers.get("retry-after")).toBe("1");
        expect(await response.json()).toEqual({ error: "flags not loaded from Kubernetes yet" });
      }
      expect((await at("/ofrep/v1/evaluate/flags/a", { method: "POST", body: "{}" })).status).toBe(503);
      const stream = await openStream(unreachable.url);
      expect(stream.response.statusCode).toBe(200);
      expect(stream.response.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
      stream.close();

      const post = await at("/flags", { method: "POST" });
      expect(post.status).toBe(405);
      expect(post.headers.get("allow")).toBe("GET");
      expect((await at("/ofrep/v1/evaluate/flags/a")).status).toBe(405);
      expect(await (await at("/nope")).json()).toEqual({ error: "not found" });
      expect((await at("/flags/stream", { method: "HEAD" })).status).toBe(200);
      expect(unreachable.stats.kubernetesConnected).toBe(false);
    } finally {
      await unreachable.close();
    }
  });
});

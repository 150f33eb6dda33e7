// Slow, oversized and unfinished requests on the real sidecar, and shutdown with every kind of connection open. The timeouts are shortened so that a
// slow client is judged in seconds instead of the production 10 s and 30 s.
import { installCrds } from "@svc/kube";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { runSidecar, type RunningSidecar, type SidecarOptions } from "../src/index.ts";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { flagWriter } from "./support/flags-api.ts";
import { rawConnection, type RawConnection } from "./support/raw-client.ts";
import { openStream, poll } from "./support/sse-client.ts";

const kc = testKubeConfig();
let options: SidecarOptions;
let sidecar: RunningSidecar;

const GET_VALUE = "GET /flags/slow/value HTTP/1.1\r\nHost: x\r\n\r\n";

/** Waits (bounded) until the server has closed the connection. */
const serverCloses = (connection: RawConnection, what: string) =>
  eventually(poll(connection.closed), (closed) => closed, what, 20_000);

beforeAll(async () => {
  await installCrds(kc);
  const namespace = await testNamespace(kc, "sidecar-conn");
  await flagWriter(kc, namespace).create("slow", "string", "yes");
  options = {
    namespace,
    port: 0,
    host: "127.0.0.1",
    remoteReads: false,
    kubeconfigPath: inject("kubeconfigPath"),
    heartbeatMs: 1000,
    logLevel: "silent",
    log: pino({ level: "silent" }),
    // Long enough for the byte-by-byte request below on a loaded machine, short for a test.
    httpTimeouts: { headersTimeoutMs: 2000, requestTimeoutMs: 3000, timeoutCheckIntervalMs: 100 },
  };
  sidecar = await runSidecar(options);
  await sidecar.ready;
  await eventually(
    () => fetch(`${sidecar.url}/flags/slow/value`).then((r) => r.status),
    (status) => status === 200,
    "the flag",
  );
});

afterAll(async () => {
  await sidecar.close();
});

describe("slow clients", () => {
  it("answers a request head sent one byte at a time 408 and closes, as node:http does", async () => {
    const slow = await rawConnection(sidecar.port);
    // 60 bytes at 100 ms: 6 s, past the 2 s headers timeout (the loop stops once closed).
    await slow.trickle("GET /flags/slow/value HTTP/1.1\r\nHost: x\r\nUser-Agent: slowloris\r\n\r\n", 1, 100);
    await serverCloses(slow, "the slow connection to be closed");
    expect(slow.statuses()).toEqual([408]);
  });

  it("answers a body sent one byte at a time 408 and closes", async () => {
    const slow = await rawConnection(sidecar.port);
    const body = JSON.stringify({ context: { targetingKey: "user-1", plan: "enterprise", region: "eu" } });
    await slow.send(
      `POST /ofrep/v1/evaluate/flags/slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    // 71 bytes at 100 ms: 7 s, past the 3 s request timeout (the loop stops once closed).
    await slow.trickle(body, 1, 100);
    await serverCloses(slow, "the slow connection to be closed");
    expect(slow.statuses()).toEqual([408]);
  });

  it("closes a connection that never sends a byte with a 408, as node:http does", async () => {
    const silent = await rawConnection(sidecar.port);
    await serverCloses(silent, "the silent connection to be closed");
    expect(silent.statuses()).toEqual([408]);
  });

  it("answers a request whose bytes arrive in separate packets, one byte each", async () => {
    const split = await rawConnection(sidecar.port);
    await split.trickle(GET_VALUE, 1, 5);
    await eventually(poll(split.statuses), (s) => s.length === 1, "the answer");
    expect(split.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n.*\r\n\r\nyes$/s);
    // The connection stays usable: the next request, whole, gets its answer too.
    await split.send(GET_VALUE);
    await eventually(poll(split.statuses), (s) => s.length === 2, "the second answer");
    expect(split.statuses()).toEqual([200, 200]);
    split.socket.destroy();
  });
});

describe("header limits", () => {
  const cases = {
    "2,000 headers": "Host: x\r\n" + Array.from({ length: 2000 }, (_, i) => `X-H${i}: v\r\n`).join(""),
    "one 60 KB header": `Host: x\r\nX-Big: ${"v".repeat(60_000)}\r\n`,
  };
  for (const [name, headers] of Object.entries(cases)) {
    it(`answers a read with ${name} 431, as node:http does`, async () => {
      const client = await rawConnection(sidecar.port);
      await client.send(`GET /flags/slow/value HTTP/1.1\r\n${headers}\r\n`);
      await eventually(poll(client.statuses), (s) => s.length > 0, "the answer");
      expect(client.statuses()).toEqual([431]);
      client.socket.destroy();
    });
  }
});

describe("OFREP request bodies", () => {
  const evaluate = async (path: string, body: string) => {
    const response = await fetch(`${sidecar.url}/ofrep/v1/evaluate/flags${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body,
    });
    return { status: response.status, body: await response.json() };
  };

  it("answers a body that is not a JSON evaluation request 400 in OFREP's error shape", async () => {
    expect(await evaluate("/slow", "{not json")).toEqual({
      status: 400,
      body: { key: "slow", errorCode: "INVALID_CONTEXT", errorDetails: "the request body is not JSON" },
    });
    expect(await evaluate("", "{not json")).toEqual({
      status: 400,
      body: { errorCode: "INVALID_CONTEXT", errorDetails: "the request body is not JSON" },
    });
    expect(await evaluate("/slow", "[]")).toMatchObject({
      status: 400,
      body: { errorCode: "INVALID_CONTEXT" },
    });
    expect(await evaluate("/slow", '{"context": "user-1"}')).toEqual({
      status: 400,
      body: { key: "slow", errorCode: "INVALID_CONTEXT", errorDetails: "context must be a JSON object" },
    });
    expect(await evaluate("/slow", "x".repeat(70_000))).toMatchObject({
      status: 413,
      body: { errorCode: "GENERAL" },
    });
  });

  it("evaluates a JSON object body, and an empty body as no context", async () => {
    const success = {
      status: 200,
      body: { key: "slow", reason: "STATIC", value: "yes", variant: "default", metadata: {} },
    };
    expect(await evaluate("/slow", '{"context": {"targetingKey": "u"}}')).toEqual(success);
    expect(await evaluate("/slow", "{}")).toEqual(success);
    expect(await evaluate("/slow", "")).toEqual(success);
  });
});

describe("metrics", () => {
  const valueReads = async () => {
    const text = await (await fetch(`${sidecar.url}/metrics`)).text();
    return Number(/^svc_sidecar_http_requests_total\{route="value"\} (\d+)$/m.exec(text)?.[1]);
  };

  it("counts a read once when it arrives in one packet with a stream request", async () => {
    const before = await valueReads();
    const client = await rawConnection(sidecar.port);
    await client.send(`${GET_VALUE}GET /flags/stream HTTP/1.1\r\nHost: x\r\n\r\n`);
    await eventually(poll(client.statuses), (s) => s.length === 2, "both answers");
    client.socket.destroy();
    expect(await valueReads()).toBe(before + 1);
  });
});

describe("shutdown", () => {
  it("ends every connection promptly: streams, idle keep-alives after a GET and a POST, half-sent requests", async () => {
    const closing = await runSidecar(options);
    await closing.ready;
    const afterGet = await rawConnection(closing.port);
    await afterGet.send(GET_VALUE);
    const afterPost = await rawConnection(closing.port);
    await afterPost.send(
      "POST /ofrep/v1/evaluate/flags/slow HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
    );
    const halfHead = await rawConnection(closing.port);
    await halfHead.send("GET /flags HTTP/1.1\r\nHo");
    const halfBody = await rawConnection(closing.port);
    await halfBody.send(
      "POST /ofrep/v1/evaluate/flags/slow HTTP/1.1\r\nHost: x\r\nContent-Length: 20\r\n\r\n{",
    );
    const stream = await openStream(closing.url);
    await eventually(
      poll(() => [afterGet.statuses().length, afterPost.statuses().length, stream.events.length]),
      ([get, post, events]) => get === 1 && post === 1 && events === 1,
      "the answers",
    );

    const outcome = await Promise.race([
      closing.close().then(() => "closed"),
      new Promise((resolve) => setTimeout(resolve, 15_000, "still open after 15 s")),
    ]);
    expect(outcome).toBe("closed");
    for (const connection of [afterGet, afterPost, halfHead, halfBody]) {
      await serverCloses(connection, "every connection to be closed");
    }
    expect(stream.ended()).toBe(true);
  });
});

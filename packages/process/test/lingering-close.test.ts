// The lingering close's bounds, on real loopback connections to a node:http server: a client
// that keeps sending after its answer, or that sends nothing more, is cut off, so that the
// lingering cannot hold connections open or make a server read without end (docs/reliability.md).
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { LingerLimits } from "@svc/core/http/linger";
import { installLingeringClose } from "../src/lingering-close.ts";

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  server?.close();
  if (server !== undefined) await once(server, "close");
  server = undefined;
});

/** A server that refuses every request unread with a 404 and closes; its port. */
async function refusingServer(limits: LingerLimits): Promise<number> {
  server = createServer((_request, response) => {
    response.writeHead(404, { "content-type": "application/json", "content-length": 2, connection: "close" });
    response.end("{}");
  });
  installLingeringClose(server, limits);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

/**
 * Announces a body of `declaredBytes` and writes `sendBytes` of it in 64 KiB pieces, each after
 * the previous one left, reading all along; stops when the server closes. What it sent and read;
 * the connection stays open on the client's side.
 */
async function upload(port: number, declaredBytes: number, sendBytes: number) {
  // Half-open allowed: the server's FIN after its answer does not end the client's side.
  const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: true });
  let received = "";
  let closed = false;
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => (received += chunk));
  socket.on("error", () => undefined);
  const whenClosed = new Promise<void>((resolve) =>
    socket.once("close", () => {
      closed = true;
      resolve();
    }),
  );
  const isClosed = () => closed;
  await once(socket, "connect");
  socket.write(`POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: ${declaredBytes}\r\n\r\n`);
  const piece = Buffer.alloc(64 * 1024, "y");
  let sent = 0;
  while (sent < sendBytes && !isClosed()) {
    const written = await new Promise<boolean>((resolve) =>
      socket.write(piece, (error) => {
        resolve(!error);
      }),
    );
    if (!written) break;
    sent += piece.length;
  }
  return { sent, received: () => received, whenClosed, socket };
}

describe("installLingeringClose: a refused body is read after the answer, within bounds", () => {
  it("reads a body within the byte limit to its end: the client gets its answer", async () => {
    const port = await refusingServer({ maxBytes: 4 * 1024 * 1024, maxMs: 60_000 });
    const client = await upload(port, 1024 * 1024, 1024 * 1024);
    expect(client.sent).toBe(1024 * 1024);
    client.socket.end();
    await client.whenClosed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 404 /);
  });

  it("cuts off a client that keeps sending past the byte limit", async () => {
    const port = await refusingServer({ maxBytes: 256 * 1024, maxMs: 60_000 });
    const declared = 64 * 1024 * 1024;
    const client = await upload(port, declared, declared);
    await client.whenClosed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 404 /);
    // The server closed long before the 64 MiB were sent (kernel buffers take a few MiB).
    expect(client.sent).toBeLessThan(declared / 2);
  });

  it("cuts off a client trickling its body, once the time limit is up", async () => {
    const port = await refusingServer({ maxBytes: 4 * 1024 * 1024, maxMs: 200 });
    const client = await upload(port, 1024 * 1024, 64 * 1024);
    // A byte every 50 ms, far under the byte limit: only the time limit ends the connection (the
    // write after the server closed is reset).
    const trickle = setInterval(() => client.socket.write("y"), 50);
    await client.whenClosed;
    clearInterval(trickle);
    expect(client.received()).toMatch(/^HTTP\/1\.1 404 /);
  });
});

// A raw TCP client for the tests that must control the bytes and their timing on the wire
// (slow senders, split packets, oversized heads, pipelining), which an HTTP client cannot.
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface RawConnection {
  socket: Socket;
  /** Everything received so far, as latin1 text. */
  received: () => string;
  /** The status codes of the responses received so far, in order. */
  statuses: () => number[];
  /** Whether the server closed (or reset) the connection. */
  closed: () => boolean;
  /** Writes `text` and waits until it is handed to the kernel. */
  send: (text: string) => Promise<void>;
  /** Writes `text` in pieces of `size` bytes, each its own packet, `pauseMs` apart; stops early if the server closes. */
  trickle: (text: string, size: number, pauseMs: number) => Promise<void>;
}

export async function rawConnection(port: number): Promise<RawConnection> {
  const socket = connect(port, "127.0.0.1");
  // Each write leaves at once as its own packet (no Nagle coalescing).
  socket.setNoDelay(true);
  await once(socket, "connect");
  let text = "";
  let closed = false;
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => (text += chunk));
  socket.on("error", () => undefined);
  socket.on("close", () => (closed = true));
  const send = (bytes: string) =>
    new Promise<void>((resolve) => {
      if (closed || socket.destroyed) resolve();
      else
        socket.write(bytes, "latin1", () => {
          resolve();
        });
    });
  return {
    socket,
    received: () => text,
    statuses: () => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1])),
    closed: () => closed,
    send,
    trickle: async (bytes, size, pauseMs) => {
      for (let at = 0; at < bytes.length && !closed; at += size) {
        await send(bytes.slice(at, at + size));
        await sleep(pauseMs);
      }
    },
  };
}

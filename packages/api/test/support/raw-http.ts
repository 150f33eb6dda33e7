// HTTP/1.1 written by hand on a TCP socket: for the requests no well-behaved client sends
// (headers that never end, a body sent a byte at a time, oversized headers).
import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface RawExchange {
  /** Everything the server sent. */
  response: string;
  /** Whether the server closed the connection within the bound. */
  closedByServer: boolean;
}

/**
 * Sends `head` at once, then `drip` one byte every `dripMs` (or `later.text` after
 * `later.afterMs`) until the server closes the connection or `boundMs` passes (then the client
 * gives up and closes it).
 */
export async function rawExchange(
  url: string,
  head: string,
  options: {
    drip?: string;
    dripMs?: number;
    later?: { afterMs: number; text: string };
    boundMs?: number;
  } = {},
): Promise<RawExchange> {
  const { port, hostname } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  const chunks: Buffer[] = [];
  const state = { closed: false };
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.on("error", () => undefined);
  const ended = new Promise<void>((resolve) =>
    socket.on("close", () => {
      state.closed = true;
      resolve();
    }),
  );
  socket.write(head);
  const bound = sleep(options.boundMs ?? 10_000).then(() => undefined);
  const drip = (async () => {
    if (options.later !== undefined) {
      await sleep(options.later.afterMs);
      if (!state.closed) socket.write(options.later.text);
    }
    for (const byte of options.drip ?? "") {
      await sleep(options.dripMs ?? 100);
      if (state.closed) return;
      socket.write(byte);
    }
    await new Promise(() => undefined);
  })();
  await Promise.race([ended, bound, drip]);
  const closedByServer = state.closed;
  socket.destroy();
  return { response: Buffer.concat(chunks).toString("utf8"), closedByServer };
}

/** The status code and the JSON body of a raw response. */
export function parseRaw(response: string): { status: number; json: unknown; head: string } {
  const [head = "", body = ""] = response.split("\r\n\r\n");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status, json, head: head.toLowerCase() };
}
